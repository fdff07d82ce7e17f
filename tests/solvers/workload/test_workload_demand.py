"""The workload form compiled into class-form demand (solvers/workload/demand.py): properties the compiled profile
must have whatever the catalog says, and the mixed-width plan against every single-width plan."""

from __future__ import annotations

import datetime as dt

import pytest

from pricing.catalog import Catalog, bundled_catalog
from solvers.base import defaults
from solvers.base.demand_forms import UtilisationDemand
from solvers.base.profile import Profile
from solvers.plan import make_plan, solve_core
from solvers.workload.compiler import HOURS_PER_MONTH
from solvers.workload.demand import compile_job, gpu_hours_at

TODAY = dt.date(2026, 11, 23)
WORKLOADS = [
    {"kind": "train", "model": {"params_b": 7}, "tokens": 2e9, "jobs_per_month": 3},
    {"kind": "fine_tune", "method": "qlora", "model": {"params_b": 70}, "tokens": 1e8},
    {"kind": "serve", "model": {"params_b": 70, "kv_heads": 8}, "precision": "int8", "requests_per_second": 5},
]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return bundled_catalog()


@pytest.mark.parametrize("workload", WORKLOADS, ids=lambda w: w["kind"])
def test_every_type_runs_jobs_it_can_run_at_its_own_widths(workload: dict[str, object], catalog: Catalog) -> None:
    profile = Profile.model_validate({"workload": workload, "horizon_months": 12})
    compiled = compile_job(profile, catalog)
    rows = {r.gpu: r for r in compiled.estimate.gpus}
    candidate = compiled.candidate
    demand = candidate.profile.demand
    assert isinstance(demand, UtilisationDemand) and demand.reading == "average"
    reference = demand.reference_gpu
    # the reference is the type with the fewest hours per job at its own minimum width, and the demand its jobs
    assert candidate.profile.jobs.gpus_per_job == candidate.width == rows[reference].gpus_per_job
    assert candidate.profile.jobs.scaling_efficiency == 1.0
    ref_hours = rows[reference].hours_per_job
    assert ref_hours == min(rows[g].hours_per_job for g in candidate.gpus)  # type: ignore[type-var]
    per_month = demand.gpus * demand.utilisation * HOURS_PER_MONTH
    jobs = 1.0 if workload["kind"] == "serve" else compiled.workload.jobs
    assert per_month == pytest.approx(jobs * ref_hours * candidate.width, rel=1e-9)
    assert len({len(w) for w in candidate.widths.values()}) > 1 or workload["kind"] == "serve"  # types differ
    for gpu in candidate.gpus:
        row = rows[gpu]
        assert row.fits and gpu not in compiled.reasons
        widths = sorted(candidate.widths[gpu])
        assert widths[0] == row.gpus_per_job  # its own minimum, never another type's
        if workload["kind"] == "serve":
            assert widths == [row.gpus_per_job]  # a wider replica slot would hold the same GPU-hours
        for width, speed in candidate.widths[gpu].items():
            own = gpu_hours_at(compiled.workload, row, width)
            # a job slot does one job in the type's hours per job at that width: speed = reference hours / those
            assert speed * own / width == pytest.approx(ref_hours, rel=1e-9)
            # wider data parallelism saves GPU-hours only by the recomputation it lets the job drop
            fewest = min(o.flops for o in row.recompute_options if o.min_gpus <= width) if row.recompute_options \
                else row.gpu_hours * row.achieved_tflops_per_gpu * 1e12 * 3600
            assert own >= fewest / (row.achieved_tflops_per_gpu * 1e12) / 3600 * (1 - 1e-9)
        assert candidate.profile.throughput_overrides[gpu] == candidate.widths[gpu][row.gpus_per_job]
    assert set(candidate.catalog.cloud["gpu"]) <= set(candidate.gpus)
    assert set(candidate.catalog.hardware["gpu"]) <= set(candidate.gpus)


@pytest.mark.parametrize("workload", WORKLOADS[:2], ids=lambda w: w["kind"])
def test_the_mixed_plan_is_never_dearer_than_a_single_width_plan(workload: dict[str, object],
                                                                 catalog: Catalog) -> None:
    """Why the single-width plans are not planned apart: the mixed model keeps, for every type, its options at
    each width W it may run at, so the plan with every type at one W is one of its choices (same demand)."""
    profile = Profile.model_validate({"workload": workload, "horizon_months": 12})
    plan = make_plan(profile, catalog, TODAY)
    candidate = compile_job(profile, catalog).candidate
    single = {}
    for width in sorted({w for widths in candidate.widths.values() for w in widths}):
        at = {g: {width: widths[width]} for g, widths in candidate.widths.items() if width in widths}
        try:
            single[width] = solve_core(candidate.profile, candidate.catalog, TODAY, widths=at).plan.costs.total_usd
        except ValueError:  # no type can run jobs of this width
            continue
    assert len(single) >= 2
    assert plan.total_cost_usd <= min(single.values()) * (1 + defaults.SOLVER_REL_GAP) + 0.01
    assert plan.workload is not None
    in_plan = {r.gpu for r in plan.workload.gpus if r.in_plan}
    assert {line.gpu for line in plan.cloud} <= in_plan and {line.gpu for line in plan.buy} <= in_plan
    used = {(line.gpu, line.gpus_per_job) for line in [*plan.cloud, *plan.buy]}
    table = {(r.gpu, w.gpus_per_job) for r in plan.workload.gpus for w in r.plan_widths}
    assert used == table  # the table says, per type, the widths the plan buys or rents it for


def test_no_gpu_can_run_it_is_a_profile_error_naming_workload(catalog: Catalog) -> None:
    profile = Profile.model_validate({"workload": {"kind": "train", "model": {"params_b": 2000}, "tokens": 1e9,
                                                   "max_gpus_per_job": 2}, "horizon_months": 12})
    with pytest.raises(ValueError) as caught:
        make_plan(profile, catalog, TODAY)
    assert getattr(caught.value, "field", None) == "workload" and "does not fit" in str(caught.value)


def test_a_type_whose_only_purchases_are_retired_systems_is_not_shown_as_bought(catalog: Catalog) -> None:
    # the A100s' only new whole systems are the 2021 DGX A100 and the 2023-09 HGX A100, past the 3-year offer window
    # (defaults.NEW_SYSTEM_OFFER_YEARS) on this date: with no cloud there is no price to run them at, so the workload
    # table must say so instead of listing them as in the plan with no purchase behind them
    profile = Profile.model_validate({"workload": WORKLOADS[0], "horizon_months": 12,
                                      "options": {"allow_cloud": False}})
    plan = make_plan(profile, catalog, TODAY)
    assert plan.workload is not None
    rows = {r.gpu: r for r in plan.workload.gpus}
    for gpu in ("A100 80GB", "A100 40GB"):
        assert not rows[gpu].in_plan
        # no price at all (A100 80GB), or a bare SXM card no machine on offer holds (A100 40GB)
        assert rows[gpu].excluded_notice is not None
        assert rows[gpu].excluded_notice.code in ("no_price", "machine_too_small")
    assert {b.gpu for b in plan.buy} <= {g for g, r in rows.items() if r.in_plan}
