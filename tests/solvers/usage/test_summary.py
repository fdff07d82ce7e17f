"""Summary statistics of a UsageSeries, checked by hand, and a 3-year hourly series."""

from __future__ import annotations

import datetime as dt
import json

import numpy as np
import pytest

from solvers.usage import UsageSeries, summarise

UTC = dt.UTC


def _series(start: dt.datetime, values: list[float], observed: list[bool] | None = None) -> UsageSeries:
    mask = np.array(observed if observed is not None else [True] * len(values))
    return UsageSeries(start=start, busy_gpus=np.array(values, dtype=np.float64), source_format="test", observed=mask)


def test_statistics_by_hand() -> None:
    # two hours of January (4, 2), then four of February (1, 3, 0, 2)
    summary = summarise(_series(dt.datetime(2024, 1, 31, 22, tzinfo=UTC), [4, 2, 1, 3, 0, 2]), points=3)
    assert (summary.peak, summary.mean, summary.gpu_hours) == (4.0, 2.0, 12.0)
    # sorted 0 1 2 2 3 4: median (2 + 2) / 2; p90 at rank 4.5 -> 3.5; p99 at rank 4.95 -> 3.95
    assert (summary.p50, summary.p90, summary.p99) == pytest.approx((2.0, 3.5, 3.95))
    january, february = summary.months
    assert (january.month, january.hours, january.gpu_hours) == ("2024-01", 2, 6.0)
    assert (january.peak, january.mean) == (4.0, 3.0)
    assert january.duration_curve == (4.0, 3.0, 2.0)
    assert january.block_means == pytest.approx((4.0, 3.0, 2.0))  # thirds of 2 hours: 4 | 4 and 2 half each | 2
    assert february.duration_curve == (3.0, 1.5, 0.0)
    # thirds of 4 hours over 3 2 1 0: (3 + 2/3) / (4/3), (2*2/3 + 1*2/3) / (4/3), (1/3) / (4/3)
    assert february.block_means == pytest.approx((2.75, 1.5, 0.25))
    assert sum(february.block_means) * 4 / 3 == pytest.approx(february.gpu_hours)
    # two months: means 3 then 1.5, a straight line through both
    assert summary.trend.months == 2
    assert summary.trend.slope_gpus_per_month == pytest.approx(-1.5)
    assert summary.trend.growth_per_month == pytest.approx(-0.5)


def test_growth_of_ten_percent_a_month_is_found() -> None:
    start = dt.datetime(2023, 1, 1, tzinfo=UTC)
    hours = (np.datetime64("2023-07-01T00") - np.datetime64("2023-01-01T00")).astype(int)
    month = (np.datetime64("2023-01-01T00") + np.arange(hours)).astype("datetime64[M]").astype(int) - 636
    summary = summarise(_series(start, list(3.0 * 1.1 ** month)))
    assert summary.trend.months == 6
    assert summary.trend.growth_per_month == pytest.approx(0.10)
    linear = summarise(_series(start, list(2.0 + 0.5 * month)))
    assert linear.trend.slope_gpus_per_month == pytest.approx(0.5)


def test_a_month_without_observations_stays_a_gap_in_the_trend() -> None:
    start = dt.datetime(2024, 1, 1, tzinfo=UTC)
    hours = (np.datetime64("2024-04-01T00") - np.datetime64("2024-01-01T00")).astype(int)
    month = (np.datetime64("2024-01-01T00") + np.arange(hours)).astype("datetime64[M]").astype(int) - 648
    values = np.choose(month, [1.0, 0.0, 4.0])
    summary = summarise(_series(start, list(values), list(month != 1)))
    assert [m.month for m in summary.months] == ["2024-01", "2024-03"]
    assert summary.trend.growth_per_month == pytest.approx(1.0)  # x4 over two calendar months: x2 a month
    assert summary.trend.slope_gpus_per_month == pytest.approx(1.5)


def test_idle_months_leave_the_log_fit_but_not_the_linear_one() -> None:
    start = dt.datetime(2024, 1, 1, tzinfo=UTC)
    hours = (np.datetime64("2024-04-01T00") - np.datetime64("2024-01-01T00")).astype(int)
    month = (np.datetime64("2024-01-01T00") + np.arange(hours)).astype("datetime64[M]").astype(int) - 648
    summary = summarise(_series(start, list(np.choose(month, [0.0, 1.0, 2.0]))))
    assert summary.trend.growth_per_month == pytest.approx(1.0)
    assert summary.trend.slope_gpus_per_month == pytest.approx(1.0)


def test_three_years_of_hours() -> None:
    rng = np.random.default_rng(3)
    hours = 3 * 8760 + 24
    start = dt.datetime(2023, 1, 1, tzinfo=UTC)
    busy = rng.poisson(3.0, hours).astype(np.float64) * (1 + np.arange(hours) / hours)
    summary = summarise(_series(start, list(busy)), points=24)
    assert len(summary.months) == 36
    assert summary.months[0].month == "2023-01" and summary.months[-1].month == "2025-12"
    assert sum(m.hours for m in summary.months) == hours
    assert sum(m.gpu_hours for m in summary.months) == pytest.approx(busy.sum())
    for month in summary.months:
        curve = np.array(month.duration_curve)
        assert len(curve) == 24 and curve[0] == month.peak and np.all(np.diff(curve) <= 0)
        assert sum(month.block_means) * month.hours / 24 == pytest.approx(month.gpu_hours)
    assert summary.trend.slope_gpus_per_month > 0 and summary.trend.growth_per_month > 0
    assert summary.peak == busy.max() and summary.p99 <= summary.peak


def test_series_contract_is_checked() -> None:
    with pytest.raises(ValueError, match="on the hour"):
        _series(dt.datetime(2024, 1, 1, 0, 30, tzinfo=UTC), [1.0])
    with pytest.raises(ValueError, match="UTC"):
        _series(dt.datetime(2024, 1, 1), [1.0])
    series = _series(dt.datetime(2024, 1, 1, tzinfo=UTC), [1.0, 2.0])
    assert series.end == dt.datetime(2024, 1, 1, 2, tzinfo=UTC)
    assert json.loads(json.dumps(series.to_dict()))["busy_gpus"] == [1.0, 2.0]
    assert json.loads(json.dumps(summarise(series).to_dict()))["months"][0]["month"] == "2024-01"


def test_a_series_without_observed_hours_summarises_to_zero() -> None:
    summary = summarise(_series(dt.datetime(2024, 1, 1, tzinfo=UTC), [0.0], [False]))
    assert (summary.observed_hours, summary.peak, summary.months) == (0, 0.0, ())
