"""How long work that may wait (`jobs.patience`) really waits under a plan: first come, first served over the hourly
timeline, read out after the solve.

Why: the plan sees each patience window's average concurrency, which says how much capacity to hold, not how long
work queues for it. The window's length is only the longest a job may wait, and work moved within a window waits
for nothing when the plan holds enough GPUs anyway. So the read-out replays the hours in time order:
- arrivals: the busy reference GPUs of each hour as given (a series, an hourly log; the utilisation form gives
  no order, so its busy hours are taken as the first hours of each day: N GPUs for u x 24 h with the `at_once`
  reading, the binomial levels of `independent` jobs from the busiest down, N x u every hour with `average`:
  `periods.arrival_pattern`);
- service capacity each hour: the plan's owned GPUs (units x job slots x throughput, in reference GPUs), present
  every hour, or only while the machines are on when they are on h hours a day (`on_hours`); above them what
  the plan rents: each patience window's rented GPU-hours (its average load above the owned GPUs, `moved`), taken
  in whole instance-hours of the plan's main offer when queued work fills one (`rented_in_batches`); and the
  packed cloud hours that take the work of machines switched off, spread over the hours they are off;
- the queue is served oldest work first (a fluid FCFS queue: served(t) = min(served(t-1) + capacity(t),
  arrived(t))), and carries over from one period to the next.

Each period reports the GPU-hours that arrived in it and were not served in the hour they arrived, and the
longest wait of its arrivals in whole hours (work still queued at the horizon's end counts up to the end).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import numpy as np

_EPS = 1e-6


@dataclass(frozen=True)
class Waits:
    waited_gpu_hours: list[float]  # per period
    max_wait_hours: list[float]    # per period
    # per period, the most work the owned capacity served in one hour (owned first), when it was given
    owned_peak: list[float] | None = None


def fcfs_waits(arrivals: np.ndarray, capacity: np.ndarray, bounds: list[tuple[int, int]],
               owned: np.ndarray | None = None) -> Waits:
    """Per period (its hours `bounds` in the timeline): GPU-hours that waited and the longest wait, for `arrivals`
    (busy GPUs per hour) served first come, first served by `capacity` (GPUs per hour); with `owned` (the part of
    the capacity owned, used first), also the most work it served in one hour: with patience the plan sees each
    window's average, and the hours the replay runs the work in are where the owned GPUs are busy at once."""
    arrived = np.cumsum(arrivals)
    offered = np.cumsum(capacity)
    # served(t) = min(served(t-1) + capacity(t), arrived(t)), served(-1) = 0, unrolled: a running minimum
    served = offered + np.minimum(np.minimum.accumulate(arrived - offered), 0.0)
    owned_peak = None
    if owned is not None:
        by_owned = np.minimum(np.diff(served, prepend=0.0), owned)
        owned_peak = [float(by_owned[a:b].max(initial=0.0)) for a, b in bounds]
    queued = np.maximum(arrived - served, 0.0)
    waited = np.minimum(queued, arrivals)  # the latest arrivals are the ones left in the queue
    tolerance = _EPS * max(float(arrived[-1]) if len(arrived) else 0.0, 1.0)
    late = (queued > tolerance) & (arrivals > tolerance)  # some of this hour's own arrivals are still queued
    hours = np.arange(len(arrivals))
    # the hour in which the last GPU-hour that arrived in hour t is served (len: not before the horizon's end)
    done = np.searchsorted(served, arrived - tolerance, side="left")
    wait = np.where(late, done - hours, 0).astype(float)
    totals = [float(waited[a:b][late[a:b]].sum()) for a, b in bounds]
    longest = [float(wait[a:b].max(initial=0.0)) for a, b in bounds]
    return Waits(totals, longest, owned_peak)


def window_ids(patience: str, start: dt.date, period_bounds: list[tuple[int, int]], total_hours: int) -> np.ndarray:
    """Each hour's patience window, numbered in time order: calendar days, ISO weeks (from Monday) or the periods
    (calendar months); one window per hour when work may not wait. The timeline starts at `start`, midnight."""
    hour = np.arange(total_hours)
    if patience == "day":
        return hour // 24
    if patience == "week":
        return (hour + 24 * start.weekday()) // 168
    if patience == "month":
        ends = np.array([b for _, b in period_bounds])
        return np.searchsorted(ends, hour, side="right")
    return hour


def rented_in_batches(arrivals: np.ndarray, owned: np.ndarray, rented: np.ndarray, windows: np.ndarray,
                      batch: float, most: float = math.inf) -> np.ndarray:
    """The plan's rented GPU-hours of each window, taken when the work queued beyond the owned GPUs fills whole
    instances of `batch` GPUs (at the window's last hour, whatever is queued), until the window's hours are spent.

    Why: the plan prices each window at its average load (`rented` hour by hour: what it rents above the owned
    GPUs) in packed instance-hours, so its instances run full: a 4-GPU instance rented for one GPU of work would
    cost four times what the plan priced, and one-GPU jobs wait to be run four at a time. Nobody rents a fraction
    of a GPU every hour of a week in case work comes, either: read flat, at the window's average from its first
    hour, idle rented capacity before the work arrived was lost, work spilled into the next window, and past the
    end of a usage log (no rented load) it waited until the horizon's end. `most`: the rented work one hour can
    take (the offer's quota of instances at once). One step per hour (the queue decides each hour's rent)."""
    budget = np.bincount(windows, weights=rented)
    last = np.r_[windows[1:] != windows[:-1], True]
    taken = np.zeros(len(arrivals))
    left = budget.tolist()
    queue = 0.0
    for t, (a, own, w, end) in enumerate(zip(arrivals.tolist(), owned.tolist(), windows.tolist(), last.tolist(),
                                             strict=True)):
        queue += a
        beyond = queue - own
        if beyond > 1e-9 and left[w] > 1e-9:
            want = beyond if end or batch <= 0 else math.floor(beyond / batch + 1e-9) * batch
            take = min(want, left[w], most)
            left[w] -= take
            taken[t] = take
        queue = max(queue - own - taken[t], 0.0)
    return taken


def on_hours(arrivals: np.ndarray, hours_a_day: float) -> np.ndarray:
    """Share of each hour that machines on `hours_a_day` hours a day are on (1, 0, or the last on-hour's fraction).

    Which hours: the same ones every day, those of the day in which the most work arrives over the timeline (ties:
    the earlier hour), as a lab that switches its machines on for a working day would choose. The timeline starts at
    midnight (periods start on whole days). The fluid queue needs an hour-by-hour pattern; the planning model only
    caps an owned GPU's hours at h / 24 of each period (`options.on_hours_share`)."""
    total = len(arrivals)
    by_hour = np.bincount(np.arange(total) % 24, weights=arrivals, minlength=24)[:24]
    ranked = np.argsort(-by_hour, kind="stable")  # the busiest hour of the day first, ties in clock order
    share = np.clip(hours_a_day - np.arange(24), 0.0, 1.0)  # 1 for each whole on-hour, then the fraction
    day = np.zeros(24)
    day[ranked] = share
    pattern: np.ndarray = np.resize(day, total)
    return pattern


def day_pattern(gpus: float, utilisation: float, hours: int) -> np.ndarray:
    """N GPUs busy for the first u x 24 h of each day (the last hour partly): the utilisation form's busy hours in
    an order a queue can be replayed on."""
    busy_hours = 24.0 * utilisation
    within = np.arange(hours) % 24
    pattern: np.ndarray = gpus * np.clip(busy_hours - within, 0.0, 1.0)
    return pattern
