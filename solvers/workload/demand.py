"""A profile in the workload form turned into demand the planner understands, every GPU type at its own job widths.

Why this shape: the compiler gives each GPU type its own job (an 80 GB card holds a 13B LoRA fine-tune on 1 GPU,
a 24 GB card needs 2), and an expert who buys and rents runs each type at its own width within one plan: one
80 GB card bought for jobs of 1 GPU, 2-GPU instances of a 24 GB type rented for the peaks. So the job is planned
as one class-form profile in which every option carries its own width (solvers/base/options.py, `JobWidths`):

- the GPU types that hold the job (and meet the deadline, have a price and a machine large enough) take part; the
  others are filtered out of the catalog and of the profile's own prices, with the reason in the plan;
- work is counted in jobs. The reference is the type with the fewest hours per job at its own minimum width (the
  compiler's GPUs per job, already widened for a deadline); the demand is jobs_per_month jobs of its GPU-hours,
  read as an average load (an average month of 730 h), and `jobs.gpus_per_job` is its width. A job slot of type g
  at width w does one job in g's hours per job at w, so its speed is (reference hours per job) / (g's hours per
  job at w): the data-parallel scaling at w is inside those hours, so the compiled profile says
  scaling_efficiency = 1;
- each type may run its jobs at its minimum width n or wider (a job that fits on n GPUs also fits on more: ZeRO-3
  shards more thinly, plain data parallel holds the same, and it finishes sooner): at every minimum width another
  type needs, and at every width that fills one of its machines (an instance, a complete machine or a host of s
  GPUs: s // k for k jobs at once on it). A machine of s GPUs runs s // w jobs at once; of the widths that give it
  k jobs, the widest s // k is the fastest, so other widths only leave GPUs of it idle. The same offer at several
  widths is several options (a unit bought runs jobs of one width); they share the offer's quota.

Single-width plans are not planned apart: the model above contains each of them (the plan that runs every type
at width W keeps, for every type, its options at W, which are among its widths whenever W is some type's
minimum width or fills one of its machines; a W that is neither leaves GPUs of every machine idle), so the
cheapest mixed plan is never dearer than the cheapest single-width plan except through the screening curve's
pooling of several owned options (solvers/model/layers.py), which a test checks on the bundled catalog.

Mixed GPU types within one job are never formed: each job runs on one type (a job over mixed types runs at the
pace of the slowest, DOMAIN.md section 3, so forming it never beats running it on the faster type alone).

serve: a service is always-on: its load is the average-load form (`always_on_demand`) run continuously
(`_job_shape`: whole replicas present every hour, the load divisible across them); a type's replica is its
minimum tensor-parallel width (a wider slot would only hold more replicas of the same GPU-hours). The speeds of
every taking-part type are the compiled profile's `throughput_overrides`, from which `solvers/demand/periods.py`
(`load_unit`) sizes the load's unit so each type's replicas are whole: a load of 0.05 reference GPUs is one
replica on any type that holds the model.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from pricing.catalog import Catalog
from pricing.hardware_fit import MODULE_FORM_FACTORS, host_accepts, module_unit_sizes
from solvers.base.bounds import MAX_GPUS, MIN_FRACTION
from solvers.base.defaults import MAX_DEMAND_SCALE
from solvers.base.demand_forms import JobShape, UtilisationDemand
from solvers.base.errors import ProfileError
from solvers.base.notices import Notice
from solvers.base.profile import Profile
from solvers.base.workload import (
    Estimate,
    GpuEstimate,
    PlanWorkload,
    WidthInPlan,
    WorkloadPlan,
    WorkloadPlanRow,
)
from solvers.workload.compiler import HOURS_PER_MONTH, estimate, hours_at, workload_class
from solvers.workload.reasons import excluded

MAX_PLAN_WIDTH = 64  # the planner's widest job (JobShape.gpus_per_job)


@dataclasses.dataclass(frozen=True)
class Candidate:
    """The class-form profile and catalog the planner solves, and every taking-part type's job widths."""

    width: int  # the reference type's job width: the demand counts its jobs
    profile: Profile
    catalog: Catalog
    gpus: tuple[str, ...]
    widths: dict[str, dict[int, float]]  # GPU -> job width -> speed of one job slot relative to the reference's
    hours: dict[str, dict[int, float]]  # GPU -> job width -> wall-clock hours of one job (serve: replica-hours)


@dataclasses.dataclass(frozen=True)
class CompiledJob:
    """The compiler's answer for every GPU type and the mixed-width candidate the planner solves."""

    workload: PlanWorkload
    estimate: Estimate
    reasons: dict[str, Notice]  # GPU -> why it cannot take part (no fit, too slow, no price, no machine large enough)
    candidate: Candidate

    def report(self, used: dict[str, set[int]]) -> WorkloadPlan:
        """The per-GPU table of the plan that runs each GPU type at the widths in `used` (GPU -> widths)."""
        chosen = self.candidate
        rows = []
        for est in self.estimate.gpus:
            reason = self.reasons.get(est.gpu)
            hours = chosen.hours.get(est.gpu, {})
            in_plan = [WidthInPlan(gpus_per_job=w, hours_per_job=hours[w]) for w in sorted(used.get(est.gpu, ()))]
            planned = (in_plan[0].hours_per_job if in_plan
                       else hours.get(est.gpus_per_job) if est.gpus_per_job is not None else None)
            rows.append(WorkloadPlanRow(
                gpu=est.gpu, in_plan=reason is None, excluded_reason=reason.text if reason else None,
                excluded_notice=reason, gpus_per_job=est.gpus_per_job,
                hours_per_job=est.hours_per_job, gpu_hours=est.gpu_hours, memory_per_gpu_gb=est.memory_per_gpu_gb,
                sharding=est.sharding, sharding_notice=est.sharding_notice, interconnect=est.interconnect,
                communication_efficiency=est.communication_efficiency, planned_hours_per_job=planned,
                extrapolated=est.extrapolated,
                widths=sorted(chosen.widths.get(est.gpu, {})), plan_widths=in_plan))
        demand = chosen.profile.demand
        assert isinstance(demand, UtilisationDemand)
        run = sorted({w for widths in used.values() for w in widths})
        return WorkloadPlan(
            kind=self.workload.kind, plan_gpus_per_job=run[0] if len(run) == 1 else None,
            widths_tried=sorted({w for widths in chosen.widths.values() for w in widths}),
            reference_gpu=demand.reference_gpu, reference_gpus_per_job=chosen.width,
            reference_gpu_hours_per_month=demand.gpus * demand.utilisation * HOURS_PER_MONTH,
            jobs_per_month=None if self.workload.kind == "serve" else self.workload.jobs,
            flops=self.estimate.flops, params=self.estimate.params, trainable_params=self.estimate.trainable_params,
            assumptions=[*self.estimate.assumptions, *_plan_assumptions(self.workload)], gpus=rows)


def _plan_assumptions(workload: PlanWorkload) -> list[str]:
    notes = ["each GPU type runs jobs at its own width: its fewest GPUs per job (widened for a deadline), or wider "
             "where that fills its machines or matches another type's width; one plan may buy a type for jobs of "
             "one width and rent another at another width",
             "every job runs on one GPU type (mixed types in one job would run at the pace of the slowest)"]
    if workload.kind == "serve":
        notes.append("serve is read as an always-on average load of its replica-hours per month")
    else:
        notes.append(f"{workload.jobs:g} job(s) a month, spread as an average load over a 730-hour month")
    return notes


def gpu_hours_at(workload: PlanWorkload, row: GpuEstimate, width: int) -> float:
    """GPU-hours of one job (serve: a month of replicas) on `width` GPUs of the row's type, width >= row.gpus_per_job.

    Training: the compiler's `hours_at` (of the recomputations that fit at `width`, the fastest at the type's
    achieved FLOP/s, the data-parallel speed-up and the layout's communication at `width`).
    Serving: replicas are independent, so the GPU-hours
    do not depend on how many replicas share a job slot (tensor-parallel sizes 1, 2, 4, 8 divide every wider slot).
    """
    assert row.gpu_hours is not None and row.gpus_per_job is not None
    if workload.kind == "serve" or width == row.gpus_per_job:
        return row.gpu_hours
    return hours_at(workload, row, width) * width


def _machine_sizes(profile: Profile, catalog: Catalog) -> dict[str, set[int]]:
    """GPUs per machine each GPU type comes in, among the prices the profile allows: cloud instances and
    commitments, complete machines, and for bare cards the most of them a host on offer takes."""
    opts = profile.options
    sizes: dict[str, set[int]] = {}

    def add(gpu: str, size: int) -> None:
        sizes.setdefault(catalog.gpus.canonical(gpu) or gpu, set()).add(int(size))

    extend = profile.prices.mode == "extend"
    if opts.allow_cloud:
        for frame in ([catalog.cloud, catalog.commitments] if extend else []):
            for gpu, count in zip(frame["gpu"], frame["gpu_count"], strict=True):
                add(str(gpu), int(count))
        for gpu, count in [(c.gpu, c.gpu_count) for c in profile.prices.cloud] + [
                (c.gpu, c.gpu_count) for c in profile.prices.commitments]:
            add(gpu, count)
    if opts.allow_buy:
        rows = ([(str(r.gpu), int(r.gpus_per_unit), bool(r.includes_host))
                 for r in catalog.hardware.itertuples(index=False)] if extend else [])
        rows += [(o.gpu, o.gpus_per_unit, o.includes_host) for o in profile.prices.owned]
        for gpu, count, hosted in set(rows):
            name = catalog.gpus.canonical(gpu) or gpu
            if name not in catalog.gpus:
                continue
            spec = catalog.gpus[name]
            if hosted:
                if spec.form_factor not in MODULE_FORM_FACTORS or count in module_unit_sizes(spec):
                    add(name, count)
                continue
            for host in catalog.hosts:  # the most cards of this type the host takes (slots, cooling, PSU)
                fits = next((c for c in range(host.slots, 0, -1) if host_accepts(host, spec, c).ok), None)
                if fits is not None:
                    add(name, fits)
    return sizes


def _widths(workload: PlanWorkload, row: GpuEstimate, sizes: set[int], minimums: set[int]) -> list[int]:
    """The job widths a type may run at: its minimum n, and wider where that is another type's minimum, where a
    recomputation with fewer FLOPs starts to fit on the type, or where it fills one of its machines (s // k GPUs
    for k jobs at once on s), none wider than its largest machine or the caps."""
    assert row.gpus_per_job is not None
    n = row.gpus_per_job
    if workload.kind == "serve":
        return [n]
    top = min(max(sizes), workload.max_gpus_per_job, MAX_PLAN_WIDTH)
    fills = {s // k for s in sizes for k in range(1, s // n + 1)}
    recomputes = {o.min_gpus for o in row.recompute_options}
    return sorted({n} | {w for w in minimums | fills | recomputes if n < w <= top})


def _priced_gpus(profile: Profile, catalog: Catalog) -> set[str]:
    """GPU types with at least one purchase or cloud offer the profile may use."""
    opts = profile.options
    names: set[str] = set()
    if opts.allow_cloud:
        if profile.prices.mode == "extend":
            names |= set(catalog.cloud["gpu"])
        names |= {catalog.gpus.canonical(c.gpu) or c.gpu for c in profile.prices.cloud}
    if opts.allow_buy:
        if profile.prices.mode == "extend":
            names |= set(catalog.hardware["gpu"])
        names |= {catalog.gpus.canonical(o.gpu) or o.gpu for o in profile.prices.owned}
    return names


def always_on_demand(reference_gpu: str, reference_gpu_hours_per_month: float) -> UtilisationDemand:
    """The always-on demand of a service: its load (GPUs of the fastest type busy at every hour) in the average-load
    form; `_job_shape` makes it always-on (`jobs.runs = "continuously"`), so every hour has whole replicas present
    (whole in each serving type's own replicas, `periods.load_unit`) and a faster GPU never serves it in fewer
    hours."""
    return average_load(reference_gpu, reference_gpu_hours_per_month)


def _job_shape(profile: Profile, workload: PlanWorkload, width: int) -> JobShape:
    """The compiled job: `width` GPUs at the compiler's own scaling (already in the GPU-hours, so efficiency 1).

    A service runs continuously and cannot wait; its load is requests or tokens per second, which divide
    across replicas (a replica on a faster type carries more of it), hence `load = "divisible"`.
    """
    if workload.kind == "serve":
        return JobShape(gpus_per_job=width, scaling_efficiency=1.0, patience="none", runs="continuously",
                        load="divisible")
    return JobShape(gpus_per_job=width, scaling_efficiency=1.0, patience=profile.jobs.patience)


def average_load(reference_gpu: str, reference_gpu_hours_per_month: float) -> UtilisationDemand:
    """Work per month as GPUs busy on average at every hour (the `average` reading of utilisation demand)."""
    busy = max(reference_gpu_hours_per_month / HOURS_PER_MONTH, MIN_FRACTION)
    # N x u = busy; N is set MAX_DEMAND_SCALE times larger so the break-even search may scale the work up that far
    # (it stops at utilisation 1), as it does for a series
    gpus = min(busy * MAX_DEMAND_SCALE, float(MAX_GPUS))
    if busy > gpus:
        raise ProfileError("workload", "within_bounds", f"{busy:,.0f} GPUs busy on average is more than {MAX_GPUS:,}")
    return UtilisationDemand(gpus=gpus, utilisation=busy / gpus, reading="average", reference_gpu=reference_gpu)


def _only(catalog: Catalog, gpus: set[str]) -> Catalog:
    """The catalog restricted to `gpus` (cloud offers, hardware, commitments)."""
    def keep(frame: pd.DataFrame) -> pd.DataFrame:
        return frame[frame["gpu"].isin(gpus)] if "gpu" in frame.columns else frame
    return dataclasses.replace(catalog, cloud=keep(catalog.cloud), hardware=keep(catalog.hardware),
                               commitments=keep(catalog.commitments))


def _candidate(profile: Profile, workload: PlanWorkload, catalog: Catalog, est: Estimate,
               widths: dict[str, list[int]], rows: dict[str, GpuEstimate]) -> Candidate:
    """The class-form profile of the job: demand in the reference type's jobs, every type at its own widths."""
    hours = {g: {w: gpu_hours_at(workload, rows[g], w) / w for w in ws}
             for g, ws in widths.items()}
    minimum = {g: min(ws) for g, ws in widths.items()}
    reference = min(hours, key=lambda g: (hours[g][minimum[g]], g))
    width = minimum[reference]
    per_job = hours[reference][width]
    month = per_job * width * (1.0 if workload.kind == "serve" else workload.jobs)
    demand = always_on_demand(reference, month) if workload.kind == "serve" else average_load(reference, month)
    speeds = {g: {w: per_job / h for w, h in by_width.items()} for g, by_width in hours.items()}
    keep = set(widths)

    def canonical(name: str) -> str:
        return catalog.gpus.canonical(name) or name

    prices = profile.prices.model_copy(update={
        "owned": [o for o in profile.prices.owned if canonical(o.gpu) in keep],
        "cloud": [c for c in profile.prices.cloud if canonical(c.gpu) in keep],
        "commitments": [c for c in profile.prices.commitments if canonical(c.gpu) in keep]})
    compiled = profile.model_copy(update={
        "workload": workload_class(workload), "demand": demand, "prices": prices,
        "jobs": _job_shape(profile, workload, width),
        "throughput_overrides": {g: speeds[g][minimum[g]] for g in speeds}})
    return Candidate(width, compiled, _only(catalog, keep), tuple(sorted(keep)), speeds, hours)


def compile_job(profile: Profile, catalog: Catalog) -> CompiledJob:
    """Every GPU type's estimate, why some cannot take part, and the class-form profile every type runs in."""
    workload = profile.workload
    assert isinstance(workload, PlanWorkload)
    est = estimate(workload, list(catalog.gpus))
    priced = _priced_gpus(profile, catalog)
    sizes = _machine_sizes(profile, catalog)
    reasons: dict[str, Notice] = {}
    usable: list[GpuEstimate] = []
    fastest = min((r.gpu_hours for r in est.gpus if r.gpu_hours), default=None)
    for row in est.gpus:
        if not row.fits or row.gpus_per_job is None or row.gpu_hours is None:
            reasons[row.gpu] = row.excluded_notice or excluded("does_not_fit")
        elif row.gpus_per_job > MAX_PLAN_WIDTH:
            reasons[row.gpu] = excluded("wider_than_planner", gpus=row.gpus_per_job, max_gpus=MAX_PLAN_WIDTH)
        elif row.gpu not in priced:
            reasons[row.gpu] = excluded("no_price")
        elif fastest is not None and fastest / row.gpu_hours < MIN_FRACTION:
            reasons[row.gpu] = excluded("too_slow")
        elif profile.min_gpu_memory_gb and catalog.gpus[row.gpu].memory_gb < profile.min_gpu_memory_gb:
            reasons[row.gpu] = excluded("below_min_memory", min_gb=profile.min_gpu_memory_gb)
        elif max(sizes.get(row.gpu, {0})) < row.gpus_per_job:
            reasons[row.gpu] = excluded("machine_too_small", gpus=row.gpus_per_job,
                                        largest=max(sizes.get(row.gpu, {0})))
        else:
            usable.append(row)
    if not usable:
        detail = "; ".join(f"{g}: {r.text}" for g, r in sorted(reasons.items())[:6])
        raise ProfileError("workload", "fits_some_gpu",
                           f"no GPU type can run this workload ({detail}{'; ...' if len(reasons) > 6 else ''})")
    minimums = {r.gpus_per_job for r in usable if r.gpus_per_job is not None}
    widths = {r.gpu: _widths(workload, r, sizes[r.gpu], minimums) for r in usable}
    candidate = _candidate(profile, workload, catalog, est, widths, {r.gpu: r for r in usable})
    return CompiledJob(workload, est, reasons, candidate)


__all__ = ["Candidate", "CompiledJob", "always_on_demand", "compile_job", "gpu_hours_at"]
