"""The cheapest whole instances that give R jobs a slot each, for every R up to a size: a covering knapsack.

Instance o has `slots` job slots, costs usd_per_hour / speed per hour of reference work (it serves a level of
H hours in H / speed hours) and may be limited to `max_instances` at once. Dynamic programming over R, one
layer per unlimited offer (forward pass) and per allowed copy of a limited one (0/1 pass), so the chosen
instances can be read back. The MIP prices each (level, owned jobs) choice from this table, and the
thresholds' evaluator prices fixed purchases with it.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from solvers.options import CloudOption


class CoverTable:
    def __init__(self, cloud: list[CloudOption], size: int) -> None:
        self.cloud = cloud
        self.size = size
        best = np.full(size + 1, math.inf)
        best[0] = 0.0
        self._layers: list[tuple[int, bool, np.ndarray]] = []  # (offer index, unbounded, took)
        for i, c in enumerate(cloud):
            price, slots = c.usd_per_job_hour, c.slots
            if c.max_instances is None:
                took = np.zeros(size + 1, dtype=bool)
                for j in range(1, size + 1):
                    candidate = price + best[max(0, j - slots)]
                    if candidate < best[j] - 1e-12:
                        best[j] = candidate
                        took[j] = True
                self._layers.append((i, True, took))
            else:
                for _ in range(min(int(c.max_instances), size)):
                    shifted = np.concatenate([np.zeros(min(slots, size + 1)), best[: max(size + 1 - slots, 0)]])
                    candidate = price + shifted
                    took = candidate < best - 1e-12
                    took[0] = False
                    best = np.where(took, candidate, best)
                    self._layers.append((i, False, took))
        self.price = best  # per level-hour, inf where quotas cannot cover

    def counts(self, jobs: int) -> dict[int, int]:
        """Instances per offer index in the cheapest cover of `jobs` (empty if none or infeasible)."""
        j = min(max(jobs, 0), self.size)
        if j == 0 or not math.isfinite(self.price[j]):
            return {}
        chosen: dict[int, int] = {}
        for i, unbounded, took in reversed(self._layers):
            slots = self.cloud[i].slots
            if unbounded:
                while j > 0 and took[j]:
                    chosen[i] = chosen.get(i, 0) + 1
                    j = max(0, j - slots)
            elif j > 0 and took[j]:
                chosen[i] = chosen.get(i, 0) + 1
                j = max(0, j - slots)
        return chosen


def cover_table(cloud: list[CloudOption], size: int) -> CoverTable:
    """A shared table for the same offers (a plan prices its main model, alternatives and thresholds on it)."""
    return _cached(tuple(cloud), size)


@lru_cache(maxsize=32)
def _cached(cloud: tuple[CloudOption, ...], size: int) -> CoverTable:
    return CoverTable(list(cloud), size)
