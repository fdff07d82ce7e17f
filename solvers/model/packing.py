"""Maintenance cover priced for the evaluator: packed cloud hours for owned work that maintenance displaces,
cheapest per job-hour first, each quota group (a marketplace listing and its copies at other widths) only for the
instance-hours its whole rentals leave in a block, as the model's `rows._listing_hours` rows hold it.

In: the cloud options, the blocks' hours and weights, and per call the work, the cells, the screening curve and
the renting it was screened with. Out: the cost on the plan's basis (infinite when the quotas leave too few and
no offer is unlimited). Its caches live as long as the evaluator that holds it."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from solvers.base.options import CloudOption
from solvers.model.layers import Cells, Layers, Renting

_sum, _max, _all = np.add.reduce, np.maximum.reduce, np.logical_and.reduce  # without ndarray methods' wrappers


class Packing:
    """The cover's offers in order and what it has counted, per curve, slot count and quota group."""

    def __init__(self, cloud: list[CloudOption], block_hours: np.ndarray, block_weight: np.ndarray | None) -> None:
        self.cloud = cloud
        self._block_hours = block_hours
        self._block_weight = block_weight
        # maintenance cover: offers by price per job-hour of a fully used instance, cheapest first
        self._order = sorted(range(len(cloud)), key=lambda k: (cloud[k].usd_per_hour / cloud[k].packed_capacity, k))
        # `_free_instance_hours`, per curve, slot count and quota group
        self._free: dict[tuple[float, int, int, str], np.ndarray] = {}
        # each quota group's whole instances for a job count (`_free_instance_hours`): every listing asks of the
        # same few counts, and a curve at each demand scale rents many of the counts the others rent
        self._group_instances: dict[float, dict[str, float]] = {}
        self._counted_with: Renting | None = None
        # per offer in that order: index, reference job-hours per instance-hour, quota group (None: unlimited), price
        # per instance-hour, and whether an offer of its group comes later (its free hours are then carried on)
        groups = [None if cloud[k].max_instances is None else cloud[k].quota_group for k in self._order]
        last = {group: i for i, group in enumerate(groups)}
        self._steps = [(cloud[k].packed_capacity, group, cloud[k].usd_per_hour, last[group] > i)
                       for i, (k, group) in enumerate(zip(self._order, groups, strict=True))]
        self._quota_hours: dict[str, np.ndarray] = {}  # per quota group: its quota's instance-hours per block

    def usd(self, work: np.ndarray, cells: Cells, layers: Layers, renting_for: Callable[[int], Renting],
            screen: tuple[float, int] | None = None, column: int = -1) -> float:
        """Packed cloud hours for `work` (reference job-hours per block) at the listed prices, with the whole
        instances the screening curve rents at the K of `column` (its largest by default): cheapest per job-hour first,
        each quota group (a listing and its copies at other widths) within the instance-hours its whole rentals
        leave in the block, as the model's `_listing_hours` rows hold it. Infinite where the quotas leave too few
        and no offer is unlimited. Why not the cheapest offer's price: that is often one marketplace machine, which
        cannot cover a fleet's maintenance, and is sometimes the very listing rented whole in those hours. `screen`:
        the key `layers` is kept under, so that its free instance-hours are computed once (an hourly log's cells
        are tens of thousands, and the thresholds ask hundreds of purchases on a few curves)."""
        left = work.astype(float)
        usd = None  # nothing priced yet: the first offer's cost is the sum from zeros (each at least +0.0)
        free: dict[str, np.ndarray] = {}
        for per_instance, group, usd_per_hour, again in self._steps:
            if group is None:
                take = left
            else:
                hours = free.get(group)
                if hours is None:
                    hours = self._free_instance_hours(group, cells, layers, renting_for, screen, column)
                take = np.minimum(left, hours * per_instance)
                if again:  # what the group has left for its next offer
                    free[group] = hours - take / per_instance
            cost = take / per_instance * usd_per_hour
            usd = cost if usd is None else usd + cost
            left = left - take
            if _max(left, initial=0.0) <= 1e-9:
                break
        if _max(left, initial=0.0) > 1e-6:
            return math.inf
        if usd is None:  # no offer: the zeros' sum
            return 0.0
        return float(_sum(usd) if self._block_weight is None else _sum(usd * self._block_weight))

    def _free_instance_hours(self, group: str, cells: Cells, layers: Layers, renting_for: Callable[[int], Renting],
                             screen: tuple[float, int] | None, column: int) -> np.ndarray:
        """Per block, the instance-hours of a quota group (its quota x hours) that its whole rentals leave."""
        key = None if screen is None else (*screen, column % len(layers.ks), group)
        found = None if key is None else self._free.get(key)
        if found is not None:
            return found
        renting = renting_for(math.ceil(float(_max(cells.jobs, initial=0.0)) - 1e-9))
        if renting is not self._counted_with:  # whole instances read off the renting they were counted with
            self._group_instances = {}
            self._counted_with = renting
        left = cells.jobs - layers.owned_jobs[:, column]
        whole = left.astype(np.int64)
        if len(left) and _all(whole == left) and whole.min() >= 0:  # whole jobs: a count is its own index
            where, at = whole, np.flatnonzero(np.bincount(whole))
            values, instances = at.astype(float), np.zeros(int(at[-1]) + 1)
        else:
            values, where = np.unique(left, return_inverse=True)  # cells rent the same few job counts
            where, at, instances = where.reshape(-1), np.arange(len(values)), np.zeros(len(values))
        kept = self._group_instances
        for i, jobs in zip(at.tolist(), values.tolist(), strict=True):
            by_group = kept.get(jobs)
            if by_group is None:
                by_group = kept[jobs] = {}
                for k, n in renting.instances(jobs).items():
                    quota_group = self.cloud[k].quota_group
                    by_group[quota_group] = by_group.get(quota_group, 0.0) + n
            instances[i] = by_group.get(group, 0.0)
        rented = np.bincount(cells.block, instances[where] * cells.hours, minlength=len(self._block_hours))
        quota_hours = self._quota_hours.get(group)
        if quota_hours is None:
            first = next(c for c in self.cloud if c.quota_group == group)
            quota_hours = self._quota_hours[group] = float(first.max_instances or 0) * self._block_hours
        found = np.maximum(quota_hours - rented, 0.0)
        if key is not None:
            self._free[key] = found
        return found
