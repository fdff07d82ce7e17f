"""A stored plan replayed hour by hour (issue 29): re-planned at the prices it recorded, on its day, like its
sensitivity, and its purchase run by `solvers.replay.hourly`. A stored plan never changes, so neither does its replay:
the
answers are kept (a few, newest kept), with and without the hours, and the JSON and the chart of one plan cost one
run in the plan pool."""

from __future__ import annotations

import threading
from collections import OrderedDict

from service.core.dependencies import Runtime
from service.core.errors import Conflict
from service.plans.repository import StoredPlan
from service.plans.service import prices_recorded
from solvers.base.profile import Profile
from solvers.replan.replay_answer import PlanReplay, replay_plan, replay_totals

_KEPT = 16
_cache: OrderedDict[tuple[str, bool], PlanReplay] = OrderedDict()
_lock = threading.Lock()


def replay_of(runtime: Runtime, key: str, plan_id: str, stored: StoredPlan, hours: bool = True) -> PlanReplay:
    """`key`: whose plans these count as in the pool (`service.plans.service.request_key`)."""
    with _lock:
        for wanted in ((plan_id, hours), (plan_id, True)):
            if wanted in _cache and (wanted[1] or not hours):
                _cache.move_to_end(wanted)
                found = _cache[wanted]
                return found if hours == wanted[1] else found.model_copy(update={"hours": None})
    if stored.prices_in_force is None:
        raise Conflict("this plan was made without a record of its prices; it cannot be replayed")
    catalog = prices_recorded(runtime, stored.prices_in_force)
    found = runtime.plan_pool.plan(key, replay_plan if hours else replay_totals, Profile.model_validate(stored.profile),
                                   catalog, stored.created_at.date())
    with _lock:
        _cache[(plan_id, hours)] = found
        while len(_cache) > _KEPT:
            _cache.popitem(last=False)
    return found
