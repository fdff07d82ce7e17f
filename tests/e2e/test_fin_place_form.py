"""Currency and place on the planning page (issue 16): the inputs under "more", a plan in euros, carbon shown."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

from tests.e2e.helpers import TIMEOUT_MS

pytestmark = pytest.mark.e2e


def test_a_plan_in_euros_at_a_german_socket_with_a_carbon_price(desktop: tuple[Page, list[str]],
                                                                 service_url: str, artifacts: Path) -> None:
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    page, problems = desktop
    page.goto(f"{service_url}/")
    page.locator("#advanced-box summary").click()
    page.get_by_label("Plan currency", exact=True).select_option("EUR")
    page.get_by_label("Electricity location", exact=True).fill("DE")
    page.get_by_label(re.compile("^Carbon price per tonne")).fill("80")
    page.get_by_label("Electricity ($/kWh)", exact=True).fill("")  # the location fills the rate
    page.get_by_role("button", name="Plan", exact=True).click()
    expect(page.get_by_role("status")).to_contain_text("Plan ready")
    plan_id = re.search(r"[?&]plan=([^&]+)", page.url)
    assert plan_id, page.url
    plan: dict[str, Any] = page.request.get(f"{service_url}/v1/plans/{plan_id.group(1)}").json()
    assert plan["currency"] == "EUR" and plan["electricity"]["location"] == "DE"
    stored = page.request.get(f"{service_url}/v1/plans/{plan['id']}/profile").json()
    assert stored["options"]["carbon_price_per_tonne"] == 80 and stored["options"]["carbon_price_currency"] == "EUR"
    # money on the page in euros: the total as the browser's en-US Intl format writes it
    expect(page.locator("#costs")).to_contain_text(f"€{plan['total_cost_usd']:,.0f}")
    expect(page.locator("#costs")).not_to_contain_text("$")
    expect(page.locator("#carbon")).to_contain_text("kg CO₂e")
    expect(page.locator("#carbon")).to_contain_text("ECB reference rates")
    # what-if: the electricity slider is in the plan's currency, starting at the rate the plan used (Germany's)
    assert plan["electricity"] is not None
    slider = page.locator("#what-if [data-slider=electricity]")
    expect(slider).to_contain_text(f"€{plan['electricity']['price_per_kwh']:.2f}/kWh")
    expect(page.locator("#wi-electricity")).to_have_value(str(plan["electricity"]["price_per_kwh"]))
    with page.expect_request(lambda r: r.url.endswith("/v1/plans/what-if")) as asked:
        page.eval_on_selector("#wi-electricity", "el => { el.value = '0.5'; el.dispatchEvent(new Event('input',"
                              " { bubbles: true })) }")
    moved = asked.value.post_data_json["profile"]
    # a rate in euros goes as electricity.price_per_kwh with its currency (electricity_usd_per_kwh is dollars)
    assert moved["electricity"] == {"location": "DE", "price_per_kwh": 0.5, "currency": "EUR"}
    assert "electricity_usd_per_kwh" not in moved
    expect(slider).to_contain_text("€0.50/kWh")
    expect(page.locator("#what-if-decision")).to_be_visible()
    page.locator("#what-if").screenshot(path=str(artifacts / "what-if-eur.png"))
    # the form comes back from the plan with the same inputs
    page.reload()
    expect(page.get_by_label("Plan currency", exact=True)).to_have_value("EUR")
    expect(page.get_by_label("Electricity location", exact=True)).to_have_value("DE")
    assert not problems, problems
