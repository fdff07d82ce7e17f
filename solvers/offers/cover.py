"""The cheapest whole instances that give R jobs a slot each, for every R up to a size: a covering knapsack.

Instance o has `slots` job slots, costs usd_per_hour / speed per hour of reference work (it serves a level of
H hours in H / speed hours) and may be limited to `max_instances` at once. Dynamic programming over R, one
layer per unlimited offer (forward pass) and per allowed copy of a limited one (0/1 pass), so the chosen
instances can be read back. Rows of one quota-limited offer at several job widths (the workload form) share its
quota: each of its layers takes at most one instance, of any of those rows. The MIP prices each (level, owned
jobs) choice from this table, and the thresholds' evaluator prices fixed purchases with it.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from solvers.base.options import CloudOption


class CoverTable:
    def __init__(self, cloud: list[CloudOption], size: int) -> None:
        self.cloud = cloud
        self.size = size
        best = np.full(size + 1, math.inf)
        best[0] = 0.0
        # (offer indices, unbounded, took): took[j] is the index into the offers taken at j, -1 for none
        self._layers: list[tuple[list[int], bool, np.ndarray]] = []
        groups: dict[str, list[int]] = {}  # copies of one quota-limited offer at several job widths share its quota
        for i, c in enumerate(cloud):
            if c.max_instances is not None:
                groups.setdefault(c.quota_group, []).append(i)
        for i, c in enumerate(cloud):
            price, slots = c.usd_per_job_hour, c.slots
            if c.max_instances is None:
                took = np.zeros(size + 1, dtype=bool)
                for j in range(1, size + 1):
                    candidate = price + best[max(0, j - slots)]
                    if candidate < best[j] - 1e-12:
                        best[j] = candidate
                        took[j] = True
                self._layers.append(([i], True, np.where(took, 0, -1)))
                continue
            members = groups[c.quota_group]
            if members[0] != i:
                continue  # a copy: its instances are layered with the offer's first row
            for _ in range(min(int(c.max_instances), size)):  # one layer per instance: one of the copies or none
                previous = best
                chosen = np.full(size + 1, -1)
                for m, k in enumerate(members):
                    shift = min(cloud[k].slots, size + 1)
                    shifted = np.concatenate([np.zeros(shift), previous[: max(size + 1 - cloud[k].slots, 0)]])
                    candidate = cloud[k].usd_per_job_hour + shifted
                    took = candidate < best - 1e-12
                    took[0] = False
                    best = np.where(took, candidate, best)
                    chosen = np.where(took, m, chosen)
                self._layers.append((members, False, chosen))
        self.price = best  # per level-hour, inf where quotas cannot cover
        self._counts: dict[int, dict[int, int]] = {}

    def counts(self, jobs: int) -> dict[int, int]:
        """Instances per offer index in the cheapest cover of `jobs` (empty if none or infeasible); kept per job
        count, as the table is shared: reading one back walks every layer (one per instance of each listing, some
        hundreds with the bundled catalog), and a plan's model, read-out and evaluator ask the same few counts.
        The dict returned is the kept one: not to be changed."""
        j = min(max(jobs, 0), self.size)
        found = self._counts.get(j)
        if found is None:
            found = self._counts[j] = self._read_back(j)
        return found

    def _read_back(self, j: int) -> dict[int, int]:
        if j == 0 or not math.isfinite(self.price[j]):
            return {}
        chosen: dict[int, int] = {}
        for offers, unbounded, took in reversed(self._layers):
            if unbounded:
                i = offers[0]
                while j > 0 and took[j] >= 0:
                    chosen[i] = chosen.get(i, 0) + 1
                    j = max(0, j - self.cloud[i].slots)
            elif j > 0 and took[j] >= 0:
                i = offers[int(took[j])]
                chosen[i] = chosen.get(i, 0) + 1
                j = max(0, j - self.cloud[i].slots)
        return chosen


def cover_table(cloud: list[CloudOption], size: int) -> CoverTable:
    """A shared table for the same offers (a plan prices its main model, alternatives and thresholds on it)."""
    return _cached(tuple(cloud), size)


@lru_cache(maxsize=32)
def _cached(cloud: tuple[CloudOption, ...], size: int) -> CoverTable:
    return CoverTable(list(cloud), size)
