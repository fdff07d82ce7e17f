"""The one-pass demand helpers of issue 31 give the same floats as the slice-by-slice code they replaced (written
out here as it was): `compress`'s grouped sums against `np.array_split`, `levels_by_slice` read interleaved against
read in order and against `levels` per slice, `slice_sums` against each slice's own sum, and `finance._days` against
numpy's conversion of dates. Exact equality: the plans must stay bit-identical."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from solvers.base.finance import _days
from solvers.demand.periods import _calendar, compress, levels
from solvers.demand.slices import levels_by_slice, slice_sums


def _compress_split(jobs: np.ndarray, hours: np.ndarray, max_levels: int,
                    conservative: bool) -> tuple[np.ndarray, np.ndarray]:
    """`compress` as it was before issue 31: one group of `np.array_split` at a time."""
    if len(jobs) <= max_levels:
        return jobs, hours
    order = np.argsort(jobs)
    jobs, hours = jobs[order], hours[order]
    groups = np.array_split(np.arange(len(jobs) - 1), max_levels - 1)
    merged_h = np.array([hours[g].sum() for g in groups] + [hours[-1]])
    if conservative:
        merged_n = np.array([float(jobs[g].max()) for g in groups] + [jobs[-1]])
    else:
        merged_n = np.array([float(np.dot(jobs[g], hours[g]) / hours[g].sum()) for g in groups] + [jobs[-1]])
    return merged_n, merged_h


@pytest.mark.parametrize("conservative", [False, True])
def test_compress_is_the_array_split_groups(conservative: bool) -> None:
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(1, 60))
        jobs = rng.permutation(np.arange(1, n + 1)).astype(float)
        hours = rng.uniform(0.0, 50.0, n).round(int(rng.integers(0, 4)))
        most = int(rng.integers(2, 12))
        got, want = compress(jobs, hours, most, conservative), _compress_split(jobs, hours, most, conservative)
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()


def test_levels_by_slice_interleaved_or_not_is_levels_per_slice() -> None:
    start, end = dt.date(2027, 1, 1), dt.date(2029, 7, 1)
    bounds = _calendar(start, end)[1]
    hours = bounds[-1][1]
    rng = np.random.default_rng(7)
    for trial in range(6):
        # months at one level (a monthly series), then noisy hourly figures with idle hours
        jobs = (np.repeat(rng.uniform(0, 6, len(bounds)), [b - a for a, b in bounds]) if trial % 2 == 0
                else np.where(rng.random(hours) < 0.3, 0.0, rng.uniform(0, 9, hours)))
        in_order = levels_by_slice(jobs, bounds, False)
        interleaved = levels_by_slice(jobs, bounds, True)
        for (lo, hi), (j1, h1), (j2, h2) in zip(bounds, in_order, interleaved, strict=True):
            j0, h0 = levels(jobs[lo:hi])
            assert j1.tolist() == j2.tolist() == j0.tolist()
            assert h1.tolist() == h2.tolist() == h0.tolist()
        assert slice_sums(jobs, bounds) == [float(jobs[lo:hi].sum()) for lo, hi in bounds]


def test_days_are_numpys_dates() -> None:
    days = [dt.date(1969, 12, 31), dt.date(1970, 1, 1), dt.date(2000, 2, 29), dt.date(2027, 3, 1)]
    assert _days(days).tolist() == np.array(days, dtype="datetime64[D]").tolist()
    assert _days(days).dtype == np.dtype("datetime64[D]")
