"""The alternatives' fast paths give what the slow ones gave: cloud only read from the main model equals the
cloud-only model solved on its own, and a plan is the same whether its alternatives run on the second thread
or inline (the thread busy)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from pricing.catalog import bundled_catalog
from service.plans.examples import SERIES_EXAMPLE
from solvers import plan as plan_module
from solvers.model import build, rent_only, solve
from solvers.plan import commitments_only, make_plan, solve_core
from solvers.profile import Profile
from tests.conftest import TODAY
from tests.solvers.test_pruning_and_properties import SETTINGS, catalogs, profile_with


@SETTINGS
@given(prices=catalogs(), utilisation=st.floats(0.01, 1.0), gpus=st.sampled_from([1, 3, 6]),
       patience=st.sampled_from(["none", "week"]), availability=st.sampled_from([1.0, 0.9]))
def test_cloud_only_read_from_the_main_model_equals_its_own_model(prices: dict[str, Any], utilisation: float,
                                                                   gpus: int, patience: str,
                                                                   availability: float) -> None:
    data = profile_with(prices, utilisation, gpus, availability=availability).model_dump(exclude_unset=True)
    profile = Profile.model_validate({**data, "jobs": {"patience": patience}})
    core = solve_core(profile, bundled_catalog(), TODAY)
    assert not commitments_only(core.owned)
    options = core.options
    main = build(core.owned_main, options.cloud, options.hosts, core.blocks, core.limits)
    fast = rent_only(main, core.limits)
    slow = solve([], options.cloud, options.hosts, core.blocks, core.limits)
    assert fast.status == slow.status
    if not slow.status.has_solution:
        return
    assert fast.objective == slow.objective
    assert (fast.units, fast.hosts, fast.owned_jobs, fast.displaced, fast.packed_hours) == ({}, {}, {}, {}, {})
    assert (slow.units, slow.hosts, slow.owned_jobs, slow.displaced, slow.packed_hours) == ({}, {}, {}, {}, {})
    assert list(fast.instances) == list(slow.instances)
    for key, counts in slow.instances.items():
        assert np.array_equal(fast.instances[key], counts)


def test_a_plan_is_the_same_with_its_alternatives_inline() -> None:
    """With the alternatives' thread busy (its lock held), the plan does them inline: same plan, field for field
    (the series example buys, rents and has both alternatives)."""
    profile = Profile.model_validate(SERIES_EXAMPLE)
    threaded = make_plan(profile, bundled_catalog(), TODAY)
    assert plan_module._ALTERNATIVES_IDLE.acquire(blocking=False)
    try:
        inline = make_plan(profile, bundled_catalog(), TODAY)
    finally:
        plan_module._ALTERNATIVES_IDLE.release()
    assert threaded.alternatives.cloud_only is not None and threaded.alternatives.buy_only is not None
    assert inline.model_dump(exclude={"solver"}) == threaded.model_dump(exclude={"solver"})
