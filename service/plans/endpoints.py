"""Plans: make one, read it again, list them, export it (CSV, purchase request, chart), recompute it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request, Response

from service.core.clock import utcnow
from service.core.pagination import DEFAULT_LIMIT, Limit, Page
from service.labs.auth import Caller, CallerDep
from service.plans.examples import CATALOG_EXAMPLE, SERIES_EXAMPLE, WORKED_EXAMPLE
from service.plans.exports import plan_csv, purchase_request
from service.plans.repository import PlanListItem, StoredPlan
from service.plans.service import plan_for, recompute
from service.profiles.repository import get_profile
from service.web import charts
from service.web.charts import SVG_RESPONSE, ChartSize
from solvers.profile import Profile
from solvers.result import PlanResult

router = APIRouter(prefix="/v1/plans", tags=["plans"])

_EXAMPLES: dict[str, Any] = {
    "worked_example": {"summary": "The guide's worked example (break-even ~293 days)", "value": WORKED_EXAMPLE},
    "catalog": {"summary": "15% of one RTX 3090, bundled prices", "value": CATALOG_EXAMPLE},
    "series": {"summary": "Deadline bursts in March and November", "value": SERIES_EXAMPLE},
}


def stored_plan(request: Request, caller: Caller, plan_id: str) -> StoredPlan:
    found: StoredPlan | None = request.app.state.plans.get(caller, plan_id)
    if found is None:
        raise HTTPException(404, f"no plan with id {plan_id!r}")
    return found


@router.post("", status_code=201, response_model=PlanResult)
def create_plan(request: Request, response: Response, caller: CallerDep,
                profile: Annotated[Profile, Body(openapi_examples=_EXAMPLES)]) -> PlanResult:
    """Plan the cheapest mix of owned GPUs and cloud hours for a workload profile."""
    stored = plan_for(request.app.state, caller, profile, utcnow())
    response.headers["Location"] = f"/v1/plans/{stored.id}"
    return stored


@router.get("", response_model=Page[PlanListItem])
def list_plans(request: Request, caller: CallerDep, profile_id: str | None = None, limit: Limit = DEFAULT_LIMIT,
               cursor: str | None = None) -> Page[PlanListItem]:
    """The caller's plans, newest first; `profile_id` keeps those made from one saved profile."""
    listed: Page[PlanListItem] = request.app.state.plans.list(caller, limit, cursor, profile_id)
    return listed


@router.get("/{plan_id}.csv", response_class=Response, responses={200: {"content": {"text/csv": {}}}})
def plan_as_csv(request: Request, caller: CallerDep, plan_id: str) -> Response:
    """One line item per purchase, host and cloud commitment, plus expected electricity and resale credit;
    `line_total` adds up to the plan's `total_cost_usd`."""
    plan = PlanResult.model_validate(stored_plan(request, caller, plan_id).result)
    return Response(plan_csv(plan), media_type="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="gpuplan-{plan_id}.csv"'})


@router.get("/{plan_id}/purchase-request")
def plan_purchase_request(request: Request, caller: CallerDep, plan_id: str) -> dict[str, Any]:
    """A purchase request: line items, the justification in plain sentences, the alternatives and their costs."""
    plan = PlanResult.model_validate(stored_plan(request, caller, plan_id).result)
    profile = get_profile(request.app.state.engine, caller, plan.profile_id) if plan.profile_id else None
    return purchase_request(plan, profile.name if profile else None)


@router.post("/{plan_id}/recompute", response_model=PlanResult)
def recompute_plan(request: Request, caller: CallerDep, plan_id: str) -> PlanResult:
    """Make the plan again from its profile at the prices it recorded (`prices_in_force`), on its day: the
    answer matches the stored plan unless the planner itself changed since. Nothing is stored."""
    return recompute(request.app.state, stored_plan(request, caller, plan_id))


@router.get("/{plan_id}/chart.svg", response_class=Response, responses=SVG_RESPONSE, tags=["charts"])
def plan_chart(request: Request, caller: CallerDep, plan_id: str, size: ChartSize = "wide") -> Response:
    """Cumulative cost of the plan, cloud only and buy only over the horizon; the break-even day is marked."""
    found = stored_plan(request, caller, plan_id)
    svg = charts.plan_chart_svg(PlanResult.model_validate(found.result), narrow=size == "narrow")
    # a stored plan never changes, so neither does its chart (private: it is one lab's)
    return Response(svg, media_type=charts.SVG_MEDIA_TYPE, headers={"Cache-Control": "private, max-age=86400"})


@router.get("/{plan_id}", response_model=PlanResult)
def get_plan(request: Request, caller: CallerDep, plan_id: str) -> dict[str, Any]:
    """A plan made earlier, exactly as it was returned."""
    return stored_plan(request, caller, plan_id).result
