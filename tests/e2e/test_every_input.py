"""Every input of the API on the planning page (issue 17): a profile setting every field to a non-default value
comes back from /?plan=<id> into the form's own controls (nothing in the JSON box), and pressing Plan sends the same
profile again; the purchase request's depreciation parameters live in the page's address and come back too.
The profiles are tests/e2e/every_input.py (a unit test checks they leave no field of the schema out)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from service.web.form_schema import profile_defaults
from tests.e2e.every_input import EVERY_INPUT, EVERY_WORKLOAD_INPUT
from tests.e2e.helpers import TIMEOUT_MS, page_expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.e2e


def _meaning(value: Any, path: str = "") -> Any:
    """A profile as the API reads it: values equal to their defaults, nulls and empty objects left out."""
    defaults = profile_defaults()
    if isinstance(value, dict):
        kept = {}
        for key, inner in value.items():
            where = f"{path}.{key}" if path else key
            if where in defaults and inner == defaults[where]:
                continue
            shown = _meaning(inner, where)
            if shown not in (None, {}, []):
                kept[key] = shown
        return kept
    if isinstance(value, list):
        return [_meaning(item, f"{path}[]") for item in value]
    return value


def _plan_again(page: Page) -> dict[str, Any]:
    with page.expect_response(lambda r: r.request.method == "POST" and r.request.url.endswith("/v1/plans")) as ans:
        page.get_by_role("button", name="Plan", exact=True).click()
    assert ans.value.status == 201, ans.value.text()
    page.wait_for_function("id => location.search.includes(id) && !document.getElementById('result').hidden",
                           arg=ans.value.json()["id"], timeout=TIMEOUT_MS)
    sent: dict[str, Any] = ans.value.request.post_data_json
    return sent


def test_every_input_comes_back_from_a_permalink_and_is_sent_again(desktop: tuple[Page, list[str]],
                                                                   service_url: str, artifacts: Path) -> None:
    expect = page_expect()
    page, problems = desktop
    for profile in (EVERY_INPUT, EVERY_WORKLOAD_INPUT):
        made = page.request.post(f"{service_url}/v1/plans", data=profile)
        assert made.status == 201, made.text()
        page.goto(f"{service_url}/?plan={made.json()['id']}")
        expect(page.locator("#recommendation")).not_to_be_empty()
        assert page.locator("#advanced").input_value() == "", page.locator("#advanced").input_value()
        if profile is EVERY_INPUT:
            page.locator("#advanced-box").evaluate("box => { box.open = true }")
            expect(page.get_by_label("Egress price per GB")).to_have_value("0.09")
            expect(page.get_by_label("Currency of these prices")).to_have_value("GBP")
            expect(page.get_by_label("Currency of these costs")).to_have_value("EUR")
            expect(page.locator("#q-commitments tbody tr")).to_have_count(1)
            page.locator("#form-title").scroll_into_view_if_needed()
            page.screenshot(path=str(artifacts / "plan-every-input.png"), full_page=True)
        assert _meaning(_plan_again(page)) == _meaning(profile)

    # the workload plan buys: its purchase request's depreciation, chosen on the form, is kept in the address
    page.locator("#advanced-box").evaluate("box => { box.open = true }")
    page.get_by_label("Method", exact=True).select_option("declining_balance")
    page.get_by_label("Years written off", exact=True).fill("3")
    page.get_by_label("Years written off", exact=True).dispatch_event("change")
    rows = page.locator("#depreciation tbody tr")
    expect(rows).to_have_count(3)
    expect(page.locator("#depreciation")).to_contain_text("Declining balance")
    assert "depreciation_method=declining_balance" in page.url and "depreciation_years=3" in page.url, page.url
    page.reload()
    expect(page.get_by_label("Method", exact=True)).to_have_value("declining_balance")
    expect(page.get_by_label("Years written off", exact=True)).to_have_value("3")
    expect(rows).to_have_count(3)
    assert not problems, problems
