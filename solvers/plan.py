"""make_plan(profile, catalog, today) -> PlanResult: the cheapest owned + cloud mix and why, as a story of stages.

prepare (money inputs to USD, solvers.offers.place_inputs) -> compile (a workload-form profile to job demand,
solvers.workload) -> demand (periods and blocks, solvers.demand) -> offers (options, pruning, solvers.offers) ->
model (the MIP, solvers.model) -> money (accounts, solvers.money) -> uncertainty (with the profile's `uncertainty`:
the purchase every future shares, and the risk, solvers.uncertainty) -> explain (alternatives, warnings,
break-even, recommendation, solvers.explain) -> the plan in its currency (solvers.money.readout). Each stage hands
the next a value; the helpers live in the stages, this module only runs them in order.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, replace
from functools import partial

from pricing.catalog import Catalog
from solvers.base.break_even_result import Alternatives
from solvers.base.deferred import Deferred
from solvers.base.demand_units import always_on, scaling_efficiency
from solvers.base.errors import ProfileError, SolverFailure
from solvers.base.notices import texts
from solvers.base.options import JobWidths, Options, OwnedOption
from solvers.base.profile import Profile, terms_of
from solvers.base.result import PlanResult, SolverInfo
from solvers.base.risk import Risk, converted
from solvers.base.uncertainty import Uncertainty
from solvers.base.workload import WorkloadPlan
from solvers.demand.blocks import Block, merge_periods, model_weights
from solvers.demand.periods import Period, build_periods
from solvers.explain.alternatives import FromMain, MainModel, Others, ranked_singles, solve_alternatives
from solvers.explain.break_even import find_break_even
from solvers.explain.diagnose import explain, no_options
from solvers.explain.extrapolation import extrapolation_warnings
from solvers.explain.provenance import aggregator_notices
from solvers.explain.recommendation import names_condition, recommend
from solvers.explain.warnings import (
    later_purchase,
    memory_notices,
    option_notices,
    plan_warnings,
    status_warnings,
    waiting_notices,
)
from solvers.explain.weighing import (
    Search,
    as_bought,
    commitment_mixes,
    evaluator_for,
    search_range,
    solved_units,
    start_guess,
    weigh,
)
from solvers.model.arrays import Limits, MipSolution, Model, SolveStatus
from solvers.model.build import build
from solvers.model.evaluate import Evaluator
from solvers.model.purchases import Purchase
from solvers.model.solve import load, solved
from solvers.money.accounting import Accounts, Ledger
from solvers.money.allocation import allocation_of
from solvers.money.currency import usd_to
from solvers.money.readout import finish
from solvers.offers.options import build_options
from solvers.offers.owned_rows import offered_catalog
from solvers.offers.place_inputs import carbon_adder_usd_per_kwh, prepare
from solvers.offers.pruning import prune_cloud_frame, prune_dominated, prune_unprofitable
from solvers.replay.hourly import Replay, replay_purchase
from solvers.uncertainty.decide import decide
from solvers.uncertainty.today import Today
from solvers.workload.demand import compile_job


def _check_providers(profile: Profile, catalog: Catalog) -> None:
    if profile.options.providers is None:
        return
    known = set(catalog.providers()) | {c.provider for c in profile.prices.cloud}
    unknown = sorted(set(profile.options.providers) - known)
    if unknown:
        raise ProfileError("options.providers", "known_provider",
                           f"unknown provider(s) {unknown}; known: {sorted(known)}")


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
    main_model: MainModel = Future()
    # the thresholds' evaluator only for the alternatives (`solve_core` and its callers never weigh)
    evaluator = evaluator_for(profile, owned, options, blocks, limits) if alternatives else None
    try:  # from the alternatives' start on: whatever stops this thread (a KeyboardInterrupt in the wait for their
        # MIP included) fails the model's future, which their thread would otherwise wait on forever
        others = (None if evaluator is None else
                  _alternatives_beside(owned, options, blocks, limits, ledger, main_model, evaluator,
                                       search_range(profile, carbon_usd_per_kwh)))
        started = time.perf_counter()
        model = build(owned_main, options.cloud, options.hosts, blocks, limits)
        loaded = load(model)
        main_model.set_result(FromMain(model) if evaluator is None else FromMain(
            model, start_guess(model), ranked_singles(owned, options, limits, evaluator)))
    except BaseException as failed:  # the alternatives' thread, waiting for the model, fails with it
        if not main_model.done():  # (an interrupt just after `set_result` keeps its own exception)
            main_model.set_exception(failed)
        raise
    main = solved(model, started, loaded=loaded)
    if main.status == SolveStatus.INFEASIBLE:
        raise explain(owned, options.cloud, options.hosts, blocks, periods, limits, profile.options.allow_cloud)
    if main.status == SolveStatus.ERROR:
        raise SolverFailure("the solver returned no solution and no proof of infeasibility")
    return Core(profile, periods, horizon_days, options, blocks, limits, owned, owned_main, main, ledger,
                ledger.account(allocation_of(main)), model=model, others=others)


def _alternatives_beside(owned: list[OwnedOption], options: Options, blocks: list[Block], limits: Limits,
                         ledger: Ledger, main_model: MainModel, evaluator: Evaluator,
                         search: Search) -> Deferred[tuple[Others, Evaluator]]:
    """The alternatives started before the main model is built, and this thread held until their buy-only MIP is
    in HiGHS (issue 29). Why: both MIPs then run side by side while this thread builds the main model, and the
    alternatives' Python after their MIP (accounts, single units, the thresholds of the main model's start) runs
    while the main MIP still does, where before it followed the main MIP's end on the one GIL (the bursty series:
    the main thread idle some 6 ms at its end). Their thread's Python would otherwise wait for this thread's GIL
    until the main MIP, so the hand-over is explicit."""
    launched = threading.Event()

    def alternatives(background: bool) -> tuple[Others, Evaluator]:
        try:
            return solve_alternatives(owned, options, blocks, limits, ledger, main_model, evaluator, search,
                                      background, launched.set)
        finally:
            launched.set()

    others = Deferred(alternatives)
    if others.beside:
        launched.wait()
    return others


def _model_as_built(core: Core) -> MainModel:
    """The core's main model as the alternatives take it when they run after the solve (no start's purchase to
    weigh beside it: there is no solve left to overlap)."""
    built: MainModel = Future()
    built.set_result(FromMain(core.model))
    return built


def _hours_on(profile: Profile) -> float | None:
    """The hours a day owned machines are on (`options.machine_on` as a number), for the waits' read-out."""
    machine_on = profile.options.machine_on
    return None if isinstance(machine_on, str) else float(machine_on)


def today_of(core: Core) -> Today:
    """Today's plan as the uncertainty stage reads it (values of the stages below it, not the core)."""
    return Today(core.periods, core.blocks, core.limits, terms_of(core.profile), core.options, core.owned,
                 core.owned_main, core.main, core.ledger, core.plan)


def _decided(core: Core, option: Uncertainty | None) -> tuple[Core, Risk | None]:
    """With the profile's `uncertainty` (issue 32): the purchase every future shares in place of today's, and the
    plan's risk in USD; without it, the core as solved."""
    if option is None:
        return core, None
    decided, risk = decide(today_of(core), option).pair
    return replace(core, main=decided.main, plan=decided.plan, owned_main=decided.owned_main), risk


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
    core, risk = _decided(core, prep.profile.uncertainty)
    for observe in PLAN_OBSERVERS:
        observe(core, today)
    profile = core.profile  # the compiled class form when the profile is in the workload form
    options, owned, main, ledger, plan_acc = core.options, core.owned, core.main, core.ledger, core.plan
    periods, blocks, limits, horizon_days = core.periods, core.blocks, core.limits, core.horizon_days
    opts = profile.options
    others, evaluator = (core.others or Deferred(partial(
        solve_alternatives, owned, options, blocks, limits, ledger, _model_as_built(core),
        evaluator_for(profile, owned, options, blocks, limits), search_range(profile, carbon)))).result()
    cloud_only_acc, buy_only_acc, buy_only_sol, notes = (others.cloud_only, others.buy_only,
                                                         others.buy_only_solution, others.notes)

    memory = ([] if core.workload is not None
              else memory_notices(profile, catalog.gpus, [plan_acc, cloud_only_acc, buy_only_acc]))
    later = later_purchase(risk)  # what some futures buy at a later month, when a plan under uncertainty waits
    warnings = (option_notices(options) + plan_warnings(profile, options, plan_acc) + memory + status_warnings(main)
                + extrapolation_warnings(profile.workload_class, profile.planned_demand.reference_gpu,
                                         list(profile.throughput_overrides), catalog.gpus, plan_acc.buy,
                                         plan_acc.cloud, plan_acc.costs.total_usd)
                + aggregator_notices(catalog, plan_acc.buy, plan_acc.cloud) + waiting_notices(later))
    plan_purchase = as_bought(Purchase(main.units, main.hosts), owned)
    mixes = commitment_mixes(owned, solved_units(main), solved_units(others.cloud_only_solution))
    weighed = (others.weighed if others.weighed is not None and others.weighed.holds_for(plan_purchase, mixes)
               else weigh(owned, evaluator, limits, search_range(profile, carbon), plan_purchase, buy_only_sol,
                           others.singles, mixes))
    break_even = find_break_even(profile, periods, blocks, options, owned, limits, plan_acc, cloud_only_acc,
                             buy_only_acc, plan_purchase, buy_only_sol, horizon_days, weighed, others.singles)
    result = PlanResult(
        status=main.status.value,  # type: ignore[arg-type]
        recommendation=recommend(plan_acc, cloud_only_acc, break_even, horizon_days, profile,
                                       prep.currency, usd_to(prep.rates, prep.currency),
                                       jobs=core.workload is not None, later=later),
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
    result = finish(result, prep)
    result.risk = None if risk is None else converted(risk, usd_to(prep.rates, prep.currency))
    return result


__all__ = ["Core", "make_plan", "names_condition", "solve_core", "today_of"]
