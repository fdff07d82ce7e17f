"""Merge periods with the same load-duration curve per hour into blocks: an exact reduction of the model.

Every cost and capacity in a period is proportional to its hours once its load-duration curve is fixed
(levels of n jobs at once for a share of the hours), so periods whose curves have the same levels and the
same shares cost (H1 + H2) x f(curve) together: solving one block instead of many changes nothing.
A constant-utilisation demand collapses to one block whatever the horizon.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from solvers.base.finance import Terms, Weights, calendar, weights_for
from solvers.demand.periods import Period


@dataclass(frozen=True, eq=False)
class Block:
    hours: float
    demand: float                 # work, reference GPU-hours
    periods: tuple[int, ...]      # indices into the period list
    jobs: np.ndarray              # jobs at once per level
    level_hours: np.ndarray       # hours per level, summed over the block's periods

    @property
    def rate(self) -> float:
        """Reference GPU-hours of work per hour, on average in this block."""
        return self.demand / self.hours

    @cached_property
    def peak_jobs(self) -> float:
        """The busiest level's jobs at once (cached: every model built on the block reads it)."""
        return float(self.jobs.max(initial=0.0))

    @cached_property
    def job_hours(self) -> float:
        """Job-hours at reference pace over the block (each level's jobs times its hours). Cached: the main model and
        the buy-only alternative bound every option by it (`solvers.model.arrays.block_load`)."""
        return float(np.dot(self.jobs, self.level_hours))

    @cached_property
    def active_hours(self) -> float:
        """Hours in which some job runs (the model's active-hours rows and its MIP start read it several times)."""
        return float(self.level_hours[self.jobs > 1e-9].sum())


def merge_periods(periods: list[Period]) -> list[Block]:
    groups: dict[tuple[tuple[float, ...], tuple[float, ...]], list[int]] = {}
    hours = [24.0 * (p.end - p.start).days for p in periods]  # `Period.hours`, without two property calls each
    active = [i for i, h in enumerate(hours) if h > 0]
    if active:  # every period's curve rounded in one call (the same values as period by period)
        sizes = [len(periods[i].jobs) for i in active]
        # tuples once: a slice of a tuple is the tuple `tuple(list slice)` made, one call fewer per period
        jobs = tuple(np.round(np.concatenate([periods[i].jobs for i in active]), 9).tolist())
        # each level's hours over its period's hours: the same divisions, in one call
        per_level = np.repeat(np.array([hours[i] for i in active]), sizes)
        shares = tuple(np.round(np.concatenate([periods[i].level_hours for i in active]) / per_level, 9).tolist())
        at = 0
        for i, size in zip(active, sizes, strict=True):
            # Python floats hash and compare as the numpy scalars did
            groups.setdefault((jobs[at:at + size], shares[at:at + size]), []).append(i)
            at += size
    blocks = []
    # a group enters the dict at its first period and periods come in order: the dict is in order of first periods
    for idx in groups.values():
        first = periods[idx[0]]
        # the periods' level hours summed in order, as sum(..., zeros) did: 0 + a is a (and a + 0.0 the same
        # number), then each next one added in place; one temporary fewer per block
        level_hours = first.level_hours + 0.0
        for i in idx[1:]:
            level_hours += periods[i].level_hours
        blocks.append(Block(
            hours=sum([hours[i] for i in idx]),
            demand=sum([periods[i].demand for i in idx]),
            periods=tuple(idx),
            jobs=first.jobs,
            level_hours=level_hours,
        ))
    return blocks


def model_weights(terms: Terms, periods: list[Period], blocks: list[Block],
                  origin: dt.date | None = None) -> Weights | None:
    """The objective's basis per period and block (solvers.base.finance): None keeps today's nominal model to the
    bit. Here because today's plan and every future of a plan under uncertainty (its own periods and blocks) need it.
    `origin`: where discounting counts from, when the periods are a later part of the plan's horizon (a future split
    at a decision month, `solvers.uncertainty.deferral`); the first period's start unless given."""
    if terms.plain:
        return None
    block_of = np.full(len(periods), -1, dtype=np.int64)
    for b, block in enumerate(blocks):
        block_of[list(block.periods)] = b
    cal = calendar([p.start for p in periods], [p.end for p in periods], origin)
    return weights_for(terms, cal, np.array([p.hours for p in periods]), block_of, len(blocks))
