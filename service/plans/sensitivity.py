"""A stored plan's sensitivity (tornado): re-planned at the prices it recorded, on its day, like a recompute.

The re-plans (about twenty) run as one job in the plan pool, within its bounds: one slot and one time budget,
never the request's thread, and stopped when the budget passes or the client goes away. A stored plan never
changes, so neither does its sensitivity: the answer is kept with the plan (service/plans/views.py), so the JSON
and the SVG of one plan, on any replica, cost one set of re-plans. The caller's access is checked before this is
reached.
"""

from __future__ import annotations

from service.core.clock import utcnow
from service.core.dependencies import Runtime
from service.core.errors import Conflict
from service.plans.repository import StoredPlan
from service.plans.service import prices_recorded
from service.plans.views import derived
from solvers.base.profile import Profile
from solvers.replan.sensitivity import Sensitivity, sensitivity

VIEW = "sensitivity"


def sensitivity_of(runtime: Runtime, key: str, plan_id: str, stored: StoredPlan) -> Sensitivity:
    """`key`: whose plans these count as in the pool (`service.plans.service.request_key`)."""
    if stored.prices_in_force is None:
        raise Conflict("this plan was made without a record of its prices; its sensitivity cannot be computed")
    prices_in_force = stored.prices_in_force

    def make() -> Sensitivity:
        catalog = prices_recorded(runtime, prices_in_force)
        return runtime.plan_pool.plan(key, sensitivity, Profile.model_validate(stored.profile), catalog,
                                      stored.created_at.date())

    return derived(runtime.engine, plan_id, VIEW, Sensitivity, make, utcnow)
