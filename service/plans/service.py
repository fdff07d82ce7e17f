"""Making a plan for a caller: the prices in force (and which snapshots they are), stale-price warnings,
storage with where the plan came from. Shared by POST /v1/plans and POST /v1/profiles/{id}/plans."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from pricing.catalog import Catalog
from pricing.live import LiveCatalog, catalog_at
from service.core import metrics
from service.core.errors import Conflict
from service.labs.auth import Caller
from service.plans.repository import PlanOrigin, StoredPlan
from service.plans.staleness import with_stale_warnings
from solvers.plan import make_plan
from solvers.profile import Profile
from solvers.result import PlanResult


def prices_now(source: Callable[[], Catalog]) -> tuple[Catalog, dict[str, int] | None]:
    """The catalog and its snapshot ids; None when the catalog is not the live one (a fixed test catalog)."""
    if isinstance(source, LiveCatalog):
        return source.current()
    return source(), None


def plan_for(state: Any, caller: Caller, profile: Profile, now: dt.datetime, profile_id: str | None = None,
             profile_version: int | None = None) -> PlanResult:
    catalog, snapshots = prices_now(state.catalog)
    result = with_stale_warnings(make_plan(profile, catalog, now.date()), state.engine, state.sources, now,
                                 dt.timedelta(days=state.settings.snapshot_max_age_days))
    metrics.observe_plan(result)
    stored: PlanResult = state.plans.save(caller, profile, result, now,
                                          PlanOrigin(profile_id, profile_version, snapshots))
    return stored


def recompute(state: Any, stored: StoredPlan) -> PlanResult:
    """The plan made again from its profile, on its day, at the prices that were in force then."""
    if stored.prices_in_force is None:
        raise Conflict("this plan was made without a record of its prices; it cannot be recomputed")
    catalog = catalog_at(state.engine, state.base_catalog, stored.prices_in_force)
    result = make_plan(Profile.model_validate(stored.profile), catalog, stored.created_at.date())
    original = PlanResult.model_validate(stored.result)
    return result.model_copy(update={"profile_id": original.profile_id, "profile_version": original.profile_version,
                                     "prices_in_force": stored.prices_in_force})
