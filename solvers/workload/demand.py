"""A profile in the workload form turned into demand the planner understands, one job width at a time.

Why this shape: the planner (solvers/model.py) has one job width for all GPU types, but the compiler gives each
type its own (an 80 GB card holds a 7B full training on 2 GPUs, a 24 GB card needs 8). Rather than change the
model, a job-form profile is planned once per candidate width W (each distinct width the compiler found), as an
ordinary class-form profile:

- the GPU types that hold the job on at most W GPUs (and meet the deadline, and have a price) take part; the
  others are filtered out of the catalog and of the profile's own prices for that candidate. A job that fits on
  n GPUs also fits on W >= n (ZeRO-3 shards more thinly, plain data parallel holds the same), and it finishes
  sooner, so every candidate is a plan the job can really run;
- work is counted in GPU-hours of one participating type (the fastest at W) and every participating type gets a
  throughput override: reference GPU-hours of one job on W GPUs / its own GPU-hours of one job on W GPUs. The
  data-parallel scaling at W is inside those GPU-hours, so the compiled profile says scaling_efficiency = 1;
- demand is jobs_per_month jobs a month of those reference GPU-hours, read as an average load (an average
  month of 730 h), so a job runs as W GPUs together for its hours.

`solvers.plan.solve_core` solves every candidate and keeps the cheapest; plans mixing widths (buy 2 x 80 GB for
width 2 and rent 8 x 24 GB at width 8 at once) are not considered.

serve: a service is always-on: its load is the average-load form (`always_on_demand`) run continuously
(`_job_shape`: whole replicas present every hour, the load divisible across them).
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from pricing.catalog import Catalog
from pricing.gpus import GpuSpec
from solvers.bounds import MAX_GPUS, MIN_FRACTION
from solvers.errors import ProfileError
from solvers.profile import JobShape, Profile, UtilisationDemand
from solvers.thresholds import MAX_DEMAND_SCALE
from solvers.workload.compiler import HOURS_PER_MONTH, achieved_tflops, estimate, scaling, workload_class
from solvers.workload.schema import Estimate, GpuEstimate, PlanWorkload, WorkloadPlan, WorkloadPlanRow

MAX_PLAN_WIDTH = 64  # the planner's widest job (JobShape.gpus_per_job)


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One job width: the class-form profile and the catalog the planner solves for it."""

    width: int
    profile: Profile
    catalog: Catalog
    gpus: tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class CompiledJob:
    """The compiler's answer for every GPU type and the widths the planner tries."""

    workload: PlanWorkload
    estimate: Estimate
    reasons: dict[str, str]  # GPU -> why it cannot take part at any width (no fit, too slow, no price)
    candidates: list[Candidate]

    def report(self, width: int, widths_failed: dict[int, str]) -> WorkloadPlan:
        """The per-GPU table for the plan solved at `width`."""
        chosen = next(c for c in self.candidates if c.width == width)
        specs = {c.catalog.gpus[g].name: c.catalog.gpus[g] for c in self.candidates for g in c.gpus}
        rows = []
        for est in self.estimate.gpus:
            reason = self.reasons.get(est.gpu)
            if reason is None and est.gpu not in chosen.gpus:
                reason = (f"needs {est.gpus_per_job} GPUs per job; the plan runs jobs of {width} GPUs "
                          "(the cheapest width tried)")
                if est.gpus_per_job in widths_failed:
                    reason += f"; at {est.gpus_per_job} GPUs per job: {widths_failed[est.gpus_per_job]}"
            planned = (gpu_hours_at(self.workload, self.estimate, specs[est.gpu], est, width) / width
                       if reason is None else None)
            rows.append(WorkloadPlanRow(
                gpu=est.gpu, in_plan=reason is None, excluded_reason=reason, gpus_per_job=est.gpus_per_job,
                hours_per_job=est.hours_per_job, gpu_hours=est.gpu_hours, memory_per_gpu_gb=est.memory_per_gpu_gb,
                sharding=est.sharding, planned_hours_per_job=planned, extrapolated=est.extrapolated))
        demand = chosen.profile.demand
        assert isinstance(demand, UtilisationDemand)
        return WorkloadPlan(
            kind=self.workload.kind, plan_gpus_per_job=width, widths_tried=[c.width for c in self.candidates],
            reference_gpu=demand.reference_gpu,
            reference_gpu_hours_per_month=demand.gpus * demand.utilisation * HOURS_PER_MONTH,
            jobs_per_month=None if self.workload.kind == "serve" else self.workload.jobs,
            flops=self.estimate.flops, params=self.estimate.params, trainable_params=self.estimate.trainable_params,
            assumptions=[*self.estimate.assumptions, *_plan_assumptions(self.workload)], gpus=rows)


def _plan_assumptions(workload: PlanWorkload) -> list[str]:
    notes = ["the plan uses one job width for every GPU type: each width the compiler found is planned and the "
             "cheapest kept; a type whose job fits on fewer GPUs runs at the wider width (more sharding, "
             "shorter hours)"]
    if workload.kind == "serve":
        notes.append("serve is read as an always-on average load of its replica-hours per month")
    else:
        notes.append(f"{workload.jobs:g} job(s) a month, spread as an average load over a 730-hour month")
    return notes


def gpu_hours_at(workload: PlanWorkload, est: Estimate, spec: GpuSpec, row: GpuEstimate, width: int) -> float:
    """GPU-hours of one job (serve: a month of replicas) on `width` GPUs of `spec`, width >= row.gpus_per_job.

    Training: the job's FLOPs at the type's achieved FLOP/s times the data-parallel speed-up at `width`
    (the compiler's own formulas). Serving: replicas are independent, so the GPU-hours do not depend on how many
    replicas share a job slot (tensor-parallel sizes 1, 2, 4, 8 divide every wider slot).
    """
    assert row.gpu_hours is not None and row.gpus_per_job is not None
    if workload.kind == "serve" or width == row.gpus_per_job:
        return row.gpu_hours
    flops = row.flops if row.flops is not None else est.flops  # the type's own recomputation included
    assert flops is not None
    per_gpu = achieved_tflops(spec, workload_class(workload))
    return flops / (per_gpu * 1e12 * scaling(width)) / 3600 * width


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
    and a faster GPU never serves it in fewer hours."""
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
               rows: list[GpuEstimate], width: int) -> Candidate:
    hours = {r.gpu: gpu_hours_at(workload, est, catalog.gpus[r.gpu], r, width) for r in rows}
    reference = min(hours, key=lambda g: (hours[g], g))
    per_job = hours[reference]
    month = per_job * (1.0 if workload.kind == "serve" else workload.jobs)
    demand = always_on_demand(reference, month) if workload.kind == "serve" else average_load(reference, month)
    keep = set(hours)

    def canonical(name: str) -> str:
        return catalog.gpus.canonical(name) or name

    prices = profile.prices.model_copy(update={
        "owned": [o for o in profile.prices.owned if canonical(o.gpu) in keep],
        "cloud": [c for c in profile.prices.cloud if canonical(c.gpu) in keep]})
    compiled = profile.model_copy(update={
        "workload": workload_class(workload), "demand": demand, "prices": prices,
        "jobs": _job_shape(profile, workload, width),
        "throughput_overrides": {g: per_job / h for g, h in hours.items()}})
    return Candidate(width, compiled, _only(catalog, keep), tuple(sorted(keep)))


def compile_job(profile: Profile, catalog: Catalog) -> CompiledJob:
    """Every GPU type's estimate, why some cannot take part, and the class-form profile per candidate width."""
    workload = profile.workload
    assert isinstance(workload, PlanWorkload)
    est = estimate(workload, list(catalog.gpus))
    priced = _priced_gpus(profile, catalog)
    reasons: dict[str, str] = {}
    usable: list[GpuEstimate] = []
    fastest = min((r.gpu_hours for r in est.gpus if r.gpu_hours), default=None)
    for row in est.gpus:
        if not row.fits or row.gpus_per_job is None or row.gpu_hours is None:
            reasons[row.gpu] = row.excluded_reason or "does not fit"
        elif row.gpus_per_job > MAX_PLAN_WIDTH:
            reasons[row.gpu] = f"needs {row.gpus_per_job} GPUs per job, more than the planner's {MAX_PLAN_WIDTH}"
        elif row.gpu not in priced:
            reasons[row.gpu] = "no price: no purchase or cloud offer for this GPU among the prices the profile allows"
        elif fastest is not None and fastest / row.gpu_hours < MIN_FRACTION:
            reasons[row.gpu] = "too slow: over a million times the GPU-hours of the fastest type"
        elif profile.min_gpu_memory_gb and catalog.gpus[row.gpu].memory_gb < profile.min_gpu_memory_gb:
            reasons[row.gpu] = f"less memory than min_gpu_memory_gb ({profile.min_gpu_memory_gb:g} GB)"
        else:
            usable.append(row)
    if not usable:
        detail = "; ".join(f"{g}: {r}" for g, r in sorted(reasons.items())[:6])
        raise ProfileError("workload", "fits_some_gpu",
                           f"no GPU type can run this workload ({detail}{'; ...' if len(reasons) > 6 else ''})")
    widths = sorted({r.gpus_per_job for r in usable if r.gpus_per_job is not None})
    candidates = [_candidate(profile, workload, catalog, est,
                             [r for r in usable if r.gpus_per_job is not None and r.gpus_per_job <= w], w)
                  for w in widths]
    return CompiledJob(workload, est, reasons, candidates)


__all__ = ["Candidate", "CompiledJob", "always_on_demand", "compile_job", "gpu_hours_at"]
