"""The electricity and cloud-price thresholds read off the candidates' cost lines (`solvers.explain.cost_lines`):
on hand-drawn lines the first flip is the meeting point a hand calculation gives; on every bench profile the answer
is what the search (`thresholds._first_true`, which asks the evaluator at each step and assumes nothing of lines)
finds, to the search's tolerance, and the lines' answer passes its check on the evaluator without the search
running; where the costs are no lines the search answers."""

from __future__ import annotations

import datetime as dt
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pricing.catalog import bundled_catalog
from solvers.base.errors import ProfileError
from solvers.base.profile import Profile
from solvers.explain import thresholds
from solvers.explain.cost_lines import Lines, first_flip, lines_through
from solvers.plan import make_plan
from tests.solvers.offers.test_pruning_and_properties import catalogs, profile_with

Test = Callable[[float], tuple[bool, float]]
TOL = thresholds._TOLERANCE


def _lines(*pairs: tuple[float, float]) -> Lines:
    return Lines(np.array([a for a, _ in pairs]), np.array([b for _, b in pairs]))


def test_buying_stops_paying_where_the_dearest_running_candidate_meets_cloud_only() -> None:
    """Cloud only costs 1,000 at every rate; two purchases cost 400 + 2,000 r and 700 + 500 r. Buying stops paying
    where the cheaper of them reaches cloud only: the first at r = 0.3, the second at r = 0.6, so at 0.6 (less
    cloud only's tie tolerance of 1e-6 x 1,000: r = (999.999 - 700) / 500)."""
    flip = first_flip(_lines((1000.0, 0.0)), _lines((400.0, 2000.0), (700.0, 500.0)), 0.1, 100.0, True, TOL)
    root = (1000.0 * (1 - 1e-6) - 700.0) / 500.0
    assert flip is not None and root < flip <= root + TOL


def test_buying_pays_above_the_cloud_price_where_rent_meets_the_purchase() -> None:
    """Cloud only is 20,000 f; a purchase costs 9,000 + 4,000 f (what it still rents): buying pays above
    f = 9,000 / 16,000 = 0.5625 (the tie tolerance moves it by 1e-6 x 20,000 f)."""
    flip = first_flip(_lines((0.0, 20_000.0)), _lines((9000.0, 4000.0)), 0.0, 1.0, False, TOL)
    root = 9000.0 / (20_000.0 * (1 - 1e-6) - 4000.0)
    assert flip is not None and root < flip <= root + TOL


def test_the_lower_end_and_no_flip() -> None:
    cloud, bought = _lines((0.0, 20_000.0)), _lines((9000.0, 4000.0))
    assert first_flip(cloud, bought, 0.8, 1.0, False, TOL) == 0.8  # pays already at the lower end
    assert first_flip(cloud, bought, 0.0, 0.5, False, TOL) is None  # pays nowhere below 0.5625


def test_lines_through_leave_out_what_cannot_run_and_refuse_a_bend() -> None:
    drawn = lines_through(1.0, [10.0, math.inf], 2.0, [14.0, math.inf])
    assert drawn is not None and drawn.intercept.tolist() == [6.0] and drawn.slope.tolist() == [4.0]
    assert lines_through(1.0, [10.0, 5.0], 2.0, [14.0, math.inf]) is None  # runs at one end only: no line
    assert lines_through(1.0, [math.inf], 2.0, [math.inf]) is None


def _profiles() -> dict[str, dict[str, Any]]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))
    from same_output import profiles

    found: dict[str, dict[str, Any]] = profiles()
    return found


def test_on_every_bench_profile_the_lines_find_what_the_search_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every electricity and cloud-price threshold of the 25 same-output profiles: the lines' answer and the
    search's are the same flip (within the tolerance of each other), and the search never had to step in."""
    compared: list[tuple[float | None, float | None]] = []
    searched: list[tuple[float, float]] = []
    on_lines = thresholds._flip_on_lines
    search = thresholds._first_true

    def both(test: Test, lo: float, hi: float, lines: Any) -> float | None:
        searched.clear()
        found = on_lines(test, lo, hi, lines)
        assert not searched, "the lines' answer failed its check and the search ran"
        compared.append((found, search(test, lo, hi)))
        return found

    def counted(test: Test, lo: float, hi: float) -> float | None:
        searched.append((lo, hi))
        return search(test, lo, hi)

    monkeypatch.setattr(thresholds, "_flip_on_lines", both)
    monkeypatch.setattr(thresholds, "_first_true", counted)
    catalog = bundled_catalog()
    for data in _profiles().values():
        try:
            make_plan(Profile.model_validate(data), catalog, dt.date(2026, 11, 21))
        except ProfileError:
            continue
    assert len([c for c in compared if c[0] is not None]) >= 20
    for lines, searched_flip in compared:
        assert (lines is None) == (searched_flip is None)
        if lines is not None and searched_flip is not None:
            assert abs(lines - searched_flip) <= 2 * TOL * max(1.0, lines)


def test_where_the_costs_bend_the_search_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test whose margin is no line (a step in it the lines cannot see): the lines' answer fails its check on the
    test, and the search's answer is returned."""

    class Drawn:
        def flip(self, lo: float, hi: float) -> float | None:
            return 0.25  # the lines say 0.25

    def test(x: float) -> tuple[bool, float]:  # the margin steps up at 0.7
        return x >= 0.7, (1.0 if x >= 0.7 else -1.0)

    found = thresholds._flip_on_lines(test, 0.0, 1.0, Drawn())  # type: ignore[arg-type]
    assert found is not None and 0.7 <= found <= 0.7 + TOL


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(prices=catalogs(), utilisation=st.floats(0.02, 1.0), gpus=st.sampled_from([1, 3, 8]),
       patience=st.sampled_from(["none", "day"]), availability=st.sampled_from([0.9, 1.0]),
       discount=st.sampled_from([0.0, 0.08]))
def test_on_random_profiles_the_lines_find_what_the_search_finds(
        monkeypatch: pytest.MonkeyPatch, prices: dict[str, Any], utilisation: float, gpus: int, patience: str,
        availability: float, discount: float) -> None:
    """The same comparison on random small profiles (owned and rented offers of every kind, quotas, spot, work that
    may not or may wait, maintenance to packed cloud hours, present values): wherever a threshold exists, the lines
    and the search find the same flip, and the lines' answer passes its check."""
    compared: list[tuple[float | None, float | None]] = []
    fell_back: list[tuple[float, float]] = []
    on_lines, search = thresholds._flip_on_lines, thresholds._first_true

    def counted(test: Test, lo: float, hi: float) -> float | None:
        fell_back.append((lo, hi))
        return search(test, lo, hi)

    def both(test: Test, lo: float, hi: float, lines: Any) -> float | None:
        before = len(fell_back)
        monkeypatch.setattr(thresholds, "_first_true", counted)
        found = on_lines(test, lo, hi, lines)
        monkeypatch.setattr(thresholds, "_first_true", search)
        assert len(fell_back) == before, "the lines' answer failed its check and the search ran"
        compared.append((found, search(test, lo, hi)))
        return found

    monkeypatch.setattr(thresholds, "_flip_on_lines", both)
    data = profile_with(prices, utilisation, gpus, availability=availability, discount_rate=discount).model_dump(
        exclude_unset=True)
    data["jobs"] = {"patience": patience}
    try:
        make_plan(Profile.model_validate(data), bundled_catalog(), dt.date(2026, 11, 21))
    except ProfileError:
        return
    for lines, searched_flip in compared:
        assert (lines is None) == (searched_flip is None)
        if lines is not None and searched_flip is not None:
            assert abs(lines - searched_flip) <= 2 * TOL * max(1.0, lines)
