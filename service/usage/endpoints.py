"""Usage logs on a saved profile: import one as the profile's demand (a new version), and chart it."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

import numpy as np
from fastapi import APIRouter, Body, Request, Response
from pydantic import ValidationError

from service.core.dependencies import CallerDep, CatalogDep, EngineDep, RuntimeDep
from service.core.errors import PROBLEM_JSON, Conflict, InvalidField, found
from service.core.json_body import DeferredBodyRoute, JsonBody, checked, deferred
from service.plans.endpoints import BOUNDED
from service.plans.service import request_key
from service.profiles import repository
from service.profiles.endpoints import WHAT, new_version
from service.profiles.schemas import ProfileIn
from service.usage.chart import usage_chart_svg
from service.usage.schemas import UsageImportIn, UsageImportOut, UsageReadIn, UsageReadOut, UsageSummaryOut
from service.web.chart_http import SVG_MEDIA_TYPE, SVG_RESPONSE, ChartLang, ChartSize
from solvers.base.demand_forms import ConcurrencyDemand
from solvers.base.profile import Profile
from solvers.usage import UsageFormatError, UsageSeries, parse_usage, summarise

router = APIRouter(prefix="/v1/profiles", tags=["profiles"], route_class=DeferredBodyRoute)
# the same reading without a saved profile: what the planning page's file input asks; nothing is stored
unsaved_router = APIRouter(prefix="/v1/usage", tags=["usage"], route_class=DeferredBodyRoute)
_NO_HOURLY_DEMAND: dict[int | str, dict[str, Any]] = {409: {
    "description": "the profile's demand is not an hourly series (no usage log imported)",
    "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}}}


def _read(body: UsageImportIn) -> UsageSeries:
    """The log as a series, or a 422 naming where in the file (line or JSON path) and which of its fields."""
    until = None if body.until is None else (
        body.until.replace(tzinfo=dt.UTC) if body.until.tzinfo is None else body.until.astimezone(dt.UTC))
    try:
        return parse_usage(body.text, format=body.format, tz=body.tz,
                           busy_threshold=None if body.fractional else body.busy_threshold, until=until)
    except UsageFormatError as exc:
        in_file = exc.line is not None or exc.path is not None or exc.field not in ("tz", "format", "until")
        raise InvalidField("text" if in_file else exc.field, "usage_log", exc.message) from exc


def _demand(series: UsageSeries, reference_gpu: str) -> ConcurrencyDemand:
    try:
        return ConcurrencyDemand(start=series.start, busy_gpus=[float(v) for v in series.busy_gpus],
                                 reference_gpu=reference_gpu)
    except ValidationError as exc:  # no busy hour at all, or a log longer than the longest horizon
        raise InvalidField("text", "usage_demand", exc.errors()[0]["msg"]) from exc


@router.post("/{profile_id}/usage", operation_id="import_profile_usage",
             response_model=UsageImportOut, responses=BOUNDED)
def import_usage(runtime: RuntimeDep, catalog: CatalogDep, request: Request, caller: CallerDep, profile_id: str,
                 raw: Annotated[JsonBody, deferred(UsageImportIn), Body()]) -> UsageImportOut:
    """Read a usage log (Slurm sacct, nvidia-smi CSV, DCGM through Prometheus) into GPUs busy per UTC hour and
    make it the profile's demand: a new version whose demand is that hourly series (hours the log does not cover
    count as idle; its notes say so) and whose horizon is the log's span. Answers the new version with its plan
    and the log's summary: peak, percentiles, load-duration curve per month, trend. A log that cannot be read is
    a 422 naming the line (or JSON path) and the field, and nothing stored changes. The new version's plan is
    solved in the plan pool, bounded as POST /v1/plans is."""
    body = checked(raw, UsageImportIn, runtime.plan_pool, request_key(caller, request))
    saved = found(repository.get_profile(runtime.engine, caller, profile_id), WHAT, profile_id)
    series = _read(body)
    current = Profile.model_validate(saved.profile)
    if current.demand is None:
        raise Conflict(f"profile {profile_id!r} is in the workload form, whose demand is derived from the job; a usage "
                       "log becomes the demand of a workload-class profile")
    demand = _demand(series, body.reference_gpu or current.demand.reference_gpu)
    profile = current.model_copy(update={"demand": demand, "horizon_months": None, "horizon_days": None})
    new = ProfileIn(name=saved.name, tags=list(saved.tags or []), profile=Profile.model_validate(profile.model_dump()))
    out = new_version(runtime, catalog, request, caller, profile_id, new)
    return UsageImportOut(profile=out, usage=UsageSummaryOut.of(series, summarise(series)))


@router.get("/{profile_id}/usage.svg", operation_id="get_profile_usage_chart",
            response_class=Response, responses=SVG_RESPONSE | _NO_HOURLY_DEMAND,
            tags=["charts"])
def usage_chart(engine: EngineDep, caller: CallerDep, profile_id: str, size: ChartSize = "wide",
                lang: ChartLang = None) -> Response:
    """Load-duration curves per month of the profile's hourly demand (an imported usage log); 409 when the
    profile's demand is not an hourly series."""
    saved = found(repository.get_profile(engine, caller, profile_id), WHAT, profile_id)
    demand = Profile.model_validate(saved.profile).demand
    if not isinstance(demand, ConcurrencyDemand):
        raise Conflict(f"profile {profile_id!r} has no hourly demand to chart; import a usage log first "
                       f"(POST /v1/profiles/{profile_id}/usage)")
    return _chart(demand, size, lang)


def _chart(demand: ConcurrencyDemand, size: ChartSize, lang: str | None) -> Response:
    busy = np.asarray(demand.busy_gpus, dtype=np.float64)
    series = UsageSeries(start=demand.start, busy_gpus=busy, source_format="profile",
                         observed=np.ones(busy.size, dtype=bool))
    svg = usage_chart_svg(summarise(series), narrow=size == "narrow", lang=lang)
    return Response(svg, media_type=SVG_MEDIA_TYPE, headers={"Cache-Control": "private, no-cache"})


@unsaved_router.post("", operation_id="read_usage", response_model=UsageReadOut)
def read_usage(runtime: RuntimeDep, request: Request, caller: CallerDep,
               raw: Annotated[JsonBody, deferred(UsageReadIn), Body()]) -> UsageReadOut:
    """Read a usage log into GPUs busy per UTC hour without storing anything: the `demand` to plan on (put it in
    a profile's `demand` and POST /v1/plans) and the log's summary. The planning page uses this so a log can be
    planned on before any profile is saved. Errors are those of the import: a 422 naming the line (or JSON
    path) and the field."""
    body = checked(raw, UsageReadIn, runtime.plan_pool, request_key(caller, request))
    series = _read(body)
    return UsageReadOut(demand=_demand(series, body.reference_gpu), usage=UsageSummaryOut.of(series, summarise(series)))


@unsaved_router.post("/chart.svg", operation_id="read_usage_chart",
                     response_class=Response, responses=SVG_RESPONSE, tags=["charts"])
def read_usage_chart(runtime: RuntimeDep, request: Request, caller: CallerDep,
                     demand: Annotated[JsonBody, deferred(ConcurrencyDemand), Body()], size: ChartSize = "wide",
                     lang: ChartLang = None) -> Response:
    """The load-duration curves per month of an hourly demand sent in the body (the `demand` POST /v1/usage
    answered), drawn as GET /v1/profiles/{id}/usage.svg draws a saved profile's."""
    return _chart(checked(demand, ConcurrencyDemand, runtime.plan_pool, request_key(caller, request)), size, lang)
