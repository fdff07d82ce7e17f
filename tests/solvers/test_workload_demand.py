"""The workload form compiled into class-form demand (solvers/workload/demand.py): properties every candidate
width must have, whatever the catalog says, and the plan keeping the cheapest width."""

from __future__ import annotations

import datetime as dt

import pytest

from pricing.catalog import Catalog, bundled_catalog
from solvers.plan import make_plan, solve_core
from solvers.profile import Profile, UtilisationDemand
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
def test_every_candidate_is_a_job_the_types_can_run(workload: dict[str, object], catalog: Catalog) -> None:
    profile = Profile.model_validate({"workload": workload, "horizon_months": 12})
    compiled = compile_job(profile, catalog)
    rows = {r.gpu: r for r in compiled.estimate.gpus}
    assert compiled.candidates
    for candidate in compiled.candidates:
        width = candidate.width
        demand = candidate.profile.demand
        assert isinstance(demand, UtilisationDemand) and demand.reading == "average"
        assert candidate.profile.jobs.gpus_per_job == width and candidate.profile.jobs.scaling_efficiency == 1.0
        reference = demand.reference_gpu
        ref_hours = gpu_hours_at(compiled.workload, compiled.estimate, catalog.gpus[reference], rows[reference], width)
        per_month = demand.gpus * demand.utilisation * HOURS_PER_MONTH
        jobs = 1.0 if workload["kind"] == "serve" else compiled.workload.jobs
        assert per_month == pytest.approx(jobs * ref_hours, rel=1e-9)
        for gpu in candidate.gpus:
            row = rows[gpu]
            assert row.fits and row.gpus_per_job is not None and row.gpus_per_job <= width  # it fits at this width
            assert gpu not in compiled.reasons
            own = gpu_hours_at(compiled.workload, compiled.estimate, catalog.gpus[gpu], row, width)
            # the override turns this type's own GPU-hours of a job into the reference's
            assert candidate.profile.throughput_overrides[gpu] * own == pytest.approx(ref_hours, rel=1e-9)
            assert own >= row.gpu_hours * (1 - 1e-9)  # wider data parallelism never saves GPU-hours
        assert set(candidate.catalog.cloud["gpu"]) <= set(candidate.gpus)
        assert set(candidate.catalog.hardware["gpu"]) <= set(candidate.gpus)


def test_the_plan_keeps_the_cheapest_width(catalog: Catalog) -> None:
    profile = Profile.model_validate({"workload": WORKLOADS[0], "horizon_months": 12})
    plan = make_plan(profile, catalog, TODAY)
    assert plan.workload is not None
    costs = {}
    for candidate in compile_job(profile, catalog).candidates:
        try:
            costs[candidate.width] = solve_core(candidate.profile, candidate.catalog, TODAY).plan.costs.total_usd
        except ValueError:
            continue
    assert plan.workload.plan_gpus_per_job == min(costs, key=lambda w: costs[w])
    assert plan.total_cost_usd == pytest.approx(min(costs.values()), rel=1e-6)
    in_plan = {r.gpu for r in plan.workload.gpus if r.in_plan}
    assert {line.gpu for line in plan.cloud} <= in_plan and {line.gpu for line in plan.buy} <= in_plan


def test_no_gpu_can_run_it_is_a_profile_error_naming_workload(catalog: Catalog) -> None:
    profile = Profile.model_validate({"workload": {"kind": "train", "model": {"params_b": 2000}, "tokens": 1e9,
                                                   "max_gpus_per_job": 2}, "horizon_months": 12})
    with pytest.raises(ValueError) as caught:
        make_plan(profile, catalog, TODAY)
    assert getattr(caught.value, "field", None) == "workload" and "does not fit" in str(caught.value)
