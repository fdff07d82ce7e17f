"""GET /v1/plans/{id}/chart.svg and GET /v1/prices/history.svg: the charts as SVG for pages, documents and e-mails."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response

from pricing.history import price_history
from service import charts
from service.auth.caller import CallerDep
from service.clock import utcnow
from service.problems import problem
from service.routes.plans import stored_plan
from solvers.result import PlanResult

router = APIRouter(prefix="/v1", tags=["charts"])
Size = Annotated[Literal["wide", "narrow"], Query(description="`narrow` for a phone-width column")]
_SVG: dict[int | str, dict[str, Any]] = {200: {"content": {charts.SVG_MEDIA_TYPE: {}}, "description": "an SVG image"}}


@router.get("/plans/{plan_id}/chart.svg", response_class=Response, responses=_SVG)
def plan_chart(request: Request, caller: CallerDep, plan_id: str, size: Size = "wide") -> Response:
    """Cumulative cost of the plan, cloud only and buy only over the horizon; the break-even day is marked."""
    found = stored_plan(request, caller, plan_id)
    svg = charts.plan_chart_svg(PlanResult.model_validate(found.result), narrow=size == "narrow")
    # a stored plan never changes, so neither does its chart (private: it is one lab's)
    return Response(svg, media_type=charts.SVG_MEDIA_TYPE, headers={"Cache-Control": "private, max-age=86400"})


@router.get("/prices/history.svg", response_class=Response, responses=_SVG)
def price_history_chart(
    request: Request,
    gpu: Annotated[str, Query(description="GPU model, any known spelling (e.g. `H100 SXM`)")],
    size: Size = "wide",
) -> Response:
    """The cheapest cloud price per GPU-hour and hardware price per GPU over time (bundled snapshot, then refreshes)."""
    name = request.app.state.base_catalog.gpus.canonical(gpu)
    if name is None:
        message = f"unknown GPU {gpu!r}; see GET /v1/gpus for the names and aliases known"
        return problem(422, "Invalid request", f"gpu: {message}",
                       errors=[{"field": "gpu", "rule": "known_gpu", "message": message}])
    table = price_history(request.app.state.engine, request.app.state.base_catalog, name)
    svg = charts.price_history_svg(name, table, until=utcnow(), narrow=size == "narrow")
    return Response(svg, media_type=charts.SVG_MEDIA_TYPE, headers={"Cache-Control": "no-cache"})
