"""The thresholds' search (`thresholds._first_true`): the ITP method on the margin buying saves, with the Illinois
weighting. It must find what bisection finds (the smallest parameter at which the test is true, to the tolerance)
on any monotone test, whatever its margin looks like (kinks, plateaus, jumps, infinite margins), in at most
bisection's steps and a slack, and reach it in fewer on the piecewise-linear margins the thresholds have. The
margin itself (`thresholds._margin`) must say what the cheapest candidate saves, and have the sign of "some
candidate beats cloud only" also where it skips candidates by their cost to hold."""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.catalog import bundled_catalog
from service.plans.examples import FINANCE_EXAMPLE, WORKED_EXAMPLE
from solvers.base.profile import Profile
from solvers.explain import thresholds
from solvers.explain.thresholds import CloudSide, _first_true, _margin
from solvers.explain.weighing import evaluator_for, single_units
from solvers.model.evaluate import Evaluator
from solvers.model.purchases import Purchase, Scenario
from solvers.plan import make_plan, solve_core
from tests.conftest import TODAY
from tests.solvers.explain.test_threshold_flips import bursty_series

Margin = Callable[[float], float]
# the worked example with one cloud offer, a listing of two machines (bench/same_output.py's `quota_cloud_only` at 2
# GPUs at once, not 3): cloud only covers today's demand and none above about 2 GPUs at once
QUOTA_CLOUD_ONLY: dict[str, Any] = copy.deepcopy(WORKED_EXAMPLE)
QUOTA_CLOUD_ONLY["demand"].update(gpus=2, utilisation=0.5)
QUOTA_CLOUD_ONLY["prices"]["cloud"] = [
    {"provider": "host", "name": "box", "gpu": "RTX 3090", "usd_per_hour": 0.3, "region": "eu", "max_instances": 2}]


def _counted(margin: Margin) -> tuple[Callable[[float], tuple[bool, float]], list[float]]:
    asked: list[float] = []

    def test(x: float) -> tuple[bool, float]:
        asked.append(x)
        m = margin(x)
        return m > 0, m

    return test, asked


def _bisection_steps(lo: float, hi: float) -> int:
    """The most steps bisection takes on the range (after asking both ends): with the flip just above lo, where the
    tolerance, relative above 1, is finest."""
    return _bisected(lambda x: (x > lo, 0.0), lo, hi)[1]


def _check_found(margin: Margin, lo: float, hi: float, found: float | None) -> None:
    """`found` is a point where the test is true with a point within the tolerance below it where it is false
    (or the lower end itself), as bisection's answer is."""
    if margin(hi) <= 0:
        assert found is None
        return
    assert found is not None and lo <= found <= hi and margin(found) > 0
    if found > lo:
        below = max(lo, found - thresholds._TOLERANCE * max(1.0, found))
        assert margin(below) <= 0


def test_a_linear_margin_is_found_in_a_few_steps() -> None:
    """Cloud only costs 100 x, a purchase 30 + 20 x: buying saves 80 x - 30, from x = 0.375."""
    test, asked = _counted(lambda x: 80 * x - 30)
    found = _first_true(test, 0.0, 1.0)
    assert found == pytest.approx(0.375, abs=1e-6) and found >= 0.375
    assert len(asked) - 2 <= 8 < _bisection_steps(0.0, 1.0)  # bisection: 20


def _most_steps(lo: float, hi: float) -> int:
    return _bisection_steps(lo, hi) + thresholds._ITP_SLACK


def test_a_margin_flat_below_the_flip_and_steep_above() -> None:
    """A margin that is flat below the flip and steep above it (a second candidate takes over: the 40 quote items'
    demand search) keeps regula falsi on one side, close to the flat end; the search still takes no more steps
    than bisection and the slack."""
    def margin(x: float) -> float:
        return max(-1.0 + 4.0 * x - 1e-3, 16_000.0 * (x - 0.25))

    test, asked = _counted(margin)
    found = _first_true(test, 1e-9, 1.0)
    _check_found(margin, 1e-9, 1.0, found)
    assert len(asked) - 2 <= _most_steps(1e-9, 1.0)


def test_a_margin_steep_below_the_flip_and_flat_above() -> None:
    """The other way round (a curve that pays a little once it pays at all): regula falsi's worst shape, where
    its point stays at the flat end; no more steps than bisection and the slack."""
    def margin(x: float) -> float:
        return min(16_000.0 * (x - 0.6), 1.0 + 1e-3 * x)

    test, asked = _counted(margin)
    found = _first_true(test, 0.0, 1.0)
    _check_found(margin, 0.0, 1.0, found)
    assert len(asked) - 2 <= _most_steps(0.0, 1.0)


def test_a_margin_that_stops_growing_past_the_flip() -> None:
    """The bursty series' electricity search: past the rate where buying stops paying, the cheapest candidate is a
    card too slow to hold a job slot, which costs its price and runs nothing, so what buying loses stays at that
    whatever the rate (3,163 USD). Regula falsi keeps moving the far end along the plateau; the Illinois
    weighting of the near end's margin gets off it (without it, 13 steps)."""
    def margin(x: float) -> float:
        return min(3163.0, 20_000.0 * (x - 0.3))

    test, asked = _counted(margin)
    found = _first_true(test, 0.15, 100.0)
    _check_found(margin, 0.15, 100.0, found)
    assert len(asked) - 2 <= 10 < _bisection_steps(0.15, 100.0)


def test_a_jump_is_bracketed() -> None:
    """A margin that jumps (a whole instance more, a candidate that stops being feasible) has no root to aim at;
    the search brackets the jump all the same, within bisection's steps and the slack."""
    test, asked = _counted(lambda x: 500.0 if x >= 0.3141 else -500.0)
    found = _first_true(test, 0.0, 1.0)
    assert found is not None and 0.3141 <= found <= 0.3141 + 1e-6
    assert len(asked) - 2 <= _most_steps(0.0, 1.0)


def test_infinite_margins_are_bisected() -> None:
    """Cloud only infinite (quotas) below 2.5: buying pays there by an infinite margin, and no falsi point exists
    while an end's margin is infinite: those steps are the midpoints."""
    lo, hi = 0.0, 100.0
    test, asked = _counted(lambda x: -math.inf if x < 2.5 else math.inf)
    found = _first_true(test, lo, hi)
    assert found is not None and 2.5 <= found <= 2.5 + 1e-6 * 2.5
    for x in asked[2:]:
        assert x == 0.5 * (lo + hi)
        lo, hi = (lo, x) if x >= 2.5 else (x, hi)


def test_the_ends() -> None:
    test, asked = _counted(lambda x: x - 2.0)
    assert _first_true(test, 0.0, 1.0) is None and asked == [1.0]
    test, asked = _counted(lambda x: x + 1.0)
    assert _first_true(test, 0.0, 1.0) == 0.0 and asked == [1.0, 0.0]


def _bisected(test: Callable[[float], tuple[bool, float]], lo: float, hi: float) -> tuple[float | None, int]:
    """The search the thresholds made before (bisection to the same tolerance) and its steps after both ends."""
    if not test(hi)[0]:
        return None, 0
    if test(lo)[0]:
        return lo, 0
    steps = 0
    while hi - lo > thresholds._TOLERANCE * max(1.0, hi):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if test(mid)[0] else (mid, hi)
        steps += 1
    return hi, steps


@st.composite
def monotone_margins(draw: st.DrawFn) -> tuple[list[tuple[float, float, float]], float, float, float]:
    """Increasing piecewise-linear margins with jumps on the ranges the thresholds search (demand below today's,
    up to a thousand times it, a rate or a cloud-price multiple up to 100, flips above 1 among them): a sum of
    ramps max(0, slope (x - at)) and steps."""
    lo, hi = draw(st.sampled_from([(0.0, 1.0), (1e-9, 1.0), (1e-9, 1000.0), (1.0, 100.0), (0.15, 100.15)]))
    pieces = draw(st.lists(st.tuples(st.booleans(), st.floats(lo, hi), st.floats(0.01, 1e7)), min_size=1,
                           max_size=6))
    offset = draw(st.floats(-1e7, 100.0))
    return [(1.0 if step else 0.0, at, size) for step, at, size in pieces], offset, lo, hi


@settings(max_examples=400, deadline=None)
@given(monotone_margins())
def test_it_finds_what_bisection_finds_in_at_most_its_steps_and_the_slack(
        drawn: tuple[list[tuple[float, float, float]], float, float, float]) -> None:
    pieces, offset, lo, hi = drawn

    def margin(x: float) -> float:
        return offset + sum(size * (x >= at) if step else size * max(0.0, x - at) for step, at, size in pieces)

    test, asked = _counted(margin)
    found = _first_true(test, lo, hi)
    _check_found(margin, lo, hi, found)
    bisected, steps = _bisected(_counted(margin)[0], lo, hi)
    assert (found is None) == (bisected is None)
    if found is not None and bisected is not None:
        assert abs(found - bisected) <= thresholds._TOLERANCE * max(1.0, bisected)
    if len(asked) > 2:
        assert len(asked) - 2 <= steps + thresholds._ITP_SLACK


def test_a_flip_above_one_is_found_within_bisections_steps_and_the_slack() -> None:
    """A cloud-price search of a plan that buys nothing, [1, 100], with the flip near its top: the step bound is
    that of bisection on the same test, whose tolerance is relative above 1 (a bound from an absolute tolerance
    allowed one step more)."""
    def margin(x: float) -> float:
        return -1.0 if x < 99.99 else 1e9

    test, asked = _counted(margin)
    found = _first_true(test, 1.0, 100.0)
    assert found is not None and 99.99 <= found <= 99.99 * (1 + 1e-6)
    assert len(asked) - 2 <= _bisected(_counted(margin)[0], 1.0, 100.0)[1] + thresholds._ITP_SLACK


def _true_margin(evaluator: Evaluator, candidates: list[Purchase], scenario: Scenario,
                 cloud_side: CloudSide) -> tuple[bool, float | None]:
    """Whether some candidate costs less than cloud only less a tie's tolerance (what the thresholds asked before
    the margin), running every candidate, and the margin that gives (None where cloud only is infinite)."""
    cloud_only = cloud_side.cost(evaluator, scenario)
    costs = [evaluator.cost(p, scenario) for p in candidates]
    if not math.isfinite(cloud_only):
        return any(math.isfinite(c) for c in costs), None
    bar = cloud_only - 1e-6 * max(1.0, abs(cloud_only))
    return any(c < bar for c in costs), bar - min(costs)


def _commitments_profile() -> dict[str, Any]:
    """The bursty series with reserved instances allowed: commitment units whose cost moves with the cloud price."""
    data = bursty_series()
    data["options"] = {**data.get("options", {}), "allow_commitments": True}
    return data


@pytest.mark.parametrize(("data", "commits", "unlimited"), [
    (bursty_series(), False, True), (FINANCE_EXAMPLE, True, True), (_commitments_profile(), True, True),
    (QUOTA_CLOUD_ONLY, False, False)], ids=["bursty_series", "finance_example", "commitments", "quota_cloud_only"])
def test_the_margin_is_what_the_cheapest_candidate_saves(data: dict[str, Any], commits: bool,
                                                         unlimited: bool) -> None:
    """The margin is positive exactly when some candidate costs less than cloud only less a tie's tolerance, and
    then it is that saving; where none does, it is at most 0 and never below the true (unskipped) margin. Drawn
    over candidate sets in any order (the plan's purchase, single units, each beside commitments), cloud sides
    with commitment mixes and commitments that follow the scenario, and scenarios of demand, electricity and
    cloud price, some where the quotas cannot cover the work (cloud only infinite)."""
    catalog = bundled_catalog()
    core = solve_core(Profile.model_validate(data), catalog, TODAY)
    evaluator = evaluator_for(core.profile, core.owned, core.options, core.blocks, core.limits)
    commitments = [o.key for o in core.owned if o.is_commitment]
    units = [Purchase(core.main.units, core.main.hosts),
             *single_units([o for o in core.owned if not o.is_commitment], core.options.hosts, core.limits)[:8]]
    mixes = [Purchase({key: n}) for key in commitments[:3] for n in (1, 3)]
    candidates = [p for p in units if not p.empty] + [Purchase({**p.units, **m.units}, p.hosts)
                                                      for p in units[:3] for m in mixes]
    sides = [CloudSide(), CloudSide([Purchase(), *mixes[:4]], commitments[:2]), CloudSide(mixes[:2] or [Purchase()])]
    draw = random.Random(13)
    seen = {"positive": 0, "negative": 0, "infinite": 0}
    for _ in range(150):
        among = draw.sample(candidates, draw.randint(1, len(candidates)))
        side = draw.choice(sides)
        scenario = Scenario(draw.choice([0.0, core.limits.usd_per_kwh, 3.0]), demand=draw.choice(
            [0.01, 0.3, 1.0, 2.5, 40.0]), cloud_price=draw.choice([0.0, 0.59, 1.0, 2.0]))
        pays, true_margin = _true_margin(evaluator, among, scenario, side)
        margin = _margin(evaluator, among, scenario, side)
        assert (margin > 0) == pays
        if true_margin is None:
            seen["infinite"] += 1
        elif margin > 0:
            seen["positive"] += 1
            assert margin == true_margin
        else:
            seen["negative"] += 1
            assert true_margin <= margin <= 0
    assert seen["positive"] and seen["negative"]
    assert bool(commitments) == commits and (seen["infinite"] == 0) == unlimited


def test_the_bursty_series_thresholds_take_fewer_steps_than_bisection(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of it: the bursty series' demand search, a curve per step, reaches its flip in at most half the
    steps of bisection. Its electricity and cloud-price thresholds are read off the candidates' cost lines
    (`cost_lines`) and searched for only when that answer fails its check: here never."""
    searches: list[tuple[float, float, int]] = []
    search = thresholds._first_true

    def counted(test: Callable[[float], tuple[bool, float]], lo: float, hi: float) -> float | None:
        asked: list[float] = []

        def asking(x: float) -> tuple[bool, float]:
            asked.append(x)
            return test(x)

        found = search(asking, lo, hi)
        searches.append((lo, hi, len(asked) - 2))
        return found

    monkeypatch.setattr(thresholds, "_first_true", counted)
    make_plan(Profile.model_validate(bursty_series()), bundled_catalog(), TODAY)
    assert len(searches) == 1
    demand_lo, demand_hi, demand_steps = searches[0]
    assert (demand_lo, demand_hi) == (1e-9, 1.0) and demand_steps <= _bisection_steps(demand_lo, demand_hi) // 2
