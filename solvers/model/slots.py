"""The owned job slots' rows: slot columns per option, the work they do, the availability and active-hours
bounds, maintenance in idle hours and the displaced work. Called by the build (solvers.model.build), in its order."""

from __future__ import annotations

import numpy as np

from solvers.base.options import CloudOption, OwnedOption
from solvers.demand.blocks import Block
from solvers.model.arrays import (
    INF,
    Limits,
    Model,
    credit,
)
from solvers.model.builder import Builder, tile
from solvers.model.fluid import capacity_rows


def slot_columns(bld: Builder, owned: list[OwnedOption], bare: list[int], u: np.ndarray,
                  bounds: dict[str, int]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Job slots of each owned option as a linear expression: units x slots per unit, or an integer q_g
    (bare cards pooled in a host for jobs wider than one GPU, at the option's own width: whole jobs only)."""
    slots: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    wide_bare = [i for i in bare if owned[i].width > 1]
    q = bld.add_cols(np.zeros(len(wide_bare)), np.array(
        [bounds[owned[i].key] * owned[i].gpus_per_unit // owned[i].width for i in wide_bare], dtype=float), True)
    per_unit = np.array([o.slots_per_unit for o in owned], dtype=float)
    for i in range(len(owned)):  # one-entry slices (the same columns and figures as one array per option)
        slots[i] = (u[i: i + 1], per_unit[i: i + 1])
    for k, i in enumerate(wide_bare):
        slots[i] = (np.array([q[k]]), np.array([owned[i].load_per_gpu]))  # load a job slot carries
        o = owned[i]
        bld.add_rows(np.zeros(2), np.array([q[k], u[i]]), np.array([float(o.width), -float(o.gpus_per_unit)]),
                     np.array([-INF]), np.array([0.0]))
    return slots


def owned_slot_rows(model: Model) -> None:
    """The screening curve's slots: mu_j <= mu_(j-1) and sum_j (ks[j] - ks[j-1]) mu_j <= the owned job slots;
    work that may wait, each cell's owned work within the owned capacity (`solvers.model.fluid`)."""
    mu, bld = model.mu, model.builder
    if model.fluid is not None:  # each cell's owned work within the owned capacity (`solvers.model.fluid`)
        if model.owned:
            slot_col, slot_coef = slot_terms_of(model)
            capacity_rows(model.fluid, bld, slot_col, slot_coef * model.credits)
        else:
            capacity_rows(model.fluid, bld, np.zeros(0, dtype=np.int64), np.zeros(0))
        return
    if len(mu) > 1:
        r = np.arange(len(mu) - 1)
        bld.add_rows(np.concatenate([r, r]), np.concatenate([mu[1:], mu[:-1]]),
                     np.concatenate([np.ones(len(r)), -np.ones(len(r))]), np.full(len(r), -INF), np.zeros(len(r)))
    if len(mu):
        ks = model.layers.ks
        widths = (ks[1: len(mu) + 1] - ks[: len(mu)]).astype(float)
        slot_col, slot_coef = slot_terms_of(model)  # each option's one slot column
        bld.add_rows(np.zeros(len(mu) + len(slot_col)), np.concatenate([mu, slot_col]),
                     np.concatenate([widths, -slot_coef]), np.array([-INF]), np.array([0.0]))


def owned_work_rows(model: Model) -> None:
    """Owned GPUs do the base of every block: sum_g w_gb >= sum_K (W_b(K) - W_b(K-1)) mu_K; work that may wait,
    the owned work of its cells (`solvers.model.fluid`)."""
    n_blocks, mu = model.n_blocks, model.mu
    if model.fluid is not None:
        model.fluid.owned_work(model.builder, model.w)
        return
    if not len(mu):
        return
    hours = model.layers.owned_hours
    n_mu = len(mu)
    full = np.zeros((n_blocks, n_mu + 1))
    upto = min(n_mu, hours.shape[1] - 1)
    full[:, : upto + 1] = hours[:, : upto + 1]
    steps = full[:, 1:] - full[:, :-1]  # (blocks, n_mu)
    required = min(model.layers.required, n_mu)
    if required > 0:  # forced slots carry the owned work of the first feasible K
        steps[:, : required] = 0.0
        steps[:, required - 1] = full[:, required]
    row = np.arange(n_blocks)
    rows = [tile(row, len(model.owned)), np.repeat(row, n_mu)]
    cols = [model.w.reshape(-1), tile(mu, n_blocks)]
    vals = [np.ones(model.w.size), -steps.reshape(-1)]
    model.builder.add_rows(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals), np.zeros(n_blocks), INF)


def packing_offers(cloud: list[CloudOption]) -> np.ndarray:
    """The offers displaced work can be worth packing on: by price per reference job-hour of packed capacity, the
    cheapest ones up to and including the first without a quota. Packed hours of any other offer cost more than
    the same work on that unlimited one, so they are 0 in every optimum of the cost model (an exact reduction)."""
    keep = np.zeros(len(cloud), dtype=bool)
    for k in sorted(range(len(cloud)), key=lambda k: cloud[k].usd_per_hour / cloud[k].packed_capacity):
        keep[k] = True
        if cloud[k].max_instances is None:
            break
    return keep


def maintenance_in_idle_hours(owned: list[OwnedOption], blocks: list[Block], limits: Limits) -> np.ndarray:
    """(owned, blocks): where an option's maintenance always fits in its idle hours, whatever it buys.

    A slot works at most its `credit` c_g in each of the block's active hours (`active_hours_rows`), so it is busy at
    most c_g x active_b / r_g hours; when that is within availability x hours, the availability row is implied by the
    active-hours row and nothing need be displaced. Under `displacement_never_pays` a displaced hour then only
    costs more than it saves, so d_gb is 0 in every optimum: the model leaves out the row and fixes the column
    (an exact reduction; for the bursty series it drops 72 of 126 rows and columns, the fast cards')."""
    availability = np.array([o.available(limits.availability) for o in owned])
    speed = np.array([o.throughput for o in owned])
    credits = np.array([credit(o, not limits.integer_instances) for o in owned])
    hours = np.array([b.hours for b in blocks])
    return np.asarray(_active(blocks)[None, :] * credits[:, None]
                      <= (availability * speed)[:, None] * hours[None, :] * (1 - 1e-12))


def availability_rows(model: Model, blocks: list[Block], limits: Limits, busy_rows: bool = True,
                  implied: np.ndarray | None = None) -> None:
    """Busy hours of owned option g in block b <= availability x hours x slots (+ displaced hours d_gb).

    A job on a GPU of throughput r is busy 1 / r hours per hour of reference work; maintenance is taken in
    idle hours, and when there are none the displaced hours go to the cloud (`displaced_work_rows`). Work that may not
    wait on a card slower than the reference: its job holds the slot for the job's hours and runs at its pace, so
    it overruns them by (1 / r - 1) of each; the overrun is taken in the card's idle hours of the block, and the
    part that does not fit there is displaced too (`overrun_share`): the card does what its hours allow and packed
    cloud hours the rest, where a whole job slot or nothing made a 0.9x card count for nothing (issue 29). `busy_rows`
    False (displaced maintenance never pays, `displacement_never_pays`) leaves out the rows d_gb <= w_gb / r_g,
    slack in every optimum then, which HiGHS's presolve does not remove and its search pays for.
    """
    n_blocks, n_owned = len(blocks), len(model.owned)
    if not n_owned:
        return
    block_hours = model.block_hours
    # every option's rows at once, numbered as option by option: its availability rows, then its displaced rows
    per_option = (3 if busy_rows else 2) * n_blocks if model.d.size else n_blocks
    first = np.arange(n_owned)[:, None] * per_option + np.arange(n_blocks)[None, :]  # (owned, blocks)
    slot_col, slot_coef = slot_terms_of(model)
    availability, speed = model.availability, model.speed
    slot_hours = block_hours[None, :] * slot_coef[:, None]  # np.outer(block_hours, coef) of each option
    busy = availability[:, None] * slot_hours
    if not model.d.size:  # the active-hours row of the same columns in the same row (`active_hours_rows`)
        busy = np.minimum(busy, model.active_hours[None, :] * (slot_coef * model.credits / speed)[:, None])
    rows = [first, first]
    cols = [model.w, np.repeat(slot_col[:, None], n_blocks, axis=1)]
    vals = [np.repeat((1.0 / speed)[:, None], n_blocks, axis=1), -busy]
    if model.d.size:  # only maintenance hours are displaced: d_gb <= (1 - availability) x hours x slots,
        # and only hours the option is busy: d_gb <= w_gb / r_g (an idle card has no work to displace, so its
        # maintenance earns no energy credit; without these rows the model bought free idle cards for the credit)
        second = first + n_blocks
        rows += [first, second, second]
        cols += [model.d, model.d, cols[1]]
        vals += [-np.ones((n_owned, n_blocks)), np.ones((n_owned, n_blocks)),
                 -(1 - availability)[:, None] * slot_hours]
        overrun = overrun_share(model.owned, not limits.integer_instances)
        if overrun.any():  # a slower card's overrun it has no idle hours for: d_gb <= ... + (1 / r - 1) w_gb
            rows.append(second)
            cols.append(model.w)
            vals.append(-np.repeat(overrun[:, None], n_blocks, axis=1))
        if busy_rows:
            rows += [first + 2 * n_blocks, first + 2 * n_blocks]
            cols += [model.d, model.w]
            vals += [np.ones((n_owned, n_blocks)), -vals[0]]
    row, col, val = (np.concatenate([r.ravel() for r in rows]), np.concatenate([c.ravel() for c in cols]),
                     np.concatenate([v.ravel() for v in vals]))
    n_rows = n_owned * per_option
    if implied is not None and implied.any() and not busy_rows:  # `maintenance_in_idle_hours`: rows implied
        keep = np.ones(n_rows, dtype=bool)
        keep[first[implied]] = False
        keep[(first + n_blocks)[implied]] = False
        kept = keep[row]
        row, col, val = (np.cumsum(keep) - 1)[row[kept]], col[kept], val[kept]
        n_rows = int(keep.sum())
    model.builder.add_rows(row, col, val, np.full(n_rows, -INF), np.zeros(n_rows))


def overrun_share(owned: list[OwnedOption], fluid: bool) -> np.ndarray:
    """Per option, the slot-hours by which its jobs overrun their hours, per reference job-hour it holds: 1 / r - 1
    for a card slower than the reference on work that may not wait, else 0 (work that may wait is fluid: a slot
    does r of a job an hour, `credit`)."""
    if fluid:
        return np.zeros(len(owned))
    speed = np.array([o.throughput for o in owned], dtype=float)
    overrun: np.ndarray = np.maximum(1.0 / np.maximum(speed, 1e-12) - 1.0, 0.0)
    return overrun


def slot_terms_of(model: Model) -> tuple[np.ndarray, np.ndarray]:
    """Each owned option's job slots as one column times a coefficient (`owned_slot_rows`: units x slots per unit, or
    the integer q_g of bare cards pooled for wider jobs), for rows that scale with an option's slots."""
    if model.slot_terms is None:  # once per model: the owned slot, availability and active-hours rows read them
        n_owned = len(model.owned)
        model.slot_terms = (np.array([model.slots[g][0][0] for g in range(n_owned)]),
                            np.array([model.slots[g][1][0] for g in range(n_owned)]))
    return model.slot_terms


def active_hours_rows(model: Model, blocks: list[Block]) -> None:
    """A job slot carries its `credit` of jobs in the hours that have some: w_gb <= c_g x active_b x slots_g.

    Why: the owned work of a block is pooled over its owned options (`owned_work_rows`), and the availability rows
    bound an option only by all the block's hours times its speed, so without these rows a fast card could do the
    share of the slow cards bought beside it in hours when no job runs (a plan bought two RTX 2060s that never
    worked while its RTX 4090 worked 95% of the hours of a profile busy 60% of them). A faster card finishes its
    job sooner and idles (fewer busy hours, less energy); it does not take over jobs running on other GPUs. A card
    slower than the reference carries its fraction of a job in those hours and no more: its job does not run on
    into hours without jobs. With patience the curve is the window's average, the credit the card's speed, and the
    active hours the window's: work moved within it is fluid.
    """
    if not model.owned or not model.d.size:  # without displaced hours `availability_rows` writes both in one row
        return
    active = model.active_hours
    slot_col, slot_coef = slot_terms_of(model)
    g, b = np.nonzero(active_rows_needed(model.owned, blocks, model.credits,
                                         overrun_share(model.owned, model.fluid is not None)))
    rows = np.arange(len(g))
    model.builder.add_rows(
        np.concatenate([rows, rows]), np.concatenate([model.w[g, b], slot_col[g]]),
        np.concatenate([np.ones(len(g)), -slot_coef[g] * model.credits[g] * active[b]]), np.full(len(g), -INF),
        np.zeros(len(g)))


def active_rows_needed(owned: list[OwnedOption], blocks: list[Block], credits: np.ndarray,
                       overrun: np.ndarray | None = None) -> np.ndarray:
    """(owned, blocks): where the active-hours row binds. A slot whose active hours of work, c_g x active_b at its
    `credit` c_g, take it all its hours or more (c_g x active_b >= r_g x hours_b) is bound as tight by its
    availability and displaced rows together (busy hours w / r <= availability x hours x slots + d,
    d <= (1 - availability) x hours x slots), so its active-hours row is implied and left out (an exact
    reduction). A card that may displace its overrun (`overrun_share`) is bound by those rows only to all its
    hours at reference pace (w <= hours x slots)."""
    speed = np.array([o.throughput for o in owned])
    reach = speed if overrun is None else np.where(overrun > 0, 1.0, speed)
    return np.asarray(_active(blocks)[None, :] * credits[:, None]
                      < reach[:, None] * np.array([b.hours for b in blocks])[None, :])


def _active(blocks: list[Block]) -> np.ndarray:
    """Each block's hours in which some job runs."""
    return np.array([b.active_hours for b in blocks])


def displaced_work_rows(model: Model) -> None:
    """Work displaced by owned maintenance runs on packed cloud hours: sum_o capacity_o y_ob >= sum_g r_g d_gb
    (capacity: slots x speed, one replica for always-on load, `CloudOption.packed_capacity`)."""
    if not model.d.size:
        return
    n_blocks = model.n_blocks
    row = np.arange(n_blocks)
    model.builder.add_rows(
        tile(row, len(model.cloud) + len(model.owned)),
        np.concatenate([model.y.reshape(-1), model.d.reshape(-1)]),
        np.concatenate([np.repeat([c.packed_capacity for c in model.cloud], n_blocks),
                        np.repeat(-model.speed, n_blocks)]),
        np.zeros(n_blocks), INF)
