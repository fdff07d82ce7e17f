"""What every account of one plan shares, whatever its allocation: the cells, each period's hours, calendar, block
and share of the block's hours, and the figures its line shows (label, first day, days, rounded demand). Built once
per plan (`Ledger.fixed`), since a plan accounts for itself and its two alternatives."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solvers.base.finance import Calendar, months_to
from solvers.demand.blocks import Block
from solvers.demand.periods import Period
from solvers.model.arrays import cells_of
from solvers.model.layers import Cells
from solvers.money.rounding import rounded


@dataclass(frozen=True)
class PlanFixed:
    """A plan's figures that do not depend on the allocation: cells, period hours and calendar, each period's block
    (0 for a period in none, listed in `outside`) and its share of the block's hours, and the rounded demand of
    each period."""

    cells: Cells
    hours: np.ndarray
    calendar: Calendar
    block_of: np.ndarray
    share_of: np.ndarray
    outside: list[int]
    demand_r: list[float]
    period_hours: list[float]
    labels: list[str]   # each period's label, first day (ISO) and days, as its line shows them
    starts: list[str]
    days: list[int]

    @staticmethod
    def of(blocks: list[Block], periods: list[Period]) -> PlanFixed:
        hours = [p.hours for p in periods]
        block_of = np.zeros(len(periods), dtype=np.int64)
        share_of = [0.0] * len(periods)
        outside = set(range(len(periods)))
        for b, block in enumerate(blocks):
            for p in block.periods:
                if p not in outside:  # merge_periods puts each period with hours in one block
                    raise ValueError(f"period {p} is in two blocks")
                outside.discard(p)
                block_of[p] = b
                share_of[p] = periods[p].hours / block.hours
        return PlanFixed(
            cells_of(blocks), np.array(hours),
            _calendar(periods),
            block_of, np.array(share_of, dtype=np.float64), sorted(outside),
            rounded([period.demand for period in periods], 3), hours, [period.label for period in periods],
            [period.start.isoformat() for period in periods], [period.days for period in periods])


def _calendar(periods: list[Period]) -> Calendar:
    """`finance.calendar` of the periods' starts and ends, both in one `months_to` call (it works element by
    element, so the months are the same floats; one call's fixed cost fewer). No periods raise IndexError, as
    `calendar` does (`calendar([], [])` reads the first start too; a plan has at least one period)."""
    months = months_to(periods[0].start, [p.start for p in periods] + [p.end for p in periods])
    return Calendar(periods[0].start, months[:len(periods)], months[len(periods):])
