"""Work that may wait (`jobs.patience` day, week or month), planned per cell instead of on the screening curve.

Within a patience window the work is fluid: the plan sees each window's average load (`solvers.demand.periods`), every
owned or committed job slot does its `credit` (its relative throughput) of reference work in every hour, and
rented capacity is packed, each offer at its price per reference job-hour (`layers.packed_segments`, cheapest
first, a quota-limited offer within its instances). So in a cell of n jobs at once for h hours (a window's
average, or several windows with that average) with owned capacity C:

    owned work v <= n h,  v <= C h,  v + sum_k s_k >= n h,  s_k <= cap_k h,

with s_k the job-hours rented on packed segment k at its price. Everything is linear except the purchases, so
no screening steps (and no slot binaries) are needed: the owned capacity C is the sum of the options' job slots
times their credits, and the LP serves min(n, C) of each cell when owning is the cheaper way. The owned options
do the cells' owned work block by block (`model.slots.owned_work_rows`: sum_g w_gb >= sum of v over the block's cells),
within their availability and active hours, as in the model's other rows.

Why not the screening curve: with fractional levels and a fractional capacity (a 0.9x card), the curve's rent is
piecewise linear with a kink at every level and every quota boundary, so it would need a step at each, and a
3x card's three jobs of capacity made it a job slot that carried one (issue 29).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from solvers.model.builder import tile
from solvers.model.layers import Cells, Renting

if TYPE_CHECKING:
    from solvers.base.options import CloudOption
    from solvers.model.builder import Builder

INF = float("inf")


@dataclass(frozen=True)
class Fluid:
    """The per-cell columns of a fluid model: owned work v (cells) and rented job-hours s (cells, segments)."""

    cells: Cells
    v: np.ndarray           # (cells,) owned reference job-hours
    s: np.ndarray           # (cells, segments) rented reference job-hours per packed segment
    # per segment, its instance moves (offer index, sign, jobs per instance): s job-hours on segment k add
    # sign x s / per instance-hours of each offer it names (`layers.packed_segments`)
    moves: tuple[tuple[tuple[int, float, float], ...], ...]

    def owned_work(self, bld: Builder, w: np.ndarray) -> None:
        """sum_g w_gb >= sum_{c in b} v_c: the owned options do the owned work of each block's cells."""
        n_blocks = w.shape[1]
        n_owned = w.shape[0]
        row = np.arange(n_blocks)
        bld.add_rows(np.concatenate([tile(row, n_owned), self.cells.block]),
                     np.concatenate([w.reshape(-1), self.v]),
                     np.concatenate([np.ones(w.size), -np.ones(len(self.v))]), np.zeros(n_blocks), INF)

    def read(self, x: np.ndarray, n_offers: int) -> tuple[np.ndarray, np.ndarray]:
        """Owned jobs at once per cell, and (offers, cells) packed instances at once: the solution's v / h and each
        segment's job-hours in its offers' instances over the cell's hours."""
        hours = np.maximum(self.cells.hours, 1e-300)
        owned = x[self.v] / hours
        rented = np.zeros((n_offers, len(self.v)))
        if self.s.size:
            jobs = x[self.s]  # (cells, segments)
            for k, moves in enumerate(self.moves):
                for i, sign, per in moves:
                    rented[i] += sign * jobs[:, k] / per / hours
        return owned, np.maximum(rented, 0.0)

    def instance_hours(self, offers: set[int], speeds: list[float]) -> tuple[np.ndarray, np.ndarray]:
        """Column indices and coefficients of the instance-hours the cells rent of `offers` (a quota group): a
        segment's instances over the cell's hours, each over its offer's speed (`Renting.instances` counts jobs per
        slot: an instance-hour of a faster offer does more)."""
        cols: list[np.ndarray] = []
        vals: list[np.ndarray] = []
        for k, moves in enumerate(self.moves):
            coef = sum(sign / per / speeds[i] for i, sign, per in moves if i in offers)
            if abs(coef) > 1e-15:
                cols.append(self.s[:, k])
                vals.append(np.full(len(self.v), coef))
        if not cols:
            return np.zeros(0, dtype=np.int64), np.zeros(0)
        return np.concatenate(cols), np.concatenate(vals)


def fluid_columns(bld: Builder, cells: Cells, renting: Renting, block_weight: np.ndarray | None) -> Fluid:
    """The cells' owned-work and rented columns and their demand rows; the capacity rows are laid by
    `capacity_rows` once the owned slots' columns exist. `block_weight`: each block's cost weight (its discount
    factor; ones when nominal), None when the objective is not cost (capex or GPU count: rent costs nothing)."""
    n = len(cells.jobs)
    work = cells.jobs * cells.hours
    v = bld.add_cols(np.zeros(n), work, False)
    segments = useful_segments(renting)
    prices = np.array([price for price, _, _ in segments])
    caps = np.array([cap for _, cap, _ in segments])
    weight = np.ones(n) if block_weight is None else block_weight[cells.block]
    cost = (np.outer(weight, prices) if block_weight is not None else np.zeros((n, len(segments))))
    upper = np.outer(cells.hours, caps) if len(segments) else np.zeros((n, 0))
    s = bld.add_cols(cost.reshape(-1), upper.reshape(-1), False).reshape(n, len(segments))
    row = np.arange(n)
    # demand: v_c + sum_k s_ck >= n_c h_c
    bld.add_rows(np.concatenate([row, np.repeat(row, len(segments))]), np.concatenate([v, s.reshape(-1)]),
                 np.ones(n + s.size), work, INF)
    return Fluid(cells, v, s, tuple(tuple(moves) for _, _, moves in segments))


def useful_segments(renting: Renting) -> list[tuple[float, float, list[tuple[int, float, float]]]]:
    """The packed segments up to and including the first without a quota: every later one is dearer per job-hour
    and that one can take all the work a cell has, so their job-hours are 0 in every optimum (an exact
    reduction)."""
    out = []
    for segment in renting.packed:
        out.append(segment)
        if segment[1] == INF:
            break
    return out


def capacity_rows(fluid: Fluid, bld: Builder, slot_cols: np.ndarray, capacity: np.ndarray) -> None:
    """v_c <= h_c x C, C = sum_g credit_g x slots_g (`slot_cols` and `capacity`: each option's slot column and
    its job slots' credit per unit of that column)."""
    cells = fluid.cells
    n = len(fluid.v)
    row = np.arange(n)
    bld.add_rows(np.concatenate([row, np.repeat(row, len(slot_cols))]),
                 np.concatenate([fluid.v, tile(slot_cols, n)]),
                 np.concatenate([np.ones(n), -np.outer(cells.hours, capacity).reshape(-1)]),
                 np.full(n, -INF), np.zeros(n))


def fluid_uses_cloud(fluid: Fluid, bld: Builder, commitments: np.ndarray, bounds: list[float],
                     fixed_usd: float) -> None:
    """A binary r paying the cloud's fixed monthly costs, on whenever a cell rents (sum s <= total work x r) or a
    commitment is held (u_c <= bound_c r)."""
    total = float(np.dot(fluid.cells.jobs, fluid.cells.hours))
    if total <= 0 and not len(commitments):
        return
    r = bld.add_cols(np.array([fixed_usd]), 1.0, True)
    if fluid.s.size:
        bld.add_rows(np.zeros(fluid.s.size + 1), np.concatenate([fluid.s.reshape(-1), r]),
                     np.concatenate([np.ones(fluid.s.size), [-total]]), np.array([-INF]), np.array([0.0]))
    if len(commitments):
        rows = np.arange(len(commitments))
        bld.add_rows(np.concatenate([rows, rows]), np.concatenate([commitments, np.repeat(r, len(commitments))]),
                     np.concatenate([np.ones(len(commitments)), -np.array(bounds)]),
                     np.full(len(commitments), -INF), np.zeros(len(commitments)))


def fluid_listing_hours(fluid: Fluid, bld: Builder, cloud: list[CloudOption], y: np.ndarray,
                        block_hours: np.ndarray) -> None:
    """A quota-limited offer's packed maintenance hours (y) share its instance-hours with what the cells rent of
    it, per block and quota group: sum_copies y_ob + rented_ob <= quota x hours_b (a marketplace listing is one
    machine)."""
    groups: dict[str, list[int]] = {}
    for k, c in enumerate(cloud):
        if c.max_instances is not None:
            groups.setdefault(c.quota_group, []).append(k)
    upper = np.concatenate(bld.upper)
    n_blocks = len(block_hours)
    for members in groups.values():
        if not (upper[y[members]] > 0).any():
            continue
        quota = float(cloud[members[0]].max_instances or 0)
        cols, vals = fluid.instance_hours(set(members), [c.speed for c in cloud])
        blocks = tile(fluid.cells.block, len(vals) // max(len(fluid.v), 1))
        row = np.arange(n_blocks)
        bld.add_rows(np.concatenate([tile(row, len(members)), blocks]),
                     np.concatenate([y[members].reshape(-1), cols]),
                     np.concatenate([np.ones(len(members) * n_blocks), vals]), np.full(n_blocks, -INF),
                     quota * block_hours)
