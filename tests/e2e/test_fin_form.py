"""Money over time on the planning page (issues 16 and 17): the finance inputs reach the request, the result shows
commitments, present value and cash flows, and /?plan= fills the inputs back. Expected values come from
FINANCE_EXAMPLE (percent typed = fraction x 100, by hand) and the API's own answer, never from the page's code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from service.plans.examples import FINANCE_EXAMPLE

if TYPE_CHECKING:
    from playwright.sync_api import Page

from tests.e2e.helpers import TIMEOUT_MS

pytestmark = pytest.mark.e2e
FIN = FINANCE_EXAMPLE["options"]


def _plan(page: Page) -> dict[str, Any]:
    """Press Plan; the JSON body the page sent, once the answered plan is shown."""
    with page.expect_response(lambda r: r.request.method == "POST" and r.request.url.endswith("/v1/plans")) as ans:
        page.get_by_role("button", name="Plan", exact=True).click()
    response = ans.value
    assert response.status == 201, response.text()
    page.wait_for_function("id => location.search.includes(id) && !document.getElementById('result').hidden"
                           " && document.getElementById('plan-button').disabled === false",
                           arg=response.json()["id"], timeout=TIMEOUT_MS)
    body: dict[str, Any] = response.request.post_data_json
    return body


def test_finance_inputs_reach_the_request_show_in_the_result_and_come_back(
        desktop: tuple[Page, list[str]], service_url: str, artifacts: Path) -> None:
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    page, problems = desktop
    page.goto(f"{service_url}/")
    page.locator("#advanced-box summary").click()
    page.get_by_label("Consider reserved / committed cloud capacity").check()
    page.get_by_label(re.compile("^Discount rate")).fill("8")
    page.get_by_label(re.compile("^Financing rate")).fill("7")
    page.get_by_label("Financing term (months)").fill("36")
    page.get_by_label(re.compile("^Down payment")).fill("10")
    page.get_by_label(re.compile("^Colocation")).fill("200")
    page.get_by_label(re.compile("^Maintenance")).fill("500")
    page.get_by_label("Staff hours per month").fill("10")
    page.get_by_label(re.compile("^Staff cost per hour")).fill("80")
    body = _plan(page)
    sent = body["options"]
    assert sent["allow_commitments"] is True
    assert sent["discount_rate"] == pytest.approx(FIN["discount_rate"])
    assert sent["financing"] == pytest.approx(FIN["financing"])
    assert sent["opex"] == FIN["opex"]

    plan_id = re.search(r"[?&]plan=([^&]+)", page.url)
    assert plan_id, page.url
    plan: dict[str, Any] = page.request.get(f"{service_url}/v1/plans/{plan_id.group(1)}").json()
    card = page.locator("#finance")
    expect(card).to_be_visible()
    # present value next to the nominal total, as en-US Intl writes dollars (values >= 100 have no cents)
    assert plan["discount_rate"] == pytest.approx(0.08)
    expect(card).to_contain_text("Present value (discounted at 8.0% a year)")
    expect(card).to_contain_text(f"${plan['costs']['present_value_usd']:,.0f}")
    expect(card).to_contain_text(f"${plan['total_cost_usd']:,.0f}")
    for label, key in [("Owned running costs", "opex_usd"), ("Financing interest", "financing_interest_usd"),
                       ("Commitments (reserved capacity)", "commitments_usd")]:
        if plan["costs"][key]:
            expect(card.get_by_role("row", name=re.compile(f"^{re.escape(label)}"))).to_contain_text(
                f"${plan['costs'][key]:,.0f}")
    commitments = plan["commitments"]
    if commitments:
        expect(page.locator("#finance-commitments tbody tr")).to_have_count(len(commitments))
    else:
        expect(page.locator("#finance-commitments")).to_have_count(0)
    flows = plan["cash_flows"]
    assert flows, "the API gives cash flows for a finance plan"
    rows = page.locator("#finance-cash-flows tbody tr")
    expect(rows.first).to_be_hidden()  # collapsed until asked
    page.locator("#finance-cash-flows summary").click()
    expect(rows).to_have_count(len(flows))
    expect(rows.first).to_contain_text("Start" if flows[0]["month"] == "start" else flows[0]["month"])
    page.screenshot(path=str(artifacts / "plan-finance.png"), full_page=True)

    # /?plan= fills the inputs back, and they do not spill into the JSON box
    page.reload()
    page.locator("#advanced-box summary").click()
    expect(page.get_by_label(re.compile("^Discount rate"))).to_have_value("8")
    expect(page.get_by_label(re.compile("^Financing rate"))).to_have_value("7")
    expect(page.get_by_label("Financing term (months)")).to_have_value("36")
    expect(page.get_by_label(re.compile("^Down payment"))).to_have_value("10")
    expect(page.get_by_label(re.compile("^Colocation"))).to_have_value("200")
    expect(page.get_by_label("Staff hours per month")).to_have_value("10")
    expect(page.get_by_label("Consider reserved / committed cloud capacity")).to_be_checked()
    advanced = page.locator("#advanced").input_value()
    for key in ("discount_rate", "financing", "opex", "allow_commitments", "staff_usd_per_hour"):
        assert key not in advanced, advanced
    assert not problems, problems
