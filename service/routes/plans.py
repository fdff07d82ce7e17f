"""POST /v1/plans and GET /v1/plans/{id}."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from fastapi import APIRouter, Body, HTTPException, Request, Response

from pricing.freshness import source_states
from service.clock import utcnow
from service.examples import CATALOG_EXAMPLE, SERIES_EXAMPLE, WORKED_EXAMPLE
from service.staleness import stale_price_warnings
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
    result = make_plan(profile, request.app.state.catalog(), now.date())
    state = request.app.state
    states = source_states(state.engine, state.sources, now)
    max_age = dt.timedelta(days=state.settings.snapshot_max_age_days)
    extra = stale_price_warnings(result.prices_as_of, states, now.date(), max_age)
    if extra:
        result = result.model_copy(update={"warnings": [*result.warnings, *extra]})
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
