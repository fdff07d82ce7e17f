"""Remove options that can never be in a cheapest plan, before the model is built.

Three rules, each safe (tests compare optima with and without pruning):
1. An offer that costs no less per job-hour and runs no more jobs at once than an unlimited offer is never
   needed (swap each of its instances for one of the other); instances are whole, so the kept offers form a
   front of price against instance size.
2. An owned option is dominated by another with the same unit shape (GPUs per unit, host or not)
   that is no worse in every respect the model sees: throughput, purchase price (budget), net
   price after resale, idle energy, energy per reference hour and card power (PSU). Swapping
   units one for one keeps every constraint and never costs more.
3. One unit of an owned option runs k jobs at once; without it, each level-hour with work needs at most
   ceil(k / s) more instances of an unlimited offer with s slots. If the unit's net price plus idle energy
   is at least that saving over the horizon, it is never needed. (Not used for the buy-only alternative,
   which has no cloud.)
Rules 1 and 2 do not depend on the electricity rate, demand or a uniform cloud price change, so the
decision thresholds can vary those and keep the pruned lists.
"""

from __future__ import annotations

import math

import numpy as np

from solvers.base.finance import Weights
from solvers.base.options import CloudOption, OwnedOption, unit_cost_of
from solvers.demand.blocks import Block
from solvers.offers.cloud_table import CloudTable


def prune_cloud_frame(frame: CloudTable, peak_jobs: float | None = None) -> CloudTable:
    """Rule 1, vectorised: the unlimited offers on the front of (price per job-hour, jobs per instance), plus the
    quota-limited offers that no unlimited offer beats on both.

    Ties (same price and slots) go to the first by provider, name and region; only the few kept rows are sorted
    by text (sorting thousands of offers by text per plan cost more than the solve). The kept rows come in order
    of price per job-hour, then provider, name and region.
    """
    if frame.empty:
        return frame
    price = frame.usd_per_job_hour.astype(float)
    slots = frame.slots.astype(float)
    unlimited = np.isnan(frame.max_instances)
    keep = np.zeros(len(frame), dtype=bool)
    front_price = np.zeros(0)
    front_slots = np.zeros(0)
    if unlimited.any():
        idx = np.flatnonzero(unlimited)
        runs, front_price, front_slots = _unlimited_front(idx, price, slots)
        for tied in runs:
            keep[min(tied, key=lambda i: (frame.provider[i], frame.name[i], frame.region[i]))] = True
    limited = np.flatnonzero(~unlimited)
    if len(limited):
        # most slots among unlimited front offers no dearer than each limited offer
        pos = np.searchsorted(front_price, price[limited], side="right")
        beaten = np.where(pos > 0, np.concatenate([[0.0], np.maximum.accumulate(front_slots)])[pos], 0.0)
        limited = limited[slots[limited] > beaten]
        keep[_enough_quota(limited, price, slots, frame.max_instances.astype(float), peak_jobs, frame.offer)] = True
    kept = np.flatnonzero(keep)
    ordered = sorted(kept.tolist(), key=lambda i: (price[i], frame.provider[i], frame.name[i], frame.region[i]))
    return frame.take(np.array(ordered, dtype=np.int64))


def _unlimited_front(idx: np.ndarray, price: np.ndarray,
                     slots: np.ndarray) -> tuple[list[list[int]], np.ndarray, np.ndarray]:
    """The front of the unlimited offers `idx`: in order of price, then most slots first, each offer with more slots
    than every one before it. Returns, per front offer in order of price, the offers tied with it (same price and
    slots, in row order), and the front's prices and slots.

    Why not sort: on 10,000 offers the sort took 0.8 ms of the pruning's 1.5; a handful of instance sizes needs one
    pass per size instead. An offer of s slots is on the front exactly when it is the cheapest of size s and cheaper
    than every larger offer (a larger one no dearer comes before it in that order; any earlier one is cheaper, so
    smaller). The largest size's cheapest is always on it (when s > 0: the sorted rule starts from 0 slots). Prices
    with a NaN keep the sort (their order is the sort's own)."""
    price_u, slots_u = price[idx], slots[idx]
    if np.isnan(price_u).any():
        return _unlimited_front_sorted(idx, price, slots)
    runs: list[list[int]] = []
    prices: list[float] = []
    sizes: list[float] = []
    best: float | None = None  # the cheapest price among larger offers
    for size in np.unique(slots_u)[::-1].tolist():
        if size <= 0:
            break
        of_size = slots_u == size
        cheapest = float(price_u[of_size].min())
        if best is None or cheapest < best:
            runs.append(idx[of_size & (price_u == cheapest)].tolist())
            prices.append(cheapest)
            sizes.append(size)
            best = cheapest
    runs.reverse()
    prices.reverse()
    sizes.reverse()
    return runs, np.array(prices, dtype=float), np.array(sizes, dtype=float)


def _unlimited_front_sorted(idx: np.ndarray, price: np.ndarray,
                            slots: np.ndarray) -> tuple[list[list[int]], np.ndarray, np.ndarray]:
    """`_unlimited_front` by sorting the offers (prices with a NaN: NaN sorts last and equals nothing)."""
    order = idx[np.lexsort((-slots[idx], price[idx]))]
    best_before = np.concatenate([[0.0], np.maximum.accumulate(slots[order])[:-1]])
    on_front = slots[order] > best_before
    front = order[on_front]
    # the unlimited offers tied with a front offer (same price and slots) follow it in `order`, in row order
    # (lexsort is stable): a run ends where the price or the slots change, and only a run's first is on the front
    ordered_price, ordered_slots = price[order], slots[order]
    run_ends = np.append(np.flatnonzero((ordered_price[1:] != ordered_price[:-1])
                                        | (ordered_slots[1:] != ordered_slots[:-1])) + 1, len(order))
    runs = [order[start:int(run_ends[np.searchsorted(run_ends, start, side="right")])].tolist()
            for start in np.flatnonzero(on_front).tolist()]
    return runs, price[front], slots[front]


def _enough_quota(rows: np.ndarray, price: np.ndarray, slots: np.ndarray, quota: np.ndarray,
                  peak_jobs: float | None, offer: np.ndarray | None = None) -> np.ndarray:
    """Quota-limited offers (marketplace listings) worth keeping: an offer is never needed when offers kept before
    it, no dearer and at least as large, already allow ceil(peak / its slots) instances (any plan using it has
    that many larger instances and can drop it). Rows of one offer at several job widths (`offer`) share its quota,
    which counts once."""
    if peak_jobs is None or not len(rows):
        return rows
    order = rows[np.lexsort((-slots[rows], price[rows]))]
    kept: list[int] = []
    kept_slots: list[float] = []
    kept_quota: list[float] = []
    kept_offer: list[object] = []
    for i in order:
        need = math.ceil(peak_jobs / slots[i] - 1e-9)
        quotas = {o: q for s, q, o in zip(kept_slots, kept_quota, kept_offer, strict=True) if s >= slots[i]}
        allowed = sum(quotas.values())
        if allowed >= need:
            continue
        kept.append(int(i))
        kept_slots.append(float(slots[i]))
        kept_quota.append(float(quota[i]))
        kept_offer.append(i if offer is None else offer[i])
    return np.array(kept, dtype=np.int64)


_Figures = tuple[float, float, float, float, int, float, float, float, float, float, int, float, float, float,
                 frozenset[int]]


def _figures(o: OwnedOption) -> _Figures:
    """What rule 2 compares of an option beyond its group's fields (equal GPUs per unit, host, kind and paid
    hours), each read or derived once: unit price, net price, throughput, slots, width, idle energy, card power,
    load per GPU, opex, upfront fee, term, hourly price, energy per job-hour at width 1 and at its own width, and its
    hosts."""
    # the energy per job-hour is `OwnedOption.usd_per_job_hour(1.0, 1)` and `(1.0)` written out: 1.0 * m and m * 1
    # are m exactly, so m / t / l and m * width / t / l are the same floats without two method calls per option
    # and without an upfront fee the hourly part is `hourly_usd` (solvers.base.finance.hourly_part's own branch)
    # written out: usd_per_hour + carbon, as every purchase's is
    throughput, marginal, load, width = o.throughput, o.marginal_kwh_per_gpu_hour, o.load_per_gpu, o.width
    upfront = o.upfront_usd
    hourly = (o.usd_per_hour + o.carbon_usd_per_hour if not upfront and o.payment != "all_upfront"
              else o.hourly_usd)
    return (o.unit_price_usd, o.unit_price_usd - o.resale_usd, throughput, o.slots_per_unit, width,
            o.idle_kwh_per_unit_hour, o.card_watts, load, o.opex_usd_per_unit_hour, upfront, o.term_months,
            hourly, marginal / throughput / load, marginal * width / throughput / load,
            frozenset(o.accepting_hosts))


def _beats(a: _Figures, b: _Figures) -> bool:
    """Whether option a is at least as good as b in everything the model sees, for two options of one group, on
    their `_figures`: no dearer (unit and net price, opex, upfront fee paid no earlier, hourly part, energy per
    job-hour at a shared width), no slower, as many slots, a narrower or equal job, no more idle energy, card power
    or load per GPU, and a bare card only where it fits too (its hosts a superset). The plain figures come first:
    most pairs differ in price or speed, and `and` stops at the first that fails (a third of the pruning's time
    for 200 quote items, issue 31). Held equal to the rule written option by option
    (`tests/solvers/offers/by_hand.py`)."""
    return (a[0] <= b[0] and a[1] <= b[1] and a[2] >= b[2] and a[3] >= b[3] and a[4] <= b[4] and a[5] <= b[5]
            and a[6] <= b[6] and a[7] >= b[7] and a[8] <= b[8] and a[9] <= b[9]
            and (a[10] == b[10] or not (a[9] or b[9])) and a[11] <= b[11]
            and (a[12] <= b[12] if a[4] == b[4] else a[13] <= b[13]) and b[14] <= a[14])


def prune_dominated(owned: list[OwnedOption]) -> list[OwnedOption]:
    """Rule 2. Of options that dominate each other (identical terms) the first listed is kept.

    The rule needs equal GPUs per unit, host, kind and paid hours: options that differ in any of them are never
    compared (the same options kept, without the comparisons that fail on those fields; 200 quotes are some 3,000
    comparisons otherwise), and the others are compared on figures read once per option (`_figures`; the
    properties behind them were read again in each of some 600 comparisons, issue 31)."""
    figures = [(_figures(o), o) for o in owned]
    figures.sort(key=lambda fo: (fo[0][1], fo[0][0], fo[1].key))
    groups: dict[tuple[int, bool, str, float], list[tuple[_Figures, OwnedOption]]] = {}
    for candidate in figures:
        c, option = candidate
        kept = groups.setdefault((option.gpus_per_unit, option.includes_host, option.kind, option.paid_hours), [])
        for k, _ in kept:
            if k[2] >= c[2] and _beats(k, c):  # most lose on throughput: tested here before the call
                break
        else:
            # sorted by net price: only a kept option of the same net price can lose to a later one
            kept[:] = [k for k in kept if not (c[1] <= k[0][1] and _beats(c, k[0]))]
            kept.append(candidate)
    return sorted((o for kept in groups.values() for _, o in kept), key=lambda o: o.key)


def prune_unprofitable(owned: list[OwnedOption], cloud: list[CloudOption], blocks: list[Block],
                       usd_per_kwh: float, width: int = 1, weights: Weights | None = None) -> list[OwnedOption]:
    """Rule 3; a no-op when no cloud offer is unlimited.

    One unit runs `slots_per_unit` jobs at once; renting instead costs at most ceil(slots / instance slots)
    more instances of an unlimited offer at every level-hour with work, whatever else is rented.
    """
    unlimited = [c for c in cloud if c.max_instances is None]
    if not unlimited:
        return owned
    busy_hours = sum(float(b.level_hours[b.jobs > 0].sum()) for b in blocks)
    total_hours = sum(b.hours for b in blocks)
    kept = []
    for o in owned:
        if o.slots_per_unit <= 0:
            continue
        per_hour = min(np.ceil(o.slots_per_unit / c.slots - 1e-9) * c.usd_per_job_hour for c in unlimited)
        max_saving = busy_hours * float(per_hour) + (0.0 if weights is None else weights.fixed_cloud_usd)
        # on a discounted basis the unit's cost is its present value and the nominal saving bounds the discounted
        # one from above (every discount factor <= 1), so the rule stays sound
        fixed = unit_cost_of(o, usd_per_kwh, total_hours, weights)
        if fixed < max_saving:
            kept.append(o)
    return kept
