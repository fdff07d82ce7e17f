"""The screening curve: what the K-th owned job slot saves, over every level of every block.

With K owned slots, each level of n jobs at once runs k*(K) <= min(K, n) of them on owned GPUs and rents whole
instances for the rest (ceil(n - k) jobs, priced by the covering-knapsack table; or packed instances at the
cheapest price per job-hour when work may wait). k*(K) minimises rent + owned energy (at the cheapest owned
option's energy per job-hour) over k <= K, so owning one more slot never costs more in rent.
The plan's rent is then R(K) and its owned job-hours per block W_b(K): the MIP sums per-slot steps
(unary binaries mu_K = [K owned slots or more]); the evaluator reads them at a fixed K.

Exact (equal to enumerating every hour) when at most one owned option is bought or all owned options use the
same energy per job-hour: jobs are then interchangeable between owned GPUs. With several, which owned GPU runs
which job is pooled per block (cheapest energy first up to each option's hours), which can under-count energy
when the cheap option is busy in the peak hours only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from solvers.base import defaults
from solvers.base.options import CloudOption
from solvers.offers.cover import cover_table

# at today's demand a curve of at most this many cells x counts is screened at every count at once (`Curves.at`):
# the thresholds' lines run every candidate there: on 15 of the 22 bench profiles that screen at it a purchase
# asks for the peak after one or two narrower curves were screened (on 3 none asks for it)
WHOLE_CURVE = 10_000


@dataclass(frozen=True)
class Cells:
    """The (block, level) pairs of all blocks, flattened."""

    block: np.ndarray   # block index per cell
    jobs: np.ndarray    # jobs at once
    hours: np.ndarray   # hours at that level (summed over the block's periods)


def whole_levels(cells: Cells) -> Cells:
    """Each cell of x jobs at once for h hours as floor(x) jobs for (1 - f) h and floor(x) + 1 for f h, f = x -
    floor(x): the same work in whole jobs, as the periods' levels are (an hour with an average of 2.3 jobs is 2 jobs
    for 0.7 h and 3 for 0.3 h). Why: a demand multiple of a curve (the thresholds' what-if) gives fractional jobs,
    and a fraction of a job at once rents a whole instance for all its hours: four jobs at 1% of the demand were one
    instance rented all the time instead of one job for 4% of the hours, and a threshold read 0. A period of many
    levels is compressed into fractional ones (`periods.compress`), which the model prices as they are: those are
    split too at a multiple (re-levelling the hours at each multiple would cost a pass over the timeline), never at
    today's demand, where the curve is the model's (`Evaluator._cells_at`). Where the instances are packed
    (work may wait) the rent and the owned hours are linear between whole jobs, so nothing changes."""
    low = np.floor(cells.jobs + 1e-9)
    if np.logical_and.reduce(low == cells.jobs):
        return cells
    up = np.maximum(cells.jobs - low, 0.0)
    split = up > 1e-9
    at = np.flatnonzero(split)  # the split cells, taken by index (one count of the mask, not one per array)
    hours = np.where(split, cells.hours * (1.0 - up), cells.hours)
    return Cells(np.concatenate([cells.block, cells.block[at]]), np.concatenate([low, low[at] + 1.0]),
                 np.concatenate([hours, cells.hours[at] * up[at]]))


class Renting:
    """Price per level-hour of renting for `jobs` jobs at once: whole instances, or packed when work may wait."""

    def __init__(self, cloud: list[CloudOption], peak: int, whole: bool) -> None:
        self.cloud = cloud
        self.whole = whole
        self.table = cover_table(cloud, min(peak, defaults.MAX_COVER_TABLE)) if whole else None
        unlimited = [i for i, c in enumerate(cloud) if c.max_instances is None]
        # beyond the table: whole instances of the cheapest unlimited offer per job slot, then the table
        self._bulk = min(unlimited, key=lambda i: cloud[i].usd_per_job_hour / cloud[i].slots, default=None)
        self.packed = packed_segments(cloud)  # (price per job-hour, jobs at once, instance moves), cheapest first

    def price(self, jobs: np.ndarray) -> np.ndarray:
        jobs = np.maximum(jobs, 0.0)
        if self.table is not None:
            need = np.ceil(jobs - 1e-9).astype(np.int64)
            if need.size and need.max() <= self.table.size:
                # within the table no bulk instance is rented: the table's price plus the zero extra, as below
                # (`+ 0.0` kept: it is what the sum with a zero bulk cost gives, -0.0 included)
                priced = self.table.price[need]
                priced += 0.0
                return priced
            if self._bulk is not None:
                offer = self.cloud[self._bulk]
                bulk = np.maximum(np.ceil((need - self.table.size) / offer.slots), 0).astype(np.int64)
                extra: np.ndarray = bulk * offer.usd_per_job_hour
                rest = np.maximum(need - bulk * offer.slots, 0)
            else:
                extra = np.zeros(jobs.shape)
                rest = np.maximum(need, 0)
            priced = self.table.price[np.minimum(rest, self.table.size)] + extra
            return np.where(rest > self.table.size, math.inf, priced)
        cost = np.zeros_like(jobs)
        left = jobs.copy()
        for per_slot, cap, _ in self.packed:
            take = np.minimum(left, cap)
            cost += per_slot * take
            left = left - take
        return np.where(left > 1e-9, math.inf, cost)

    def instances(self, jobs: float) -> dict[int, float]:
        """Instances per offer index for `jobs` jobs at once (whole counts, or packed fractions)."""
        if self.table is not None:
            need = max(0, math.ceil(jobs - 1e-9))
            bulk_offer, bulk = self._bulk, 0
            if bulk_offer is not None and need > self.table.size:
                bulk = math.ceil((need - self.table.size) / self.cloud[bulk_offer].slots)
                need -= bulk * self.cloud[bulk_offer].slots
            counts = {i: float(n) for i, n in self.table.counts(max(need, 0)).items()}
            if bulk_offer is not None and bulk:
                counts[bulk_offer] = counts.get(bulk_offer, 0.0) + bulk
            return counts
        out: dict[int, float] = {}
        left = max(jobs, 0.0)
        for _, cap, moves in self.packed:
            take = min(left, cap)
            if take > 1e-12:
                for i, sign, per in moves:
                    out[i] = out.get(i, 0.0) + sign * take / per
            left -= take
        return {i: n for i, n in out.items() if n > 0}


def packed_segments(cloud: list[CloudOption]) -> list[tuple[float, float, list[tuple[int, float, float]]]]:
    """Packed renting (work may wait) as segments of job capacity, cheapest per job first: (price per job-hour,
    jobs, [(offer index, sign, jobs per instance)]), so x jobs of a segment add sign x x / jobs-per-instance
    instances of each offer it names.

    An offer is one segment (its quota x slots x speed, or unlimited). Rows of one quota-limited offer at several
    job widths (the workload form) share its quota of Q instances: the cheapest way to give them J jobs is Q times
    the lower convex hull of (0, 0) and each row's (slots x speed, price per instance-hour) at J / Q, so the group
    is the hull's
    segments, each trading instances of the narrower vertex for the wider one (convex, so taking segments cheapest
    first is optimal).
    """
    segments: list[tuple[float, int, float, list[tuple[int, float, float]]]] = []
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(cloud):
        if c.max_instances is None:
            segments.append((c.usd_per_job_hour / c.slots, i, math.inf, [(i, 1.0, float(c.slots))]))
        else:
            groups.setdefault(c.quota_group, []).append(i)
    for members in groups.values():
        quota = cloud[members[0]].max_instances
        assert quota is not None
        if len(members) == 1:
            c = cloud[members[0]]
            # Q instances at once do Q x slots x speed reference jobs: a machine runs one hour an hour, however
            # fast (the cap was Q x slots, which let a slower listing run more than its hours and held a faster
            # one to less)
            segments.append((c.usd_per_job_hour / c.slots, members[0], quota * c.slots * c.speed,
                             [(members[0], 1.0, float(c.slots))]))
            continue
        previous: int | None = None
        for v in _lower_hull(cloud, members):
            cap_a, price_a = (0.0, 0.0) if previous is None else _capacity_price(cloud[previous])
            cap_v, price_v = _capacity_price(cloud[v])
            step = cap_v - cap_a
            # x jobs on this segment: x / step instances of v more and of the previous vertex fewer, counted as
            # `instances` counts them (jobs / slots: instance-hours are that over the offer's speed)
            moves = [(v, 1.0, step / cloud[v].speed)] + (
                [] if previous is None else [(previous, -1.0, step / cloud[previous].speed)])
            segments.append(((price_v - price_a) / step, v, quota * step, moves))
            previous = v
    segments.sort(key=lambda t: (t[0], t[1]))
    return [(price, cap, moves) for price, _, cap, moves in segments]


def _capacity_price(c: CloudOption) -> tuple[float, float]:
    """An instance's reference jobs at once (slots x speed) and its price per instance-hour."""
    return float(c.slots) * c.speed, c.usd_per_hour


def _lower_hull(cloud: list[CloudOption], members: list[int]) -> list[int]:
    """Rows on the lower convex hull of (0, 0) and each row's (reference jobs at once, price per instance-hour), by
    capacity."""
    cheapest: dict[float, int] = {}
    for i in members:  # per capacity, the cheapest row
        cap, price = _capacity_price(cloud[i])
        if cap not in cheapest or price < _capacity_price(cloud[cheapest[cap]])[1]:
            cheapest[cap] = i
    hull: list[tuple[float, float, int]] = [(0.0, 0.0, -1)]
    for cap in sorted(cheapest):
        point = (cap, _capacity_price(cloud[cheapest[cap]])[1], cheapest[cap])
        while len(hull) >= 2:
            (x0, y0, _), (x1, y1, _) = hull[-2], hull[-1]
            if (x1 - x0) * (point[1] - y0) - (y1 - y0) * (point[0] - x0) > 0:
                break
            hull.pop()
        hull.append(point)
    return [i for _, _, i in hull[1:]]


@dataclass(frozen=True)
class Layers:
    cells: Cells
    n_blocks: int
    ks: np.ndarray           # owned slot counts K, column j of the arrays below
    rent: np.ndarray         # (len(ks),) rent per K owned slots (inf where quotas cannot cover the rest)
    owned_hours: np.ndarray  # (blocks, len(ks)) owned job-hours at reference pace per K
    owned_jobs: np.ndarray   # (cells, len(ks)) owned jobs at once per cell per K
    required: int            # index of the fewest owned slots with a finite rent (len(ks) if none)


def first_columns(layers: Layers, count: int) -> Layers:
    """The curve at its first `count` slot counts, as `screening` computes it on ks[:count]: a column depends on the
    counts up to its own only (each cell's running minimum over k <= K), and each sums its cells in the same order."""
    rent = layers.rent[:count]
    finite = np.isfinite(rent)
    return Layers(layers.cells, layers.n_blocks, layers.ks[:count], rent, layers.owned_hours[:, :count],
                  layers.owned_jobs[:, :count], int(finite.argmax()) if finite.any() else count)


def slot_grid(upto: int) -> np.ndarray:
    """Owned slot counts the curve is evaluated at: every count up to `MAX_SLOT_STEPS`, then an even grid
    (a lab with thousands of jobs at once plans its owned slots in steps of upto / MAX_SLOT_STEPS)."""
    if upto <= defaults.MAX_SLOT_STEPS:
        return np.arange(upto + 1)
    return np.unique(np.round(np.linspace(0, upto, defaults.MAX_SLOT_STEPS + 1)).astype(np.int64))


def screening(cells: Cells, n_blocks: int, renting: Renting, owned_energy: float, ks: np.ndarray,
              block_weight: np.ndarray | None = None) -> Layers:
    """R(K), W_b(K) and the owned jobs per cell for the owned slot counts K in `ks` (increasing, from 0).

    `block_weight` (issue 16): each block's discount factor; R(K) is then the rent's present value. A cell's
    choice k*(K) does not change with it (rent and owned energy of a cell scale together)."""
    # The thresholds' evaluator calls this some hundred times a plan on a few cells, where each numpy call's fixed
    # cost is the time: the same operations element by element as ever, in fewer calls (no concatenate, no
    # take_along_axis, no flatnonzero).
    # The arrays are (K, cells), one row per slot count: numpy's loops then run along the cells, not along a few
    # counts once per cell (a broadcast over a (cells, 1) column). Every figure is elementwise or a running
    # minimum along K, so the same as in the (cells, K) layout the curve returns; the two sums keep their order
    # (the rent's, each bin of the bincount taking its cells in order).
    n = cells.jobs
    top = np.ceil(n - 1e-9)
    columns = len(ks)
    index = np.arange(columns)
    k = np.minimum(ks[:, None], top)                           # (len(ks), cells)
    rent = renting.price((n - k).reshape(-1)).reshape(k.shape)
    rent *= cells.hours
    # the cost is compared only (never summed): at no owned energy it is the rent (rent + 0 x served x hours is
    # the rent, a -0.0 apart, which compares as 0.0)
    cost = rent + owned_energy * np.minimum(k, n) * cells.hours if owned_energy else rent
    # k*(K): the last strict improvement of the running minimum over k <= K (vectorised prefix argmin); the first
    # count is 0 whether it improves or not, so only the later ones are compared with the minimum before them.
    # The running minimum and maximum are taken row by row: numpy's accumulate along the counts steps one cell at
    # a time (the same operations in the same order, op(row before, row)).
    chosen = np.zeros(k.shape, dtype=index.dtype)
    if columns > 1:
        later = cost[1:]
        previous = np.empty((columns - 1, len(n)))  # the running minimum before each K
        previous[0] = cost[0]
        for j in range(1, columns - 1):
            np.minimum(previous[j - 1], cost[j], out=previous[j])
        with np.errstate(invalid="ignore"):
            improves = (later < previous - 1e-9 * np.maximum(1.0, np.abs(previous))) | (
                ~np.isfinite(previous) & np.isfinite(later))
        np.copyto(chosen[1:], index[1:, None], where=improves)
        for j in range(1, columns):
            np.maximum(chosen[j - 1], chosen[j], out=chosen[j])
    # on the grid of every count (ks = 0, 1, ...) the count at a column is its index
    at = chosen if ks.dtype == index.dtype and ks[-1] == columns - 1 else ks[chosen]
    owned_jobs = np.minimum(np.minimum(at, top), n)
    cell_rent = rent[chosen, np.arange(len(n))]
    if block_weight is not None:
        cell_rent = cell_rent * block_weight[cells.block]
    # the sum over cells of a C-ordered (cells, K) array adds each column's cells one after another (one column
    # alone is summed pairwise): with two counts or more, a bincount per count adds them in the same order (from
    # +0.0, which adds nothing to a rent: none is -0.0)
    total_rent = (np.bincount(np.repeat(index, len(n)), weights=cell_rent.ravel(), minlength=columns)
                  if columns > 1 else cell_rent.T.copy().sum(axis=0))
    hours = owned_jobs * cells.hours
    # every column's per-block sums in one bincount: bin (block, K) takes its cells in the same order as a bincount
    # per column would
    bins = (index[:, None] + cells.block * columns).ravel()
    owned_hours = np.bincount(bins, weights=hours.ravel(), minlength=n_blocks * columns).reshape(n_blocks, columns)
    finite = np.isfinite(total_rent)
    required = int(finite.argmax()) if finite.any() else columns
    return Layers(cells, n_blocks, ks, total_rent, owned_hours, owned_jobs.T.copy(), required)


class Curves:
    """The screening curves of one evaluator of fixed purchases (`solvers.model.evaluate`), kept per demand scale and
    slot count."""

    def __init__(self, n_blocks: int, block_weight: np.ndarray | None) -> None:
        self.n_blocks = n_blocks
        self.block_weight = block_weight
        self._kept: dict[tuple[float, int], Layers] = {}
        self._widest: dict[float, Layers] = {}  # per demand scale, the curve with the most slot counts
        self._slot_hint = 0  # the most slots a purchase has asked a curve for

    def at(self, demand: float, cells: Cells, peak: int, max_slots: int,
           renting_for: Callable[[int], Renting]) -> Layers:
        """The screening curve at a demand scale up to `max_slots` owned slots, kept per scale and slot count. Up to
        MAX_SLOT_STEPS jobs at once every count is on the grid, so fewer slots read the first columns of the widest
        curve computed at that scale (`first_columns`), computed as wide as any purchase has asked at another
        scale: the demand threshold's search tries every candidate purchase at each new scale, and each slot
        count made a curve of its own. Not for cloud only (no slots): a one-column curve sums its cells in another
        order than a column of a wider one, so it is computed alone, and every answer is the same float whatever
        was asked before."""
        key = (demand, max_slots)
        layers = self._kept.get(key)
        if layers is None:
            if max_slots == 0 or peak > defaults.MAX_SLOT_STEPS:
                layers = screening(cells, self.n_blocks, renting_for(peak), 0.0, slot_grid(max_slots),
                                   self.block_weight)
            else:
                widest = self._widest.get(demand)
                if widest is None or len(widest.ks) <= max_slots:
                    self._slot_hint = max(self._slot_hint, max_slots)
                    upto = min(peak, self._slot_hint)
                    if demand == 1.0 and len(cells.jobs) * (peak + 1) <= WHOLE_CURVE:
                        upto = peak  # today's demand: the lines run every candidate there, up to the largest
                    widest = self._widest[demand] = screening(
                        cells, self.n_blocks, renting_for(peak), 0.0, slot_grid(upto), self.block_weight)
                layers = widest if len(widest.ks) == max_slots + 1 else first_columns(widest, max_slots + 1)
            self._kept[key] = layers
        return layers
