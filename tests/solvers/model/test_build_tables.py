"""The tables a model build reads once instead of option by option (issue 31): every option's unit bound in one array
operation (`arrays.unit_bounds`), the host capacities of every option (`rows.host_capacity`), the dominance of
purchase options as matrices (`build.undominated`), and a block's cached job-hours and peak. Each must give what the
one-by-one code gives, on the bench's bursty series and quote items and on variants of their limits."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pricing.catalog import bundled_catalog
from solvers.base.options import unit_cost_of
from solvers.base.profile import Profile
from solvers.model.arrays import Limits, block_load, unit_bound, unit_bounds
from solvers.model.build import undominated
from solvers.model.rows import host_capacity
from solvers.offers.hosting import card_capacity
from solvers.plan import Core, solve_core
from tests.conftest import TODAY


def _bench(name: str) -> dict[str, Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
    import plan_latency

    profile: dict[str, Any] = plan_latency.SERIES if name == "bursty" else plan_latency.quote_items(60)
    return profile


@pytest.fixture(scope="module", params=["bursty", "quotes"])
def core(request: pytest.FixtureRequest) -> Core:
    return solve_core(Profile.model_validate(_bench(request.param)), bundled_catalog(), TODAY, prune=False)


LIMITS = [
    {},
    {"availability": 0.9},
    {"integer_instances": False},
    {"max_capex_usd": 4000.0, "max_owned_gpus": 3},
    {"availability": 0.8, "integer_instances": False, "max_owned_gpus": 5},
]


@pytest.mark.parametrize("changes", LIMITS)
def test_every_options_bound_at_once_is_its_own_bound(core: Core, changes: dict[str, Any]) -> None:
    limits: Limits = replace(core.limits, **changes)
    slower = [replace(o, throughput=o.throughput * 0.5, availability=0.7) for o in core.owned[::3]]
    owned = core.owned + slower
    load = block_load(core.blocks)
    expected = {o.key: unit_bound(o, core.blocks, limits, load) for o in owned}
    assert unit_bounds(owned, core.blocks, limits) == expected
    assert any(bound > 0 for bound in expected.values())


def test_host_capacity_is_each_hosts_card_capacity(core: Core) -> None:
    hosts = core.options.hosts
    table = host_capacity(core.owned, hosts)
    assert table.shape == (len(core.owned), len(hosts))
    for g, o in enumerate(core.owned):
        for k, h in enumerate(hosts):
            assert table[g, k] == (card_capacity(h, o) if k in o.accepting_hosts else -1)
    assert (table > 0).any()


def _dominates(a: Any, b: Any, limits: Limits, hours: float) -> bool:
    """The rule of `undominated`'s docstring for one pair of the same shape, hosts held alike (no rehosting)."""

    rate = limits.usd_per_kwh
    extra = max(0.0, a.usd_per_job_hour(rate) - b.usd_per_job_hour(rate)) * b.throughput * b.slots_per_unit * hours
    cost_a, cost_b = unit_cost_of(a, rate, hours, None), unit_cost_of(b, rate, hours, None)
    return (a.max_units is None and cost_a >= 0 and a.throughput >= b.throughput
            and a.accepting_hosts == b.accepting_hosts and a.card_watts == b.card_watts and cost_a + extra < cost_b)


@pytest.mark.parametrize("factor", [0.8, 1.0, 1.25])
def test_a_dearer_copy_of_an_option_is_left_out_and_a_cheaper_one_leaves_out_the_original(
        core: Core, factor: float) -> None:
    """Copies of each purchase option at 0.8, 1 and 1.25 times its price (same shape, same hosts): a copy that is
    dearer is dominated by the original, a cheaper one dominates it, and an equal copy shares its fate (strictly
    less)."""
    purchases = [o for o in core.owned if not o.is_commitment][:8]
    copies = [replace(o, key=f"{o.key}#copy", unit_price_usd=o.unit_price_usd * factor) for o in purchases]
    limits = core.limits
    hours = float(sum(b.hours for b in core.blocks))
    kept = {o.key for o in undominated(purchases + copies, core.options.hosts, core.blocks, limits)}
    for o, c in zip(purchases, copies, strict=True):
        if _dominates(o, c, limits, hours):
            assert c.key not in kept
        if _dominates(c, o, limits, hours):
            assert o.key not in kept
        if factor == 1.0:  # neither beats its equal: both are kept or both left out (by a third option)
            assert (o.key in kept) == (c.key in kept)
    assert len(kept) < len(purchases) + len(copies) or factor == 1.0


def test_a_blocks_cached_figures_are_its_curves(core: Core) -> None:
    for b in core.blocks:
        assert b.job_hours == float(np.dot(b.jobs, b.level_hours))
        assert b.peak_jobs == float(b.jobs.max(initial=0.0))
