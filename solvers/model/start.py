"""A MIP start for the cost model: the cheapest plan made of one owned option, priced with the model's own columns.

Why: HiGHS proves the optimum either way, but how long it takes on these models follows which options are close
rivals (docs/ARCHITECTURE.md, "Where a plan's time goes"). Without an incumbent it spends its root node separating
cuts on the LP's split between two near-equal cards; given a good plan at the start, reduced-cost fixing removes
most integer columns at once and it restarts on a small model. The start only steers the search: the answer is
the model's optimum whatever the start, and `solvers.model.solve.run` checks that what HiGHS reports is its own
solution's cost.

The candidates are K owned job slots (each step of the screening curve) on units of one option g, in the cheapest
whole hosts that hold its cards (`hosting.cheapest_hosts`). Each is priced as the model prices it: units, hosts
and the rent steps of the first K slots at their column costs; all owned work W_b(K) on g at its energy column
cost; and where g's busy hours pass its availability, those slot-hours displaced at their column cost and their
work packed on the cheapest packing offer. Candidates g cannot serve (too slow for a block's work, beyond its
quota, the hosts' bounds, the capex budget or the GPU limit) are skipped. Options whose slots are whole jobs of
pooled cards (jobs wider than one GPU on bare cards) and commitments are not candidates; the start gives their
columns 0. Only integer columns are given; HiGHS completes the rest (work, displaced and packed hours,
placements, the fixed-cost binaries). All candidates are priced at once in arrays (options x slot steps x
blocks): a plan with 200 quoted items prices them in well under a millisecond.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from solvers.demand.blocks import Block
from solvers.model.slots import slot_terms_of
from solvers.offers.hosting import cheapest_host_mix, cheapest_hosts

if TYPE_CHECKING:
    from solvers.model.arrays import Limits, Model


def single_option_start(model: Model, blocks: list[Block], limits: Limits) -> tuple[np.ndarray, np.ndarray] | None:
    """Columns and values of the integer columns of the best single-option plan; None when no option makes one
    that costs less than owning nothing."""
    owned, layers = model.owned, model.layers
    n_mu = len(model.mu)
    first = max(layers.required, 1)
    slot_col, unit_col = slot_terms_of(model)[0].tolist(), model.u.tolist()
    candidates = [g for g, o in enumerate(owned) if not o.is_commitment and slot_col[g] == unit_col[g]]
    if not candidates or not blocks or first > n_mu:
        return None
    cost = np.concatenate(model.builder.cost)
    upper = np.concatenate(model.builder.upper)
    opts = [owned[g] for g in candidates]
    g_idx = np.array(candidates)
    j_idx = np.arange(first, n_mu + 1)
    hours, active = model.block_hours, model.active_hours
    work = layers.owned_hours[:, j_idx].T  # (steps, blocks)
    per_unit = np.array([o.slots_per_unit for o in opts])
    speed, availability = model.speed[g_idx], model.availability[g_idx]

    units = np.ceil(layers.ks[j_idx][None, :] / per_unit[:, None] - 1e-9)  # (options, steps)
    slots = units * per_unit[:, None]
    per_slot = np.minimum(active[None, :], (speed * (1.0 if model.d.size else availability))[:, None] * hours)
    serves = (work[None, :, :] <= slots[:, :, None] * per_slot[:, None, :] * (1 + 1e-9) + 1e-9).all(axis=2)
    total = units * cost[model.u[g_idx]][:, None] + cost[model.w[g_idx]] @ work.T
    if model.d.size:
        over = np.maximum(work[None, :, :] / speed[:, None, None]
                          - (availability[:, None] * hours[None, :])[:, None, :] * slots[:, :, None], 0.0)
        per_hour = cost[model.d[g_idx]] + _packing_price(model, cost, upper)[None, :] * speed[:, None]
        # no packing offer: inf where hours are displaced, 0 elsewhere (multiplied only where displaced, so no
        # 0 x inf to silence: np.errstate cost 10 us a build)
        displaced = np.multiply(over, per_hour[:, None, :], out=np.zeros_like(over), where=over > 0)
        total = total + displaced.sum(axis=2)
    total = total + _host_spend(model, candidates, cost, units)
    total = total + np.cumsum(cost[model.mu])[j_idx - 1][None, :]  # rent steps (j_idx >= 1: the first j on)
    ok = serves & (units <= upper[model.u[g_idx]][:, None] + 1e-9) & np.isfinite(total)
    if limits.max_owned_gpus is not None:
        ok &= units * np.array([o.gpus_per_unit for o in opts])[:, None] <= limits.max_owned_gpus
    for flat in np.argsort(np.where(ok, total, np.inf), axis=None).tolist():
        i, s = divmod(flat, total.shape[1])  # np.unravel_index's (option, step), without its 2 us a call
        if not ok[i, s] or (layers.required == 0 and total[i, s] >= 0.0):
            return None
        chosen = _columns(model, int(g_idx[i]), int(units[i, s]), int(j_idx[s]), cost, upper, limits)
        if chosen is not None:
            return chosen
    return None


def _packing_price(model: Model, cost: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Per block, the least column cost of one reference job-hour packed on a cloud offer (inf: none)."""
    if not model.y.size:
        return np.full(model.layers.n_blocks, math.inf)
    capacity = np.array([c.packed_capacity for c in model.cloud])[:, None]
    return np.asarray(np.where(upper[model.y] > 0, cost[model.y] / capacity, math.inf).min(axis=0))


def _capacities(model: Model, options: int | list[int]) -> np.ndarray:
    """Cards of the option (or, per row, of each option) one host of each kind holds, 0 where the kind does not take
    them (`Model.capacity`)."""
    capacity: np.ndarray = np.maximum(model.capacity[options, : len(model.m)], 0)
    return capacity


def _host_spend(model: Model, candidates: list[int], cost: np.ndarray, units: np.ndarray) -> np.ndarray:
    """(options, steps): the cheapest whole hosts for each candidate's cards (0 for machines with their host); one
    covering knapsack per distinct capacity vector, which options of one card power share. The candidates' host
    capacities and card counts are read in one array operation each (option by option they were half of this
    function's time, measured 2026-11-28)."""
    spend = np.zeros_like(units)
    tables: dict[tuple[int, ...], np.ndarray] = {}
    host_cost = cost[model.m]
    capacities = _capacities(model, candidates)
    cards = (units * np.array([model.owned[g].gpus_per_unit for g in candidates])[:, None]).astype(np.int64)
    most = cards.max(axis=1, initial=0).tolist()
    for i, (g, capacity) in enumerate(zip(candidates, capacities.tolist(), strict=True)):
        if model.owned[g].includes_host:
            continue
        key = tuple(capacity)
        table = tables.get(key)
        if table is None or len(table) <= most[i]:
            table = tables[key] = cheapest_hosts(host_cost, capacities[i], most[i])
        spend[i] = table[cards[i]]
    return spend


def _columns(model: Model, g: int, units: int, j: int, cost: np.ndarray, upper: np.ndarray,
             limits: Limits) -> tuple[np.ndarray, np.ndarray] | None:
    """The start's integer columns for `units` of option g and the first j slot steps: None when its hosts pass
    their bounds or it breaks the capex budget."""
    option = model.owned[g]
    counts = np.zeros(len(model.m), dtype=np.int64)
    if not option.includes_host:
        mix = cheapest_host_mix(cost[model.m], _capacities(model, g), units * option.gpus_per_unit)
        if mix is None or (mix > upper[model.m] + 1e-9).any():
            return None
        counts = mix
    if limits.max_capex_usd is not None:
        capex = units * option.unit_price_usd + float(np.dot(counts, [h.host.base_cost_usd for h in
                                                                       model.hosts[: len(model.m)]]))
        if capex > limits.max_capex_usd + 1e-6:
            return None
    values = np.zeros(len(model.u))
    values[g] = units
    wide = [col for col, unit in zip(slot_terms_of(model)[0].tolist(), model.u.tolist(), strict=True) if col != unit]
    return (np.concatenate([model.u, model.m, model.mu, wide]).astype(np.int32),
            np.concatenate([values, counts.astype(float), (np.arange(len(model.mu)) < j).astype(float),
                            np.zeros(len(wide))]))
