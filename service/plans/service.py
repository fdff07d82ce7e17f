"""Making a plan for a caller: the prices in force (and which snapshots they are), stale-price warnings,
storage with where the plan came from. Shared by POST /v1/plans and POST /v1/profiles/{id}/plans."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from pricing.catalog import Catalog
from pricing.live import LiveCatalog, catalog_at
from service.core import metrics
from service.core.catalog_shipping import make_plan_shipped, ship
from service.core.dependencies import Runtime
from service.core.errors import Conflict
from service.labs.auth import Caller
from service.plans.repository import PlanOrigin, StoredPlan, save_plan
from service.plans.staleness import with_stale_warnings
from solvers.plan import make_plan
from solvers.profile import Profile
from solvers.result import PlanResult


def prices_now(source: Callable[[], Catalog]) -> tuple[Catalog, dict[str, int] | None]:
    """The catalog and its snapshot ids; None when the catalog is not the live one (a fixed test catalog)."""
    if isinstance(source, LiveCatalog):
        return source.current()
    return source(), None


def admission_key(caller: Caller, client_address: str | None) -> str:
    """Whose plans count together against the per-caller bound: the API key, else the client's address."""
    return f"key:{caller.key_id}" if caller.key_id else f"address:{client_address or 'unknown'}"


def plan_for(runtime: Runtime, caller: Caller, profile: Profile, now: dt.datetime, profile_id: str | None = None,
             profile_version: int | None = None, client_address: str | None = None) -> PlanResult:
    """Solved in the plan pool (a worker process, or inline), within its bounds; stored here."""
    catalog, snapshots = prices_now(runtime.catalog)
    key = admission_key(caller, client_address)
    if runtime.plan_pool.mode == "process":  # the catalog in force crosses to the workers once, not per plan
        solved = runtime.plan_pool.run(key, make_plan_shipped, profile, ship(catalog), now.date())
    else:
        solved = runtime.plan_pool.run(key, make_plan, profile, catalog, now.date())
    result = with_stale_warnings(solved, runtime.engine, runtime.sources, now,
                                 dt.timedelta(days=runtime.settings.snapshot_max_age_days))
    metrics.observe_plan(result)
    return save_plan(runtime.engine, caller, profile, result, now, PlanOrigin(profile_id, profile_version, snapshots))


def recompute(runtime: Runtime, caller: Caller, stored: StoredPlan, client_address: str | None = None) -> PlanResult:
    """The plan made again from its profile, on its day, at the prices that were in force then."""
    if stored.prices_in_force is None:
        raise Conflict("this plan was made without a record of its prices; it cannot be recomputed")
    catalog = catalog_at(runtime.engine, runtime.base_catalog, stored.prices_in_force)
    result = runtime.plan_pool.run(admission_key(caller, client_address), make_plan,
                                   Profile.model_validate(stored.profile), catalog, stored.created_at.date())
    original = PlanResult.model_validate(stored.result)
    return result.model_copy(update={"profile_id": original.profile_id, "profile_version": original.profile_version,
                                     "prices_in_force": stored.prices_in_force})
