"""The main model's MIP start (solvers/model/start.py) and the guard on what HiGHS reports after one
(solvers/model_solve.run).

The start only steers HiGHS: that it never changes an optimum is tested with the other reformulations
(tests/solvers/model/test_main_reformulations.py, variant g). Here: the start is the plan a buyer of one card type would
make, priced as the model prices it, and a report HiGHS gets wrong is solved again without the start."""

from __future__ import annotations

from typing import Any
from unittest.mock import patch

import numpy as np
import pytest

from solvers.model import arrays as model_arrays
from solvers.model import build as model_build
from solvers.model import solve as model_solve
from solvers.offers.hosting import card_capacity, cheapest_host_mix, cheapest_hosts
from tests.solvers.model.test_main_reformulations import core_of, main_model

HOSTED = {"gpu": "RTX 3090", "watts": 350, "idle_watts": 10, "includes_host": True}


def _start(core: Any) -> dict[str, float]:
    built = model_build.build(core.owned_main, core.options.cloud, core.options.hosts, core.blocks, core.limits)
    assert built.start is not None
    value = dict(zip(built.start[0].tolist(), built.start[1].tolist(), strict=True))
    named = {f"u:{o.key}": value[int(built.u[g])] for g, o in enumerate(built.owned)}
    named["slots"] = sum(value[int(c)] for c in built.mu)
    named.update({f"m:{h.host.name}": value[int(built.m[k])] for k, h in enumerate(built.hosts[: len(built.m)])})
    return named


def test_the_start_buys_the_cheaper_card_for_the_jobs_at_once() -> None:
    """Three jobs at once every hour for two years against $0.90/h VMs: three $600 machines pay back in weeks. The
    start buys three of the cheaper of two same-speed machines and owns three job slots. The model's optimum buys
    the same machine, and a fourth as a spare for the 5% maintenance hours, which the start does not weigh."""
    owned = [{"name": "cheap", "unit_price_usd": 600, **HOSTED}, {"name": "dear", "unit_price_usd": 900, **HOSTED}]
    cloud = [{"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": 0.90, "region": "r"}]
    core = core_of(owned, cloud, 3, 1.0, 0.15)
    start = _start(core)
    cheap = next(o.key for o in core.owned_main if o.name == "cheap")
    assert start["slots"] == 3 and start[f"u:{cheap}"] == 3
    assert sum(v for k, v in start.items() if k.startswith("u:")) == 3
    assert main_model(core).units == {cheap: 4}


def test_bare_cards_start_in_the_cheapest_hosts_that_hold_them() -> None:
    """Bare cards need hosts: the start houses five cards in the least-cost mix of whole hosts (the covering
    knapsack the host-spend row uses), and that mix holds them."""
    owned = [{"name": "card", "gpu": "RTX 3090", "unit_price_usd": 700, "watts": 350, "idle_watts": 10,
              "includes_host": False}]
    cloud = [{"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": 1.20, "region": "r"}]
    core = core_of(owned, cloud, 5, 1.0, 0.15)
    start = _start(core)
    card = core.owned_main[0]
    assert start[f"u:{card.key}"] == 5 and start["slots"] == 5
    hosts = core.options.hosts
    counts = np.array([start.get(f"m:{h.host.name}", 0.0) for h in hosts])
    capacity = np.array([card_capacity(h, card) if k in card.accepting_hosts else 0
                         for k, h in enumerate(hosts)])
    assert float(counts @ capacity) >= 5
    costs = np.array([h.host.base_cost_usd for h in hosts])
    assert float(counts @ costs) == pytest.approx(float(cheapest_hosts(costs, capacity, 5)[5]))
    mix = cheapest_host_mix(costs, capacity, 5)
    assert mix is not None and float(mix @ costs) == pytest.approx(float(counts @ costs))


def test_no_start_when_owning_nothing_is_cheapest() -> None:
    """One job 5% of the hours: no card pays against a $0.30/h VM, so there is no start (owning nothing is the
    cheapest single-option plan, and HiGHS finds that point itself)."""
    owned = [{"name": "dear", "unit_price_usd": 9000, **HOSTED}]
    cloud = [{"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": 0.30, "region": "r"}]
    core = core_of(owned, cloud, 1, 0.05, 0.15)
    built = model_build.build(core.owned_main, core.options.cloud, core.options.hosts, core.blocks, core.limits)
    assert built.start is None
    assert main_model(core).units == {}


def test_a_report_that_is_not_its_solutions_cost_is_solved_again_without_the_start() -> None:
    """The guard: HiGHS has had bugs comparing an incumbent across its presolved and original spaces (HiGHS issue
    #2439). When the objective it reports is not its solution's cost, the model is solved again without the start,
    in what the first run left of the time limit, and the answer is the optimum."""
    owned = [{"name": "cheap", "unit_price_usd": 600, **HOSTED}]
    cloud = [{"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": 0.90, "region": "r"}]
    core = core_of(owned, cloud, 3, 1.0, 0.15)
    built = model_build.build(core.owned_main, core.options.cloud, core.options.hosts, core.blocks, core.limits)
    assert built.start is not None
    calls: list[bool] = []

    def wrong_once(highs: Any, arrays: Any, offset: float) -> bool:
        calls.append(True)
        return len(calls) > 1

    loads: list[bool] = []
    limits: list[float] = []
    original_load = model_solve.load

    def recording_load(m: model_arrays.Model, time_limit_s: float = 10.0) -> model_solve.Loaded:
        loads.append(m.start is not None)
        limits.append(time_limit_s)
        return original_load(m, time_limit_s)

    with (patch.object(model_solve, "_reports_its_solution", wrong_once),
          patch.object(model_solve, "load", recording_load)):
        highs, status = model_solve.run(built, time_limit_s=5.0)
    assert loads == [True, False]  # solved again, without the start
    assert limits[0] == 5.0 and 0.5 <= limits[1] < 5.0  # within what the first run left of the limit
    assert status == model_arrays.SolveStatus.OPTIMAL
    assert highs.getInfo().objective_function_value == pytest.approx(main_model(core).objective, rel=1e-9)
    assert len(calls) == 1  # the second run had no start, so nothing to guard


def test_the_guard_compares_the_reported_objective_with_the_solution() -> None:
    """On a solved model the guard holds; with the objective's constant wrong by $100 it does not."""
    owned = [{"name": "cheap", "unit_price_usd": 600, **HOSTED}]
    cloud = [{"provider": "p", "name": "vm", "gpu": "RTX 3090", "usd_per_hour": 0.90, "region": "r"}]
    core = core_of(owned, cloud, 3, 1.0, 0.15)
    built = model_build.build(core.owned_main, core.options.cloud, core.options.hosts, core.blocks, core.limits)
    loaded = model_solve.load(built)
    loaded.highs.run()
    assert model_solve._reports_its_solution(loaded.highs, loaded.arrays, built.offset)
    assert not model_solve._reports_its_solution(loaded.highs, loaded.arrays, built.offset + 100.0)
