"""Who serves each hour in the replay: the owned job slots first, then whole rented instances (a covering table of
the cheapest mix for each number of jobs), or packed cloud hours for work that may wait, queued first come first
served.

In: the fleet's slots, the cloud options and the hour's jobs at once. Out: per hour what is rented and what it
costs."""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import numpy as np

from solvers.base.options import CloudOption, HostOption, OwnedOption
from solvers.base.profile import Profile
from solvers.replay.demand_hours import window_of

TABLE = 2048  # whole-instance covers are searched exactly up to this many jobs at once (`Cover`)


@dataclass(frozen=True)
class Slots:
    """The owned and committed job slots, cheapest energy first: option, slots, speed, energy per job-hour."""

    options: list[OwnedOption]
    slots: np.ndarray
    speed: np.ndarray
    energy: np.ndarray

    @staticmethod
    def of(fleet: Fleet, usd_per_kwh: float) -> Slots:
        rows = [(o, job_slots(o, n)) for o, n in fleet.owned if n > 0]
        rows.sort(key=lambda r: r[0].usd_per_job_hour(usd_per_kwh))
        return Slots([o for o, _ in rows], np.array([s for _, s in rows]),
                      np.array([o.throughput for o, _ in rows]),
                      np.array([o.usd_per_job_hour(usd_per_kwh) for o, _ in rows]))

    def take(self, jobs: float) -> np.ndarray:
        """Jobs at once per option when `jobs` run on the slots, cheapest energy first."""
        before = np.concatenate([[0.0], np.cumsum(self.slots)[:-1]])
        return np.clip(jobs - before, 0.0, self.slots)


def job_slots(o: OwnedOption, units: int) -> float:
    """Jobs at once `units` of an option hold: its slots per unit, or for bare cards pooled into jobs wider than one
    card, the whole jobs their cards make."""
    if o.includes_host or o.width == 1:
        return o.slots_per_unit * units
    return float(o.gpus_per_unit * units // o.width) * o.load_per_gpu


class Cover:
    """The cheapest whole instances giving m jobs a slot each, per level-hour (each instance paid for the time its
    jobs take: price / speed), within each quota group's instances at once: a bounded knapsack over exact slot
    counts up to the most jobs asked plus the widest instance, then the cheapest count at or above m."""

    def __init__(self, cloud: list[CloudOption], most: int) -> None:
        self.cloud = cloud
        # beyond TABLE jobs the cheapest unlimited offer per job slot takes the excess in whole instances first
        # (a lab of thousands of jobs at once; the model's cover does the same beyond MAX_COVER_TABLE)
        unlimited = [i for i, c in enumerate(cloud) if c.max_instances is None and c.slots > 0]
        self._bulk = min(unlimited, key=lambda i: (cloud[i].usd_per_hour / cloud[i].speed / cloud[i].slots, i),
                         default=None)
        most = min(most, TABLE)
        size = max(most, 0) + max((c.slots for c in cloud), default=0)
        best = np.full(size + 1, math.inf)
        best[0] = 0.0
        counts = np.zeros((size + 1, len(cloud)), dtype=np.int64)  # instances of each offer in the best cover
        groups: dict[str, list[int]] = {}
        for i, c in enumerate(cloud):
            if c.slots > 0:
                groups.setdefault(c.quota_group if c.max_instances is not None else f"free:{i}", []).append(i)
        for members in groups.values():
            quota = cloud[members[0]].max_instances
            copies = size if quota is None else min(int(quota), size)
            for _ in range(copies):  # one more instance of the group, of any member, or none
                new_best, new_counts = best.copy(), counts.copy()
                for i in members:
                    c = cloud[i]
                    if c.slots > size:
                        continue
                    candidate = np.full(size + 1, math.inf)
                    candidate[c.slots:] = best[: size + 1 - c.slots] + c.usd_per_hour / c.speed
                    better = np.flatnonzero(candidate < new_best - 1e-12)
                    new_best[better] = candidate[better]
                    new_counts[better] = counts[better - c.slots]
                    new_counts[better, i] += 1
                if np.array_equal(new_best, best):
                    break
                best, counts = new_best, new_counts
        self._best = best
        self._counts = counts
        self._at_least = np.minimum.accumulate(best[::-1])[::-1]  # the cheapest cover of m or more slots

    def __call__(self, m: int) -> tuple[float, dict[int, int]]:
        if m <= 0:
            return 0.0, {}
        if m > TABLE and self._bulk is not None:
            c = self.cloud[self._bulk]
            bulk = math.ceil((m - TABLE) / c.slots)
            price, counts = self(m - bulk * c.slots)
            return price + bulk * c.usd_per_hour / c.speed, {**counts, self._bulk: counts.get(self._bulk, 0) + bulk}
        if m >= len(self._best):
            return math.inf, {}
        value = float(self._at_least[m])
        if not math.isfinite(value):
            return math.inf, {}
        j = m + int(np.argmax(self._best[m:] <= value + 1e-12))
        return value, {i: int(n) for i, n in enumerate(self._counts[j].tolist()) if n}


def packing_of(cloud: list[CloudOption]) -> list[tuple[float, int]]:
    """Offers that take displaced work, by price per reference job-hour of a packed instance-hour."""
    return sorted(((c.usd_per_hour / c.packed_capacity, i) for i, c in enumerate(cloud) if c.packed_capacity > 0))


def slotted(slots: Slots, cloud: list[CloudOption], jobs: np.ndarray, share: np.ndarray, held: np.ndarray,
             rented_jobs: np.ndarray, rent_hours: np.ndarray) -> float:
    """Work that may not wait: each segment's jobs on owned slots (as many as pay for themselves against renting,
    cheapest energy first) and the rest on the cheapest whole instances; fills the hourly arrays, returns the rent."""
    total_slots = float(slots.slots.sum()) if len(slots.slots) else 0.0
    values, where = np.unique(np.round(jobs, 9), return_inverse=True)
    cover = Cover(cloud, round(float(values.max(initial=0.0))))
    where = where.reshape(jobs.shape)
    plan_owned = np.zeros((len(values), len(slots.slots)))
    plan_rent = np.zeros(len(values))
    plan_inst = np.zeros((len(values), len(cloud)))
    for v, n in enumerate(values.tolist()):
        n_whole = round(n)
        best: tuple[float, int] | None = None
        most = min(n_whole, math.floor(total_slots + 1e-9))
        for k in owned_counts(most, slots):  # k jobs owned: energy of the cheapest k, plus the cover of the rest
            taken = slots.take(float(k))
            usd = float(np.dot(taken, slots.energy)) + cover(n_whole - k)[0]
            if best is None or usd < best[0] - 1e-12:
                best = (usd, k)
        if best is None or not math.isfinite(best[0]):
            plan_rent[v] = math.inf
            continue
        k = best[1]
        plan_owned[v] = slots.take(float(k))
        price, counts = cover(n_whole - k)
        plan_rent[v] = price
        for i, c in counts.items():
            plan_inst[v, i] = c / cloud[i].speed  # instance-hours per hour of the segment
    for s in range(jobs.shape[1]):
        t = share[:, s]
        idx = where[:, s]
        if len(slots.slots):
            held += plan_owned[idx].T * t[None, :]
        rented_jobs += (values[idx] - plan_owned[idx].sum(axis=1)) * t
        rent_hours += plan_inst[idx].T * t[None, :]
    with np.errstate(invalid="ignore"):  # a segment of no time costs nothing, even where nothing could cover it
        return float(sum(np.where(share[:, s] > 0, plan_rent[where[:, s]] * share[:, s], 0.0).sum()
                         for s in range(jobs.shape[1])))


def active_hours(jobs: np.ndarray, share: np.ndarray, hours: int) -> np.ndarray:
    """Per hour, the share of it in which some job runs (one hour's segments stand for every hour when given once)."""
    per = np.where(jobs > 1e-9, share, 0.0).sum(axis=1)
    return np.full(hours, float(per[0])) if len(per) == 1 and hours > 1 else per


def share_overrun(slots: Slots, busy: np.ndarray, held: np.ndarray, active: float, room: list[float]) -> np.ndarray:
    """A month's work beyond one owned option's available hours taken over by other owned options' idle hours,
    cheapest energy first, each within its own hours and the hours with jobs (jobs are many: while a slower card
    overruns one, the next goes to a free slot). Slot-hours each option takes (+) or gives (-)."""
    moved = np.zeros(len(busy))
    work = [max(float(busy[g]) - room[g], 0.0) * float(slots.speed[g]) for g in range(len(busy))]
    for g in range(len(busy)):
        for h in range(len(busy)):  # receivers, cheapest energy first (`Slots` keeps that order)
            if work[g] <= 1e-12:
                break
            if h == g:
                continue
            spare = min((room[h] - float(busy[h]) - moved[h]) * float(slots.speed[h]),
                        active * float(slots.slots[h]) - float(held[h]) - moved[h] * float(slots.speed[h]))
            take = min(work[g], max(spare, 0.0))
            moved[h] += take / float(slots.speed[h])
            moved[g] -= take / float(slots.speed[g])
            work[g] -= take
    return moved


def owned_counts(most: int, slots: Slots) -> list[int]:
    """Owned job counts to try: every one up to TABLE; beyond (thousands of jobs at once), none, all, each option's
    boundary and a slot-step either side of them."""
    if most <= TABLE:
        return list(range(most + 1))
    bounds = np.concatenate([[0.0], np.cumsum(slots.slots)])
    found = {0, most}
    for b in bounds.tolist():
        for k in (math.floor(b) - 1, math.floor(b), math.floor(b) + 1):
            if 0 <= k <= most:
                found.add(k)
    return sorted(found)


def fluid_rent(profile: Profile, slots: Slots, cloud: list[CloudOption], jobs: np.ndarray, start: dt.date,
           held: np.ndarray, rented_jobs: np.ndarray, rent_hours: np.ndarray) -> float:
    """Work that may wait: each window's work on the cheapest of the owned slots (r job-hours an hour each) and the
    packed offers (price per reference job-hour, within quota x slots x speed an hour), cheapest first."""
    hours = len(jobs)
    windows = window_of(profile.jobs.patience, start, hours)
    offers = packed_offers(cloud)
    rent = 0.0
    for w in np.unique(windows).tolist():
        at = np.flatnonzero(windows == w)
        h = float(len(at))
        work = float(jobs[at].sum())
        if work <= 1e-12:
            continue
        resources = [(float(slots.energy[g]), float(slots.slots[g] * slots.speed[g] * h), ("own", g))
                     for g in range(len(slots.slots))]
        resources += [(price, cap * h, ("rent", i)) for price, cap, i in offers]
        resources.sort(key=lambda r: (r[0], r[2][0] != "own"))
        left = work
        for price, cap, (kind, i) in resources:
            take = min(left, cap)
            if take <= 0:
                continue
            if kind == "own":
                held[i, at] += take / h
            else:
                rent += price * take
                rented_jobs[at] += take / h
                c = cloud[i]
                rent_hours[i, at] += take / h / (c.slots * c.speed)
            left -= take
            if left <= 1e-12:
                break
        if left > 1e-9:
            return math.inf
    return rent


def packed_offers(cloud: list[CloudOption]) -> list[tuple[float, float, int]]:
    """Offers as packed capacity: (price per reference job-hour, jobs at once within the quota, offer). A quota
    shared by several copies of one offer (the workload form's job widths) goes to its cheapest copy."""
    best: dict[str, tuple[float, float, int]] = {}
    for i, c in enumerate(cloud):
        if c.slots <= 0:
            continue
        price = c.usd_per_hour / (c.slots * c.speed)
        cap = math.inf if c.max_instances is None else c.max_instances * c.slots * c.speed
        key = c.quota_group if c.max_instances is not None else f"free:{i}"
        if key not in best or price < best[key][0]:
            best[key] = (price, cap, i)
    return sorted(best.values())


def pack(chunks: list[tuple[float, float, int]], packing: list[tuple[float, int]], cloud: list[CloudOption],
          rented: np.ndarray, hours: float, n_options: int) -> tuple[float, np.ndarray]:
    """Displaced work on packed instance-hours, cheapest first, a quota-limited offer within the instance-hours its
    rentals leave in the month: each chunk (work, the most a job-hour may cost, option) the work that must go first
    (any price), then the rest while packing costs less than the option's energy. The cost, and the work moved per
    option (infinite cost when what must go finds no room)."""
    used: dict[str, float] = {}
    for group in {c.quota_group for c in cloud if c.max_instances is not None}:
        used[group] = float(sum(rented[i].sum() for i, c in enumerate(cloud) if c.quota_group == group))
    usd = 0.0
    moved = np.zeros(n_options)
    for work, most, g in sorted(chunks, key=lambda c: -c[1]):  # what must go, then the dearest energy first
        left = work
        for price, i in packing:
            if left <= 1e-12 or price >= most:
                break
            c = cloud[i]
            if c.max_instances is None:
                take = left
            else:
                free = max(c.max_instances * hours - used[c.quota_group], 0.0)
                take = min(left, free * c.packed_capacity)
                used[c.quota_group] += take / c.packed_capacity
            usd += take * price
            moved[g] += take
            left -= take
        if left > 1e-9 and math.isinf(most):
            return math.inf, moved
    return usd, moved


def queue(arrived: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """Work still queued after each hour, first come first served (a fluid queue)."""
    done = np.minimum.accumulate(np.concatenate([[np.inf], np.cumsum(arrived) - np.cumsum(capacity)])[::-1])
    del done
    queue = np.zeros(len(arrived))
    left = 0.0
    for t, (a, c) in enumerate(zip(arrived.tolist(), capacity.tolist(), strict=True)):
        left = max(left + a - c, 0.0)
        queue[t] = left
    return queue


@dataclass(frozen=True)
class Fleet:
    """What the replay runs: units of owned options (purchases and commitments), hosts, and the offers it may rent."""

    owned: list[tuple[OwnedOption, int]]
    hosts: list[tuple[HostOption, int]]
    cloud: list[CloudOption]
