"""Plans under uncertainty (issue 32): checks that can fail, against today's plan and against enumeration."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

from pricing.catalog import Catalog
from solvers.base.errors import InfeasibleProfile
from solvers.base.profile import Profile
from solvers.base.uncertainty_defaults import SAA_REL_GAP
from solvers.model.build import build
from solvers.model.solve import solved
from solvers.offers.place_inputs import prepare
from solvers.plan import _solve_prepared, make_plan, today_of
from solvers.uncertainty.decide import _rented, build_futures, fix_purchase
from solvers.uncertainty.extensive import solve_extensive
from solvers.uncertainty.program import stochastic
from solvers.uncertainty.recourse import evaluate_fixed
from tests.solvers.uncertainty.conftest import TODAY, lab

STILL = {"demand": {"sigma": 0}, "cloud_price_trend": {"per_year": 0, "spread": 0}, "electricity": {"spread": 0},
         "resale": {"spread": 0}, "scenarios": 16}


def test_zero_spread_is_todays_plan(catalog: Catalog) -> None:
    """Every spread 0 and no trend: the futures merge into today's, and the plan is today's to the bit."""
    today = make_plan(Profile.model_validate(lab(None)), catalog, TODAY)
    still = make_plan(Profile.model_validate(lab(STILL)), catalog, TODAY)
    assert today.risk is None
    assert still.risk is not None and still.risk.distinct_scenarios == 1
    assert still.buy == today.buy and still.hosts == today.hosts and still.cloud == today.cloud
    assert still.total_cost_usd == today.total_cost_usd
    assert still.recommendation == today.recommendation
    assert still.risk.p10_total_usd == still.risk.p90_total_usd == still.risk.expected_total_usd
    assert still.risk.value_of_stochastic_solution_usd == 0.0


def _core(profile: dict[str, object], catalog: Catalog):  # type: ignore[no-untyped-def]
    prep = prepare(Profile.model_validate(profile), catalog)
    return prep.profile, _solve_prepared(prep.profile, prep.catalog, TODAY, True)


def _cvar(values: np.ndarray, alpha: float) -> float:
    """Mean of the worst alpha of equally likely values (alpha x N whole values here)."""
    worst = round(alpha * len(values))
    return float(np.sort(values)[::-1][:worst].mean())


@pytest.mark.parametrize("objective", ["expected", "cvar", "regret"])
def test_extensive_form_equals_enumeration(catalog: Catalog, objective: str) -> None:
    """On a small case, the extensive form's optimum is the best of every purchase, each priced in every future by
    that future's own model with the purchase held (built and solved apart from the extensive form)."""
    option = {"scenarios": 10, "seed": 3, "objective": objective, "alpha": 0.2, "risk_weight": 2.0,
              "demand": {"scale": [0.4, 2.5]}}
    quotes = [{"name": "Desk 1x4090", "gpu": "RTX 4090", "gpus_per_unit": 1, "unit_price_usd": 2900,
               "watts": 600, "includes_host": True},
              {"name": "Desk 2x4090", "gpu": "RTX 4090", "gpus_per_unit": 2, "unit_price_usd": 5200,
               "watts": 1100, "includes_host": True}]
    profile, core = _core(lab(option, prices={"owned": quotes}), catalog)
    keys = {o.key for o in core.owned if o.name.startswith("Desk ")}
    assert len(keys) == 2
    futures = build_futures(today_of(core), profile.uncertainty, keys)
    assert {o.key for o in futures.owned} <= keys
    per_future: dict[tuple[int, ...], np.ndarray] = {}
    bounds = [min(futures.bounds[o.key], 3) for o in futures.owned]
    for counts in itertools.product(*[range(b + 1) for b in bounds]):
        units = {o.key: n for o, n in zip(futures.owned, counts, strict=True) if n}
        totals = []
        for inp in futures.inputs:
            model = build([o for o in inp.owned if o.key in futures.bounds], inp.cloud, core.options.hosts, inp.blocks,
                          inp.limits, bounds=futures.bounds, reduce=False)
            fix_purchase(model, units, {})
            sol = solved(model, time.perf_counter())
            totals.append(sol.objective if sol.status.has_solution else np.inf)
        per_future[counts] = np.array(totals)
    best_alone = np.min(np.array(list(per_future.values())), axis=0)

    def value(t: np.ndarray) -> float:
        if objective == "cvar":
            return float(t.mean()) + 2.0 * _cvar(t, 0.2)
        if objective == "regret":
            return float((t - best_alone).max())
        return float(t.mean())

    enumerated = min(value(t) for t in per_future.values())
    stacked = solve_extensive(futures.pieces, objective, alpha=0.2, risk_weight=2.0,  # type: ignore[arg-type]
                              best=best_alone if objective == "regret" else None)
    assert stacked.status.value == "optimal"
    assert value(stacked.totals) == pytest.approx(enumerated, rel=1e-6, abs=1e-4)
    counts = tuple(stacked.units.get(o.key, 0) for o in futures.owned)
    assert value(per_future[counts]) == pytest.approx(enumerated, rel=1e-6, abs=1e-4)
    # the plan's own path (relaxed recourse, priced exactly, the extensive form when apart): within its gap
    fast = stochastic(futures.pieces, profile.uncertainty, best_alone if objective == "regret" else None,
                       futures.weights, time.perf_counter() + 30)
    fast_counts = tuple(fast.units.get(o.key, 0) for o in futures.owned)
    assert np.allclose(fast.totals, per_future[fast_counts], rtol=1e-6)
    assert enumerated - 1e-4 <= value(fast.totals) <= enumerated + SAA_REL_GAP * abs(enumerated) + 1e-4
    assert fast.gap is not None and value(fast.totals) - enumerated <= fast.gap * abs(value(fast.totals)) + 1e-4


def test_cloud_only_read_off_the_curve_is_its_solve(catalog: Catalog) -> None:
    """Cloud only in each future, read off the screening curve at no owned slots, is that future's model solved
    with nothing bought."""
    profile, core = _core(lab({"scenarios": 6, "seed": 5}, gpus=3), catalog)
    futures = build_futures(today_of(core), profile.uncertainty)
    read = _rented(futures.pieces, futures.inputs)
    solved_alone = evaluate_fixed(futures.pieces, {})
    assert np.allclose(read.totals, solved_alone.totals, rtol=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_stochastic_plan_never_costs_more_than_todays(catalog: Catalog, seed: int) -> None:
    """In the same futures, the plan made for them costs no more in expectation than today's plan."""
    plan = make_plan(Profile.model_validate(lab({"scenarios": 12, "seed": seed}, gpus=4, months=24)), catalog,
                     TODAY)
    risk = plan.risk
    assert risk is not None and risk.distinct_scenarios == 12
    assert risk.expected_total_usd <= risk.deterministic_expected_total_usd + 1e-6 * risk.expected_total_usd
    assert risk.value_of_stochastic_solution_usd >= -0.01
    assert risk.p10_total_usd <= risk.p50_total_usd <= risk.p90_total_usd <= risk.cvar_total_usd + 0.01
    assert len(risk.totals_usd) == 12 and abs(sum(risk.weights) - 1.0) < 1e-6
    assert risk.expected_total_usd == pytest.approx(float(np.dot(risk.totals_usd, risk.weights)), abs=0.05)
    assert len(risk.fan) == len(plan.periods)
    assert risk.fan[-1].plan_p50_usd == pytest.approx(risk.p50_total_usd, abs=0.05)
    assert risk.fan[-1].cloud_only_p50_usd == pytest.approx(risk.cloud_only.p50_total_usd, abs=0.05)


def test_without_cloud_the_purchase_serves_every_future(catalog: Catalog) -> None:
    """Owned GPUs only: the purchase must hold the busiest future's work; cloud only does not exist (null figures),
    and today's purchase, made for the profile's demand alone, cannot serve the busier futures (null)."""
    option = {"scenarios": 6, "seed": 1, "demand": {"scale": [0.5, 1.6]}}
    plan = make_plan(Profile.model_validate(lab(option, gpus=2, options={"allow_cloud": False})), catalog, TODAY)
    today = make_plan(Profile.model_validate(lab(None, gpus=2, options={"allow_cloud": False})), catalog, TODAY)
    risk = plan.risk
    assert risk is not None and risk.cloud_only is None and risk.probability_beats_cloud_only is None
    assert risk.cloud_only_totals_usd == [] and all(p.cloud_only_p50_usd is None for p in risk.fan)
    assert sum(b.count * b.gpus_per_unit for b in plan.buy) > sum(b.count * b.gpus_per_unit for b in today.buy)
    assert risk.deterministic_expected_total_usd is None and risk.value_of_stochastic_solution_usd is None


def test_a_future_beyond_every_limit_is_a_clear_refusal(catalog: Catalog) -> None:
    option = {"scenarios": 4, "demand": {"scale": [1.0, 3.0]}}
    profile = lab(option, gpus=2, options={"allow_cloud": False, "max_owned_gpus": 2})
    with pytest.raises(InfeasibleProfile) as refused:
        make_plan(Profile.model_validate(profile), catalog, TODAY)
    assert refused.value.constraint == "uncertainty"


def test_the_tornado_varies_the_profiles_own_figures(catalog: Catalog) -> None:
    """The sensitivity of a profile with `uncertainty` is that of the same profile without it."""
    from solvers.replan.sensitivity import sensitivity

    with_futures = sensitivity(Profile.model_validate(lab({"scenarios": 8})), catalog, TODAY)
    without = sensitivity(Profile.model_validate(lab(None)), catalog, TODAY)
    assert with_futures.model_dump() == without.model_dump()
