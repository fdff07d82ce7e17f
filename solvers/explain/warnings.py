"""The plan's warnings beside its numbers: options left out, a single machine, memory below the reference, long
waits, inference that looks like a service, and a solve stopped at its time limit.

In: the profile, the options and the plan's accounts. Out: notices (solvers.base.notices), in the order the plan
lists them."""

from __future__ import annotations

from pricing.gpus import GpuTable
from solvers.base import defaults
from solvers.base.demand_forms import UtilisationDemand
from solvers.base.demand_units import always_on, job_efficiency
from solvers.base.notices import Notice, classified, notice
from solvers.base.options import Options
from solvers.base.plan_lines import CloudLine
from solvers.base.profile import Profile
from solvers.base.risk import Risk
from solvers.explain.recommendation import offer_name
from solvers.model.arrays import MipSolution, SolveStatus
from solvers.money.accounting import Accounts, cloud_label


def plan_warnings(profile: Profile, options: Options, plan: Accounts) -> list[Notice]:
    """What the plan leans on that the user should know: marketplace listings, assumed scaling."""
    offers = {cloud_label(c): c for c in options.cloud} if plan.listings else {}  # the last of a label, as before

    def said(label: str) -> str:  # an offer's words made only for a listing the plan names, not for every offer
        c = offers.get(label)
        return label if c is None else f"{offer_name(c.provider, c.name)} ({c.region}, {c.pricing.replace('_', '-')})"

    notes = [notice("marketplace_listing", listing=said(label)) if plan.listing_machines.get(label, 1) <= 1
             else notice("marketplace_aggregate", listing=said(label), count=plan.listing_machines[label])
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


def memory_notices(profile: Profile, gpus: GpuTable, answers: list[Accounts | None]) -> list[Notice]:
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


def option_notices(options: Options) -> list[Notice]:
    """The warnings `build_options` words itself (the electricity default), with their codes."""
    default = notice("electricity_default", usd_per_kwh=defaults.ELECTRICITY_USD_PER_KWH)
    return [classified(text, [default]) for text in options.warnings]


def status_warnings(sol: MipSolution) -> list[Notice]:
    if sol.status == SolveStatus.TIME_LIMITED:
        return [notice("time_limited", gap=sol.gap or 0.0)]
    return []


def waiting_notices(later: tuple[int, float, list[str]] | None) -> list[Notice]:
    """Purchases some futures make at a later decision month (issue 32; `later_purchase`): the plan's lines show
    month 0's decision and rent the rest, so a reader must be told that its total is not what the futures expect to
    pay."""
    if later is None:
        return []
    month, share, names = later
    return [notice("purchases_wait", share=share, month=month, names=names)]


def later_purchase(risk: Risk | None) -> tuple[int, float, list[str]] | None:
    """The first later month at which some futures buy GPUs: (month, share of the futures, what they buy: the one
    most often bought and, at most one more, bought at least half as often); None without one."""
    if risk is None:
        return None
    for month in risk.deferred:
        cards = sorted((p for p in month.purchases if p.kind == "purchase"), key=lambda p: (-p.probability, p.name))
        if cards and month.probability_buys > 0:
            return month.month, month.probability_buys, [p.name for p in cards[:2]
                                                         if p.probability >= 0.5 * cards[0].probability]
    return None
