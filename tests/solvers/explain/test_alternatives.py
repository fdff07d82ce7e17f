"""The alternatives' fast paths give what the slow ones gave: cloud only read from the main model equals the
cloud-only model solved on its own, and a plan is the same whether its alternatives run on the second thread
or inline (the thread busy), and the thresholds found beside the main solve for its MIP start's purchase are the
plan's only when the plan buys that."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pricing.catalog import bundled_catalog
from service.plans.examples import SERIES_EXAMPLE
from solvers import plan as plan_module
from solvers.base import deferred
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.explain import alternatives, weighing
from solvers.explain.weighing import commitments_only
from solvers.model.build import build
from solvers.model.solve import rent_only, solve
from solvers.plan import make_plan, solve_core
from tests.conftest import TODAY
from tests.solvers.offers.test_pruning_and_properties import SETTINGS, catalogs, profile_with


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
    assert (fast.units, fast.hosts, fast.owned_jobs, fast.displaced, fast.packed_hours) == ({}, {}, {}, {}, {})
    assert (slow.units, slow.hosts, slow.owned_jobs, slow.displaced, slow.packed_hours) == ({}, {}, {}, {}, {})
    if patience == "none":  # the same curve column, summed in the same order: the same floats
        assert fast.objective == slow.objective
        assert list(fast.instances) == list(slow.instances)
        for key, counts in slow.instances.items():
            assert np.array_equal(fast.instances[key], counts)
        return
    # work that may wait: the cloud-only model is an LP over the cells (solvers.model.fluid), the curve's column a sum;
    # an
    # offer's price may tie another's, so each is checked on its own cost: instance-hours x price add up to the whole
    assert fast.objective == pytest.approx(slow.objective, rel=1e-9, abs=1e-6)
    hours = np.concatenate([b.level_hours for b in core.blocks])
    by_key = {c.key: c for c in options.cloud}
    for sol in (fast, slow):
        rent = sum(float(np.dot(inst, hours)) / by_key[k].speed * by_key[k].usd_per_hour
                   for k, inst in sol.instances.items())
        assert rent == pytest.approx(slow.objective, rel=1e-6, abs=1e-6)


def test_a_plan_is_the_same_with_its_alternatives_inline() -> None:
    """With the alternatives' thread busy (its lock held), the plan does them inline: same plan, field for field
    (the series example buys, rents and has both alternatives)."""
    profile = Profile.model_validate(SERIES_EXAMPLE)
    threaded = make_plan(profile, bundled_catalog(), TODAY)
    assert deferred._ALTERNATIVES_IDLE.acquire(blocking=False)
    try:
        inline = make_plan(profile, bundled_catalog(), TODAY)
    finally:
        deferred._ALTERNATIVES_IDLE.release()
    assert threaded.alternatives.cloud_only is not None and threaded.alternatives.buy_only is not None
    assert inline.model_dump(exclude={"solver"}) == threaded.model_dump(exclude={"solver"})


def bursty_profile() -> Profile:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
    from plan_latency import SERIES

    return Profile.model_validate(SERIES)


def inline_plan(profile: Profile) -> PlanResult:
    assert deferred._ALTERNATIVES_IDLE.acquire(blocking=False)
    try:
        return make_plan(profile, bundled_catalog(), TODAY)
    finally:
        deferred._ALTERNATIVES_IDLE.release()


@contextmanager
def threads_weighing() -> Iterator[list[str]]:
    """The names of the threads that search thresholds (`weighing.weigh`), in order."""
    weighed_on: list[str] = []
    weigh = weighing.weigh

    def spy(*args: Any) -> weighing.Weighed:
        weighed_on.append(threading.current_thread().name)
        return weigh(*args)

    # weighed on the alternatives' thread (explain.alternatives) or after the solve (solvers.plan)
    with patch.object(plan_module, "weigh", spy), patch.object(alternatives, "weigh", spy):
        yield weighed_on


def test_the_thresholds_of_the_start_found_beside_the_solve_are_the_plans() -> None:
    """The bursty series' optimum buys what its MIP start buys: its thresholds are found on the alternatives'
    thread while the main MIP runs, and the main thread takes them as they are; the plan is the inline one."""
    profile = bursty_profile()
    with threads_weighing() as weighed_on:
        threaded = make_plan(profile, bundled_catalog(), TODAY)
    assert len(weighed_on) == 1 and weighed_on[0].startswith("gpuplan-alternatives")
    assert threaded.buy and threaded.break_even.electricity_threshold_usd_per_kwh is not None
    assert inline_plan(profile).model_dump(exclude={"solver"}) == threaded.model_dump(exclude={"solver"})


def test_thresholds_found_for_another_purchase_are_found_again() -> None:
    """A start that buys nothing, where the plan buys: what was found beside the solve is for another purchase, so
    the main thread finds the plan's own thresholds (taking the others would say buying never pays)."""
    profile = bursty_profile()
    with patch.object(plan_module, "start_guess", lambda model: ({}, {})), threads_weighing() as weighed_on:
        threaded = make_plan(profile, bundled_catalog(), TODAY)
    assert len(weighed_on) == 2 and weighed_on[1] == threading.main_thread().name
    assert inline_plan(profile).model_dump(exclude={"solver"}) == threaded.model_dump(exclude={"solver"})
