"""The demand at a multiple of the profile's, as the evaluator's cells: what the thresholds' demand searches price.

In: the model's cells at today's demand, the blocks' hours and how the demand scales (whole jobs at once, longer
busy hours, independent jobs at a higher utilisation, or fluid windows' averages). Out: the cells at the multiple,
in whole jobs at once where the model counts whole jobs."""

from __future__ import annotations

import numpy as np

from solvers.demand.periods import independent_levels
from solvers.model.layers import Cells, whole_levels


def scaled_cells(cells: Cells, block_hours: np.ndarray, scale: float, integer_instances: bool,
                 independent: tuple[float, float] | None, scale_hours: bool) -> Cells:
    """The curve at a demand multiple in whole jobs at once (`whole_levels`); at today's demand the model's own
    curve, so that every threshold searched there (electricity, cloud price) prices what the model priced."""
    c = cells
    if scale == 1.0:
        return c
    if not integer_instances:  # fluid windows: a multiple of each window's average, not whole jobs
        return Cells(c.block, c.jobs * scale, c.hours)
    if independent is not None:
        return independent_cells(independent, block_hours, scale)
    if not scale_hours:
        return whole_levels(Cells(c.block, c.jobs * scale, c.hours))
    hours = c.hours * scale
    busy = np.bincount(c.block, weights=hours, minlength=len(block_hours))
    over = np.maximum(busy / block_hours, 1.0)[c.block]  # more than every hour: more jobs at once
    return whole_levels(Cells(c.block, c.jobs * over, hours / over))


def independent_cells(independent: tuple[float, float], block_hours: np.ndarray, scale: float) -> Cells:
    """Independent jobs at a multiple of their utilisation: the binomial curve at u x scale in every block (the
    demand's curve is the same every hour), all jobs busy and more of them beyond u x scale = 1."""
    jobs, utilisation = independent
    busy = utilisation * scale
    if busy <= 1.0:
        levels, shares = independent_levels(jobs, busy)
    else:
        levels, shares = np.array([jobs * busy]), np.array([1.0])
    blocks = len(block_hours)
    block = np.repeat(np.arange(blocks), len(levels))
    hours = (block_hours[:, None] * shares[None, :]).reshape(-1)
    return whole_levels(Cells(block, np.tile(levels, blocks), hours))
