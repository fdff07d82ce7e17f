"""A job slot runs one job at a time, and only in hours that have jobs (solvers/model/slots.py `active_hours_rows`).

Hand case: 2 jobs at once for half of 2027's 8,760 hours (reference RTX 3090), no patience, own prices only, $0.10
per kWh, no idle power, no resale, a $5/h cloud that never pays. Work: 2 x 4,380 = 8,760 reference job-hours.
- RTX 3090 unit (whole machine) $900, 400 W, speed 1: 400 Wh per reference hour;
- RTX 4090 unit $1,000, 400 W, speed 2 (override): 200 Wh per reference hour.
Two job slots are needed at once. Each slot serves one of the two jobs, 4,380 reference job-hours each:
- 2 x RTX 3090: 1,800 + 8,760 h x 0.4 kW x 0.1 = 1,800 + 350.40 = 2,150.40   <- the optimum
- 2 x RTX 4090: 2,000 + 4,380 h x 0.4 x 0.1    = 2,000 + 175.20 = 2,175.20
- one of each:  1,900 + (2,190 + 4,380) h x 0.4 x 0.1 = 1,900 + 262.80 = 2,162.80
With the owned work pooled over the block's hours, the mix let the RTX 4090 do both jobs' work (8,760 reference
hours in 4,380 of its own) while the RTX 3090 bought beside it only counted as the second slot: 1,900 + 175.20 =
2,075.20, a plan in which a bought card never works.
"""

from __future__ import annotations

import pytest

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.explain.weighing import evaluator_for
from solvers.model.purchases import Purchase, Scenario
from solvers.plan import make_plan, solve_core
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile


def _plan() -> object:
    body = simple_profile([owned_item(900, watts=400, gpu="RTX 3090"), owned_item(1000, watts=400, gpu="RTX 4090")],
                          [cloud_item(5.0)], utilisation=0.5)
    body["demand"]["gpus"] = 2
    body["throughput_overrides"] = {"RTX 3090": 1.0, "RTX 4090": 2.0}
    return make_plan(Profile.model_validate(body), bundled_catalog(), TODAY)


def test_a_fast_card_does_not_do_the_work_of_a_slow_card_bought_beside_it() -> None:
    plan = _plan()
    assert {(b.gpu, b.count) for b in plan.buy} == {("RTX 3090", 2)}  # type: ignore[attr-defined]
    assert plan.total_cost_usd == pytest.approx(2_150.40, abs=0.01)  # type: ignore[attr-defined]
    assert not plan.cloud  # type: ignore[attr-defined]


def test_the_buy_only_alternative_keeps_each_card_to_its_jobs_hours() -> None:
    # without displaced maintenance (availability 1, and always in buy only) a card's availability and
    # active-hours bounds are one row (solvers/model/slots.py `availability_rows`): its tighter side must hold there too
    buy_only = _plan().alternatives.buy_only  # type: ignore[attr-defined]
    assert {(b.gpu, b.count) for b in buy_only.buy} == {("RTX 3090", 2)}
    assert buy_only.total_cost_usd == pytest.approx(2_150.40, abs=0.01)


def test_every_bought_card_works_the_hours_its_jobs_exist() -> None:
    plan = _plan()
    for period in plan.periods:  # type: ignore[attr-defined]
        for line, hours in period.owned_gpu_hours.items():  # keyed by the line of `buy` (buy[0], ...)
            units = plan.buy[int(line.removeprefix("buy[").removesuffix("]"))].count  # type: ignore[attr-defined]
            # jobs run half of each month's hours (days x 24 / 2); the 3090s run at reference pace all of them
            assert hours == pytest.approx(units * period.days * 24 * 0.5, abs=0.01)


def test_the_thresholds_evaluator_prices_a_mix_as_the_model_does() -> None:
    # the break-even thresholds re-price fixed purchases with solvers/model/evaluate.py: the mix must cost its hand
    # figure there too (2,162.80), not the pooled 2,075.20, or a threshold would flip where the model does not
    body = simple_profile([owned_item(900, watts=400, gpu="RTX 3090"), owned_item(1000, watts=400, gpu="RTX 4090")],
                          [cloud_item(5.0)], utilisation=0.5)
    body["demand"]["gpus"] = 2
    body["throughput_overrides"] = {"RTX 3090": 1.0, "RTX 4090": 2.0}
    core = solve_core(Profile.model_validate(body), bundled_catalog(), TODAY)
    evaluator = evaluator_for(core.profile, core.owned, core.options, core.blocks, core.limits)
    keys = {o.gpu: o.key for o in core.owned}
    scenario = Scenario(usd_per_kwh=0.1)
    mix = evaluator.cost(Purchase(units={keys["RTX 3090"]: 1, keys["RTX 4090"]: 1}), scenario)
    pair = evaluator.cost(Purchase(units={keys["RTX 3090"]: 2}), scenario)
    assert mix == pytest.approx(2_162.80, abs=0.01)
    assert pair == pytest.approx(2_150.40, abs=0.01)
