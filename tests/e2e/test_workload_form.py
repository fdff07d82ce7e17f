"""The planning page's workload section in headless Chromium: describe a job instead of reference GPU-hours.

"Fine-tune a 13B model with LoRA on 2B tokens a month" typed into the form is planned, the per-GPU-type table
shows what the API stored, and the plan's address fills the form back. Screenshot: artifacts/e2e/workload-form.png.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

from tests.e2e.helpers import page_expect

pytestmark = pytest.mark.e2e


def test_fine_tune_13b_with_lora_on_2b_tokens_a_month(desktop: tuple[Page, list[str]], service_url: str,
                                                       artifacts: Path) -> None:
    expect = page_expect()
    page, problems = desktop
    page.goto(f"{service_url}/")
    page.select_option("#example", "catalog")  # no prices or overrides of its own in the JSON box
    expect(page.get_by_label("Model size (billion parameters)")).to_be_hidden()
    page.get_by_label("Describe the job (model and tokens)").check()
    expect(page.locator('fieldset[data-field="demand"]')).to_be_hidden()
    page.get_by_label("Job", exact=True).select_option("fine_tune")
    page.get_by_label("Fine-tuning method").select_option("lora")
    page.get_by_label("Model size (billion parameters)").fill("13")
    page.get_by_label("Tokens per job (billions)").fill("2")
    page.get_by_label("Jobs per month").fill("1")
    page.get_by_label("Horizon (months)", exact=True).fill("24")
    page.get_by_role("button", name="Plan", exact=True).click()

    table = page.locator("#workload-gpus")
    expect(table).to_be_visible()
    expect(page.get_by_role("status")).to_contain_text("Plan ready")
    plan_id = re.search(r"[?&]plan=([^&]+)", page.url)
    assert plan_id, page.url
    plan = page.request.get(f"{service_url}/v1/plans/{plan_id.group(1)}").json()
    profile = page.request.get(f"{service_url}/v1/plans/{plan_id.group(1)}/profile").json()
    assert profile["workload"] == {**profile["workload"], "kind": "fine_tune", "method": "lora",
                                   "model": {**profile["workload"]["model"], "params_b": 13}, "tokens": 2e9}
    assert "demand" not in profile or profile["demand"] is None
    assert page.locator("#recommendation").inner_text() == plan["recommendation"]
    rows = plan["workload"]["gpus"]
    expect(table.locator("tbody tr")).to_have_count(len(rows))
    first_in_plan = next(r for r in rows if r["in_plan"])
    expect(table).to_contain_text(first_in_plan["gpu"])
    left_out = next(r for r in rows if not r["in_plan"])
    expect(table).to_contain_text(left_out["excluded_reason"])
    expect(table).to_contain_text(f"jobs of {plan['workload']['plan_gpus_per_job']} GPU")
    page.screenshot(path=str(artifacts / "workload-form.png"), full_page=True)

    page.goto(f"{service_url}/?plan={plan_id.group(1)}")  # the address fills the form back
    expect(page.get_by_label("Model size (billion parameters)")).to_have_value("13")
    expect(page.get_by_label("Tokens per job (billions)")).to_have_value("2")
    expect(page.get_by_label("Fine-tuning method")).to_have_value("lora")
    expect(page.get_by_label("Describe the job (model and tokens)")).to_be_checked()
    expect(page.locator("#workload-gpus")).to_be_visible()
    assert not problems, problems


def test_the_common_case_is_one_click(desktop: tuple[Page, list[str]], service_url: str) -> None:
    expect = page_expect()
    page, problems = desktop
    page.goto(f"{service_url}/")  # the worked example: its own prices and overrides must not carry over
    page.get_by_label("Describe the job (model and tokens)").check()
    page.get_by_role("button", name="Fine-tune a 13B model with LoRA on 2B tokens a month").click()
    expect(page.get_by_label("Model size (billion parameters)")).to_have_value("13")
    page.get_by_role("button", name="Plan", exact=True).click()
    expect(page.locator("#workload-gpus")).to_be_visible()
    assert not problems, problems
