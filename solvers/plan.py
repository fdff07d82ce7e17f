"""plan(profile, catalog, today) -> PlanResult: the cheapest owned + cloud mix and why.

Steps: periods and demand -> options (filters, throughput, energy, resale) -> pruning -> the MIP
-> accounts of the plan and of its two alternatives (cloud-only, buy-only) -> break-even curves,
decision thresholds and the guide's closed form.
"""

from __future__ import annotations

import datetime as dt
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from pricing.catalog import Catalog
from solvers.base.demand_units import always_on, scaling_efficiency
from solvers.base.errors import ProfileError
from solvers.base.finance import Financing, Terms, Weights, calendar, weights_for
from solvers.base.notices import texts
from solvers.base.options import CloudOption, HostOption, JobWidths, Options, OwnedOption
from solvers.base.profile import Profile, UtilisationDemand
from solvers.base.result import (
    Alternatives,
    BreakEven,
    Crossings,
    PlanResult,
    SimpleBreakEven,
    SolverInfo,
)
from solvers.base.workload import WorkloadPlan
from solvers.demand.blocks import Block, merge_periods
from solvers.demand.periods import Period, build_periods
from solvers.explain.alternatives import Deferred, Others, _alternatives
from solvers.explain.diagnose import explain, no_options
from solvers.explain.extrapolation import extrapolation_warnings
from solvers.explain.provenance import aggregator_notices
from solvers.explain.recommendation import _recommendation, names_condition
from solvers.explain.simple import Budget, JobDemand, cheapest_cloud, simple_break_even
from solvers.explain.warnings import _memory_notices, _option_notices, _status_warnings, _warnings
from solvers.explain.weighing import (
    Weighed,
    _bought,
    _evaluator,
    _search,
    _start_guess,
    _weigh,
    commitment_mixes,
    solved_units,
)
from solvers.model.arrays import Limits, MipSolution, Model, SolveStatus
from solvers.model.build import build
from solvers.model.evaluate import Evaluator, Purchase
from solvers.model.solve import load, solved
from solvers.money.accounting import Accounts, Ledger, _allocation
from solvers.money.currency import usd_to
from solvers.money.curves import crossing, cumulative_points, curve, day_grid
from solvers.money.readout import finish
from solvers.offers.options import build_options, offered_catalog
from solvers.offers.place_inputs import carbon_adder_usd_per_kwh, prepare
from solvers.offers.pruning import prune_cloud_frame, prune_dominated, prune_unprofitable
from solvers.replay.hourly import Replay, replay_purchase
from solvers.workload.demand import compile_job

THRESHOLDS_NOTE = (
    "Each threshold varies one input and holds the rest of the profile fixed; buying 'pays' when the plan's "
    "purchase, the buy-only purchase or one unit of a leading owned option costs less over the horizon "
    "than cloud only."
)
COMMITMENTS_NOTE = (" Cloud only includes the reserved or committed instances the profile allows (their prices move "
                    "with the cloud price).")
PRESENT_VALUE_NOTE = " Costs are present values at the profile's discount rate."


class SolverFailure(RuntimeError):
    """HiGHS returned neither a solution nor a proof of infeasibility."""


def _check_providers(profile: Profile, catalog: Catalog) -> None:
    if profile.options.providers is None:
        return
    known = set(catalog.providers()) | {c.provider for c in profile.prices.cloud}
    unknown = sorted(set(profile.options.providers) - known)
    if unknown:
        raise ProfileError("options.providers", "known_provider",
                           f"unknown provider(s) {unknown}; known: {sorted(known)}")


def terms_of(profile: Profile) -> Terms:
    opts = profile.options
    f = opts.financing
    return Terms(opts.discount_rate, None if f is None else Financing(f.annual_rate, f.term_months, f.down_payment),
                 opts.opex.fixed_usd_per_month, 0.0 if opts.cloud_data is None else opts.cloud_data.usd_per_month)


def model_weights(terms: Terms, periods: list[Period], blocks: list[Block]) -> Weights | None:
    """The objective's basis (solvers.base.finance): None keeps today's nominal model to the bit."""
    if terms.plain:
        return None
    block_of = np.full(len(periods), -1, dtype=np.int64)
    for b, block in enumerate(blocks):
        block_of[list(block.periods)] = b
    cal = calendar([p.start for p in periods], [p.end for p in periods])
    return weights_for(terms, cal, np.array([p.hours for p in periods]), block_of, len(blocks))


@dataclass
class Core:
    """The cheapest mix itself, before any alternative or break-even analysis: what alerts re-plan with."""

    profile: Profile
    periods: list[Period]
    horizon_days: int
    options: Options
    blocks: list[Block]
    limits: Limits
    owned: list[OwnedOption]
    owned_main: list[OwnedOption]
    main: MipSolution
    ledger: Ledger
    plan: Accounts
    workload: WorkloadPlan | None = None  # the workload form's per-GPU table (profile is then its compiled form)
    model: Model | None = None  # the main model as built (the cloud-only alternative reads its screening curve)
    # the alternatives and the thresholds' evaluator, started beside the main solve (make_plan)
    others: Deferred[tuple[Others, Evaluator]] | None = None


def solve_core(profile: Profile, catalog: Catalog, today: dt.date, *, prune: bool = True,
               widths: JobWidths | None = None) -> Core:
    """Options -> pruning -> the MIP -> the plan's accounts (a few ms; `make_plan` adds the analysis), in USD:
    money inputs in other currencies, places, taxes and a carbon price are turned into USD inputs first.

    A workload-form profile is compiled into a class-form profile in which every GPU type runs jobs at its own
    widths (solvers/workload/demand.py); the core's `profile` is that compiled profile and `workload` the per-GPU
    table. `widths` plans a class-form profile that way directly (GPU type -> job width -> job-slot speed).
    """
    prep = prepare(profile, catalog)
    if widths is not None:
        return _solve_class(prep.profile, prep.catalog, today, prune, widths)
    return _solve_prepared(prep.profile, prep.catalog, today, prune)


def _solve_prepared(profile: Profile, catalog: Catalog, today: dt.date, prune: bool,
                    alternatives: bool = False, carbon_usd_per_kwh: float = 0.0) -> Core:
    if profile.job is not None:
        return _solve_job(profile, catalog, today, prune, alternatives, carbon_usd_per_kwh)
    return _solve_class(profile, catalog, today, prune, alternatives=alternatives,
                        carbon_usd_per_kwh=carbon_usd_per_kwh)


def _solve_job(profile: Profile, catalog: Catalog, today: dt.date, prune: bool, alternatives: bool = False,
               carbon_usd_per_kwh: float = 0.0) -> Core:
    compiled = compile_job(profile, offered_catalog(catalog, today))
    candidate = compiled.candidate
    core = _solve_class(candidate.profile, candidate.catalog, today, prune, candidate.widths, alternatives,
                        carbon_usd_per_kwh)
    used: dict[str, set[int]] = {}
    lines = [(b.gpu, b.gpus_per_job) for b in core.plan.buy] + [(c.gpu, c.gpus_per_job) for c in core.plan.cloud]
    for gpu, width in lines + [(c.gpu, c.gpus_per_job) for c in core.plan.commitments]:
        if width is not None:
            used.setdefault(gpu, set()).add(width)
    core.workload = compiled.report(used)
    return core


def _solve_class(profile: Profile, catalog: Catalog, today: dt.date, prune: bool,
                 widths: JobWidths | None = None, alternatives: bool = False, carbon_usd_per_kwh: float = 0.0) -> Core:
    """`alternatives`: start the buy-only alternative's solve before the main one, to run beside it, and the
    thresholds of the main model's start with it (`carbon_usd_per_kwh`: what a carbon price adds to the profile's
    electricity rate, which the electricity threshold is stated without)."""
    periods = build_periods(profile, today)
    horizon_days = (periods[-1].end - periods[0].start).days
    _check_providers(profile, catalog)
    peak_jobs = max((float(p.jobs.max(initial=0.0)) for p in periods), default=0.0)
    options = build_options(catalog, profile, today, horizon_days,
                            partial(prune_cloud_frame, peak_jobs=peak_jobs) if prune else None, periods[0].start,
                            widths)
    if not options.owned and not options.cloud:
        raise no_options(profile, catalog)
    blocks = merge_periods(periods)
    rate = options.electricity_usd_per_kwh
    opts = profile.options
    terms = terms_of(profile)
    limits = Limits(rate, opts.availability, opts.max_capex_usd, opts.max_owned_gpus,
                    profile.jobs.gpus_per_job, profile.jobs.patience == "none", model_weights(terms, periods, blocks))
    owned = prune_dominated(options.owned) if prune else options.owned
    owned_main = (prune_unprofitable(owned, options.cloud, blocks, rate, limits.width, limits.weights)
                  if prune else owned)

    ledger = Ledger({o.key: o for o in owned}, {c.key: c for c in options.cloud},
                    {h.host.name: h for h in options.hosts}, blocks, periods, rate, limits.width,
                    scaling_efficiency(profile), always_on=always_on(profile), terms=terms,
                    show_widths=widths is not None, hours_on=_hours_on(profile),
                    patience=profile.jobs.patience)
    started = time.perf_counter()
    model = build(owned_main, options.cloud, options.hosts, blocks, limits)
    loaded = load(model)  # before the alternatives start: their Python would hold the GIL while this thread loads
    others = (Deferred(partial(_alternatives, owned, options, blocks, limits, ledger, model,
                               _evaluator(profile, owned, options, blocks, limits),
                               _search(profile, carbon_usd_per_kwh), _start_guess(model)))
              if alternatives else None)
    main = solved(model, started, loaded=loaded)
    if main.status == SolveStatus.INFEASIBLE:
        raise explain(owned, options.cloud, options.hosts, blocks, periods, limits, profile.options.allow_cloud)
    if main.status == SolveStatus.ERROR:
        raise SolverFailure("the solver returned no solution and no proof of infeasibility")
    return Core(profile, periods, horizon_days, options, blocks, limits, owned, owned_main, main, ledger,
                ledger.account(_allocation(main)), model=model, others=others)


def _hours_on(profile: Profile) -> float | None:
    """The hours a day owned machines are on (`options.machine_on` as a number), for the waits' read-out."""
    machine_on = profile.options.machine_on
    return None if isinstance(machine_on, str) else float(machine_on)


PLAN_OBSERVERS: list[Callable[[Core, dt.date], None]] = []
"""Called with every plan's core as `make_plan` makes it (the test suite's replay of every plan, issue 29)."""


def replay_core(core: Core, today: dt.date) -> Replay:
    """The independent replay of a plan's purchase (`solvers.replay.hourly`), on its options and prices."""
    costs = core.plan.costs
    ledger = core.ledger
    return replay_purchase(core.profile, core.main.units, core.main.hosts, ledger.owned, ledger.hosts,
                           core.options.cloud, today, core.limits.usd_per_kwh,
                           costs.financing_interest_usd / costs.capex_usd if costs.capex_usd else 0.0)


def make_plan(profile: Profile, catalog: Catalog, today: dt.date, *, prune: bool = True) -> PlanResult:
    prep = prepare(profile, catalog)
    catalog = prep.catalog
    carbon = carbon_adder_usd_per_kwh(prep)
    core = _solve_prepared(prep.profile, catalog, today, prune, alternatives=True, carbon_usd_per_kwh=carbon)
    for observe in PLAN_OBSERVERS:
        observe(core, today)
    profile = core.profile  # the compiled class form when the profile is in the workload form
    options, owned, main, ledger, plan_acc = core.options, core.owned, core.main, core.ledger, core.plan
    periods, blocks, limits, horizon_days = core.periods, core.blocks, core.limits, core.horizon_days
    opts = profile.options
    others, evaluator = (core.others or Deferred(partial(
        _alternatives, owned, options, blocks, limits, ledger, core.model,
        _evaluator(profile, owned, options, blocks, limits), _search(profile, carbon), None))).result()
    cloud_only_acc, buy_only_acc, buy_only_sol, notes = (others.cloud_only, others.buy_only,
                                                         others.buy_only_solution, others.notes)

    memory = ([] if core.workload is not None
              else _memory_notices(profile, catalog.gpus, [plan_acc, cloud_only_acc, buy_only_acc]))
    warnings = (_option_notices(options) + _warnings(profile, options, plan_acc) + memory + _status_warnings(main)
                + extrapolation_warnings(profile.workload_class, profile.planned_demand.reference_gpu,
                                         list(profile.throughput_overrides), catalog.gpus, plan_acc.buy,
                                         plan_acc.cloud, plan_acc.costs.total_usd)
                + aggregator_notices(catalog, plan_acc.buy, plan_acc.cloud))
    plan_purchase = _bought(Purchase(main.units, main.hosts), owned)
    mixes = commitment_mixes(owned, solved_units(main), solved_units(others.cloud_only_solution))
    weighed = (others.weighed if others.weighed is not None and others.weighed.holds_for(plan_purchase, mixes)
               else _weigh(owned, evaluator, limits, _search(profile, carbon), plan_purchase, buy_only_sol,
                           others.singles, mixes))
    break_even = _break_even(profile, periods, blocks, options, owned, limits, plan_acc, cloud_only_acc,
                             buy_only_acc, plan_purchase, buy_only_sol, horizon_days, weighed, others.singles)
    result = PlanResult(
        status=main.status.value,  # type: ignore[arg-type]
        recommendation=_recommendation(plan_acc, cloud_only_acc, break_even, horizon_days, profile,
                                       prep.currency, usd_to(prep.rates, prep.currency),
                                       jobs=core.workload is not None),
        total_cost_usd=plan_acc.costs.total_usd,
        buy=plan_acc.buy,
        hosts=plan_acc.hosts,
        cloud=plan_acc.cloud,
        costs=plan_acc.costs,
        periods=plan_acc.periods,
        commitments=plan_acc.commitments,
        discount_rate=opts.discount_rate,
        cash_flows=plan_acc.cash_flows,
        break_even=break_even,
        alternatives=Alternatives(
            cloud_only=cloud_only_acc.alternative() if cloud_only_acc else None,
            buy_only=buy_only_acc.alternative() if buy_only_acc else None,
            notes=texts(notes),
            notices=notes,
        ),
        prices_as_of=options.prices_as_of,
        warnings=texts(warnings),
        notices=warnings,
        solver=SolverInfo(backend=main.backend, status=main.status.value, solve_ms=round(main.solve_ms, 2),
                          build_ms=round(main.build_ms, 2), gap=main.gap, owned_options=len(core.owned_main),
                          cloud_options=len(options.cloud), candidates_before_pruning=options.candidates,
                          levels=sum(len(b.jobs) for b in blocks), integer_instances=limits.integer_instances),
        horizon={"start": periods[0].start.isoformat(), "end": periods[-1].end.isoformat(), "days": horizon_days,
                 "periods": len(periods)},
        workload=core.workload,
    )
    if core.workload is not None:  # the compiled demand's utilisation is a device, not the user's figure
        result.break_even.utilisation_threshold = None
    return finish(result, prep)


def _break_even(profile: Profile, periods: list[Period], blocks: list[Block], options: Options,
                owned: list[OwnedOption], limits: Limits, plan: Accounts, cloud_only: Accounts | None,
                buy_only: Accounts | None, plan_purchase: Purchase, buy_only_sol: MipSolution | None,
                horizon_days: int, weighed: Weighed, singles: list[Purchase]) -> BreakEven:
    days, dates = day_grid(periods)
    plan_curve = curve(plan.start_usd, plan.period_running_usd, plan.resale_basis_usd)
    cloud_curve = (curve(cloud_only.start_usd, cloud_only.period_running_usd, cloud_only.resale_basis_usd)
                   if cloud_only else None)
    buy_curve = (curve(buy_only.start_usd, buy_only.period_running_usd, buy_only.resale_basis_usd)
                 if buy_only else None)
    crossings = Crossings(
        plan_vs_cloud_only=crossing(days, plan_curve, cloud_curve) if cloud_curve else None,
        buy_only_vs_cloud_only=crossing(days, buy_curve, cloud_curve) if buy_curve and cloud_curve else None,
        plan_vs_buy_only=crossing(days, plan_curve, buy_curve) if buy_curve else None,
    )
    plan_buys = not plan_purchase.empty
    payback = crossings.plan_vs_cloud_only if plan_buys else None

    demand = profile.demand
    found, cloud_side = weighed.found, weighed.cloud_side
    job_demand = _job_demand(blocks, horizon_days, limits)
    reference = _reference_offer([cloud_only, plan], options, job_demand)

    simple, simple_note = None, None
    if reference is not None:
        buy_only_purchase = (_bought(Purchase(buy_only_sol.units, buy_only_sol.hosts), owned)
                             if buy_only_sol is not None and buy_only_sol.status.has_solution else Purchase())
        simple, simple_note = _simple(_simple_owned(plan_purchase, owned, singles, buy_only_purchase), options.hosts,
                                      reference, job_demand, limits, plan_purchase)

    return BreakEven(
        days=None if payback is None else round(payback, 2),
        crossings=crossings,
        cumulative=cumulative_points(days, dates, plan_curve, cloud_curve, buy_curve),
        utilisation_threshold=(round(found.demand_scale * demand.utilisation, 6)
                               if found.demand_scale is not None and isinstance(demand, UtilisationDemand) else None),
        demand_scale_threshold=None if found.demand_scale is None else round(found.demand_scale, 6),
        # the threshold's rate prices owned energy with the carbon price's adder; the tariff is stated without it
        electricity_threshold_usd_per_kwh=(None if found.electricity_usd_per_kwh is None
                                           else round(found.electricity_usd_per_kwh - weighed.least_usd_per_kwh, 6)),
        cloud_price_threshold_usd_per_hour=(None if found.cloud_price_factor is None or reference is None
                                            else round(found.cloud_price_factor * reference.usd_per_hour, 6)),
        cloud_price_threshold_offer=None if reference is None else f"{reference.provider}/{reference.name} "
        f"({reference.region}, {reference.pricing}) at {reference.usd_per_hour} USD/h",
        thresholds_note=THRESHOLDS_NOTE + (COMMITMENTS_NOTE if cloud_side.scaled else "")
        + (PRESENT_VALUE_NOTE if profile.options.discount_rate > 0 else ""),
        basis="present_value" if profile.options.discount_rate > 0 else "nominal",
        cloud_only_commitments=bool(cloud_side.scaled),
        simple=simple,
        simple_note=simple_note,
    )


def _job_demand(blocks: list[Block], horizon_days: int, limits: Limits) -> JobDemand:
    """The closed form's demand in the model's units: job-hours at reference pace a day (the levels' jobs x hours),
    the most jobs at once, and whether rented instances are packed (work may wait)."""
    job_hours = sum(float(np.dot(b.jobs, b.level_hours)) for b in blocks)
    peak = max((b.peak_jobs for b in blocks), default=0.0)
    return JobDemand(job_hours / horizon_days, max(1, math.ceil(peak - 1e-9)), not limits.integer_instances)


def _reference_offer(rented: list[Accounts | None], options: Options, demand: JobDemand) -> CloudOption | None:
    """The cloud offer the closed form and the cloud-price threshold are stated on: the one rented most (largest
    rent) by cloud only, what renting instead of buying takes (the plan itself when it buys nothing; a plan that
    buys may rent only peaks or, packed, its cards' maintenance hours), else by the plan; when neither rents, the
    cheapest per job-hour of this demand's jobs, an instance rented whole (a 1-GPU job is not priced at an eighth
    of an 8-GPU instance)."""
    for accounts in rented:
        for line in [] if accounts is None else accounts.cloud:  # largest cost first
            same = [c for c in options.cloud if (c.provider, c.name, c.region, c.pricing, c.usd_per_hour)
                    == (line.provider, line.name, line.region, line.pricing, line.usd_per_hour)
                    and (line.gpus_per_job is None or c.width == line.gpus_per_job)]
            if same:
                return cheapest_cloud(same, demand)
    return cheapest_cloud(options.cloud, demand)


def _simple(candidates: list[OwnedOption], hosts: list[HostOption], reference: CloudOption, demand: JobDemand,
            limits: Limits, plan_purchase: Purchase | None = None) -> tuple[SimpleBreakEven | None, str | None]:
    """The closed form on the first candidate that runs a whole job within the budget, or why there is none; the
    plan's own option at the plan's count (machines, or whole jobs of bare cards)."""
    budget = Budget(limits.max_capex_usd, limits.max_owned_gpus)
    bought = {} if plan_purchase is None else plan_purchase.units
    for option in candidates:
        units = bought.get(option.key, 0)
        pieces = (units if option.includes_host else units * option.gpus_per_unit // option.width) or None
        simple = simple_break_even(option, hosts, reference, demand, option.available(limits.availability),
                                   limits.usd_per_kwh, budget, pieces)
        if simple is not None:
            return simple, None
    if not candidates:
        return None, None
    budgeted = " within options.max_capex_usd and options.max_owned_gpus" if (
        limits.max_capex_usd is not None or limits.max_owned_gpus is not None) else ""
    return None, (f"the guide's closed form has no owned option that runs one whole job{budgeted} (a job's GPUs "
                  "in one host that holds them all)")


def _simple_owned(plan_purchase: Purchase, owned: list[OwnedOption], singles: list[Purchase],
                  buy_only: Purchase | None = None) -> list[OwnedOption]:
    """The closed form's owned option, in order of preference: the plan's most-bought, then buy only's (what buying
    everything would buy: a plan that buys nothing is weighed against it, not against the cheapest single unit,
    which for a 70B service was 136 small cards), then the leading single units (the first that runs a whole job
    within the budget is used)."""
    by_key = {o.key: o for o in owned}
    keys: list[str] = []
    for purchase in (plan_purchase, buy_only or Purchase()):
        if not purchase.empty:
            keys.append(max(((k, n) for k, n in purchase.units.items() if n > 0), key=lambda kv: (kv[1], kv[0]))[0])
    keys += [next(iter(s.units)) for s in singles]
    return [by_key[k] for k in dict.fromkeys(keys) if k in by_key]


__all__ = ["Core", "SolverFailure", "make_plan", "names_condition", "solve_core"]
