"""Issue 17 in headless Chromium: a permalink fills the form with its plan's profile, the page speaks Chinese and
French (chosen by Accept-Language and by the switch, which is remembered), and two plans compare side by side.

Screenshots go to artifacts/e2e/ (page-zh-Hans.png and page-fr.png, with both charts; chart-zh-Hans.png and
chart-fr.png, the cumulative-cost chart alone; compare.png).
"""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from service.plans.examples import WORKED_EXAMPLE
from service.web.i18n import catalogue

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

from tests.e2e.helpers import TIMEOUT_MS, page_expect

pytestmark = pytest.mark.e2e


def _made(page: Page, service_url: str, profile: dict[str, Any]) -> dict[str, Any]:
    answer = page.request.post(f"{service_url}/v1/plans", data=profile)
    assert answer.status == 201, answer.text()
    plan: dict[str, Any] = answer.json()
    return plan


def _busier() -> dict[str, Any]:
    profile = copy.deepcopy(WORKED_EXAMPLE)
    profile["demand"]["utilisation"] = 0.6
    profile["electricity_usd_per_kwh"] = 0.25
    profile["horizon_months"] = 24
    return profile


def test_a_permalink_fills_the_form_with_its_own_profile(desktop: tuple[Page, list[str]], service_url: str) -> None:
    expect = page_expect()
    page, problems = desktop
    plan = _made(page, service_url, _busier())
    page.goto(f"{service_url}/?plan={plan['id']}")
    expect(page.locator("#recommendation")).to_have_text(plan["recommendation"])
    expect(page.get_by_label("Utilisation (0–1)", exact=True)).to_have_value("0.6")
    expect(page.get_by_label("Electricity ($/kWh)", exact=True)).to_have_value("0.25")
    expect(page.get_by_label("Horizon (months)", exact=True)).to_have_value("24")
    expect(page.locator("#thresholds")).to_contain_text("this profile: 60.0%")
    assert not problems, problems


def _browser_in(browser: Browser, locale: str) -> tuple[Page, list[str]]:
    """A context whose browser asks for `locale` (Accept-Language and navigator.language)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale)
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    return page, problems


# the worked example's sentence in each language: "Buy 1 x <desktop> (new); saves ...; buying pays off after N days."
SAID = {"zh-Hans": ("购买 1 × ", "（全新）；36 个月内比纯云方案节省 ", " 天后回本。"),
        "fr": ("Acheter 1 × ", " (neuf) ; économise ", " jours.")}
# what the worked example's charts say in each language (besides the catalogue's legend names): the cumulative
# chart's break-even label, a January tick, money; the tornado's title
CHART_SAYS = {"zh-Hans": (re.compile(r"回本：第 \d+ 天"), re.compile(r"20\d\d年1月"), "US$"),
              "fr": (re.compile(r"Point mort : jour \d+"), re.compile(r"janv\. 20\d\d"), "\u00a0$US")}


def _svg_text(page: Page, service_url: str, selector: str) -> str:
    """The text of the SVG an <img> on the page shows (fetched again from its address)."""
    src = page.locator(selector).get_attribute("src")
    assert src, selector
    svg = page.request.get(f"{service_url}{src}")
    assert svg.ok and svg.headers["content-type"].startswith("image/svg+xml"), src
    root = ET.fromstring(svg.body())
    return " ".join("".join(el.itertext()) for el in root.iter("{http://www.w3.org/2000/svg}text"))


@pytest.mark.parametrize(("browser_locale", "page_locale", "money"),
                         [("zh-CN", "zh-Hans", "US$"), ("fr-FR", "fr", "$US")])
def test_the_page_speaks_the_readers_language(browser: Browser, service_url: str, artifacts: Path,
                                              browser_locale: str, page_locale: str, money: str) -> None:
    expect = page_expect()
    page, problems = _browser_in(browser, browser_locale)
    strings = catalogue(page_locale)
    try:
        page.goto(f"{service_url}/")
        expect(page.locator("html")).to_have_attribute("lang", page_locale)
        expect(page.locator("#form-title")).to_have_text(strings["page.title"])
        expect(page.get_by_label(strings["form.utilisation"], exact=True)).to_have_value("0.15")
        page.get_by_role("button", name=strings["form.submit"], exact=True).click()
        expect(page.get_by_role("status")).to_have_text(strings["s.ready"])
        # the recommendation in the page's language, composed from the plan's fields (the API's is English)
        first, middle, last = SAID[page_locale]
        sentence = page.locator("#recommendation")
        expect(sentence).to_contain_text(first)
        expect(sentence).to_contain_text(middle)
        expect(sentence).to_contain_text(last)
        expect(sentence).not_to_contain_text("Buy")
        expect(page.locator("#thresholds-title")).to_have_text(strings["r.flips"])
        expect(page.locator("#costs-title")).to_have_text(strings["r.costs"].replace("{currency}", "USD"))
        stats = page.locator(".headline .stats")
        expect(stats).to_contain_text(strings["r.cloud_only"])
        expect(stats).to_contain_text(money)  # money in the locale's own format
        if page_locale == "fr":
            expect(page.locator("#thresholds")).to_contain_text(re.compile(r"\d+,\d\s%"))  # 18,4 % (French percent)
        expect(page.locator("#sensitivity-title")).to_have_text(strings["r.sensitivity"])
        expect(page.locator("#sensitivity tbody")).to_contain_text(strings["sens.hardware_prices"])
        for chart in ("#plan-chart", "#sensitivity-chart"):
            page.wait_for_function("s => { const img = document.querySelector(s);"
                                   " return img && img.complete && img.naturalWidth > 0 }", arg=chart,
                                   timeout=TIMEOUT_MS)
        # the charts speak the page's language too: legends from the catalogue, the locale's dates and money
        expect(page.locator("#plan-chart")).to_have_attribute("src", re.compile(f"lang={page_locale}$"))
        drawn = _svg_text(page, service_url, "#plan-chart")
        break_even, january, currency = CHART_SAYS[page_locale]
        assert break_even.search(drawn) and january.search(drawn) and currency in drawn, drawn
        assert strings["r.cloud_only"] in drawn and "Break-even" not in drawn and "Cloud only" not in drawn
        tornado = _svg_text(page, service_url, "#sensitivity-chart")
        assert strings["chart.sens.title"].split("{total}")[0] in tornado and strings["sens.hardware_prices"] in tornado
        page.locator("#plan-chart").screenshot(path=str(artifacts / f"chart-{page_locale}.png"))
        page.screenshot(path=str(artifacts / f"page-{page_locale}.png"), full_page=True)
        assert not problems, problems
    finally:
        page.context.close()


def test_the_switch_changes_the_language_and_is_remembered(desktop: tuple[Page, list[str]], service_url: str) -> None:
    expect = page_expect()
    page, problems = desktop
    page.goto(f"{service_url}/")
    expect(page.locator("#form-title")).to_have_text(catalogue("en")["page.title"])
    page.get_by_label("Language", exact=True).select_option("fr")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("#form-title")).to_have_text(catalogue("fr")["page.title"])
    page.goto(f"{service_url}/compare")  # another page, same choice
    expect(page.locator("#compare-title")).to_have_text(catalogue("fr")["c.title"])
    page.get_by_label(catalogue("fr")["nav.language"], exact=True).select_option("zh-Hans")
    expect(page.locator("#compare-title")).to_have_text(catalogue("zh-Hans")["c.title"])
    assert not problems, problems


def test_two_plans_side_by_side(desktop: tuple[Page, list[str]], service_url: str, artifacts: Path) -> None:
    expect = page_expect()
    page, problems = desktop
    light, busy = _made(page, service_url, WORKED_EXAMPLE), _made(page, service_url, _busier())
    page.goto(f"{service_url}/compare")
    page.locator(f'input[value="{light["id"]}"]').check()
    page.locator(f'input[value="{busy["id"]}"]').check()
    page.get_by_role("button", name="Compare", exact=True).click()
    expect(page.get_by_role("status")).to_have_text("2 plans compared.")
    shown = re.search(r"[?&]ids=([^&]+)", page.url)
    assert shown and set(shown.group(1).split(",")) == {light["id"], busy["id"]}, page.url
    summary = page.locator("#compare-summary")
    for plan in (light, busy):
        expect(summary).to_contain_text(plan["recommendation"])
        expect(summary).to_contain_text(f"${plan['total_cost_usd']:,.0f}")
    inputs = page.locator("#compare-inputs")
    english = catalogue("en")
    for field, label in (("demand.utilisation", "form.utilisation"), ("electricity_usd_per_kwh", "form.electricity"),
                         ("horizon_months", "form.horizon")):  # named by the form's own labels, the path beside
        expect(inputs.locator(f'[data-path="{field}"]')).to_have_text(english[label])
    expect(inputs.locator("tbody tr")).to_have_count(3)
    page.wait_for_function("() => { const img = document.querySelector('#comparison-chart');"
                           " return img && img.complete && img.naturalWidth > 0 }", timeout=TIMEOUT_MS)
    page.screenshot(path=str(artifacts / "compare.png"), full_page=True)
    page.reload()  # the address names the plans
    expect(page.locator("#compare-summary")).to_contain_text(busy["recommendation"])
    assert not problems, problems


def _slide(page: Page, selector: str, value: float) -> None:
    """Set a range input as a drag would: the value, then the input event the page listens to."""
    page.eval_on_selector(selector, "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input',"
                          " { bubbles: true })) }", value)


def test_moving_a_slider_changes_the_plan(desktop: tuple[Page, list[str]], service_url: str,
                                          artifacts: Path) -> None:
    expect = page_expect()
    page, problems = desktop
    page.goto(f"{service_url}/")
    page.get_by_role("button", name="Plan", exact=True).click()
    expect(page.locator("#recommendation")).to_contain_text("Buy 1 x RTX 3090")
    section = page.locator("#what-if")
    expect(section.locator("#wi-utilisation-mark")).to_contain_text("buying pays from 4.0%")  # threshold marked
    expect(section.locator("#wi-horizon-mark")).to_be_visible()

    _slide(page, "#wi-cloud", 0.25)  # cloud at a quarter of its price: renting wins
    decision = page.locator("#what-if-decision")
    expect(decision).to_contain_text("The decision changes:")
    expect(decision).not_to_contain_text("Buy 1 x RTX 3090")
    expect(page.locator("#what-if-result")).to_have_class(re.compile(r"\bchanged\b"))

    _slide(page, "#wi-cloud", 1)
    _slide(page, "#wi-utilisation", 0.6)  # busier: the same purchase, a different total
    expect(decision).to_contain_text("Same decision:")
    expect(page.locator("#wi-utilisation")).to_have_value("0.6")
    busier = page.request.post(f"{service_url}/v1/plans/what-if",
                               data={"profile": {**WORKED_EXAMPLE, "demand": {**WORKED_EXAMPLE["demand"],
                                                                               "utilisation": 0.6}}}).json()
    expect(page.locator("#what-if-result")).to_contain_text(f"${busier['total_cost_usd']:,.0f}")
    section.scroll_into_view_if_needed()
    section.screenshot(path=str(artifacts / "what-if.png"))
    assert not problems, problems


def test_plans_in_dollars_and_euros_side_by_side(desktop: tuple[Page, list[str]], service_url: str,
                                                 artifacts: Path) -> None:
    """Each plan's money in its own currency; the totals also in one currency (the first plan's, USD here), converted
    with the rate the euro plan carries, said so under the table; the cheapest is the cheapest converted."""
    expect = page_expect()
    page, problems = desktop
    dollars = _made(page, service_url, WORKED_EXAMPLE)
    euros = _made(page, service_url, {**_busier(), "currency": "EUR"})
    assert euros["currency"] == "EUR" and euros["exchange_rates"] is not None
    usd_per_eur = next(r["usd_per_unit"] for r in euros["exchange_rates"]["rates"] if r["currency"] == "EUR")
    compared = page.request.get(f"{service_url}/v1/plans/compare?ids={dollars['id']},{euros['id']}").json()
    assert compared["currency"] == "USD"
    # by hand: the euro plan's total x the dollars one euro bought on its rates' day
    assert compared["plans"][1]["total_in_common"] == pytest.approx(euros["total_cost_usd"] * usd_per_eur, abs=0.01)
    cheaper = min((dollars["total_cost_usd"], dollars["id"]), (euros["total_cost_usd"] * usd_per_eur, euros["id"]))
    assert compared["cheapest_id"] == cheaper[1]
    page.goto(f"{service_url}/compare?ids={dollars['id']},{euros['id']}")
    summary = page.locator("#compare-summary")
    expect(summary.get_by_role("row", name=re.compile("^Currency"))).to_contain_text("EUR")
    expect(summary).to_contain_text(f"${dollars['total_cost_usd']:,.0f}")
    expect(summary).to_contain_text(f"€{euros['total_cost_usd']:,.0f}")
    converted = summary.get_by_role("row", name=re.compile(r"^Total in USD \(converted\)"))
    expect(converted).to_contain_text(f"${compared['plans'][1]['total_in_common']:,.0f}")
    expect(page.locator("#compare-currency-note")).to_contain_text(
        f"Plan 2: 1 EUR = {compared['conversions'][0]['rate']:,.4f} USD (ECB")
    page.wait_for_function("() => { const img = document.querySelector('#comparison-chart');"
                           " return img && img.complete && img.naturalWidth > 0 }", timeout=TIMEOUT_MS)
    page.screenshot(path=str(artifacts / "compare-currencies.png"), full_page=True)
    assert not problems, problems
