"""The resale curves: the bundled table is what the fit script gives, and the fit recovers known curves."""

from __future__ import annotations

import csv
import math

import pytest

from pricing.tools.fit_resale import DATA, Point, fit, fit_all, loo_rmse


def test_the_bundled_table_is_what_the_fit_gives_on_the_bundled_data() -> None:
    with (DATA / "resale_curves.csv").open(encoding="utf-8", newline="") as f:
        bundled = list(csv.DictReader(f))
    assert bundled == fit_all()


def _points(level: float, rate: float) -> list[Point]:
    return [Point(f"card{age}", "consumer", age, level * math.exp(-rate * age), "test") for age in (1.0, 2.0, 4.0, 6.0)]


def test_the_exponential_fit_recovers_a_pure_exponential() -> None:
    f = fit(_points(1.0, 0.2), "exponential")
    assert f.level == 1.0 and f.rate == pytest.approx(0.2, abs=1e-12)


def test_the_step_fit_recovers_a_drop_on_leaving_the_shop_and_wins_held_out() -> None:
    points = _points(0.8, 0.15)
    f = fit(points, "step")
    assert f.level == pytest.approx(0.8, abs=1e-9) and f.rate == pytest.approx(0.15, abs=1e-9)
    assert loo_rmse(points, "step") < loo_rmse(points, "exponential")


def test_a_step_up_is_held_at_no_step() -> None:
    f = fit(_points(1.3, 0.2), "step")  # worth more than new after leaving the shop: not a resale curve
    assert f.level == 1.0
