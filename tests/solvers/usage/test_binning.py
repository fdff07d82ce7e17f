"""Properties of the hourly binning of utilisation samples (nvidia-smi, DCGM)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solvers.usage.binning import sample_load

samples = st.lists(st.tuples(st.integers(0, 50 * 3600), st.integers(0, 5), st.floats(0, 1)), min_size=1, max_size=80)


def _arrays(drawn: list[tuple[int, int, float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    origin = 1_700_000_000
    return (np.array([origin + t for t, _, _ in drawn], dtype=np.float64), np.array([g for _, g, _ in drawn]),
            np.array([b for _, _, b in drawn]))


@settings(max_examples=200, deadline=None)
@given(samples)
def test_each_hour_is_the_sum_over_gpus_of_their_mean_sample(drawn: list[tuple[int, int, float]]) -> None:
    times, gpus, busy = _arrays(drawn)
    load = sample_load(times, gpus, busy)
    hours = np.floor(times / 3600).astype(np.int64) - load.first_hour
    for h in range(load.busy_gpus.size):  # oracle: straight from the definition, one hour at a time
        here = hours == h
        expected = sum(busy[here & (gpus == g)].mean() for g in set(gpus[here].tolist()))
        assert np.isclose(load.busy_gpus[h], expected)
        assert load.observed[h] == here.any()
        assert load.busy_gpus[h] <= len(set(gpus[here].tolist())) + 1e-12  # never more than the GPUs sampled


@settings(max_examples=100, deadline=None)
@given(samples, st.integers(2, 4))
def test_repeating_every_sample_changes_nothing(drawn: list[tuple[int, int, float]], copies: int) -> None:
    times, gpus, busy = _arrays(drawn)
    once = sample_load(times, gpus, busy)
    repeated = sample_load(np.tile(times, copies), np.tile(gpus, copies), np.tile(busy, copies))
    assert once.first_hour == repeated.first_hour
    assert np.allclose(once.busy_gpus, repeated.busy_gpus)
