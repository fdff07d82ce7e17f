"""Merge periods with the same demand per hour into blocks: an exact reduction of the model.

Every cost and capacity in a period is proportional to its hours, so for fixed purchases the
cheapest way to serve a period with demand rate rho = D/H costs H * f(rho). Periods with the same
rho therefore cost (H1 + H2) * f(rho) together: solving one block instead of many changes nothing.
A constant-utilisation demand collapses to a single block whatever the horizon.
"""

from __future__ import annotations

from dataclasses import dataclass

from solvers.periods import Period


@dataclass(frozen=True)
class Block:
    hours: float
    demand: float                 # reference GPU-hours
    periods: tuple[int, ...]      # indices into the period list

    @property
    def rate(self) -> float:
        """Reference GPUs busy on average in this block."""
        return self.demand / self.hours


def merge_periods(periods: list[Period], scale: float = 1.0) -> list[Block]:
    groups: dict[float, list[int]] = {}
    for i, p in enumerate(periods):
        if p.hours <= 0:
            continue
        groups.setdefault(round(p.demand / p.hours, 9), []).append(i)
    return [
        Block(
            hours=sum(periods[i].hours for i in idx),
            demand=scale * sum(periods[i].demand for i in idx),
            periods=tuple(idx),
        )
        for _, idx in sorted(groups.items())
    ]
