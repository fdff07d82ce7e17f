"""The ready profiles in examples/ plan on the bundled catalog, and each still shows what its README line says: a
few facts per example that can be checked by hand, so an example that stops validating or drifts fails CI."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from pricing.catalog import bundled_catalog
from service.plans.examples import CATALOG_EXAMPLE, WORKED_EXAMPLE, WORKLOAD_EXAMPLE
from solvers.base.demand_forms import ConcurrencyDemand
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.plan import make_plan
from solvers.usage import parse_usage, summarise
from tests.conftest import TODAY

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NAMES = sorted(p.stem for p in EXAMPLES.glob("*.json"))


def profile(name: str) -> Profile:
    return Profile.model_validate_json((EXAMPLES / f"{name}.json").read_text())


@cache
def plan(name: str) -> PlanResult:
    return make_plan(profile(name), bundled_catalog(), TODAY)


def memory_gb(gpu: str) -> float:
    return next(g.memory_gb for g in bundled_catalog().gpus if g.name == gpu)


def gpus_used(result: PlanResult) -> set[str]:
    return {b.gpu for b in result.buy} | {c.gpu for c in result.cloud} | {c.gpu for c in result.commitments}


def test_the_seven_examples_are_there_and_each_is_in_the_readme() -> None:
    assert NAMES == ["always-on-service", "euro-lab-finance", "fine-tune-workload", "lab-uncertainty",
                     "lab-usage-log", "student", "worked-example"]
    readme = (EXAMPLES / "README.md").read_text()
    for name in NAMES:
        assert f"{name}.json" in readme


@pytest.mark.parametrize("name", NAMES)
def test_every_example_plans_on_the_bundled_catalog(name: str) -> None:
    result = plan(name)
    assert result.status == "optimal"
    assert result.total_cost_usd == pytest.approx(result.costs.total_usd, abs=0.01)
    assert result.recommendation


def test_the_worked_example_breaks_even_after_292_96_days() -> None:
    assert profile("worked-example") == Profile.model_validate(WORKED_EXAMPLE)  # the same as the OpenAPI example
    result = plan("worked-example")
    # 2,200 / (2.14 * 0.15 * 24 - 0.45 kW * 0.15 * 24 * 0.12) USD per day = 2,200 / (7.704 - 0.194)
    assert round(2200 / (2.14 * 0.15 * 24 - 0.45 * 0.15 * 24 * 0.12), 2) == 292.96
    assert result.break_even.days == pytest.approx(292.96, abs=0.005)
    assert result.break_even.simple is not None and result.break_even.simple.days == pytest.approx(292.96, abs=0.005)
    assert [(b.name, b.count) for b in result.buy] == [("RTX 3090 desktop (guide 2020)", 1)]


def test_the_student_plans_on_cards_of_24_gb_or_more_for_15_percent_of_one_gpu() -> None:
    assert profile("student") == Profile.model_validate(CATALOG_EXAMPLE)
    result = plan("student")
    assert all(memory_gb(g) >= 24 for g in gpus_used(result)), gpus_used(result)
    # one reference GPU 15% of every hour of the horizon
    assert sum(p.demand_reference_gpu_hours for p in result.periods) == pytest.approx(
        0.15 * 24 * int(result.horizon["days"]), abs=1e-6)


def test_the_lab_example_is_its_sacct_log_imported() -> None:
    log = parse_usage((EXAMPLES / "lab-sacct.txt").read_bytes(), format="auto", tz="UTC", busy_threshold=5.0)
    demand = profile("lab-usage-log").demand
    assert isinstance(demand, ConcurrencyDemand) and demand.reference_gpu == "A100 80GB"
    assert demand.start == log.start
    assert demand.busy_gpus == pytest.approx([float(v) for v in log.busy_gpus], abs=1e-6)
    result = plan("lab-usage-log")
    # the horizon is the log's span: the logged GPU-hours are the plan's demand
    assert result.horizon["start"] == "2026-10-05"
    assert sum(p.demand_reference_gpu_hours for p in result.periods) == pytest.approx(summarise(log).gpu_hours,
                                                                                      abs=0.01)
    assert all(memory_gb(g) >= 80 for g in gpus_used(result)), gpus_used(result)


def test_the_always_on_service_has_two_replicas_present_every_hour() -> None:
    result = plan("always-on-service")
    assert {p.served_every_hour for p in result.periods} == {True}
    assert sum(p.demand_reference_gpu_hours for p in result.periods) == pytest.approx(
        2 * 24 * int(result.horizon["days"]), abs=1e-6)
    assert not {"inference_until_done", "inference_service_until_done"} & {n.code for n in result.notices}
    assert all(memory_gb(g) >= 48 for g in gpus_used(result)), gpus_used(result)


def test_the_fine_tune_runs_a_13b_lora_on_two_24_gb_cards() -> None:
    assert profile("fine-tune-workload") == Profile.model_validate(WORKLOAD_EXAMPLE)
    result = plan("fine-tune-workload")
    assert result.workload is not None and result.workload.kind == "fine_tune"
    widths = {row.gpu: row.gpus_per_job for row in result.workload.gpus}
    assert widths["RTX 4090"] == widths["RTX 3090"] == 2  # 24 GB cards: two per job
    assert widths["H100 SXM"] == widths["A100 80GB"] == 1


def test_the_euro_lab_pays_vat_on_its_quote_and_finances_it() -> None:
    example = json.loads((EXAMPLES / "euro-lab-finance.json").read_text())
    quote = example["prices"]["owned"][0]
    result = plan("euro-lab-finance")
    assert result.currency == "EUR" and result.purchase_tax is not None and result.purchase_tax.vat_percent == 19
    assert result.electricity is not None and result.electricity.location == "DE"
    assert result.electricity.source.startswith("Eurostat")
    # the quote is in euros, like the plan: 9,900 EUR + 19% VAT
    assert [(b.name, b.count, b.unit_price_usd) for b in result.buy] == [(quote["name"], 1, 9900 * 1.19)]
    # 80% financed at 5% a year over 36 months: the level annuity's interest
    principal, rate, months = 0.8 * 9900 * 1.19, 0.05 / 12, 36
    payment = principal * rate / (1 - (1 + rate) ** -months)
    assert result.costs.financing_interest_usd == pytest.approx(payment * months - principal, abs=0.01)
    assert result.break_even.basis == "present_value" and result.discount_rate == 0.06
    assert result.costs.present_value_usd is not None and result.costs.present_value_usd < result.total_cost_usd
    assert result.cash_flows[0].month == "start"


def test_the_uncertain_lab_is_planned_for_its_64_futures() -> None:
    result = plan("lab-uncertainty")
    risk = result.risk
    assert risk is not None and risk.scenarios == 64 and len(risk.totals_usd) == 64
    assert risk.p10_total_usd <= risk.p50_total_usd <= risk.p90_total_usd
    # planned for the futures, it costs no more in them than the plan made for the profile's figures alone
    assert risk.expected_total_usd <= risk.deterministic_expected_total_usd + 0.01
    assert [w.month for w in risk.waiting] == [6, 12]
    assert 0.0 <= risk.probability_beats_cloud_only <= 1.0
