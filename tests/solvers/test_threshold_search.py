"""The thresholds' search (`thresholds._first_true`): the ITP method on the margin buying saves, with the Illinois
weighting. It must find what bisection finds (the smallest parameter at which the test is true, to the tolerance)
on any monotone test, whatever its margin looks like (kinks, plateaus, jumps, infinite margins), in at most
bisection's steps and a slack, and reach it in fewer on the piecewise-linear margins the thresholds have. The
margin itself (`thresholds._margin`) must say what the cheapest candidate saves, and have the sign of "some
candidate beats cloud only" also where it skips candidates by their cost to hold."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pricing.catalog import bundled_catalog
from solvers import thresholds
from solvers.evaluate import Purchase, Scenario
from solvers.plan import _evaluator, _single_units, make_plan, solve_core
from solvers.profile import Profile
from solvers.thresholds import _first_true, _margin
from tests.conftest import TODAY
from tests.solvers.test_threshold_flips import bursty_series

Margin = Callable[[float], float]


def _counted(margin: Margin) -> tuple[Callable[[float], tuple[bool, float]], list[float]]:
    asked: list[float] = []

    def test(x: float) -> tuple[bool, float]:
        asked.append(x)
        m = margin(x)
        return m > 0, m

    return test, asked


def _bisection_steps(lo: float, hi: float) -> int:
    """The steps plain bisection takes to the same tolerance (after asking both ends)."""
    steps = 0
    while hi - lo > thresholds._TOLERANCE * max(1.0, hi):
        hi = 0.5 * (lo + hi)  # the bracket halves whichever side the flip is on; hi only shrinks the tolerance
        steps += 1
    return steps


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


def test_a_jump_is_found_by_bisection_steps() -> None:
    """A margin that jumps (a whole instance more, a candidate that stops being feasible) has no root to aim at;
    the search brackets the jump all the same, within bisection's steps and the slack."""
    test, asked = _counted(lambda x: 500.0 if x >= 0.3141 else -500.0)
    found = _first_true(test, 0.0, 1.0)
    assert found is not None and 0.3141 <= found <= 0.3141 + 1e-6
    assert len(asked) - 2 <= _most_steps(0.0, 1.0)


def test_infinite_margins_are_bisected() -> None:
    """Cloud only infinite (quotas) below 2.5: buying pays there by an infinite margin, no falsi point exists."""
    test, _ = _counted(lambda x: -math.inf if x < 2.5 else math.inf)
    found = _first_true(test, 0.0, 100.0)
    assert found is not None and 2.5 <= found <= 2.5 + 1e-6 * 2.5


def test_the_ends() -> None:
    test, asked = _counted(lambda x: x - 2.0)
    assert _first_true(test, 0.0, 1.0) is None and asked == [1.0]
    test, asked = _counted(lambda x: x + 1.0)
    assert _first_true(test, 0.0, 1.0) == 0.0 and asked == [1.0, 0.0]


@st.composite
def monotone_margins(draw: st.DrawFn) -> tuple[list[tuple[float, float, float]], float]:
    """Increasing piecewise-linear margins with jumps: a sum of ramps max(0, slope (x - at)) and steps."""
    pieces = draw(st.lists(st.tuples(st.sampled_from(["ramp", "step"]), st.floats(0.0, 1.0),
                                     st.floats(0.01, 10_000.0)), min_size=1, max_size=6))
    offset = draw(st.floats(-5_000.0, 100.0))
    return [(0.0 if kind == "ramp" else 1.0, at, size) for kind, at, size in pieces], offset


@settings(max_examples=300, deadline=None)
@given(monotone_margins())
def test_it_finds_what_bisection_finds_on_any_monotone_margin(
        drawn: tuple[list[tuple[float, float, float]], float]) -> None:
    pieces, offset = drawn

    def margin(x: float) -> float:
        return offset + sum(size * (x >= at) if step else size * max(0.0, x - at) for step, at, size in pieces)

    test, asked = _counted(margin)
    found = _first_true(test, 0.0, 1.0)
    _check_found(margin, 0.0, 1.0, found)
    assert len(asked) - 2 <= _most_steps(0.0, 1.0)


def test_the_margin_is_what_the_cheapest_candidate_saves() -> None:
    """On the bursty series' evaluator, at demand multiples around its threshold: the margin is positive exactly
    when some candidate costs less than cloud only less a tie's tolerance, and then it is that saving; where none
    does, it is at most 0 and never below the true (unskipped) margin."""
    catalog = bundled_catalog()
    profile = Profile.model_validate(bursty_series())
    core = solve_core(profile, catalog, TODAY)
    evaluator = _evaluator(core.profile, core.owned, core.options, core.blocks, core.limits)
    candidates = [Purchase(core.main.units, core.main.hosts),
                  *_single_units(core.owned, core.options.hosts, core.limits)]
    seen_positive = seen_negative = False
    for scale in (0.02, 0.1, 0.12, 0.126, 0.127, 0.13, 0.2, 0.5, 1.0):
        scenario = Scenario(core.limits.usd_per_kwh, demand=scale)
        cloud_only = evaluator.cost(Purchase(), scenario)
        bar = cloud_only - 1e-6 * max(1.0, abs(cloud_only))
        true_margin = bar - min(evaluator.cost(p, scenario) for p in candidates)
        margin = _margin(evaluator, candidates, scenario)
        if true_margin > 0:
            seen_positive = True
            assert margin == true_margin
        else:
            seen_negative = True
            assert true_margin <= margin <= 0
    assert seen_positive and seen_negative


def test_the_bursty_series_thresholds_take_fewer_steps_than_bisection(monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of it: each of the bursty series' three searches (demand, electricity, cloud price) reaches its
    flip in fewer steps than bisection would, and the demand search, a curve per step, in at most half."""
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
    assert len(searches) == 3
    for lo, hi, steps in searches:
        assert steps < _bisection_steps(lo, hi)
    demand_lo, demand_hi, demand_steps = searches[0]
    assert (demand_lo, demand_hi) == (1e-9, 1.0) and demand_steps <= _bisection_steps(demand_lo, demand_hi) // 2
