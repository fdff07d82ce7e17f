"""A stored plan's sensitivity (tornado): re-planned at the prices it recorded, on its day, like a recompute.

A stored plan never changes, so neither does its sensitivity: answers are kept (a few, newest kept) so the JSON and
the SVG of one plan cost one set of re-plans. The caller's access is checked before this is reached. The re-plans
(about twenty) run as one job in the plan pool, within its bounds: one slot and one time budget, never the
request's thread.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from service.core.dependencies import Runtime
from service.core.errors import Conflict
from service.plans.repository import StoredPlan
from service.plans.service import prices_recorded
from solvers.profile import Profile
from solvers.sensitivity import Sensitivity, sensitivity

_KEPT = 64
_cache: OrderedDict[str, Sensitivity] = OrderedDict()
_lock = threading.Lock()


def sensitivity_of(runtime: Runtime, key: str, plan_id: str, stored: StoredPlan) -> Sensitivity:
    """`key`: whose plans these count as in the pool (`service.plans.service.request_key`)."""
    with _lock:
        if plan_id in _cache:
            _cache.move_to_end(plan_id)
            return _cache[plan_id]
    if stored.prices_in_force is None:
        raise Conflict("this plan was made without a record of its prices; its sensitivity cannot be computed")
    catalog = prices_recorded(runtime, stored.prices_in_force)
    found = runtime.plan_pool.plan(key, sensitivity, Profile.model_validate(stored.profile), catalog,
                                   stored.created_at.date())
    with _lock:
        _cache[plan_id] = found
        while len(_cache) > _KEPT:
            _cache.popitem(last=False)
    return found
