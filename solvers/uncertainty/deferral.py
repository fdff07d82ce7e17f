"""Purchases decided at a later month (issue 32: "a purchase may wait for month 6 or 12, when demand is known
better"): one future's model split at the later decision months, with purchase columns for every decision month.

A future's periods are cut at every later decision month W (`decision_cuts`: within the horizon, periods aligned
at W), and each part is the planning model of its own periods (`solvers.model.build.build`, its blocks merged
within the part). Per owned option g and decision month j there is a purchase column b_gj (integer; commitments at
month 0 only: their terms run from the plan's start), and the same per host machine kind; part p's unit column is
what has been bought by its start: u_gp = sum over j <= p of b_gj (one row each). So a card bought at month 0
serves every part, one bought at W the parts from W on.

Costs, each paid once, on the profile's basis (the future's electricity rate and resale, the profile's financing
and discount rate, present value from the plan's start as `solvers.base.finance` counts it):
- b_gj: the price at month j (paid then, cash or financed from then: `capex_at`) net of the resale at the
  horizon's end. The price is today's: the project models no path of hardware prices (`perturb` moves cloud
  prices, electricity and resale), which is conservative for waiting. The resale is the same as a card bought at
  month 0: the resale curve (`solvers.offers.resale`) values a card by its age since launch, not since purchase.
  A commitment (month 0 only) its whole cost over the horizon (`unit_cost_of`); a host its price at month j.
- u_gp and hosts' columns of part p: idle energy and per-unit opex for the part's hours only (a card bought at W
  draws no power before W); work's energy, rent and the part's fixed monthly costs as the part's model prices
  them (its `Weights` counted from the plan's start, so a part's months are discounted as the plan's own).

Which purchases are first stage: month 0's (the same in every future, tied by `solve_extensive`'s rows). A later
month's are recourse: each future buys at W what is best for it knowing its whole path (wait-and-see at W). That
is an upper bound of the flexibility of waiting, as `solvers.uncertainty.waiting` says of its own measure: at W a
lab knows more than today, not everything.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace

import numpy as np

from solvers.base.demand_units import add_months
from solvers.base.finance import Terms, capex_schedule, discount, months_to
from solvers.base.options import CloudOption, HostOption, OwnedOption, unit_cost_of
from solvers.base.risk import DeferredMonth, LaterPurchase, Risk
from solvers.demand.blocks import merge_periods, model_weights
from solvers.demand.periods import Period
from solvers.model.arrays import Limits, Model
from solvers.model.build import build
from solvers.model.builder import Arrays

# later decision months the program models (the first ones within the horizon): each adds a part to every future's
# model. bench/uncertainty.py's 36-month lab on a quiet machine, futures priced two at a time (recourse.py), with one
# (month 6): 1.3 s and 2.6 s a plan for 100 and 200 futures; with two (6 and 12): 1.9 s and 4.9 s, at the edge of
# issue 32's 2 s and 5 s, for the same value of waiting (no future of that lab buys at 12); measured 2026-11-28
MODELLED_MONTHS = 1


def decision_cuts(periods: list[Period], months: list[int]) -> tuple[list[int], list[int]]:
    """The later decision months a plan can split at (within the horizon, no period across the month), and the
    later months it cannot (a period spans the month: days or weeks not aligned with it)."""
    cuts: list[int] = []
    skipped: list[int] = []
    if not periods:
        return cuts, skipped
    start, end = periods[0].start, periods[-1].end
    for month in months:
        if month <= 0:
            continue
        day = add_months(start, month)
        if day >= end:
            break
        if any(p.start < day < p.end for p in periods):
            skipped.append(month)
        else:
            cuts.append(month)
    return cuts, skipped


def capex_at(terms: Terms, start: dt.date, end: dt.date, month: int) -> float:
    """What one dollar of purchase price paid at `month` costs on the profile's basis: cash then, or financed
    from then (`capex_schedule` over the months left, a loan outlasting the horizon settled at its end), the whole
    discounted from the plan's start. 1 on today's nominal basis."""
    if terms.plain:
        return 1.0
    horizon = float(months_to(start, [end])[0])
    schedule = capex_schedule(terms.financing, horizon - month)
    return schedule.present_value(terms.discount_rate) * float(discount(terms.discount_rate, float(month)))


@dataclass(frozen=True)
class Part:
    """One part of a future's horizon: its model and limits, and the decision months whose purchases it holds."""

    model: Model
    limits: Limits
    months: int  # how many decision months (0, then the cuts) fall at or before its start
    hours: float  # the part's hours


@dataclass(frozen=True)
class Split:
    """One future's parts side by side, with its purchase columns: what `solve_extensive` and
    `recourse.future_total` read of a future (as of a `Piece`): arrays, first stage (month 0's purchase and hosts),
    the offset, and the later purchase columns (`deferred`, named by `later`: month and option key or host)."""

    weight: float
    arrays: Arrays
    first_stage: np.ndarray
    names: list[str]
    n_units: int
    offset: float
    deferred: np.ndarray
    later: list[tuple[int, str]]
    parts: list[Part] = field(repr=False)
    # per later purchase column, on the plan's basis: what a unit pays at its month, and its resale at the end
    # (the column's cost is the first minus the second; the fan shows them when they fall)
    later_outlay: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)
    later_resale: np.ndarray = field(default_factory=lambda: np.zeros(0), repr=False)


@dataclass
class _Columns:
    """The composite's extra columns and linking rows, gathered before they are stacked."""

    cost: list[float] = field(default_factory=list)
    upper: list[float] = field(default_factory=list)
    rows: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)

    def add(self, cost: float, upper: float) -> int:
        self.cost.append(cost)
        self.upper.append(upper)
        return len(self.cost) - 1


def split_future(owned: list[OwnedOption], cloud: list[CloudOption], hosts: list[HostOption], periods: list[Period],
                 limits: Limits, terms: Terms, bounds: dict[str, int], cuts: list[int], weight: float) -> Split:
    """The future's model split at `cuts` (months after the plan's start, from `decision_cuts`): `owned`, `cloud`
    and `limits` are the future's (its resale, prices and electricity rate), `limits.weights` its whole horizon's."""
    start, end = periods[0].start, periods[-1].end
    days = [start] + [add_months(start, m) for m in cuts] + [end]
    parts: list[Part] = []
    for p in range(len(days) - 1):
        chunk = [q for q in periods if days[p] <= q.start < days[p + 1]]
        blocks = merge_periods(chunk)
        # the part's months discounted as the plan's own: counted from the plan's start
        part_limits = replace(limits, weights=model_weights(terms, chunk, blocks, origin=start))
        parts.append(Part(build(owned, cloud, hosts, blocks, part_limits, bounds=bounds, reduce=False), part_limits,
                          p + 1, sum(q.hours for q in chunk)))
    return _stack(parts, limits, terms, start, end, [0, *cuts], sum(p.hours for p in periods), weight)


def _stack(parts: list[Part], limits: Limits, terms: Terms, start: dt.date, end: dt.date, months: list[int],
           total_hours: float, weight: float) -> Split:
    """The parts block-diagonal, each part's unit and host columns priced for its hours only, then the purchase
    columns of every decision month and the rows u_gp = sum over j <= p of b_gj (m likewise)."""
    first = parts[0].model
    owned, hosts = first.owned, first.hosts[: len(first.m)]
    rate = limits.usd_per_kwh
    arrays = [part.model.builder.arrays() for part in parts]
    col_at = np.cumsum([0] + [a.n_cols for a in arrays])
    cost = np.concatenate([a.cost for a in arrays])
    for part, at in zip(parts, col_at[:-1], strict=True):
        w = part.limits.weights
        hours = part.hours if w is None else w.hours
        cost[at + part.model.u] = [0.0 if o.is_commitment else
                                   (rate * o.idle_kwh_per_unit_hour + o.opex_usd_per_unit_hour) * hours for o in owned]
        cost[at + part.model.m] = [rate * h.idle_kwh_per_hour * hours for h in hosts]
    resale_at_end = 1.0 if limits.weights is None else limits.weights.end
    extra = _Columns()
    bought: list[list[int]] = []  # per decision month, the composite's extra index per unit column (-1: none)
    later: list[tuple[int, str]] = []
    outlay: list[float] = []  # per later column (in `later`'s order): price at its month, resale at the end
    credit: list[float] = []
    unit_upper, host_upper = arrays[0].upper[first.u], arrays[0].upper[first.m]
    for j, month in enumerate(months):
        capex = capex_at(terms, start, end, month)
        row: list[int] = []
        for o in owned:
            if o.is_commitment:
                price = unit_cost_of(o, rate, total_hours, limits.weights) if j == 0 else None
            else:
                price = o.unit_price_usd * capex - o.resale_usd * resale_at_end
            row.append(-1 if price is None else extra.add(price, float(unit_upper[len(row)])))
        for k, h in enumerate(hosts):
            row.append(extra.add(h.host.base_cost_usd * capex, float(host_upper[k])))
        bought.append(row)
        if j > 0:
            names = [o.key for o in owned] + [h.host.name for h in hosts]
            later += [(month, names[i]) for i, at in enumerate(row) if at >= 0]
            paid = [o.unit_price_usd * capex for o in owned] + [h.host.base_cost_usd * capex for h in hosts]
            sold = [o.resale_usd * resale_at_end for o in owned] + [0.0] * len(hosts)
            outlay += [paid[i] for i, at in enumerate(row) if at >= 0]
            credit += [sold[i] for i, at in enumerate(row) if at >= 0]
    n_cols = int(col_at[-1])
    for part, at in zip(parts, col_at[:-1], strict=True):
        own = np.concatenate([part.model.u, part.model.m])
        for i, column in enumerate(own):
            held = [n_cols + bought[j][i] for j in range(part.months) if bought[j][i] >= 0]
            extra.rows.append((np.array([at + column, *held]), np.array([1.0] + [-1.0] * len(held))))
    arrays_of = _arrays(arrays, col_at, extra, cost)
    first_stage = np.array([n_cols + at for at in bought[0]], dtype=np.int64)
    deferred = np.array([n_cols + at for row in bought[1:] for at in row if at >= 0], dtype=np.int64)
    names = [o.key for o in owned] + [h.host.name for h in hosts]
    return Split(weight, arrays_of, first_stage, names, len(owned), float(sum(p.model.offset for p in parts)),
                 deferred, later, parts, np.array(outlay), np.array(credit))


def _arrays(arrays: list[Arrays], col_at: np.ndarray, extra: _Columns, cost: np.ndarray) -> Arrays:
    """The parts' arrays block-diagonal, then the purchase columns (integer, from 0) and the linking rows (= 0)."""
    n_cols = int(col_at[-1])
    row_at = np.cumsum([0] + [a.n_rows for a in arrays])
    nnz_at = np.cumsum([0] + [len(a.value) for a in arrays])
    link_len = np.array([len(cols) for cols, _ in extra.rows], dtype=np.int64)
    link_start = int(nnz_at[-1]) + np.concatenate([[0], np.cumsum(link_len)[:-1]]).astype(np.int64)
    starts = [a.start[:-1].astype(np.int64) + nnz_at[s] for s, a in enumerate(arrays)] + [link_start]
    nnz = int(nnz_at[-1] + link_len.sum())
    index = [a.index.astype(np.int64) + col_at[s] for s, a in enumerate(arrays)]
    index += [cols for cols, _ in extra.rows]
    value = [a.value for a in arrays] + [vals for _, vals in extra.rows]
    n_extra, n_links = len(extra.cost), len(extra.rows)
    return Arrays(
        n_cols + n_extra, int(row_at[-1]) + n_links,
        np.concatenate([cost, np.array(extra.cost)]),
        np.concatenate([np.concatenate([a.lower for a in arrays]), np.zeros(n_extra)]),
        np.concatenate([np.concatenate([a.upper for a in arrays]), np.array(extra.upper)]),
        np.concatenate([*[a.row_lower for a in arrays], np.zeros(n_links)]),
        np.concatenate([*[a.row_upper for a in arrays], np.zeros(n_links)]),
        np.concatenate([*starts, [nnz]]).astype(np.int32), np.concatenate(index).astype(np.int32),
        np.concatenate(value).astype(float),
        np.concatenate([np.concatenate([a.integer for a in arrays]), np.ones(n_extra, dtype=bool)]))


def later_purchases(risk: Risk, columns: list[tuple[int, str]], later: np.ndarray, weights: np.ndarray,
                    owned: list[OwnedOption], hosts: list[HostOption], cuts: list[int], skipped: list[int],
                    beyond: list[int], value: float | None) -> Risk:
    """The risk object with the later decision months: what the futures buy at each (`later`: per future, its
    purchases at the split's `later` columns), and the value of waiting from the model (`value`: the best plan
    decided at month 0 minus this plan, in expectation; left as waiting.py measured it without later months)."""
    update: dict[str, object] = {"deferral_months": list(cuts)}
    note = risk.note
    if skipped:
        note += (f" Decision month(s) {', '.join(str(m) for m in skipped)}: within one of the plan's periods (they "
                 "do not start there), so no purchase is modelled then.")
    if beyond and cuts:
        note += (f" Decision month(s) {', '.join(str(m) for m in beyond)}: a purchase waits at most until month "
                 f"{cuts[0]} in the program (one later month, for speed); waiting longer is measured beside it "
                 "(risk.waiting).")
    elif beyond:
        note += (f" Decision month(s) {', '.join(str(m) for m in beyond)}: no purchase is modelled then (the time "
                 "budget left none, or nothing can be bought); waiting is measured beside (risk.waiting).")
    if not cuts:
        update["note"] = note
        return risk.model_copy(update=update)
    note += (f" A purchase may also wait for month {cuts[0]}: each future then buys what it needs, knowing its "
             "own demand and prices from then (an upper bound of what a lab knows then); the price is today's.")
    update["note"] = note
    update["value_of_waiting_usd"] = None if value is None else round(value, 2)
    names = {o.key: o.name for o in owned}
    host_names = {h.host.name for h in hosts}
    share = float(weights.sum())
    months: list[DeferredMonth] = []
    for month in cuts:
        at = [i for i, (m, _) in enumerate(columns) if m == month]
        bought: list[LaterPurchase] = []
        any_buys = np.zeros(len(weights), dtype=bool)
        for i in at:
            units = later[:, i] if later.size else np.zeros(len(weights))
            if not (units > 0.5).any():
                continue
            key = columns[i][1]
            is_host = key in host_names and key not in names
            any_buys |= (units > 0.5) & (not is_host)
            bought.append(LaterPurchase(
                kind="host" if is_host else "purchase", option=key, name=key if is_host else names.get(key, key),
                probability=round(float(np.dot(weights, units > 0.5)) / share, 6),
                mean_units=round(float(np.dot(weights, units)) / share, 4), max_units=int(units.max())))
        months.append(DeferredMonth(month=month, probability_buys=round(float(np.dot(weights, any_buys)) / share, 6),
                                    purchases=bought))
    update["deferred"] = months
    return risk.model_copy(update=update)


__all__ = ["MODELLED_MONTHS", "Part", "Split", "capex_at", "decision_cuts", "later_purchases", "split_future"]
