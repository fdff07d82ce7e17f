"""Making a plan for a caller: the prices in force (and which snapshots they are), stale-price warnings,
storage with where the plan came from. Shared by POST /v1/plans and POST /v1/profiles/{id}/plans."""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from collections.abc import Callable

from fastapi import Request, Response
from sqlalchemy import Engine

from pricing.catalog import Catalog
from pricing.freshness import SourceState, source_states
from pricing.live import LiveCatalog, catalog_at
from service.core import metrics
from service.core.clock import utcnow
from service.core.dependencies import Runtime
from service.core.errors import Conflict
from service.core.json_body import JsonBody
from service.labs.auth import Caller
from service.plans.repository import PlanOrigin, StoredPlan, save_plan
from service.plans.staleness import stale_price_warnings
from service.plans.views import derived
from solvers.base.notices import texts
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.plan import make_plan


def prices_now(source: Callable[[], Catalog]) -> tuple[Catalog, dict[str, int] | None]:
    """The catalog and its snapshot ids; None when the catalog is not the live one (a fixed test catalog)."""
    if isinstance(source, LiveCatalog):
        return source.current()
    return source(), None


def admission_key(caller: Caller, client_address: str | None) -> str:
    """Whose plans count together against the per-caller bound: the API key, else the client's address."""
    return f"key:{caller.key_id}" if caller.key_id else f"address:{client_address or 'unknown'}"


def request_key(caller: Caller, request: Request) -> str:
    """`admission_key` of a request (its client address counts when auth is off)."""
    return admission_key(caller, request.client.host if request.client else None)


_RECORDED_KEPT = 8
_recorded: OrderedDict[tuple[tuple[str, int], ...], Catalog] = OrderedDict()
_recorded_lock = threading.Lock()


def prices_recorded(runtime: Runtime, prices_in_force: dict[str, int]) -> Catalog:
    """The catalog of a stored plan's recorded snapshots. Snapshots are append-only, so the catalog of one set
    never changes: the last few are kept, which saves reading them again and lets the plan pool ship each to
    its workers once (a recompute or a sensitivity and its chart re-plan at the same prices)."""
    key = tuple(sorted(prices_in_force.items()))
    with _recorded_lock:
        if key in _recorded:
            _recorded.move_to_end(key)
            return _recorded[key]
    catalog = catalog_at(runtime.engine, runtime.base_catalog, prices_in_force)
    with _recorded_lock:
        catalog = _recorded.setdefault(key, catalog)
        while len(_recorded) > _RECORDED_KEPT:
            _recorded.popitem(last=False)
    return catalog


# the source states read for the last plan, by (engine, snapshots in force, request clock in 10 s steps): every
# plan needs them for its stale-price warnings, and they change only with a new snapshot or as time passes (days)
_STATES_STEP_S = 10
_states: tuple[Engine, tuple[object, ...], list[SourceState]] | None = None
_states_lock = threading.Lock()


def _with_stale_warnings(runtime: Runtime, result: PlanResult, snapshots: dict[str, int] | None,
                         now: dt.datetime) -> PlanResult:
    """`staleness.with_stale_warnings`, reading the sources' states once per 10 s of clock and set of snapshots."""
    key = (tuple(sorted(snapshots.items())) if snapshots is not None else None, int(now.timestamp()) // _STATES_STEP_S)
    global _states
    kept = _states
    if snapshots is not None and kept is not None and kept[0] is runtime.engine and kept[1] == key:
        states = kept[2]
    else:
        states = source_states(runtime.engine, runtime.sources, now)
        with _states_lock:
            _states = (runtime.engine, key, states)
    extra = stale_price_warnings(result.prices_as_of, states, now.date(),
                                 dt.timedelta(days=runtime.settings.snapshot_max_age_days))
    if not extra:
        return result
    return result.model_copy(update={"warnings": [*result.warnings, *texts(extra)],
                                     "notices": [*result.notices, *extra]})


def plan_for(runtime: Runtime, caller: Caller, profile: Profile | JsonBody, now: dt.datetime,
             profile_id: str | None = None, profile_version: int | None = None,
             client_address: str | None = None) -> tuple[PlanResult, str]:
    """Solved in the plan pool (a worker process, or inline), within its bounds; stored here. A request body is
    validated where it is solved (`PlanPool.plan_body`). Returns the stored plan and its JSON (the answer)."""
    catalog, snapshots = prices_now(runtime.catalog)
    key = admission_key(caller, client_address)
    stored_profile: Profile | str
    if isinstance(profile, JsonBody):
        solved, stored_profile = runtime.plan_pool.plan_body(key, make_plan, profile, catalog, now.date())
    else:
        solved, stored_profile = runtime.plan_pool.plan(key, make_plan, profile, catalog, now.date()), profile
    result = _with_stale_warnings(runtime, solved, snapshots, now)
    metrics.observe_plan(result)
    return save_plan(runtime.engine, caller, stored_profile, result, now,
                     PlanOrigin(profile_id, profile_version, snapshots))


def created(stored: tuple[PlanResult, str]) -> Response:
    """The 201 answer of a stored plan, in the JSON it was stored as (pydantic's, written once): FastAPI would
    otherwise turn the model into Python objects and those into JSON again (about 0.5 ms of the API process per
    plan). The route's `response_model` still states the shape in OpenAPI, and the contract test checks the answer
    against it."""
    plan, answer = stored
    return Response(answer, status_code=201, media_type="application/json",
                    headers={"Location": f"/v1/plans/{plan.id}"})


def recompute(runtime: Runtime, plan_id: str, stored: StoredPlan, key: str) -> PlanResult:
    """The plan made again from its profile, on its day, at the prices that were in force then; kept with the plan
    for this planner (service/plans/views.py), so only a new planner makes it again."""
    if stored.prices_in_force is None:
        raise Conflict("this plan was made without a record of its prices; it cannot be recomputed")
    prices_in_force = stored.prices_in_force

    def make() -> PlanResult:
        catalog = prices_recorded(runtime, prices_in_force)
        result = runtime.plan_pool.plan(key, make_plan, Profile.model_validate(stored.profile), catalog,
                                        stored.created_at.date())
        original = PlanResult.model_validate(stored.result)
        return result.model_copy(update={"profile_id": original.profile_id,
                                         "profile_version": original.profile_version,
                                         "prices_in_force": prices_in_force})

    return derived(runtime.engine, plan_id, "recompute", PlanResult, make, utcnow)
