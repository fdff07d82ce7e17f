"""A timeline's hours summed and turned into levels slice by slice (a slice: a calendar month of the horizon, or
a demand window), in one numpy pass over the whole timeline rather than one per slice: what `periods` builds each
period's load-duration curve from. Apart from `periods` because these are pure array helpers, with their caches
of index arrays per horizon."""

from __future__ import annotations

import functools

import numpy as np

Bounds = tuple[tuple[int, int], ...]  # each slice's first hour and the hour after its last


def slice_sums(values: np.ndarray, bounds: Bounds) -> list[float]:
    """`float(values[lo:hi].sum())` for each slice. Slices of one length (months of 30 days, of 31, ...) are summed as
    the rows of one 2-D array: numpy sums each row as it sums a 1-D array of the row's length (the same pairwise
    sum, row by row: the same floats), with one call per length instead of one per month (36 months: 48 -> 35 us)."""
    sums = [0.0] * len(bounds)
    for rows, at in _same_lengths(bounds):
        if at is None:
            sums[rows[0]] = float(values[bounds[rows[0]][0]:bounds[rows[0]][1]].sum())
        else:
            for i, total in zip(rows, values[at].sum(axis=1).tolist(), strict=True):
                sums[i] = total
    return sums


@functools.lru_cache(maxsize=8)
def _same_lengths(bounds: Bounds) -> list[tuple[list[int], np.ndarray | None]]:
    """Slices grouped by length: each group's slice indices and, for two slices or more, the index of every hour as
    a (slices, length) array (read-only; cached like `_interleaved`); None for a length of its own."""
    groups: dict[int, list[int]] = {}
    for i, (lo, hi) in enumerate(bounds):
        groups.setdefault(hi - lo, []).append(i)
    out: list[tuple[list[int], np.ndarray | None]] = []
    for length, rows in groups.items():
        at = np.array([bounds[i][0] for i in rows], dtype=np.int64)[:, None] + np.arange(length, dtype=np.int64)
        at.setflags(write=False)
        out.append((rows, at if len(rows) > 1 else None))
    return out


def window_levels(jobs_per_hour: np.ndarray, bounds: Bounds) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per slice, the distinct window averages (jobs at once, fractional) and the hours at each: the fluid curve of
    work that may wait. Not compressed: merging two windows into their mean would let owned capacity serve the
    fuller one's work in the emptier one's hours (a day at 3 jobs and one at 1 read as two days at 2)."""
    out = []
    for lo, hi in bounds:
        values = np.round(np.maximum(jobs_per_hour[lo:hi], 0.0), 9)
        jobs, counts = np.unique(values, return_counts=True)
        keep = jobs > 1e-9
        out.append((jobs[keep], counts[keep].astype(float)))
    return out


def levels_by_slice(jobs_per_hour: np.ndarray, bounds: Bounds,
                     interleave: bool = False) -> list[tuple[np.ndarray, np.ndarray]]:
    """`levels(jobs_per_hour[lo:hi])` for consecutive slices, in one pass: the same bins summed in the same order
    (each slice's hours are contiguous), so the same figures as slice by slice, without a numpy round trip per
    period (36 months of an hourly timeline is 36 small passes otherwise).

    Why the buffers are reused (`out=`): an hourly timeline of 36 months is 26,000 floats (210 kB), above
    glibc's mmap threshold, so every fresh array of that length costs its page faults (some 50 us each); the
    same operations written into four buffers instead of eleven temporaries halve the function's time and give
    the same values.

    `interleave` (for timelines that stay at one level for long runs, a monthly series): the hours are read in
    the order first hour of every slice, second hour of every slice, ... (`_interleaved`). `np.bincount` adds
    each weight to its bin in the order given, so each bin still sums its own hours first to last (a bin lies in
    one slice) and gets the same float; but neighbouring weights now fall in different bins, where a month at one
    level made every addition wait for the one before through memory (89 -> 34 us a pass over 26,000 hours)."""
    if not bounds:
        return []
    first, last = bounds[0][0], bounds[-1][1]
    hours = np.asarray(jobs_per_hour, dtype=float)
    if interleave and (first, last) == (0, len(hours)):
        order, row = _interleaved(bounds)
        c = hours[order]
        np.maximum(c, 0.0, out=c)
        first, last = 0, len(c)
    else:
        c, row = np.maximum(hours, 0.0), None
    lo = np.add(c, 1e-9)
    np.floor(lo, out=lo)
    frac = np.subtract(c, lo, out=c)
    np.clip(frac, 0.0, 1.0, out=frac)
    lo_i = lo.astype(np.int64)
    size = int(lo_i.max(initial=0)) + 2
    if row is None:
        key = np.repeat(np.arange(len(bounds)) * size, [b - a for a, b in bounds])
        key += lo_i[first:last]
    else:
        key = np.multiply(row, size)
        key += lo_i
    w = frac[first:last]
    below = np.subtract(1.0, w, out=lo[first:last])  # `lo` is spent: its buffer takes the lower level's share
    at = np.bincount(key, weights=below, minlength=len(bounds) * size)
    key += 1
    at += np.bincount(key, weights=w, minlength=len(bounds) * size)
    at = at.reshape(len(bounds), size)
    present = at > 1e-9
    present[:, 0] = False  # level 0 (no job) is not a level
    rows, n = np.nonzero(present)  # row by row, levels increasing: each slice's `flatnonzero`
    jobs, level_hours = n.astype(float), at[rows, n]
    ends = np.cumsum(np.bincount(rows, minlength=len(bounds))).tolist()
    return [(jobs[a:b], level_hours[a:b]) for a, b in zip([0, *ends[:-1]], ends, strict=True)]


@functools.lru_cache(maxsize=8)
def _interleaved(bounds: Bounds) -> tuple[np.ndarray, np.ndarray]:
    """The hours of consecutive slices read column-wise, first hour of every slice, then the second, ...: each
    hour's index, and its slice's. Cached (read-only arrays): every plan of a horizon has the same slices, and
    making the order costs twice what it saves once."""
    lengths = np.array([b - a for a, b in bounds], dtype=np.int64)
    at = np.arange(int(lengths.max()), dtype=np.int64)[:, None]
    inside = at < lengths
    order = (at + np.array([a for a, _ in bounds], dtype=np.int64))[inside]
    row = np.broadcast_to(np.arange(len(bounds), dtype=np.int64), inside.shape)[inside]
    order.setflags(write=False)
    row.setflags(write=False)
    return order, row
