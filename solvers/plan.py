"""plan(profile, catalog, today) -> PlanResult: the cheapest owned + cloud mix and why.

Steps: periods and demand -> options (filters, throughput, energy, resale) -> pruning -> the MIP
-> accounts of the plan and of its two alternatives (cloud-only, buy-only) -> break-even curves,
decision thresholds and the guide's closed form.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Generic, TypeVar

import numpy as np

from pricing.catalog import Catalog
from pricing.gpus import GpuTable
from solvers.base import defaults
from solvers.base.defaults import MAX_DEMAND_SCALE
from solvers.base.demand_units import always_on, job_efficiency, scaling_efficiency
from solvers.base.errors import ProfileError
from solvers.base.finance import Financing, Terms, Weights, calendar, weights_for
from solvers.base.notices import Notice, classified, notice, texts
from solvers.base.options import CloudOption, HostOption, JobWidths, Options, OwnedOption
from solvers.base.profile import Profile, UtilisationDemand
from solvers.base.result import (
    Alternatives,
    BreakEven,
    CloudLine,
    Crossings,
    PlanResult,
    SimpleBreakEven,
    SolverInfo,
)
from solvers.base.workload import WorkloadPlan
from solvers.demand.blocks import Block, merge_periods
from solvers.demand.periods import Period, build_periods
from solvers.explain.diagnose import explain, no_options
from solvers.explain.extrapolation import extrapolation_warnings
from solvers.explain.provenance import aggregator_notices
from solvers.explain.simple import Budget, JobDemand, cheapest_cloud, simple_break_even
from solvers.explain.thresholds import CloudSide, Thresholds, find_thresholds
from solvers.model.arrays import Limits, MipSolution, Model, SolveStatus
from solvers.model.build import build
from solvers.model.evaluate import Evaluator, Purchase, Scenario
from solvers.model.solve import load, rent_only, solve, solved
from solvers.money.accounting import Accounts, Allocation, Ledger, cloud_label
from solvers.money.currency import format_money, usd_to
from solvers.money.curves import crossing, cumulative_points, curve, day_grid
from solvers.money.readout import finish
from solvers.offers.hosting import card_capacity, cheapest_host_mix
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


def fitting_host(option: OwnedOption, hosts: list[HostOption]) -> HostOption | None:
    """Cheapest host that takes one unit of a bare card option (slots, PSU and the hardware-fit rule)."""
    fits = [h for k, h in enumerate(hosts)
            if k in option.accepting_hosts and card_capacity(h, option) >= option.gpus_per_unit]
    return min(fits, key=lambda h: (h.host.base_cost_usd, h.host.slots), default=None)


def _single_units(owned: list[OwnedOption], hosts: list[HostOption], limits: Limits) -> list[Purchase]:
    singles = []
    for o in owned:
        if o.is_commitment:
            continue
        host = None if o.includes_host else fitting_host(o, hosts)
        if not o.includes_host and host is None:
            continue
        capex = o.unit_price_usd + (host.host.base_cost_usd if host else 0.0)
        if limits.max_capex_usd is not None and capex > limits.max_capex_usd:
            continue
        if limits.max_owned_gpus is not None and o.gpus_per_unit > limits.max_owned_gpus:
            continue
        singles.append(Purchase({o.key: 1}, {host.host.name: 1} if host else {}))
    return singles


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


def purchases_only(owned: list[OwnedOption]) -> list[OwnedOption]:
    return [o for o in owned if not o.is_commitment]


def commitments_only(owned: list[OwnedOption]) -> list[OwnedOption]:
    return [o for o in owned if o.is_commitment]


def _bought(purchase: Purchase, owned: list[OwnedOption]) -> Purchase:
    """The purchase without its commitments: what the break-even thresholds weigh against renting."""
    keys = {o.key for o in owned if o.is_commitment}
    return Purchase({k: n for k, n in purchase.units.items() if k not in keys}, purchase.hosts)


def solved_units(sol: MipSolution | None) -> dict[str, int] | None:
    """A solution's units, None when it has none."""
    return sol.units if sol is not None and sol.status.has_solution else None


def commitment_mixes(owned: list[OwnedOption], *solutions: dict[str, int] | None) -> list[Purchase]:
    """The commitments alone of each solution's units (the plan's, cloud only's), the empty mix first, without
    repeats: what the thresholds put beside each purchase and weigh buying against."""
    keys = {o.key for o in owned if o.is_commitment}
    mixes = [Purchase()]
    for units in solutions:
        if units is None:
            continue
        mix = Purchase({k: n for k, n in sorted(units.items()) if k in keys and n > 0})
        if mix.units and mix not in mixes:
            mixes.append(mix)
    return mixes


def _cloud_side(owned: list[OwnedOption], mixes: list[Purchase], evaluator: Evaluator, base: Scenario) -> CloudSide:
    """Cloud only for the thresholds: the fixed commitment mixes, and the three commitments cheapest on their own at
    the profile's figures with a count that may follow the scenario."""
    commits = [o.key for o in owned if o.is_commitment]
    if not commits:
        return CloudSide()
    scaled = sorted(commits, key=lambda k: (evaluator.committed_cloud(k, base), k))[:3]
    return CloudSide(mixes, scaled)


def _allocation(sol: MipSolution) -> Allocation:
    return Allocation(Purchase(sol.units, sol.hosts), sol.owned_jobs, sol.instances, sol.displaced, sol.packed_hours)


def _warnings(profile: Profile, options: Options, plan: Accounts) -> list[Notice]:
    """What the plan leans on that the user should know: marketplace listings, assumed scaling."""
    said = {cloud_label(c): f"{offer_name(c.provider, c.name)} ({c.region}, {c.pricing.replace('_', '-')})"
            for c in options.cloud}
    notes = [notice("marketplace_listing", listing=said.get(label, label)) if plan.listing_machines.get(label, 1) <= 1
             else notice("marketplace_aggregate", listing=said.get(label, label), count=plan.listing_machines[label])
             for label in plan.listings]
    notes += [notice("partial_upfront_fee_unknown", provider=line.provider, name=line.name)
              for line in plan.commitments if line.payment == "partial_upfront" and not line.upfront_usd]
    jobs = profile.jobs
    if jobs.gpus_per_job > 1 and jobs.scaling_efficiency is None:
        code = "assumed_scaling" if profile.workload == "cnn_training" else "assumed_scaling_not_cnn"
        notes.append(notice(code, gpus=jobs.gpus_per_job, efficiency=job_efficiency(profile)))
    notes += _inference_notices(profile)
    notes += _wait_notices(profile, plan)
    notes += _single_machine_notices(profile, plan)
    notes += options.ignored
    return notes


def _single_machine_notices(profile: Profile, plan: Accounts) -> list[Notice]:
    """An always-on service whose replicas all run on one machine: an owned server, one reserved instance or one
    marketplace host (a provider's ordinary instances are replaced when one fails, so they do not count as one
    machine). A failure or a day of maintenance then stops the service, spare replicas or not."""
    if not always_on(profile):
        return []
    machines = (sum(b.count for b in plan.buy if b.includes_host) + sum(h.count for h in plan.hosts)
                + sum(c.count for c in plan.commitments) + len(plan.listings))
    elastic = any(cloud_label_of(c) not in plan.listings for c in plan.cloud)
    if machines != 1 or elastic:
        return []
    where = (plan.listings[0] if plan.listings else plan.buy[0].name if plan.buy
             else plan.hosts[0].name if plan.hosts else plan.commitments[0].name)
    return [notice("single_machine_service", machine=where, spares=profile.jobs.spare_replicas)]


def cloud_label_of(line: CloudLine) -> str:
    """A plan's cloud line by the label the accounts name listings with (`accounting.cloud_label`)."""
    return f"{line.provider}/{line.name}/{line.region}/{line.pricing}"


def _memory_notices(profile: Profile, gpus: GpuTable, answers: list[Accounts | None]) -> list[Notice]:
    """Work sized on a reference GPU planned (by the plan or an alternative) on GPUs with less memory, when the
    profile gave no memory floor: the throughput model says how fast they would run the work, not whether its
    jobs fit in their memory (DOMAIN.md section 2 gives the guide's minimum memory by use), so the plan says which
    ones and how to require more. The default floor stays 0: a floor at the reference's memory would change every
    plan of work sized on a large card."""
    if "min_gpu_memory_gb" in profile.model_fields_set:
        return []
    reference = gpus.canonical(profile.planned_demand.reference_gpu)
    if reference is None:
        return []
    floor = gpus[reference].memory_gb
    used = [gpu for plan in answers if plan is not None
            for gpu in [*(b.gpu for b in plan.buy), *(c.gpu for c in plan.cloud), *(c.gpu for c in plan.commitments)]]
    names = {gpus.canonical(gpu) for gpu in used}
    smaller = sorted(name for name in names if name is not None and gpus[name].memory_gb < floor - 1e-9)
    if not smaller:
        return []
    return [notice("memory_below_reference", gpus=smaller, reference=reference, reference_gb=floor)]


WINDOW_HOURS = {"day": 24.0, "week": 168.0}  # a month's window is its own days x 24


def _wait_notices(profile: Profile, plan: Accounts) -> list[Notice]:
    """The patience windows are planned at their average load (solvers.demand.periods); the first-come-first-served
    read-out (solvers.demand.waits) says how long work really waits for the GPUs the plan holds. Where that is longer
    than the window, the window model leaned on capacity that idles before the work arrives, and the plan says so.
    """
    patience = profile.jobs.patience
    if patience == "none":
        return []
    beyond = [(p.max_wait_hours, window) for p in plan.periods
              if p.max_wait_hours > (window := WINDOW_HOURS.get(patience, 24.0 * p.days)) + 1.0]  # whole hours
    if not beyond:
        return []
    hours, window = max(beyond)
    return [notice("waits_beyond_window", hours=hours, window_hours=window, patience=patience)]


INFERENCE_CLASSES = ("inference_16bit", "inference_8bit")
SERVICE_UTILISATION = 0.99  # at or above it, inference work "until done" looks like a service that runs every hour


def _inference_notices(profile: Profile) -> list[Notice]:
    """An inference class planned as until-done work (the default `jobs.runs`) is priced as GPU-hours a faster GPU
    finishes sooner, not as GPUs present every hour; the default is kept (changing it would change today's plans),
    so the plan says so, more strongly when the demand is busy every hour as a service is."""
    workload = profile.workload
    if not isinstance(workload, str) or workload not in INFERENCE_CLASSES or profile.jobs.runs != "until_done":
        return []
    demand = profile.demand
    if isinstance(demand, UtilisationDemand) and demand.utilisation >= SERVICE_UTILISATION:
        return [notice("inference_service_until_done", workload=workload, share=demand.utilisation)]
    return [notice("inference_until_done", workload=workload)]


def _option_notices(options: Options) -> list[Notice]:
    """The warnings `build_options` words itself (the electricity default), with their codes."""
    default = notice("electricity_default", usd_per_kwh=defaults.ELECTRICITY_USD_PER_KWH)
    return [classified(text, [default]) for text in options.warnings]


T = TypeVar("T")


class Deferred(Generic[T]):
    """Work (the alternatives' solves and accounts) that runs beside the caller on the alternatives' thread when
    that thread is idle, else when its result is asked for. Why: HiGHS's `run` releases the GIL, so the buy-only
    alternative's MIP runs on the second core while the main one runs, and its Python (building, accounting) runs
    while the main MIP holds no GIL; under load, when plans already fill the cores, the thread is busy and each plan
    does its own alternatives inline, adding no queue and no threads."""

    def __init__(self, solve_it: Callable[[bool], T]) -> None:
        """`solve_it(background)`: True on the alternatives' thread, beside the caller, False inline."""
        self._solve_it = solve_it
        self._future: Future[T] | None = None
        executor = _alternatives_thread()
        if _ALTERNATIVES_IDLE.acquire(blocking=False):
            try:
                self._future = executor.submit(solve_it, True)
            except BaseException:
                _ALTERNATIVES_IDLE.release()
                raise
            self._future.add_done_callback(lambda _: _ALTERNATIVES_IDLE.release())

    def result(self) -> T:
        return self._solve_it(False) if self._future is None else self._future.result()


_ALTERNATIVES_IDLE = threading.Lock()
_ALTERNATIVES: tuple[int, ThreadPoolExecutor] | None = None


def _alternatives_thread() -> ThreadPoolExecutor:
    """One long-lived thread per process (HiGHS keeps a task scheduler per calling thread); made again in a forked
    child, whose copy of the parent's thread does not run."""
    global _ALTERNATIVES
    if _ALTERNATIVES is None or _ALTERNATIVES[0] != os.getpid():
        _ALTERNATIVES = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="gpuplan-alternatives"))
    return _ALTERNATIVES[1]


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


@dataclass
class Others:
    """The cloud-only and buy-only alternatives, accounted, and why one is missing."""

    cloud_only: Accounts | None = None
    buy_only: Accounts | None = None
    buy_only_solution: MipSolution | None = None
    cloud_only_solution: MipSolution | None = None  # its commitments are a mix the thresholds weigh (issue 16)
    notes: list[Notice] = field(default_factory=list)
    singles: list[Purchase] = field(default_factory=list)  # one unit of the best owned options (thresholds)
    weighed: Weighed | None = None  # the thresholds of the MIP start's purchase, found beside the main solve


@dataclass(frozen=True)
class Weighed:
    """Decision thresholds and the cloud side they weigh buying against, with the plan purchase and commitment mixes
    they were found for: a function of these alone (and of the alternatives, the same for every purchase)."""

    purchase: Purchase
    mixes: list[Purchase]
    found: Thresholds
    cloud_side: CloudSide
    least_usd_per_kwh: float = 0.0  # the electricity rate of a tariff of 0 (`Search`)

    def holds_for(self, purchase: Purchase, mixes: list[Purchase]) -> bool:
        """Same purchase and mixes, their entries in the same order (the evaluator sums them in that order)."""
        return _entries(self.purchase) == _entries(purchase) and [_entries(m) for m in self.mixes] == [
            _entries(m) for m in mixes]


def _entries(purchase: Purchase) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    return list(purchase.units.items()), list(purchase.hosts.items())


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


def _evaluator(profile: Profile, owned: list[OwnedOption], options: Options, blocks: list[Block],
               limits: Limits) -> Evaluator:
    demand = profile.demand
    waits = profile.jobs.patience != "none"
    reading = demand.reading if isinstance(demand, UtilisationDemand) else None
    if reading == "independent" and always_on(profile):
        reading = "at_once"  # a service's replicas are up together (`periods._utilisation_periods`)
    hours_scale = reading == "at_once" and not waits
    independent = None
    if reading == "independent" and not waits:  # a multiple of u: the binomial curve at that utilisation
        assert isinstance(demand, UtilisationDemand)
        independent = (demand.gpus / profile.jobs.gpus_per_job, demand.utilisation)
    return Evaluator(owned, options.cloud, options.hosts, blocks, profile.options.availability, limits.width,
                     limits.integer_instances, hours_scale, limits.weights, independent)


def _start_guess(model: Model) -> tuple[dict[str, int], dict[str, int]] | None:
    """The units and hosts of the main model's MIP start, as `read_out` would list them were it the optimum (it is
    on most profiles: 29 of the 36 bench models with a start)."""
    if model.start is None:
        return None
    value = dict(zip(model.start[0].tolist(), np.round(model.start[1]).astype(int).tolist(), strict=True))
    units = {o.key: value[int(model.u[g])] for g, o in enumerate(model.owned) if value.get(int(model.u[g]), 0) > 0}
    hosts = {h.host.name: value[int(model.m[k])] for k, h in enumerate(model.hosts[: len(model.m)])
             if value.get(int(model.m[k]), 0) > 0}
    return units, hosts


@dataclass(frozen=True)
class Search:
    """Where the thresholds' searches look: the demand up to every GPU busy all the time when the demand is GPUs at
    a utilisation (else MAX_DEMAND_SCALE times it), the electricity rate from what a tariff of 0 prices owned
    energy at (the carbon price's adder per kWh, which the threshold is then stated without)."""

    max_demand_scale: float
    least_usd_per_kwh: float = 0.0


def _search(profile: Profile, carbon_usd_per_kwh: float) -> Search:
    demand = profile.demand
    return Search(1.0 / demand.utilisation if isinstance(demand, UtilisationDemand) else MAX_DEMAND_SCALE,
                  carbon_usd_per_kwh)


@dataclass
class Fewer:
    """The plan's purchase at fewer units, each made when a demand multiple first asks for it (`_fewer_units`)."""

    purchase: Purchase
    option: OwnedOption | None
    hosts: list[HostOption]
    host_cost: np.ndarray
    mixes: list[Purchase]
    made: dict[int, list[Purchase]] = field(default_factory=dict)

    @property
    def count(self) -> int:
        """The plan's units of its one option."""
        (_, count), = self.purchase.units.items()
        return count

    def at(self, scale: float) -> list[Purchase]:
        """The purchase at the units the multiple asks for (the plan's count times the multiple, rounded up) and at
        one unit fewer (the count rounded down, when it is not whole), beside each commitment mix; none at or above
        the plan's own count. Why one fewer: slower cards carry a share of a job (issue 29), and below its demand a
        plan may buy fewer than the count times the multiple: at 52% of the finance example's demand the plan buys
        five RTX PRO 6000 and rents the rest, where rounding up weighed only six, and the demand threshold read 0.53
        though the plan still buys four at 40%."""
        if self.option is None:
            return []
        n = max(1, math.ceil(self.count * scale - 1e-9))
        counts = {self._whole_jobs(n), self._whole_jobs(max(1, n - 1))}
        found: list[Purchase] = []
        for count in sorted(counts, reverse=True):
            found += [p for p in self._of(count) if p not in found]
        return found

    def below(self) -> list[Purchase]:
        """The purchase at 1, 2, 4, ... units fewer than the plan's, and at one unit (each beside each commitment
        mix). Why: dearer power or cheaper cloud makes a plan buy fewer of the same before it buys none (the bursty
        series buys three RTX 4090 at $0.15/kWh and two from about $0.30 to $0.33, where the electricity threshold
        read 0.302 weighing three); a few counts, since each is a run of its own on today's curve."""
        if self.option is None:
            return []
        count = self.count
        fewer = sorted({max(1, count - 2 ** k) for k in range(max(1, count.bit_length()))}, reverse=True)
        return [p for n in fewer for p in self._of(n)]

    def _whole_jobs(self, n: int) -> int:
        """n units rounded up to whole jobs of bare cards (machines as they are)."""
        option = self.option
        assert option is not None
        if not option.includes_host and option.width > option.gpus_per_unit:
            per_job = math.ceil(option.width / option.gpus_per_unit)
            return math.ceil(n / per_job) * per_job
        return n

    def _of(self, n: int) -> list[Purchase]:
        """The purchase at n units, in whole jobs of bare cards; none at or above the plan's own count."""
        option = self.option
        assert option is not None
        n = self._whole_jobs(n)
        if n >= self.count:
            return []
        found = self.made.get(n)
        if found is None:
            found = self.made[n] = self._made(option.key, n, option)
        return found

    def _made(self, key: str, n: int, option: OwnedOption) -> list[Purchase]:
        if option.includes_host:
            made = Purchase({key: n})
        else:
            accepting = [k for k in option.accepting_hosts if k < len(self.hosts)]
            # a job's cards sit in one host: a host holds whole jobs of them
            capacity = np.array([card_capacity(self.hosts[k], option) // option.width * option.width
                                 for k in accepting])
            mix = cheapest_host_mix(self.host_cost[accepting], capacity, n * option.gpus_per_unit)
            if mix is None:
                return []
            made = Purchase({key: n}, {self.hosts[accepting[i]].host.name: int(c) for i, c in enumerate(mix) if c})
        return _beside(made, self.mixes)


def _beside(purchase: Purchase, mixes: list[Purchase]) -> list[Purchase]:
    """The purchase beside each commitment mix (alone when there are none to put beside it)."""
    if len(mixes) <= 1:
        return [purchase]
    return [Purchase({**purchase.units, **c.units}, purchase.hosts) for c in mixes]


def _fewer_units(purchase: Purchase, owned: list[OwnedOption], hosts: list[HostOption], usd_per_kwh: float,
                 hours: float, mixes: list[Purchase]) -> Fewer:
    """The plan's purchase at the units a demand multiple below one asks for: the bare cards of one option in the
    cheapest whole hosts that hold them (price and idle energy over the horizon), whole machines as they are. Why:
    below the profile's demand a plan that buys buys fewer of the same (the finance example: nine RTX PRO 6000 at
    its utilisation, seven at 70% of it), which is neither its own purchase nor one unit; without them its
    utilisation threshold read 0.59 where the plan stops buying below 0.55. Purchases of several options are
    left as they are."""
    option = None
    if len(purchase.units) == 1:
        (key,) = purchase.units
        option = next((o for o in owned if o.key == key), None)
    cost = np.array([h.host.base_cost_usd + usd_per_kwh * h.idle_kwh_per_hour * hours for h in hosts])
    return Fewer(purchase, option, hosts, cost, mixes)


def _weigh(owned: list[OwnedOption], evaluator: Evaluator, limits: Limits, search: Search, plan_purchase: Purchase,
           buy_only_sol: MipSolution | None, singles: list[Purchase], mixes: list[Purchase]) -> Weighed:
    """The decision thresholds of a plan purchase: it, the buy-only purchase and the single units, each alone and
    beside each commitment mix, weighed against cloud only; for the demand threshold also the plan's purchase at
    fewer cards (`_fewer_units`)."""
    candidates = [p for p in (plan_purchase, Purchase(buy_only_sol.units, buy_only_sol.hosts) if buy_only_sol
                              and buy_only_sol.status.has_solution else None) if p and not p.empty]
    candidates += singles
    fewer = _fewer_units(plan_purchase, owned, list(evaluator.hosts.values()), limits.usd_per_kwh,
                         evaluator.total_hours, mixes)
    if len(mixes) > 1:  # each purchase alone and beside the plan's and cloud only's commitments
        combined = [q for p in candidates for q in _beside(p, mixes)]
        candidates = [p for i, p in enumerate(combined) if p not in combined[:i]]
    cloud_side = _cloud_side(owned, mixes, evaluator, Scenario(limits.usd_per_kwh))
    found = find_thresholds(evaluator, candidates, limits.usd_per_kwh, search.max_demand_scale,
                            not plan_purchase.empty, cloud_side, fewer.at, search.least_usd_per_kwh, fewer.below())
    return Weighed(plan_purchase, mixes, found, cloud_side, search.least_usd_per_kwh)


LOW_DEMAND = 0.05  # the demand multiple at which the thresholds also rank single units (`_best_singles`)


def _best_singles(singles: list[Purchase], evaluator: Evaluator, base: Scenario) -> list[Purchase]:
    """The four single units cheapest at the profile's demand, then the two cheapest at a twentieth of it. Why the
    second: the demand threshold is searched down to small multiples, where the cheapest unit to hold and run
    wins, not the cheapest per job-hour (a lab's 8 GPUs averaged down to 5% buy one used RTX 2080 Ti, which is not
    among the four best at its own demand; without it the utilisation threshold read 3.7% where the plan flips at
    3.0%; ranked by what they cost to hold alone, 3.06%)."""
    best = _cheapest(singles, 4, evaluator, base)
    rest = [p for p in singles if not any(p is b for b in best)]
    return best + _cheapest(rest, 2, evaluator, Scenario(base.usd_per_kwh, demand=base.demand * LOW_DEMAND))


def _cheapest(purchases: list[Purchase], count: int, evaluator: Evaluator, scenario: Scenario) -> list[Purchase]:
    """The `count` purchases cheapest in the scenario, in the order `sorted` by cost gives them (ties in the given
    order). Why not sort every one: each is run on the curve, while what it costs to hold (`fixed_cost`) bounds its
    cost from below; taken in that order, the ones left once the bound passes the count-th cost cannot be among
    them (strictly above it, so no tie is missed)."""
    bounds = [evaluator.fixed_cost(p, scenario) for p in purchases]
    costs: dict[int, float] = {}
    for i in sorted(range(len(purchases)), key=lambda i: bounds[i]):
        if len(costs) >= count and bounds[i] > sorted(costs.values())[count - 1]:
            break
        costs[i] = evaluator.cost(purchases[i], scenario)
    return [purchases[i] for i in sorted(costs, key=lambda i: (costs[i], i))[:count]]


def _alternatives(owned: list[OwnedOption], options: Options, blocks: list[Block], limits: Limits, ledger: Ledger,
                  model: Model | None, evaluator: Evaluator, search: Search,
                  guess: tuple[dict[str, int], dict[str, int]] | None, background: bool) -> tuple[Others, Evaluator]:
    """Buy only (every purchase option, no cloud: a MIP of its own) and cloud only (on-demand, spot and
    commitments, nothing bought), accounted. Without commitments cloud only has no decision left (every job is
    rented as the screening curve prices it), so it is read from the main model when there is one. Also the
    thresholds' single units, in order of their cost: none of it depends on the main plan.

    In the `background`, beside the main solve, also the thresholds of the main model's MIP start (`guess`): they
    depend on the plan's purchase and commitments only, so when the optimum buys what the start buys (the usual
    case) the plan takes them as found, and the main thread, waiting on nothing, skips their searches after its
    solve (some 3.5 ms on the bursty series, `Weighed.holds_for`). Inline there is no solve to overlap, so no guess."""
    others = Others()
    buy_notes: list[Notice] = []
    purchases = purchases_only(owned)
    if purchases:
        others.buy_only_solution = solve(purchases, [], options.hosts, blocks, limits)
        if others.buy_only_solution.status.has_solution:
            others.buy_only = ledger.account(_allocation(others.buy_only_solution), detail=False)
        else:
            buy_notes.append(notice("buy_only_infeasible"))
    else:
        buy_notes.append(notice("buy_only_none"))
    commitments = commitments_only(owned)
    if options.cloud or commitments:
        cloud = (rent_only(model, limits) if not commitments and model is not None
                 else solve(commitments, options.cloud, options.hosts, blocks, limits))
        if cloud.status.has_solution:
            others.cloud_only = ledger.account(_allocation(cloud), detail=False)
            others.cloud_only_solution = cloud
        else:
            others.notes.append(notice("cloud_only_quota"))
    else:
        others.notes.append(notice("cloud_only_none"))
    others.notes += buy_notes
    base = Scenario(limits.usd_per_kwh)
    others.singles = _best_singles(_single_units(owned, options.hosts, limits), evaluator, base)
    if background and guess is not None:
        mixes = commitment_mixes(owned, guess[0], solved_units(others.cloud_only_solution))
        others.weighed = _weigh(owned, evaluator, limits, search, _bought(Purchase(*guess), owned),
                                others.buy_only_solution, others.singles, mixes)
    return others, evaluator


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


def _status_warnings(sol: MipSolution) -> list[Notice]:
    if sol.status == SolveStatus.TIME_LIMITED:
        return [notice("time_limited", gap=sol.gap or 0.0)]
    return []


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


def _horizon_text(profile: Profile, horizon_days: int, periods: int) -> str:
    if profile.horizon_months is not None:
        return f"{profile.horizon_months} months"
    if profile.horizon_days is None:
        return f"{periods} months"  # a series without a horizon spans whole months
    return f"{horizon_days} days"


def _jobs_of(width: int | None) -> str:
    """The job width of a plan line, said where each GPU type runs its own (the workload form)."""
    return "" if width is None else f", jobs of {width} GPU{'s' if width > 1 else ''}"


def offer_name(provider: str, name: str) -> str:
    """A cloud offer as the sentence names it: its provider, then its name, unless the name begins with the provider
    already (114 of the bundled offers do: "fal-ai fal-ai-b200-1x" said it twice). The page names offers the same
    way (static/plan-text.js `offerName`)."""
    p, n = provider.lower(), name.lower()
    if p and (n == p or any(n.startswith(p + sep) for sep in ("-", " ", "_"))):
        return name
    return f"{provider} {name}"


def names_condition(name: str, condition: str) -> bool:
    """Whether a product's name already says its condition in its closing parentheses ("RTX 3090 (used, eBay)"):
    the sentence then says it once, not "(used, eBay) (used)". The page reads names the same way
    (static/plan-text.js `namesCondition`)."""
    found = re.fullmatch(r"(.*) \(([^()]*)\)", name)
    return found is not None and condition in found.group(2).split(", ")


def _recommendation(plan: Accounts, cloud_only: Accounts | None, be: BreakEven, horizon_days: int,
                    profile: Profile, currency: str = "USD", factor: float = 1.0, *, jobs: bool = False) -> str:
    parts = []
    if plan.buy:
        parts.append("Buy " + ", ".join(f"{b.count} x {b.name}{_jobs_of(b.gpus_per_job)}"
                                        if names_condition(b.name, b.condition)
                                        else f"{b.count} x {b.name} ({b.condition}{_jobs_of(b.gpus_per_job)})"
                                        for b in plan.buy))
        if plan.hosts:
            parts[-1] += " in " + ", ".join(f"{h.count} x {h.name}" for h in plan.hosts)
    if plan.commitments:
        reserve = ", ".join(f"{c.count} x {offer_name(c.provider, c.name)} for {c.term_months} months"
                            f"{_jobs_of(c.gpus_per_job)}"
                            for c in plan.commitments)
        parts.append(("reserve " if parts else "Reserve ") + reserve)
    if plan.cloud:
        rent = ", ".join(f"{c.hours:,.0f} h of {offer_name(c.provider, c.name)} ({c.region}, "
                         f"{c.pricing.replace('_', '-')}"
                         f"{_jobs_of(c.gpus_per_job)})" for c in plan.cloud[:3])
        parts.append(("and rent " if parts else "Rent ") + rent)
    sentence = " ".join(parts)
    horizon = _horizon_text(profile, horizon_days, len(plan.periods))
    if cloud_only is not None and plan.buy:
        rate = profile.options.discount_rate
        saving = cloud_only.costs.total_usd - plan.costs.total_usd
        worth = ""
        if rate > 0:  # on the basis the plan was chosen on (issue 16)
            saving = (cloud_only.costs.present_value_usd or 0.0) - (plan.costs.present_value_usd or 0.0)
            worth = f" in present value at {100 * rate:g}% a year"
        sentence += f"; saves {format_money(saving * factor, currency)}{worth} over {horizon} versus cloud only"
        if cloud_only.commitments:
            sentence += " (which would reserve instances too)"
        if be.days is not None:
            sentence += f"; buying pays off after {math.ceil(be.days)} days"
    elif not plan.buy:
        sentence += f"; buying does not pay over {horizon}"
        if jobs and be.demand_scale_threshold is not None:
            sentence += f" (it would from {be.demand_scale_threshold:.2f} times this work a month)"
        elif be.utilisation_threshold is not None and not jobs:
            sentence += f" (it would from {100 * be.utilisation_threshold:.1f}% utilisation)"
    return sentence + "."


__all__ = ["Core", "SolverFailure", "make_plan", "names_condition", "solve_core"]
