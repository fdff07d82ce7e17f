"""POST /v1/plans and GET /v1/plans/{id}."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request, Response

from service.clock import utcnow
from service.examples import CATALOG_EXAMPLE, SERIES_EXAMPLE, WORKED_EXAMPLE
from service.staleness import with_stale_warnings
from solvers.plan import make_plan
from solvers.profile import Profile
from solvers.result import PlanResult

router = APIRouter(prefix="/v1/plans", tags=["plans"])

_EXAMPLES: dict[str, Any] = {
    "worked_example": {"summary": "The guide's worked example (break-even ~293 days)", "value": WORKED_EXAMPLE},
    "catalog": {"summary": "15% of one RTX 3090, bundled prices", "value": CATALOG_EXAMPLE},
    "series": {"summary": "Deadline bursts in March and November", "value": SERIES_EXAMPLE},
}


@router.post("", status_code=201, response_model=PlanResult)
def create_plan(request: Request, response: Response,
                profile: Annotated[Profile, Body(openapi_examples=_EXAMPLES)]) -> PlanResult:
    """Plan the cheapest mix of owned GPUs and cloud hours for a workload profile."""
    now = utcnow()
    state = request.app.state
    result = with_stale_warnings(make_plan(profile, state.catalog(), now.date()), state.engine, state.sources, now,
                                 dt.timedelta(days=state.settings.snapshot_max_age_days))
    stored: PlanResult = request.app.state.plans.save(profile, result, now)
    response.headers["Location"] = f"/v1/plans/{stored.id}"
    return stored


@router.get("/{plan_id}", response_model=PlanResult)
def get_plan(request: Request, plan_id: str) -> dict[str, Any]:
    """A plan made earlier, exactly as it was returned."""
    found: dict[str, Any] | None = request.app.state.plans.get(plan_id)
    if found is None:
        raise HTTPException(404, f"no plan with id {plan_id!r}")
    return found
