"""The planning page in headless Chromium against the running service: the form, the plan, the errors, a phone.

Figures on the page are compared with the plan the API stored, so the test checks what a person reads.
The result page is saved as artifacts/e2e/plan-result.png (and -phone.png) for CI to keep.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

from tests.e2e.helpers import TIMEOUT_MS, page_expect

pytestmark = pytest.mark.e2e


def _plan(page: Page) -> None:
    page.get_by_role("button", name="Plan", exact=True).click()


def _chart_loaded(page: Page, selector: str) -> None:
    page.wait_for_function(
        "s => { const img = document.querySelector(s); return img && img.complete && img.naturalWidth > 0 }",
        arg=selector, timeout=TIMEOUT_MS)


def _no_horizontal_scroll(page: Page) -> None:
    scroll_width, view_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= view_width, f"the page is {scroll_width} px wide in a {view_width} px viewport"


def _stored_plan(page: Page, service_url: str) -> dict[str, Any]:
    plan_id = re.search(r"[?&]plan=([^&]+)", page.url)
    assert plan_id, page.url
    answer = page.request.get(f"{service_url}/v1/plans/{plan_id.group(1)}")
    assert answer.ok
    plan: dict[str, Any] = answer.json()
    return plan


def test_plan_the_worked_example(desktop: tuple[Page, list[str]], service_url: str, artifacts: Path) -> None:
    expect = page_expect()
    page, problems = desktop
    page.goto(f"{service_url}/")
    expect(page.get_by_label("Utilisation (0–1)", exact=True)).to_have_value("0.15")
    expect(page.get_by_label("Electricity ($/kWh)", exact=True)).to_have_value("0.12")
    expect(page.get_by_label("Horizon (months)", exact=True)).to_have_value("36")
    expect(page.get_by_label("Reference GPU", exact=True)).to_have_value("RTX 3090")
    _plan(page)

    sentence = page.locator("#recommendation")
    expect(sentence).to_contain_text("Buy 1 x RTX 3090 desktop (guide 2020)")
    expect(sentence).to_contain_text("buying pays off after 293 days")
    expect(page.get_by_role("status")).to_contain_text("Plan ready")
    plan = _stored_plan(page, service_url)
    assert plan["recommendation"] == sentence.inner_text()

    chart = page.get_by_role("img", name=re.compile("Cumulative cost"))
    expect(chart).to_be_visible()
    _chart_loaded(page, "#plan-chart")
    src = chart.get_attribute("src")
    assert src == f"/v1/plans/{plan['id']}/chart.svg?lang=en"  # the chart in the page's language
    svg = page.request.get(f"{service_url}{src}").text()
    assert 'id="break-even-line"' in svg and 'id="series-cloud-only"' in svg

    be = plan["break_even"]
    headline = page.locator(".headline")
    expect(headline).to_contain_text(f"day {be['days']:,.0f}")
    thresholds = page.locator("#thresholds")
    expect(thresholds).to_contain_text(f"{100 * be['utilisation_threshold']:.1f}%")
    expect(thresholds).to_contain_text(f"${be['electricity_threshold_usd_per_kwh']:.2f}/kWh")
    expect(thresholds).to_contain_text(f"${be['cloud_price_threshold_usd_per_hour']:.2f}/h")
    expect(thresholds).to_contain_text("this profile: 15.0%")
    costs = page.locator("#costs")
    expect(costs).to_contain_text(f"${plan['alternatives']['cloud_only']['total_cost_usd']:,.0f}")
    expect(costs).to_contain_text(f"${plan['total_cost_usd']:,.0f}")
    expect(page.locator("#purchases")).to_contain_text("RTX 3090 desktop (guide 2020)")
    expect(page.locator("#months tbody tr")).to_have_count(len(plan["periods"]))
    expect(page.locator("#freshness")).to_contain_text("your quotes")
    expect(page.locator("#freshness")).to_contain_text("Live sources")

    page.screenshot(path=str(artifacts / "plan-result.png"), full_page=True)
    page.reload()  # the address names the plan: the same result comes back
    expect(sentence).to_have_text(plan["recommendation"])
    assert not problems, problems


@pytest.mark.parametrize(
    ("label", "value", "field", "message"),
    [
        ("Utilisation (0–1)", "1.5", "demand.utilisation", "less than or equal to 1"),
        ("Reference GPU", "GTX 9999", "demand.reference_gpu", "unknown GPU 'GTX 9999'"),
        ("Horizon (months)", "0", "horizon_months", "greater than or equal to 1"),
    ],
)
def test_a_bad_value_is_named_at_its_field(desktop: tuple[Page, list[str]], service_url: str, label: str,
                                           value: str, field: str, message: str) -> None:
    expect = page_expect()
    page, problems = desktop
    page.goto(f"{service_url}/")
    box = page.get_by_label(label, exact=True)
    box.fill(value)
    _plan(page)

    error = page.locator(f'[data-field="{field}"] .field-error')
    expect(error).to_contain_text(message)
    expect(box).to_have_attribute("aria-invalid", "true")
    described_by = (box.get_attribute("aria-describedby") or "").split()
    assert error.get_attribute("id") in described_by  # a screen reader reads the message with the field
    expect(box).to_be_focused()
    expect(page.get_by_role("alert")).to_contain_text(label)
    expect(page.locator(".field-error")).to_have_count(1)
    expect(page.locator("#result")).to_be_hidden()

    page.get_by_label(label, exact=True).fill({"demand.utilisation": "0.15", "demand.reference_gpu": "RTX 3090",
                                   "horizon_months": "36"}[field])
    _plan(page)
    expect(page.locator("#recommendation")).to_contain_text("293 days")
    expect(page.locator(".field-error")).to_have_count(0)
    expect(box).not_to_have_attribute("aria-invalid", "true")
    assert all("422" in p for p in problems), problems  # the browser logs the refused request, nothing else


def test_deadline_bursts_from_the_monthly_form(desktop: tuple[Page, list[str]], service_url: str) -> None:
    expect = page_expect()
    page, problems = desktop
    page.goto(f"{service_url}/")
    page.get_by_label("Start from", exact=True).select_option("series")
    expect(page.get_by_label("Hours per month", exact=True)).to_be_checked()
    expect(page.get_by_label("Utilisation (0–1)", exact=True)).to_be_hidden()
    series = page.get_by_label("Reference GPU-hours per month", exact=True)
    assert series.input_value().splitlines()[2] == "2027-03 2000"
    _plan(page)
    expect(page.locator("#recommendation")).to_contain_text("Rent")
    expect(page.locator(".headline")).to_contain_text("never")
    _chart_loaded(page, "#plan-chart")
    plan = _stored_plan(page, service_url)
    assert plan["break_even"]["days"] is None
    expect(page.locator("#months tbody tr")).to_have_count(12)
    assert not problems, problems


def test_phone_width(phone: tuple[Page, list[str]], service_url: str, artifacts: Path) -> None:
    expect = page_expect()
    page, problems = phone
    page.goto(f"{service_url}/")
    _no_horizontal_scroll(page)
    _plan(page)
    expect(page.locator("#recommendation")).to_contain_text("293 days")
    _chart_loaded(page, "#plan-chart")
    _no_horizontal_scroll(page)
    box = page.locator("#plan-chart").bounding_box()
    assert box is not None and 300 <= box["width"] <= 390
    page.screenshot(path=str(artifacts / "plan-result-phone.png"), full_page=True)
    assert not problems, problems


@pytest.mark.parametrize("example", ["workload", "place", "finance"])
def test_each_feature_example_is_one_click_from_a_plan(desktop: tuple[Page, list[str]], service_url: str,
                                                       example: str) -> None:
    """The picker's workload, place and finance examples fill their own sections and plan as the API's examples
    do: the request the page sends plans (201), the plan is shown, and the page logs no error."""
    expect = page_expect()
    page, problems = desktop
    page.goto(f"{service_url}/")
    page.select_option("#example", example)
    with page.expect_response(lambda r: r.request.method == "POST" and r.request.url.endswith("/v1/plans")) as ans:
        _plan(page)
    response = ans.value
    assert response.status == 201, response.text()
    body = response.request.post_data_json
    if example == "workload":
        assert isinstance(body["workload"], dict) and body["workload"]["kind"] == "fine_tune"
    elif example == "place":
        assert body["currency"] == "EUR" and body["electricity"]["location"] == "DE"
    else:
        assert body["options"]["discount_rate"] == pytest.approx(0.08)
    expect(page.locator("#result")).to_be_visible()
    expect(page).to_have_url(re.compile(re.escape(response.json()["id"])))
    assert not problems, problems
