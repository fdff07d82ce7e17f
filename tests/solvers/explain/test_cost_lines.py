"""The electricity and cloud-price thresholds read off the candidates' cost lines (`solvers.explain.cost_lines`):
on hand-drawn lines the first flip is the meeting point a hand calculation gives; on every bench profile the answer
is what the search (`thresholds._first_true`, which asks the evaluator at each step and assumes nothing of lines)
finds, to the search's tolerance, and the lines' answer passes its check on the evaluator without the search
running; where the costs are no lines the search answers."""

from __future__ import annotations

import datetime as dt
import math
import sys
import threading
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


class _Compared:
    """Every electricity and cloud-price threshold a plan asks for: the answer it got, the lines' own answer where
    the ends do not decide (so a fallback to the search shows as a difference), and the search's. Why nothing is
    patched while plans run: a plan's thresholds may run on the alternatives' thread, which outlives a plan that
    raised (an infeasible profile), and a patch set there would outlive the test."""

    def __init__(self) -> None:
        self.seen: list[tuple[float | None, float | None, float | None]] = []
        self._lock = threading.Lock()
        self._on_lines = thresholds._flip_on_lines
        self._search = thresholds._first_true

    def __call__(self, test: Test, lo: float, hi: float, lines: Any) -> float | None:
        found = self._on_lines(test, lo, hi, lines)
        decided_by_ends = not test(hi)[0] or test(lo)[0]
        drawn = found if decided_by_ends else lines.flip(lo, hi)
        with self._lock:
            self.seen.append((found, drawn, self._search(test, lo, hi)))
        return found

    def check(self) -> int:
        """Asserts that each answer is the lines' own and the search's flip; returns how many thresholds exist."""
        with self._lock:
            seen = list(self.seen)
        for found, drawn, searched in seen:
            assert found == drawn, "the lines' answer failed its check and the search ran"
            assert (found is None) == (searched is None)
            if found is not None and searched is not None:
                assert abs(found - searched) <= 2 * TOL * max(1.0, found)
        return sum(found is not None for found, _, _ in seen)


def test_on_every_bench_profile_the_lines_find_what_the_search_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every electricity and cloud-price threshold of the 25 same-output profiles: the lines' answer and the
    search's are the same flip (within the tolerance of each other), and the search never had to step in."""
    compared = _Compared()
    monkeypatch.setattr(thresholds, "_flip_on_lines", compared)
    catalog = bundled_catalog()
    for data in _profiles().values():
        try:
            make_plan(Profile.model_validate(data), catalog, dt.date(2026, 11, 21))
        except ProfileError:
            continue
    assert compared.check() >= 20


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
    compared = _Compared()
    monkeypatch.setattr(thresholds, "_flip_on_lines", compared)
    data = profile_with(prices, utilisation, gpus, availability=availability, discount_rate=discount).model_dump(
        exclude_unset=True)
    data["jobs"] = {"patience": patience}
    try:
        make_plan(Profile.model_validate(data), bundled_catalog(), dt.date(2026, 11, 21))
    except ProfileError:
        return
    compared.check()
