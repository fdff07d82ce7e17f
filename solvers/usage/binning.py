"""Hourly binning shared by the parsers: job intervals (Slurm) and utilisation samples (nvidia-smi, DCGM).

Both return the first hour (hours since the Unix epoch, UTC) and one value per hour, so every
format lands on the same UTC hour grid whatever time zone its timestamps were written in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SECONDS_PER_HOUR = 3600.0

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class HourlyLoad:
    first_hour: int        # hours since 1970-01-01T00:00Z
    busy_gpus: FloatArray  # average GPUs busy in each hour
    observed: BoolArray    # whether the log says anything about that hour


def interval_load(start_s: FloatArray, end_s: FloatArray, gpus: FloatArray) -> HourlyLoad:
    """GPU-hours of jobs holding `gpus` GPUs from `start_s` to `end_s` (Unix seconds), per UTC hour.

    Exact: a job contributes gpus x (seconds of overlap with the hour) / 3600 to every hour it
    touches, so the hourly values sum to the jobs' total GPU-hours (a property test checks it).
    Whole hours inside a job go through a difference array and a cumulative sum; only the first and
    last partial hours are added one by one (with bincount), so the cost is linear in jobs + hours.
    Every hour between the first start and the last end counts as observed: an accounting log
    lists every job, so an hour without jobs had none.
    """
    if start_s.size == 0:
        return HourlyLoad(0, np.zeros(0), np.zeros(0, dtype=bool))
    first = int(np.floor(start_s.min() / SECONDS_PER_HOUR))
    last = max(int(np.ceil(end_s.max() / SECONDS_PER_HOUR)), first + 1)
    n = last - first
    origin = first * SECONDS_PER_HOUR  # subtract before dividing: keeps second-level precision exact
    s = (start_s - origin) / SECONDS_PER_HOUR
    e = (end_s - origin) / SECONDS_PER_HOUR
    hs = np.floor(s).astype(np.int64)
    he = np.floor(e).astype(np.int64)        # may equal n when a job ends on the last boundary
    same = hs == he
    load = np.zeros(n + 1)  # bincount of nothing is an integer array: start from floats
    load += np.bincount(hs[same], weights=gpus[same] * (e[same] - s[same]), minlength=n + 1)
    cross = ~same
    load += np.bincount(hs[cross], weights=gpus[cross] * (hs[cross] + 1 - s[cross]), minlength=n + 1)
    load += np.bincount(he[cross], weights=gpus[cross] * (e[cross] - he[cross]), minlength=n + 1)
    full = cross & (he > hs + 1)
    diff = np.zeros(n + 1)
    diff += np.bincount(hs[full] + 1, weights=gpus[full], minlength=n + 1)
    diff -= np.bincount(he[full], weights=gpus[full], minlength=n + 1)
    load += np.cumsum(diff)
    return HourlyLoad(first, load[:n].astype(np.float64), np.ones(n, dtype=bool))


def sample_load(times_s: FloatArray, gpu_ids: IntArray, busy: FloatArray) -> HourlyLoad:
    """Average busy GPUs per UTC hour from point samples of individual GPUs.

    Each GPU's hour is the mean of that GPU's samples in the hour, and the hour's value is the sum
    of those means over the GPUs sampled in it. Consequences, all deliberate:
    - overlapping or duplicated samples of one GPU (two logs of the same machine concatenated, a
      series split by a relabelling in Prometheus) are averaged, never added, so they cannot
      inflate the count of busy GPUs;
    - a GPU sampled only part of the hour stands for the whole hour with what was seen;
    - an hour in which a GPU has no sample contributes nothing for it, and an hour in which no GPU
      has a sample is a gap: 0 busy, `observed` False (summaries leave gaps out).
    Samples are means, not time integrals: nvidia-smi and DCGM report utilisation over the
    driver's own short window at each sample, so the hourly mean is an estimate whose precision
    grows with the sampling rate, whatever the spacing between samples.
    """
    if times_s.size == 0:
        return HourlyLoad(0, np.zeros(0), np.zeros(0, dtype=bool))
    hours = np.floor(times_s / SECONDS_PER_HOUR).astype(np.int64)
    first = int(hours.min())
    n = int(hours.max()) - first + 1
    key = gpu_ids.astype(np.int64) * n + (hours - first)
    keys, inverse = np.unique(key, return_inverse=True)
    means = np.bincount(inverse, weights=busy) / np.bincount(inverse)
    hour_of_key = keys % n
    load = np.bincount(hour_of_key, weights=means, minlength=n)
    observed = np.bincount(hour_of_key, minlength=n) > 0
    return HourlyLoad(first, load.astype(np.float64), observed)
