"""Decide under uncertainty: the profile's futures -> one model per future -> the extensive form -> the purchase
every future shares, the plan's accounts at the profile's own figures, and the risk figures.

`decide(today, option)` is the one call `solvers.plan.make_plan` makes for a profile with `uncertainty` (`today`:
today's plan as values, `solvers.uncertainty.today.Today`); it returns today's plan with the stochastic plan's
purchase in place of today's (which make_plan puts back into its core, so the plan's lines, accounts, break-even and
thresholds describe it) and the risk object.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from solvers.base import uncertainty_defaults as udefaults
from solvers.base.deferred import Deferred
from solvers.base.demand_units import add_months
from solvers.base.errors import InfeasibleProfile, SolverFailure
from solvers.base.options import OwnedOption, unit_cost_of
from solvers.base.risk import Risk, Waiting
from solvers.base.uncertainty import Uncertainty
from solvers.demand.blocks import model_weights
from solvers.model.arrays import Model, SolveStatus, unit_bounds
from solvers.model.build import build
from solvers.model.purchases import Purchase
from solvers.model.solve import rent_only, solved
from solvers.money.allocation import Allocation
from solvers.offers.pruning import prune_unprofitable
from solvers.uncertainty import figures
from solvers.uncertainty.deferral import MODELLED_MONTHS, Split, decision_cuts, later_purchases, split_future
from solvers.uncertainty.extensive import Piece, Stacked, Stage, solve_extensive
from solvers.uncertainty.perturb import Inputs, WeightsFor, future_inputs, period_days
from solvers.uncertainty.program import own_optima, single, stochastic, with_deferral
from solvers.uncertainty.recourse import evaluate_fixed
from solvers.uncertainty.sample import Future, futures
from solvers.uncertainty.today import Today
from solvers.uncertainty.waiting import value_of_waiting

NOTE = ("Each future moves the demand (a scale, and growth in yearly steps), every on-demand and spot price (by "
        "the average of its yearly trend over the horizon, weighted by the future's work), the electricity rate "
        "and the resale value; the purchase, hosts and commitments are decided once for all futures, renting and "
        "running in each. The fan spreads each future's running cost over the months as the plan's own months at "
        "that future's demand.")
TIE = 1e-6  # a plan "beats" cloud only when cheaper by more than this share


@dataclass
class Decision:
    """The stochastic plan's purchase at the profile's figures, and its risk figures (in USD)."""

    today: Today
    risk: Risk

    @property
    def pair(self) -> tuple[Today, Risk]:
        return self.today, self.risk


def weights_of(today: Today) -> WeightsFor:
    terms = today.terms
    return lambda periods, blocks: model_weights(terms, periods, blocks)


def candidates(today: Today, inputs: list[Inputs]) -> list[OwnedOption]:
    """Owned options some future (or today's figures) could profit from (`prune_unprofitable` per future): an
    option none could is in no future's optimum whatever else is bought, so none of the sample average's."""
    keep: set[str] = {o.key for o in today.owned_main}
    width = today.limits.width
    for inp in inputs:
        keep |= {o.key for o in prune_unprofitable(inp.owned, inp.cloud, inp.blocks, inp.limits.usd_per_kwh, width,
                                                   inp.limits.weights)}
    return [o for o in today.owned if o.key in keep]


def shared_bounds(owned: list[OwnedOption], inputs: list[Inputs], today: Today,
                  at_least: dict[str, int]) -> dict[str, int]:
    """Units per option no future needs more of (the most any future's `unit_bound` allows), and at least what a
    plan to be priced holds."""
    bounds = unit_bounds(owned, today.blocks, today.limits)
    for inp in inputs:
        by_key = {o.key: o for o in inp.owned}
        for key, n in unit_bounds([by_key[o.key] for o in owned], inp.blocks, inp.limits).items():
            bounds[key] = max(bounds[key], n)
    for key, n in at_least.items():
        if key in bounds:
            bounds[key] = max(bounds[key], n)
    return bounds


def _restrict(inp: Inputs, keys: set[str]) -> list[OwnedOption]:
    return [o for o in inp.owned if o.key in keys]


def fix_purchase(model: Model, units: dict[str, int], hosts: dict[str, int]) -> None:
    """Hold the model's purchase, commitment and host columns at a decision (names absent: 0)."""
    bld = model.builder
    lower, upper = np.concatenate(bld.lower), np.concatenate(bld.upper)
    for g, o in enumerate(model.owned):
        lower[model.u[g]] = upper[model.u[g]] = float(units.get(o.key, 0))
    for k, h in enumerate(model.hosts[: len(model.m)]):
        value = float(hosts.get(h.host.name, 0))
        upper[model.m[k]] = max(upper[model.m[k]], value)
        lower[model.m[k]] = upper[model.m[k]] = value
    bld.lower, bld.upper = [lower], [upper]


@dataclass
class Futures:
    """The profile's futures, each future's inputs and built model, the candidate options and their shared bounds."""

    drawn: list[Future]
    inputs: list[Inputs]
    owned: list[OwnedOption]
    bounds: dict[str, int]
    pieces: list[Stage]
    cuts: list[int]  # later decision months the pieces are split at (`deferral`): empty, each a `Piece`

    @property
    def weights(self) -> np.ndarray:
        return np.array([f.weight for f in self.drawn])


def build_futures(today: Today, option: Uncertainty, keys: set[str] | None = None, *,
                  models: bool = True, cuts: list[int] | None = None) -> Futures:
    """One model per future, on the options some future could profit from (`candidates`; `keys`: only these);
    `models` False: the futures' inputs, options and bounds only (`piece` builds a future's model when asked, as
    each MPI rank of `hedging` does for its own futures); `cuts`: later decision months (`deferral.decision_cuts`)
    at which each future's model is split, purchases possible then (`deferral.split_future`)."""
    drawn = futures(option)
    inputs = [future_inputs(f, today.periods, today.owned, today.options.cloud, today.limits, weights_of(today))
              for f in drawn]
    owned = [o for o in candidates(today, inputs) if keys is None or o.key in keys]
    bounds = shared_bounds(owned, inputs, today, dict(today.main.units))
    built = Futures(drawn, inputs, owned, bounds, [], list(cuts or []))
    if models:
        built.pieces = [split(today, built, s) if built.cuts else piece(today, built, s) for s in range(len(inputs))]
    return built


def split(today: Today, built: Futures, s: int) -> Split:
    """Future s's model split at the later decision months, with its purchase columns (`deferral.split_future`)."""
    inp = built.inputs[s]
    return split_future(_restrict(inp, {o.key for o in built.owned}), inp.cloud, today.options.hosts, inp.periods,
                        inp.limits, today.terms, built.bounds, built.cuts, inp.future.weight)


def piece(today: Today, built: Futures, s: int) -> Piece:
    """Future s's model: its options restricted to the candidates, every purchase column bounded alike when the
    futures are several (one future: the planning model as today's plan builds it)."""
    inp, shared = built.inputs[s], len(built.inputs) > 1
    chosen = {o.key for o in built.owned}
    return Piece(build(_restrict(inp, chosen), inp.cloud, today.options.hosts, inp.blocks, inp.limits,
                       bounds=built.bounds if shared else None, reduce=not shared), inp.future.weight)


def decide(today: Today, option: Uncertainty, *, time_limit_s: float = udefaults.TIME_LIMIT_S) -> Decision:
    started = time.perf_counter()
    deadline = started + time_limit_s
    built = build_futures(today, option)
    drawn, inputs, owned, bounds, pieces, weights = (built.drawn, built.inputs, built.owned, built.bounds,
                                                     built.pieces, built.weights)
    today_units, today_hosts = dict(today.main.units), dict(today.main.hosts)
    shared = len(inputs) > 1
    best = own_optima(pieces, deadline) if option.objective == "regret" else None

    def left(share: float) -> float:
        return max((deadline - time.perf_counter()) * share, 0.05)

    if not shared:  # one future: the deterministic model itself, solved as today's plan is
        sol = today.main if _is_today(inputs[0]) else None
        decided = single(pieces[0], sol, left(0.6))
    else:
        decided = stochastic(pieces, option, best, weights, deadline)
    if decided.status == SolveStatus.INFEASIBLE:
        raise InfeasibleProfile("uncertainty", "no purchase serves every future of the profile's uncertainty within "
                                "its limits (some future's work is beyond what may be bought and rented): narrow "
                                "uncertainty.demand or allow more (options.allow_cloud, max_owned_gpus, max_capex_usd)")
    if not decided.status.has_solution:
        raise SolverFailure("the stochastic program found no plan within the time budget")
    aligned, skipped = decision_cuts(today.periods, option.decision_months)
    cuts = aligned[:MODELLED_MONTHS]
    # the figures beside the plan, each within what is left of the budget (a figure not reached is null); today's
    # plan priced in every future on the plan's second thread while this one does the rest, from purchases that
    # wait on (`Deferred`: inline when that thread is busy; not asked for when the plan turns out to be today's)
    today_fixed = {**today_units, **today_hosts}
    limit = left(0.4)
    maybe_same = (decided.units, decided.hosts) == (today_units, today_hosts) and not cuts
    beside = None if maybe_same or left(1.0) <= 0.5 else Deferred(
        lambda _: evaluate_fixed(pieces, today_fixed, limit))
    split_pieces = _deferrable(today, built, decided, cuts) if cuts and left(1.0) > 1.0 else []
    # regret against each future's own best plan with the same choices: split futures may also buy at the later
    # month, so their own best is their split model's (the unsplit one's can be beaten, a negative regret)
    best_split = own_optima(split_pieces, deadline) if split_pieces and best is not None else best
    plan = with_deferral(split_pieces, option, best_split, weights, decided, deadline) if split_pieces else decided
    units, chosen_hosts = plan.units, plan.hosts
    commitments = {o.key for o in owned if o.is_commitment}
    waits = plan is not decided  # some future buys at a later month
    same = (units, chosen_hosts) == (today_units, today_hosts) and not waits
    cloud_only = (solve_extensive(pieces, "expected", fixed={}, free=commitments, time_limit_s=left(0.3))
                  if commitments else _rented(pieces, inputs))
    bought = {k: n for k, n in units.items() if k not in commitments}
    held = {k: n for k, n in units.items() if k in commitments}
    no_purchase = None if not (bought or waits) else cloud_only if not held and not commitments else evaluate_fixed(
        pieces, held, left(0.5)) if left(1.0) > 0.5 else None
    # waiting's worth from the model: the best plan decided at month 0 minus the plan with later purchases
    deferral_value = None if not split_pieces else float(np.dot(weights, decided.totals - plan.totals)
                                                          / weights.sum())
    today = _with_purchase(today, owned, bounds, units, chosen_hosts)
    waiting = value_of_waiting(today, option, drawn, inputs, owned, plan.totals, deadline)
    deterministic = plan if same else None if beside is None else beside.result()
    risk = _risk(today, option, drawn, inputs, weights, plan, decided, deterministic, cloud_only, no_purchase, best,
                 best_split if waits else best, waiting, 1000.0 * (time.perf_counter() - started),
                 _later_costs(split_pieces, plan, today, cuts) if waits else None)
    later = split_pieces[0].later if split_pieces else []
    modelled = cuts if split_pieces else []  # the time budget left none, or nothing could be bought
    return Decision(today, later_purchases(risk, later, plan.later if waits else np.zeros((len(weights), 0)),
                                           weights, owned, today.options.hosts, modelled, skipped,
                                           aligned[len(modelled):], deferral_value))


def _deferrable(today: Today, built: Futures, decided: Stacked, cuts: list[int]) -> list[Split]:
    """Each future split at the later decision months (`deferral.split_future`), on the options that may wait: those
    the plan decided at month 0 buys and those today's plan buys (commitments aside: their terms start at month 0),
    else the candidate of the least cost per job slot over the horizon. Why not every candidate: each split future
    holds a model per part, and with the 22 candidates of a 36-month lab the program took 10 s for 100 futures, 7x
    the plan's budget; on that lab the restricted program found the same month-0 purchase and an expected total
    0.02% above (measured 2026-11-28: 0.64 s and 0.49 s against 10.1 s and 3.5 s, relaxed form and pricing)."""
    keys = {*decided.units, *today.main.units}
    chosen = [o for o in built.owned if o.key in keys and not o.is_commitment]
    if not chosen:
        rate = today.limits.usd_per_kwh
        hours = sum(b.hours for b in today.blocks)
        buys = [o for o in built.owned if not o.is_commitment and o.slots_per_unit > 0]
        chosen = sorted(buys, key=lambda o: unit_cost_of(o, rate, hours, today.limits.weights) / o.slots_per_unit)[:1]
    if not chosen:
        return []
    keep = {o.key for o in chosen} | {o.key for o in built.owned if o.is_commitment and o.key in keys}
    restricted = Futures(built.drawn, built.inputs, [o for o in built.owned if o.key in keep], built.bounds, [],
                         cuts)
    return [split(today, restricted, s) for s in range(len(built.inputs))]


def _rented(pieces: list[Stage], inputs: list[Inputs]) -> Stacked:
    """Cloud only in every future without commitments to choose: each future's screening curve at no owned slots
    (`rent_only`), no solve."""
    answers = [rent_only(_unsplit(piece).model, inp.limits) for piece, inp in zip(pieces, inputs, strict=True)]
    totals = np.array([a.objective if a.status.has_solution else np.inf for a in answers])
    status = SolveStatus.OPTIMAL if np.isfinite(totals).all() else SolveStatus.INFEASIBLE
    return Stacked(status, totals=totals,
                   objective=float(np.dot([p.weight for p in pieces], totals)), gap=0.0)


def _unsplit(piece: Stage) -> Piece:
    """A future's planning model: cloud only is read off it, never off a split future."""
    if not isinstance(piece, Piece):
        raise TypeError("cloud only is read off each future's planning model, not a split one")
    return piece


def _is_today(inp: Inputs) -> bool:
    f = inp.future
    return f.demand_scale == 1.0 and f.growth_per_year == 0.0 and f.cloud_per_year == 0.0 and (
        f.electricity == 1.0 and f.resale == 1.0)


def _with_purchase(today: Today, owned: list[OwnedOption], bounds: dict[str, int], units: dict[str, int],
                   hosts: dict[str, int]) -> Today:
    """Today's plan with the stochastic purchase at the profile's own figures (itself when it buys the same)."""
    if (units, hosts) == (dict(today.main.units), dict(today.main.hosts)):
        return today
    started = time.perf_counter()
    model = build(owned, today.options.cloud, today.options.hosts, today.blocks, today.limits, bounds=bounds,
                  reduce=False)
    fix_purchase(model, units, hosts)
    main = solved(model, started)
    if not main.status.has_solution:
        raise RuntimeError("the stochastic plan's purchase has no plan at the profile's own figures")
    allocation = Allocation(Purchase(main.units, main.hosts), main.owned_jobs, main.instances, main.displaced,
                            main.packed_hours)
    return replace(today, main=main, plan=today.ledger.account(allocation), owned_main=owned)


def _served(found: Stacked | None) -> np.ndarray | None:
    """A fixed plan's totals when it serves every future (None when some future's work is beyond it: cloud only
    where cloud is not allowed, today's purchase without cloud in a future with more work)."""
    if found is None or len(found.totals) == 0 or not np.isfinite(found.totals).all():
        return None
    return found.totals


def _later_costs(pieces: list[Split], plan: Stacked, today: Today,
                 cuts: list[int]) -> tuple[np.ndarray, np.ndarray, int]:
    """Per future, what its later purchases pay at their month and their resale at the end (the plan's basis), and
    the first period from that month (one modelled later month): the fan's step."""
    outlay = np.array([float(np.dot(plan.later[s], p.later_outlay)) for s, p in enumerate(pieces)])
    credit = np.array([float(np.dot(plan.later[s], p.later_resale)) for s, p in enumerate(pieces)])
    cut = add_months(today.periods[0].start, cuts[0])
    at = next((i for i, period in enumerate(today.periods) if period.start >= cut), len(today.periods))
    return outlay, credit, at


def _risk(today: Today, option: Uncertainty, drawn: list[Future], inputs: list[Inputs], weights: np.ndarray,
          stochastic: Stacked, month_zero: Stacked, deterministic: Stacked | None, cloud_only: Stacked,
          no_purchase: Stacked | None, best: np.ndarray | None, plan_best: np.ndarray | None, waiting: list[Waiting],
          solve_ms: float, later: tuple[np.ndarray, np.ndarray, int] | None = None) -> Risk:
    """`stochastic`: the plan (with purchases that wait, when some do); `month_zero`: the program decided wholly at
    month 0, which the value of the stochastic solution weighs today's plan against (both without waiting: what
    waiting adds is value_of_waiting_usd); `best`: each future's own best plan decided at month 0, `plan_best` the
    one the plan's regret is measured against (with the later month when the plan has one)."""
    alpha = option.alpha
    plan_t = stochastic.totals
    cloud_t, today_t = _served(cloud_only), _served(deterministic)
    plan_fig = figures.totals(plan_t, weights, alpha)
    share = float(weights.sum())
    beats = None if cloud_t is None else float(np.dot(weights, plan_t < cloud_t - TIE * np.abs(cloud_t)) / share)
    pays = None
    if no_purchase is not None:  # a future the plan serves only by buying is one where buying pays
        without = no_purchase.totals
        pays = float(np.dot(weights, plan_t < without - TIE * np.abs(np.where(np.isfinite(without), without, 0)))
                     / share)
    objective = option.objective
    vss = None if today_t is None else (
        figures.score(today_t, weights, objective, alpha, option.risk_weight, best)
        - figures.score(month_zero.totals, weights, objective, alpha, option.risk_weight, best))
    plan_acc = today.plan
    running = np.asarray(plan_acc.period_running_usd, dtype=float)
    paid, sold, at = later if later is not None else (np.zeros(len(drawn)), np.zeros(len(drawn)), 0)
    plan_paths = np.array([figures.cumulative(float(plan_t[s]), plan_acc.start_usd,
                                              plan_acc.resale_basis_usd * f.resale + float(sold[s]),
                                              running * inputs[s].demand, float(paid[s]), at)
                           for s, f in enumerate(drawn)])
    cloud_paths = None if cloud_t is None else np.array([
        figures.cumulative(float(cloud_t[s]), 0.0, 0.0, np.array([p.demand for p in inputs[s].periods]))
        for s in range(len(drawn))])
    status = "optimal" if stochastic.status == SolveStatus.OPTIMAL else "time_limited"
    waits_later = [w for w in waiting if w.month > 0]
    return Risk(
        scenarios=option.scenarios, distinct_scenarios=len(drawn), objective=objective, alpha=alpha,
        expected_total_usd=plan_fig.expected_total_usd, p10_total_usd=plan_fig.p10_total_usd,
        p50_total_usd=plan_fig.p50_total_usd, p90_total_usd=plan_fig.p90_total_usd,
        cvar_total_usd=plan_fig.cvar_total_usd,
        cloud_only=None if cloud_t is None else figures.totals(cloud_t, weights, alpha),
        probability_beats_cloud_only=None if beats is None else round(beats, 6),
        probability_buying_pays_off=None if pays is None else round(pays, 6),
        deterministic_expected_total_usd=None if today_t is None else round(float(np.dot(today_t, weights) / share),
                                                                           2),
        value_of_stochastic_solution_usd=None if vss is None else round(vss, 2),
        max_regret_usd=None if plan_best is None else round(float((plan_t - plan_best).max()), 2),
        value_of_waiting_usd=waits_later[0].value_usd if waits_later else None, waiting=waits_later,
        totals_usd=[round(float(v), 2) for v in plan_t],
        cloud_only_totals_usd=[] if cloud_t is None else [round(float(v), 2) for v in cloud_t],
        weights=[round(float(w), 9) for w in weights],
        fan=figures.fan(period_days(today.periods), [p.end for p in today.periods], plan_paths, cloud_paths, weights),
        status=status, gap=stochastic.gap, solve_ms=round(solve_ms, 2), columns=stochastic.columns,
        rows=stochastic.rows, note=NOTE)


__all__ = ["Decision", "decide", "fix_purchase"]
