"""Plans: make one, read it again, list them, export it (CSV, purchase request, chart), recompute it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request, Response

from service.core.clock import utcnow
from service.core.dependencies import CallerDep, EngineDep, RuntimeDep
from service.core.errors import PROBLEM_JSON, Conflict, InvalidField
from service.core.json_body import DeferredBodyRoute, JsonBody, checked, deferred
from service.core.openapi import CSV_RESPONSE, problem_response
from service.core.pagination import DEFAULT_LIMIT, Cursor, Limit, Page
from service.plans import repository
from service.plans.compare import MAX_PLANS, MIN_PLANS, PlanComparison, compare
from service.plans.examples import (
    CATALOG_EXAMPLE,
    FINANCE_EXAMPLE,
    PLACE_EXAMPLE,
    SERIES_EXAMPLE,
    WORKED_EXAMPLE,
    WORKLOAD_EXAMPLE,
)
from service.plans.exports import (
    DEFAULT_DEPRECIATION_YEARS,
    DepreciationMethod,
    depreciation,
    plan_csv,
    purchase_request,
)
from service.plans.replay import replay_of
from service.plans.risk_export import risk_csv
from service.plans.schemas import PlanListItem, PurchaseRequest
from service.plans.sensitivity import sensitivity_of
from service.plans.service import created, plan_for, recompute, request_key
from service.plans.whatif import WhatIf, what_if
from service.profiles.repository import get_profile
from service.web.chart_http import SVG_MEDIA_TYPE, SVG_RESPONSE, ChartLang, ChartSize
from service.web.plan_chart import comparison_chart_svg, plan_chart_svg
from service.web.replay_chart import replay_chart_svg
from service.web.sensitivity_chart import sensitivity_chart_svg
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.replan.replay_answer import PlanReplay
from solvers.replan.sensitivity import Sensitivity

router = APIRouter(prefix="/v1/plans", tags=["plans"], route_class=DeferredBodyRoute)

_EXAMPLES: dict[str, Any] = {
    "worked_example": {"summary": "The guide's worked example (break-even ~293 days)", "value": WORKED_EXAMPLE},
    "catalog": {"summary": "15% of one RTX 3090, bundled prices", "value": CATALOG_EXAMPLE},
    "series": {"summary": "Deadline bursts in March and November", "value": SERIES_EXAMPLE},
    "workload": {"summary": "The workload form: fine-tune a 13B model with LoRA on 2B tokens a month",
                 "value": WORKLOAD_EXAMPLE},
    "place": {"summary": "In euros: electricity and carbon of Germany, VAT, carbon price", "value": PLACE_EXAMPLE},
    "finance": {"summary": "Reserve, finance, discount at 8%, rack and support costs (issue 16)",
                "value": FINANCE_EXAMPLE},
}


def _problem(description: str) -> dict[str, Any]:
    return {"description": description, "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}}


# the bounds every plan request meets (service/core/plan_pool.py, body_limit.py), stated in OpenAPI
BOUNDED: dict[int | str, dict[str, Any]] = {
    413: _problem("The body is larger than `GPUPLAN_MAX_BODY_BYTES` (default 4 MiB)."),
    422: _problem("Invalid profile, or rule `plan_time_budget`: not solved within `GPUPLAN_PLAN_TIME_BUDGET_S` "
                  "(default 30 s)."),
    429: _problem("More than `GPUPLAN_PLAN_CONCURRENCY_PER_CALLER` (default 8) plans in flight for this API key (or "
                  "client address), or the key's rate limit; `Retry-After` says when to retry."),
    503: _problem("This replica's planner is full (`GPUPLAN_PLAN_WORKERS` + `GPUPLAN_PLAN_QUEUE` plans in flight) or "
                  "a worker stopped; `Retry-After` says when to retry. Never a silent wait."),
}


# the body as its bytes, validated where it is solved (service/core/json_body.py); OpenAPI shows it as `Profile`
ProfileBody = Annotated[JsonBody, deferred(Profile), Body(openapi_examples=_EXAMPLES)]


@router.post("", operation_id="create_plan", status_code=201, response_model=PlanResult, responses=BOUNDED)
def create_plan(runtime: RuntimeDep, request: Request, caller: CallerDep, profile: ProfileBody) -> Response:
    """Plan the cheapest mix of owned GPUs and cloud hours for a workload profile.

    Bounded (user guide, docs/api.md, "Bounds on every plan request"): a body above `GPUPLAN_MAX_BODY_BYTES` is a
    413; when the replica's planner queue is full the answer is 503 with `Retry-After`; more than
    `GPUPLAN_PLAN_CONCURRENCY_PER_CALLER` plans in flight for one key (or address) is a 429; a plan not solved
    within `GPUPLAN_PLAN_TIME_BUDGET_S` is a 422 with rule `plan_time_budget` (the solver's own limit first yields a
    `time_limited` plan with its gap)."""
    address = request.client.host if request.client else None
    return created(plan_for(runtime, caller, profile, utcnow(), client_address=address))


@router.post("/what-if", operation_id="plan_what_if", response_model=PlanResult, responses=BOUNDED)
def plan_what_if(runtime: RuntimeDep, request: Request, caller: CallerDep,
                 asked: Annotated[JsonBody, deferred(WhatIf), Body()]) -> PlanResult:
    """A plan for a profile (and a scale on every cloud price) at the prices in force, not stored: what the
    page's sliders ask as they move. `id` is null. Bounded as POST /v1/plans is."""
    key = request_key(caller, request)
    return what_if(runtime, key, checked(asked, WhatIf, runtime.plan_pool, key), utcnow())


@router.get("", operation_id="list_plans", response_model=Page[PlanListItem])
def list_plans(engine: EngineDep, caller: CallerDep, profile_id: str | None = None, limit: Limit = DEFAULT_LIMIT,
               cursor: Cursor = None) -> Page[PlanListItem]:
    """The caller's plans, newest first; `profile_id` keeps those made from one saved profile."""
    return repository.list_plans(engine, caller, limit, cursor, profile_id)


CompareIds = Annotated[str, Query(max_length=MAX_PLANS * 40 + MAX_PLANS, description=(
    f"{MIN_PLANS} to {MAX_PLANS} plan ids separated by commas, in the order to show them"))]


def _compared_ids(ids: str) -> list[str]:
    wanted = [part.strip() for part in ids.split(",") if part.strip()]
    if len(wanted) != len(set(wanted)):
        raise InvalidField("ids", "unique", "each plan id may appear once")
    if not MIN_PLANS <= len(wanted) <= MAX_PLANS:
        raise InvalidField("ids", "item_count", f"give {MIN_PLANS} to {MAX_PLANS} plan ids separated by commas")
    return wanted


def _stored_plans(engine: EngineDep, caller: CallerDep, ids: str) -> list[repository.StoredPlan]:
    """Each plan within the caller's lab: an id it cannot see is a 404, as for a single plan."""
    return [repository.get_plan(engine, caller, plan_id) for plan_id in _compared_ids(ids)]


@router.get("/compare", operation_id="compare_plans", response_model=PlanComparison)
def compare_plans(engine: EngineDep, caller: CallerDep, ids: CompareIds) -> PlanComparison:
    """Plans side by side: the inputs that differ, purchases, costs and break-even of each."""
    stored = _stored_plans(engine, caller, ids)
    return compare([PlanResult.model_validate(s.result) for s in stored], [s.profile for s in stored])


@router.get("/compare.svg", operation_id="get_comparison_chart",
            response_class=Response, responses=SVG_RESPONSE, tags=["charts"])
def compare_chart(engine: EngineDep, caller: CallerDep, ids: CompareIds, lang: ChartLang = None) -> Response:
    """The cumulative cost of each compared plan on one chart, break-even days marked; lines are named by the
    plans' order in `ids` (Plan 1, Plan 2, ...)."""
    plans = [PlanResult.model_validate(s.result) for s in _stored_plans(engine, caller, ids)]
    svg = comparison_chart_svg(plans, lang=lang)
    return Response(svg, media_type=SVG_MEDIA_TYPE, headers={"Cache-Control": "private, max-age=86400"})


@router.get("/{plan_id}.csv", operation_id="get_plan_csv", response_class=Response, responses=CSV_RESPONSE)
def plan_as_csv(engine: EngineDep, caller: CallerDep, plan_id: str) -> Response:
    """One line item per purchase, host and cloud commitment, plus expected electricity and resale credit;
    `line_total` adds up to the plan's `total_cost_usd`."""
    plan = PlanResult.model_validate(repository.get_plan(engine, caller, plan_id).result)
    return Response(plan_csv(plan), media_type="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="gpuplan-{plan_id}.csv"'})


@router.get("/{plan_id}/risk.csv", operation_id="get_plan_risk_csv", response_class=Response,
            responses={**CSV_RESPONSE, 409: problem_response("The plan was made without `uncertainty`: it has no risk "
                                                             "figures")})
def plan_risk_as_csv(engine: EngineDep, caller: CallerDep, plan_id: str) -> Response:
    """The plan's risk figures (a plan made with `uncertainty`): the summary measures of the plan and of cloud only,
    then each future's totals with its weight. 409 for a plan made without `uncertainty` (the plan exists; its state
    has no such figures: 404 would say the plan is not there)."""
    plan = PlanResult.model_validate(repository.get_plan(engine, caller, plan_id).result)
    if plan.risk is None:
        raise Conflict(f"plan {plan_id!r} was made without uncertainty, so it has no risk figures: plan the profile "
                       "with `uncertainty` to have them")
    return Response(risk_csv(plan.risk, plan.currency), media_type="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="gpuplan-{plan_id}-risk.csv"'})


@router.get("/{plan_id}/purchase-request", operation_id="get_purchase_request", response_model=PurchaseRequest)
def plan_purchase_request(
    engine: EngineDep, caller: CallerDep, plan_id: str,
    depreciation_method: Annotated[DepreciationMethod, Query(
        description="straight_line (default) or declining_balance")] = "straight_line",
    depreciation_years: Annotated[int, Query(ge=1, le=50, description=(
        "years written off; default 5 (IRS Publication 946: computers are 5-year MACRS property)"))]
        = DEFAULT_DEPRECIATION_YEARS,
    declining_rate: Annotated[float | None, Query(gt=0, le=1, description=(
        "declining balance: share of the book value a year; default 2 / years (double-declining)"))] = None,
    salvage_usd: Annotated[float, Query(ge=0, le=1e12, description="book value left at the end; default 0")] = 0.0,
) -> dict[str, Any]:
    """A purchase request: line items, the justification in plain sentences, the alternatives and their costs,
    and the purchases' depreciation schedule (straight line or declining balance, per year, book value)."""
    plan = PlanResult.model_validate(repository.get_plan(engine, caller, plan_id).result)
    profile = get_profile(engine, caller, plan.profile_id) if plan.profile_id else None
    schedule = depreciation(plan, depreciation_method, depreciation_years, declining_rate, salvage_usd)
    return purchase_request(plan, profile.name if profile else None, schedule)


@router.post("/{plan_id}/recompute", operation_id="recompute_plan", response_model=PlanResult, responses=BOUNDED)
def recompute_plan(runtime: RuntimeDep, request: Request, caller: CallerDep, plan_id: str) -> PlanResult:
    """Make the plan again from its profile at the prices it recorded (`prices_in_force`), on its day: the
    answer matches the stored plan unless the planner itself changed since. The answer is kept with the plan for
    this planner (a second recompute reads it); no new plan is stored. Bounded as POST /v1/plans is."""
    return recompute(runtime, plan_id, repository.get_plan(runtime.engine, caller, plan_id),
                     request_key(caller, request))


@router.get("/{plan_id}/chart.svg", operation_id="get_plan_chart",
            response_class=Response, responses=SVG_RESPONSE, tags=["charts"])
def plan_chart(engine: EngineDep, caller: CallerDep, plan_id: str, size: ChartSize = "wide",
               lang: ChartLang = None) -> Response:
    """Cumulative cost of the plan, cloud only and buy only over the horizon; the break-even day is marked."""
    found = repository.get_plan(engine, caller, plan_id)
    svg = plan_chart_svg(PlanResult.model_validate(found.result), narrow=size == "narrow", lang=lang)
    # a stored plan never changes, so neither does its chart (private: it is one lab's)
    return Response(svg, media_type=SVG_MEDIA_TYPE, headers={"Cache-Control": "private, max-age=86400"})


@router.get("/{plan_id}/sensitivity", operation_id="get_plan_sensitivity",
            response_model=Sensitivity, responses=BOUNDED)
def plan_sensitivity(runtime: RuntimeDep, request: Request, caller: CallerDep, plan_id: str) -> Sensitivity:
    """Total cost and the decision with each input at the low and high end of a stated range (demand, electricity,
    cloud prices, hardware prices, resale, horizon), each end a new plan at the prices this plan used. The re-plans
    are one job of the plan pool, bounded as POST /v1/plans is (the answer is kept with the plan, so a second read,
    on any replica, is free)."""
    return sensitivity_of(runtime, request_key(caller, request), plan_id,
                          repository.get_plan(runtime.engine, caller, plan_id))


@router.get("/{plan_id}/sensitivity.svg", operation_id="get_plan_sensitivity_chart",
            response_class=Response, responses=SVG_RESPONSE | BOUNDED,
            tags=["charts"])
def plan_sensitivity_chart(runtime: RuntimeDep, request: Request, caller: CallerDep, plan_id: str,
                           size: ChartSize = "wide", lang: ChartLang = None) -> Response:
    """The sensitivity as a tornado chart: one bar per input from its low-end to its high-end total."""
    stored = repository.get_plan(runtime.engine, caller, plan_id)
    found = sensitivity_of(runtime, request_key(caller, request), plan_id, stored)
    return Response(sensitivity_chart_svg(found, PlanResult.model_validate(stored.result), lang,
                                          narrow=size == "narrow"),
                    media_type=SVG_MEDIA_TYPE,
                    headers={"Cache-Control": "private, max-age=86400"})


@router.get("/{plan_id}/replay", operation_id="get_plan_replay", response_model=PlanReplay,
            responses=BOUNDED)
def plan_replay(runtime: RuntimeDep, request: Request, caller: CallerDep, plan_id: str,
                hours: Annotated[bool, Query(description="include the hour-by-hour table (false: the totals only)")]
                = True) -> PlanReplay:
    """The plan's purchase run hour by hour against the profile's demand by a replay written apart from the planning
    model: its cost beside the model's, the model's approximations on this plan with their bounds, and per hour the
    demand and what owned and rented GPUs served (docs: "The replay"). One job of the plan pool, bounded as
    POST /v1/plans is; the answer is kept."""
    return replay_of(runtime, request_key(caller, request), plan_id,
                     repository.get_plan(runtime.engine, caller, plan_id), hours)


@router.get("/{plan_id}/replay.svg", operation_id="get_plan_replay_chart",
            response_class=Response, responses=SVG_RESPONSE | BOUNDED, tags=["charts"])
def plan_replay_chart(runtime: RuntimeDep, request: Request, caller: CallerDep, plan_id: str,
                      size: ChartSize = "wide", lang: ChartLang = None) -> Response:
    """The replay as a chart: the demand and what owned and rented GPUs served, hour by hour (day by day beyond
    two weeks), and the work queued."""
    stored = repository.get_plan(runtime.engine, caller, plan_id)
    found = replay_of(runtime, request_key(caller, request), plan_id, stored)
    return Response(replay_chart_svg(found, PlanResult.model_validate(stored.result), narrow=size == "narrow",
                                     lang=lang),
                    media_type=SVG_MEDIA_TYPE, headers={"Cache-Control": "private, max-age=86400"})


@router.get("/{plan_id}/profile", operation_id="get_plan_profile", response_model=Profile)
def plan_profile(engine: EngineDep, caller: CallerDep, plan_id: str) -> dict[str, Any]:
    """The profile this plan was made from, as it was sent: the page fills its form with it (`/?plan=<id>`)."""
    return repository.get_plan(engine, caller, plan_id).profile


@router.get("/{plan_id}", operation_id="get_plan", response_model=PlanResult)
def get_plan(engine: EngineDep, caller: CallerDep, plan_id: str) -> dict[str, Any]:
    """A plan made earlier, exactly as it was returned."""
    return repository.get_plan(engine, caller, plan_id).result
