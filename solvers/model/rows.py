"""The rows on hosts, money and the market: hosts holding cards, the host-spend inequality, the purchase and
GPU limits, shared provider quotas and the hours a listing offers. Called by the build (solvers.model.build)."""

from __future__ import annotations

import numpy as np

from solvers.base.options import HostOption, OwnedOption
from solvers.demand.blocks import Block
from solvers.model.arrays import (
    INF,
    MAX_CARDS_PRICED,
    Limits,
    Model,
)
from solvers.model.builder import concat, tile
from solvers.model.fluid import fluid_listing_hours
from solvers.model.slots import slot_terms_of
from solvers.offers.hosting import card_capacity, cheapest_hosts


def host_capacity(owned: list[OwnedOption], hosts: list[HostOption]) -> np.ndarray:
    """(options, hosts): the cards of each option one host of each kind holds (`card_capacity`), -1 where the kind
    does not take the option's cards (not among its `accepting_hosts`).

    Why one table: the build reads these capacities in its host bounds, `undominated`, `host_rows`,
    `host_spend_rows` and the MIP start, some 130 calls of `card_capacity` a bursty plan otherwise (measured
    2026-11-28). A capacity depends on the host and the option's `card_watts` alone, so options of one card
    power share each host's figure (`_CAPACITIES`)."""
    table = np.full((len(owned), len(hosts)), -1, dtype=np.int64)
    if len(_CAPACITIES) > _MAX_CAPACITIES:
        _CAPACITIES.clear()
    for g, o in enumerate(owned):
        for k in o.accepting_hosts:
            if k < len(hosts):
                host = hosts[k]
                known = _CAPACITIES.get((id(host), o.card_watts))
                if known is None or known[0] is not host:
                    known = _CAPACITIES[(id(host), o.card_watts)] = (host, card_capacity(host, o))
                table[g, k] = known[1]
    return table


# `host_capacity`'s figures by host and card power, kept across models: a plan's buy-only and main models (and the
# next plan on the same catalogue) ask for the same hosts' figures (30 -> 11 us a bursty build, measured
# 2026-11-28). Keyed by the host's identity, with the host itself kept in the entry so that the identity is not
# reused while it stands: a `HostOption` is frozen, so its figure cannot change. Cleared when it passes its bound
# (a service making new hosts every plan).
_CAPACITIES: dict[tuple[int, float], tuple[HostOption, int]] = {}
_MAX_CAPACITIES = 4096


def host_rows(model: Model, bare: list[int]) -> None:
    """Every bare card in a host that takes it, each host within its slots and its PSU (`card_capacity`).

    Placement columns a_gk: jobs of option g placed in hosts of kind k (for one-GPU jobs: cards, continuous; for
    wider jobs whole jobs, integer: a job's GPUs sit in one host). A host of kind k holds c_gk = floor(capacity /
    width) jobs of g, its capacity the cards its slots take and its PSU powers (`card_capacity`), and only kinds
    that accept the card (hardware fit) get a column. Rows: the option's cards (or jobs) are all placed, and each
    kind's hosts hold what is placed in them, sum_g a_gk / c_gk <= m_k. Exact for hosts that each hold one card
    type and width; a host mixing two is counted by the share each takes of it, which is safe (both its slots
    and its watts hold) but can miss a mix that would just fit. Why not pooled slots and watts: a 2-GPU desktop
    bought for its PSU watts would then power a 4-GPU job in another machine.

    Every option's columns and rows go to the builder in one call each (the same columns and rows as option by
    option: 0.77 ms -> 0.1 ms for the 200 quote items' 16 bare options, measured 2026-11-28).
    """
    if not bare:
        return
    owned, hosts, bld = model.owned, model.hosts, model.builder
    capacity = model.capacity.tolist()  # read entry by entry: lists, not numpy scalars
    slot_col = slot_terms_of(model)[0].tolist()  # a card's units, or its pooled jobs' q for a wider job
    kinds: list[int] = []     # per placement column: its host kind
    jobs: list[int] = []      # per placement column: jobs of its option one host of its kind holds
    option: list[int] = []    # per placement column: its option's place in `bare`
    placed: list[int] = []    # per bare option: the column its cards (or jobs) are counted in
    coef: list[float] = []
    wide: list[bool] = []
    for i, g in enumerate(bare):
        o = owned[g]
        fits = {k: capacity[g][k] // o.width for k in o.accepting_hosts if k < len(hosts)}
        for k, n in fits.items():
            if n >= 1:
                kinds.append(k)
                jobs.append(n)
                option.append(i)
                wide.append(o.width > 1)
        placed.append(slot_col[g])
        coef.append(1.0 if o.width > 1 else float(o.gpus_per_unit))
    n_cols = len(kinds)
    a = bld.add_cols(np.zeros(n_cols), INF, np.array(wide, dtype=bool))
    at = np.array(option, dtype=np.int64)
    n_bare = len(bare)
    bld.add_rows(np.concatenate([at, np.arange(n_bare)]), np.concatenate([a, placed]),
                 np.concatenate([np.ones(n_cols), -np.array(coef)]), np.zeros(n_bare), np.zeros(n_bare))
    kind = np.array(kinds, dtype=np.int64)
    used = np.unique(kind)  # host kinds in order, each a row of its shares and its hosts
    if not len(used):
        return
    row_of = np.searchsorted(used, kind)
    bld.add_rows(np.concatenate([row_of, np.arange(len(used))]), np.concatenate([a, model.m[used]]),
                 np.concatenate([1.0 / np.array(jobs, dtype=float), -np.ones(len(used))]),
                 np.full(len(used), -INF), np.zeros(len(used)))


def host_spend_rows(model: Model) -> None:
    """A valid inequality when every owned option is a bare purchase of one-GPU job slots (one card per slot):
    host spend >= H(ks[J]) when the first J slot binaries are on, laid on them as
    sum_k cost_k m_k >= sum_j (H(ks[j]) - H(ks[j-1])) mu_j (mu is unary, so the right side telescopes).

    ks[J] slots are then ks[J] cards, every card sits in a host, and a host of kind k holds at most best_k cards
    (its most of any option's, `card_capacity`), so the hosts' spend is at least H(n), the cheapest hosts holding n
    cards (`cheapest_hosts`). The LP relaxation splits cards between types and buys fractions of hosts
    (1.5 two-GPU workstations holding 3 cards); this row makes such a split pay for whole hosts at the root, which
    closes most of the bursty series' root gap. Host costs are the model's own (price, idle energy, basis).

    Cards bought beyond the slots the binaries count pay too, at the least rise of H per added card from any slot
    count (`least_rise`): with C cards and the first J binaries on, the row reads spend >= H(ks[J]) + rise x
    (C - ks[J]), at most H(C) for every whole C >= ks[J]. Without it the LP bought 3.05 cards (2.08 RTX 4090 and
    0.97 used RTX 3090, its 5% maintenance made up by the fraction) at the hosts' price of 3 (bursty series: root
    bound 16,742.45 -> 16,776.69 of the optimum 16,804.29; its main run 121 -> 103 M instructions)."""
    owned, mu = model.owned, model.mu
    if (not owned or not len(mu) or not len(model.m)
            or any(o.includes_host or o.is_commitment or o.width != 1 or o.gpus_per_unit != o.slots_per_unit
                   or o.load_per_gpu != 1.0 for o in owned)):
        return
    best = model.capacity[:, : len(model.m)].max(axis=0, initial=0)  # -1 (not taken) is below every capacity
    host_cost = concat(model.builder.cost)[model.m]
    ks = model.layers.ks[: len(mu) + 1]
    cards = np.array([float(o.gpus_per_unit) for o in owned])
    most = int(concat(model.builder.upper)[model.u] @ cards + 1e-9)  # the most cards any plan can hold
    priced = most <= MAX_CARDS_PRICED
    every = cheapest_hosts(host_cost, best, max(int(ks[-1]), most if priced else 0))
    spend = every[ks]
    steps = spend[1:] - spend[:-1]
    if not np.isfinite(spend).all() or not (steps > 0).any():
        return
    rise = least_rise(every, ks) if priced else 0.0
    widths = (ks[1:] - ks[:-1]).astype(float)
    model.builder.add_rows(np.zeros(len(model.m) + len(mu) + len(owned)), np.concatenate([model.m, mu, model.u]),
                           np.concatenate([host_cost, -(steps - rise * widths), -rise * cards]), np.array([0.0]),
                           np.array([INF]))


def least_rise(spend: np.ndarray, counts: np.ndarray) -> float:
    """The least spend per added card from any count in `counts` to any larger count `spend` covers:
    min over c in counts, n > c of (H(n) - H(c)) / (n - c) (0 when there is no larger count). Why: a row may then
    charge every card beyond a count at this rate and stay below H at every whole count (`host_spend_rows`). In
    one array operation (no NaN: the counts' spends are finite where `host_spend_rows` asks); a slice per count,
    as the tests' reference takes it, cost some 30 us of a bursty main build, this 10 (measured 2026-11-28)."""
    gap = np.arange(len(spend))[None, :] - counts[:, None]  # n - c
    later = gap > 0
    rises = np.divide(spend[None, :] - spend[counts][:, None], gap, out=np.full(gap.shape, np.inf), where=later)
    return max(0.0, float(rises.min(initial=np.inf))) if later.any() else 0.0


def limit_rows(model: Model, limits: Limits) -> None:
    """The profile's capex budget (units and hosts) and its maximum number of owned GPUs."""
    if not model.owned:
        return
    buys = [g for g, o in enumerate(model.owned) if not o.is_commitment]  # commitments are neither capex nor owned
    if not buys:
        return
    u = model.u[buys]
    if limits.max_capex_usd is not None:
        cols = np.concatenate([u, model.m])
        vals = np.concatenate([[model.owned[g].unit_price_usd for g in buys],
                               [h.host.base_cost_usd for h in model.hosts][: len(model.m)]])
        model.builder.add_rows(np.zeros(len(cols)), cols, vals, np.array([-INF]), np.array([limits.max_capex_usd]))
    if limits.max_owned_gpus is not None:
        model.builder.add_rows(np.zeros(len(u)), u, np.array([model.owned[g].gpus_per_unit for g in buys]),
                               np.array([-INF]), np.array([float(limits.max_owned_gpus)]))


def shared_quota_rows(model: Model, blocks: list[Block]) -> None:
    """Copies of one offer at several job widths (the workload form) share its quota: committed units of one
    commitment, and packed cloud hours of one quota-limited offer (a marketplace listing is one machine)."""
    bld = model.builder
    groups: dict[str, list[int]] = {}
    for g, o in enumerate(model.owned):
        if o.max_units is not None:
            groups.setdefault(o.quota_group, []).append(g)
    for members in groups.values():
        if len(members) > 1:
            cap = float(model.owned[members[0]].max_units or 0)
            bld.add_rows(np.zeros(len(members)), model.u[members], np.ones(len(members)), np.array([-INF]),
                         np.array([cap]))
    _listing_hours(model, blocks)


def _listing_hours(model: Model, blocks: list[Block]) -> None:
    """A quota-limited offer's packed hours share its instance-hours with the whole instances the screening curve
    rents of it (a marketplace listing is one machine: the hours it is rented for jobs it cannot also absorb
    maintenance). Per block and quota group (copies of one offer at several widths) with a packable copy,
    sum_copies y_ob + rented_ob(K) <= quota x hours, with rented_ob(K) the instance-hours of o the curve rents in
    block b at K owned slots, laid on the slot binaries as steps (mu is unary). A sum over the block's hours: the
    quota holds in instance-hours, not hour by hour."""
    if not model.y.size:
        return
    if model.fluid is not None:
        fluid_listing_hours(model.fluid, model.builder, model.cloud, model.y, model.block_hours)
        return
    packable = np.concatenate(model.builder.upper)[model.y].max(axis=1) > 0
    groups: dict[str, list[int]] = {}
    for k, c in enumerate(model.cloud):
        if c.max_instances is not None:
            groups.setdefault(c.quota_group, []).append(k)
    # a group with one packable copy needs its row, and that row must count the whole rentals of every copy (a
    # listing's unpackable 2-GPU copy rents the same machine its packable 1-GPU copy packs on); y of an unpackable
    # copy has upper bound 0, so it sits in the row harmlessly
    can_pack = packable.tolist()
    offers = {group: members for group, members in groups.items() if any(can_pack[k] for k in members)}
    if not offers:
        return
    layers, mu = model.layers, model.mu
    first = min(layers.required, len(mu))  # slot steps up to here are forced on: their rent is the base
    listed = sorted(k for members in offers.values() for k in members)
    rented = dict(zip(listed, _rented_hours(model, first, listed), strict=True))  # (blocks, steps) per offer
    hours = model.block_hours
    n_blocks = len(blocks)
    for members in offers.values():
        quota = float(model.cloud[members[0]].max_instances or 0)
        by_step = sum((rented[k] for k in members), np.zeros_like(rented[members[0]]))  # (blocks, steps)
        steps = by_step[:, 1:] - by_step[:, :-1]  # (blocks, len(mu) - first)
        row = np.arange(n_blocks)
        rows = [tile(row, len(members)), np.repeat(row, steps.shape[1])]
        cols = [model.y[members].reshape(-1), tile(mu[first:], n_blocks)]
        vals = [np.ones(len(members) * n_blocks), steps.reshape(-1)]
        model.builder.add_rows(np.concatenate(rows), np.concatenate(cols), np.concatenate(vals),
                               np.full(n_blocks, -INF), quota * hours - by_step[:, 0])


def _rented_hours(model: Model, first: int, offers: list[int]) -> np.ndarray:
    """(offers, blocks, steps): instance-hours of each of `offers` (cloud indices) the screening curve rents per
    block, at the owned slot counts ks[first..len(mu)] (`Renting.instances` of the jobs the owned slots leave, per
    cell).

    Whole instances (the model without fluid cells) depend on the jobs left only through the whole jobs they need,
    ceil(jobs - 1e-9) and at least 0 (`Renting.instances`), so each distinct count is looked up once: an hourly log's
    compressed levels leave some 500 distinct fractional job counts but a dozen whole ones. The per-block sums are
    one bincount, which adds each bin's cells in cell order from 0 as np.add.at did (1.0 ms -> 0.1 ms for the
    hourly log's main model, measured 2026-11-28)."""
    layers, cells = model.layers, model.layers.cells
    left = cells.jobs[:, None] - layers.owned_jobs[:, first: len(model.mu) + 1]  # (cells, steps)
    need = np.maximum(np.ceil(left - 1e-9), 0.0).astype(np.int64)
    column = {k: i for i, k in enumerate(offers)}
    counts = np.zeros((int(need.max(initial=0)) + 1, len(offers)))
    for jobs in np.flatnonzero(np.bincount(need.ravel())).tolist():
        for k, count in model.renting.instances(float(jobs)).items():
            if k in column:
                counts[jobs, column[k]] = count
    per_cell = counts[need] * cells.hours[:, None, None]  # (cells, steps, offers)
    n_steps, n_offers = left.shape[1], len(offers)
    bins = (cells.block[:, None, None] * (n_steps * n_offers)
            + (np.arange(n_steps)[:, None] * n_offers + np.arange(n_offers)[None, :])[None, :, :])
    out = np.bincount(bins.ravel(), weights=per_cell.ravel(), minlength=layers.n_blocks * n_steps * n_offers)
    return out.reshape(layers.n_blocks, n_steps, n_offers).transpose(2, 0, 1)
