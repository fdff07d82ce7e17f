"""Issue 33 (the page as a reader sees it) in headless Chromium: what the page says. "More of the profile" says
what is set inside it, in the page's language, and follows edits; a permalink names the plan it started from;
a plan that discounts shows its totals and its chart on one basis, present value, and says so; the compare page
tells plans apart in every language and writes differing inputs in the form's words.

Screenshots: artifacts/e2e/more-of-the-profile-<locale>.png, started-from.png, present-value.png,
compare-<locale>.png.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from service.plans.examples import FINANCE_EXAMPLE, WORKED_EXAMPLE
from service.web.i18n import catalogue
from tests.e2e.every_input import EVERY_INPUT
from tests.e2e.helpers import TIMEOUT_MS, page_expect
from tests.e2e.measure import cut_inputs

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.e2e

LOCALES = ["en", "fr", "zh-Hans"]
# what a reader must never read among the differing inputs: booleans, empty lists, JSON, API codes, API paths
RAW = re.compile(r"^(true|false|null|\[\]|\{.*|\[.*)$|^[a-z]+(_[a-z0-9]+)+$|^[a-z_]+\.[a-z_.]+")


def _made(page: Page, service_url: str, profile: dict[str, Any]) -> dict[str, Any]:
    answer = page.request.post(f"{service_url}/v1/plans", data=profile)
    assert answer.status == 201, answer.text()
    plan: dict[str, Any] = answer.json()
    return plan


def _in(browser: Browser, locale: str) -> tuple[Page, list[str]]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    return page, problems


def _item(strings: dict[str, str], name_key: str, value: str) -> str:
    return strings["f.set_item"].format(name=strings[name_key], value=value)


@pytest.mark.parametrize("locale", ["en", "fr"])
def test_more_of_the_profile_says_what_is_set(browser: Browser, service_url: str, artifacts: Path,
                                              locale: str) -> None:
    expect = page_expect()
    page, problems = _in(browser, locale)
    strings = catalogue(locale)
    try:
        plan = _made(page, service_url, WORKED_EXAMPLE)
        page.goto(f"{service_url}/?plan={plan['id']}&lang={locale}")
        expect(page.locator("#recommendation")).not_to_be_empty()
        said = page.locator("#advanced-count")
        # the worked example replaces the catalog's prices by one quote of each kind, measured throughput, no resale
        for item in (_item(strings, "q.mode", strings["q.mode.replace"]), _item(strings, "q.owned", "1"),
                     _item(strings, "q.cloud", "1"), _item(strings, "opt.resale", strings["f.no"])):
            expect(said).to_contain_text(item)
        expect(said).not_to_contain_text(strings["f.nothing_set"])
        page.locator("#advanced-box > summary").screenshot(path=str(artifacts / f"more-of-the-profile-{locale}.png"))
        # it follows what is typed (closed or open), and a quote removed
        page.locator("#advanced-box").evaluate("box => { box.open = true }")
        pue = page.locator("#opt_pue")
        pue.fill("1.3")
        expect(said).to_contain_text(_item(strings, "opt.pue", "1,3" if locale == "fr" else "1.3"))
        page.locator("#q-cloud button.link").click()
        expect(said).not_to_contain_text(_item(strings, "q.cloud", "1"))
        # an example with nothing inside: it says so
        page.select_option("#example", "catalog")
        expect(said).to_have_text(f"({strings['f.nothing_set']})")
        assert not problems, problems
    finally:
        page.context.close()


def test_a_permalink_names_the_plan_it_started_from(desktop: tuple[Page, list[str]], service_url: str,
                                                    artifacts: Path) -> None:
    expect = page_expect()
    page, problems = desktop
    busier = {**WORKED_EXAMPLE, "demand": {**WORKED_EXAMPLE["demand"], "utilisation": 0.6}}
    plan = _made(page, service_url, busier)
    page.goto(f"{service_url}/?plan={plan['id']}")
    start = page.get_by_label("Start from", exact=True)
    expect(start).to_have_value(f"plan:{plan['id']}")
    chosen = start.locator("option:checked")
    expect(chosen).to_contain_text(plan["id"][:8])
    expect(chosen).to_contain_text(f"${plan['total_cost_usd']:,.0f}")
    hint = page.locator("#example-hint")
    expect(hint).to_contain_text(plan["id"])  # the whole id and its day under the choice
    assert cut_inputs(page.locator("#example").locator("..")) == []  # the chosen plan's name is read whole
    page.locator("#example").locator("..").screenshot(path=str(artifacts / "started-from.png"))
    # an example, then the plan again: its own inputs come back
    utilisation = page.get_by_label("Utilisation (0–1)", exact=True)
    start.select_option("worked_example")
    expect(utilisation).to_have_value("0.15")
    expect(hint).to_be_hidden()
    start.select_option(f"plan:{plan['id']}")
    expect(utilisation).to_have_value("0.6")
    assert not problems, problems


def _svg_texts(page: Page, service_url: str, selector: str) -> str:
    src = page.locator(selector).get_attribute("src")
    assert src
    root = ET.fromstring(page.request.get(f"{service_url}{src}").body())
    return " | ".join("".join(el.itertext()) for el in root.iter("{http://www.w3.org/2000/svg}text"))


def test_totals_and_chart_on_one_basis(desktop: tuple[Page, list[str]], service_url: str, artifacts: Path) -> None:
    expect = page_expect()
    page, problems = desktop
    strings = catalogue("en")
    # a plan that discounts at 8% a year: it was chosen on present values and its curves are present values
    plan = _made(page, service_url, FINANCE_EXAMPLE)
    assert plan["break_even"]["basis"] == "present_value" and plan["discount_rate"] > 0
    pv = plan["costs"]["present_value_usd"]
    cloud_pv = plan["alternatives"]["cloud_only"]["costs"]["present_value_usd"]
    assert abs(pv - plan["total_cost_usd"]) > 1000  # the two bases differ enough to tell apart
    page.goto(f"{service_url}/?plan={plan['id']}")
    stats = page.locator(".headline .stat")
    expect(stats.nth(0)).to_contain_text(strings["r.at_pv"].format(what=strings["r.plan"]))
    expect(stats.nth(0).locator(".stat-value")).to_have_text(f"${pv:,.0f}")
    expect(stats.nth(0)).to_contain_text(f"${plan['total_cost_usd']:,.0f}")  # nominal, said beside
    expect(stats.nth(1).locator(".stat-value")).to_have_text(f"${cloud_pv:,.0f}")
    expect(stats.nth(1)).to_contain_text(f"${cloud_pv - pv:,.0f}")  # the saving on the same basis
    expect(page.locator("#chart-title")).to_contain_text("present value")
    page.wait_for_function("() => { const img = document.querySelector('#plan-chart');"
                           " return img && img.complete && img.naturalWidth > 0 }", timeout=TIMEOUT_MS)
    drawn = _svg_texts(page, service_url, "#plan-chart")
    assert "present value" in drawn, drawn
    assert f"${pv:,.0f}" in drawn and f"${cloud_pv:,.0f}" in drawn, drawn  # the curves end at the headline's sums
    costs = page.locator("#costs")
    expect(costs.locator("tfoot tr")).to_have_count(2)
    expect(costs.locator("tfoot tr").nth(1)).to_contain_text(f"${pv:,.0f}")
    expect(page.locator("#sensitivity .muted").first).to_contain_text(strings["r.sens_nominal"])
    page.locator(".headline").screenshot(path=str(artifacts / "present-value.png"))
    # a plan that does not discount: nominal everywhere, and no word of present value in its headline
    nominal = _made(page, service_url, WORKED_EXAMPLE)
    page.goto(f"{service_url}/?plan={nominal['id']}")
    expect(stats.nth(0).locator(".stat-value")).to_have_text(f"${nominal['total_cost_usd']:,.0f}")
    expect(page.locator(".headline .stats")).not_to_contain_text("present value")
    expect(page.locator("#chart-title")).to_have_text(strings["r.cumulative_cost"])
    assert not problems, problems


@pytest.mark.parametrize("locale", LOCALES)
def test_the_compare_page_tells_plans_apart_in_every_language(browser: Browser, service_url: str, artifacts: Path,
                                                              locale: str) -> None:
    expect = page_expect()
    page, problems = _in(browser, locale)
    strings = catalogue(locale)
    try:
        # the same example twice (the same sentence and total), and a plan that differs in every input
        twins = [_made(page, service_url, WORKED_EXAMPLE) for _ in range(2)]
        other = _made(page, service_url, EVERY_INPUT)
        page.goto(f"{service_url}/compare?ids={twins[0]['id']},{other['id']}&lang={locale}")
        choices = page.locator("#plan-choices label")
        expect(choices.first).to_be_visible()
        # every plan to pick reads differently, its recommendation in the page's language once it is read
        for plan in (*twins, other):
            sentence = page.locator(f'label[for="pick-{plan["id"]}"] .choice-sentence')
            expect(sentence).not_to_be_empty()
            if locale != "en":
                expect(sentence).not_to_contain_text(plan["recommendation"])
        labels = choices.all_inner_texts()
        assert len(set(labels)) == len(labels), [x for x in labels if labels.count(x) > 1]
        # the differing inputs in the form's words
        inputs = page.locator("#compare-inputs")
        expect(inputs.locator("tbody tr").first).to_be_visible()
        fields = inputs.locator("tbody th").all_inner_texts()
        values = [cell for row in inputs.locator("tbody tr").all() for cell in row.locator("td").all_inner_texts()]
        raw = sorted({text for text in [*fields, *values] if RAW.search(text.strip())})
        assert raw == [], raw
        assert inputs.locator("code").count() == 0  # no field named by its API path
        row = inputs.locator("tr", has=page.locator('[data-path="jobs.patience"]'))
        expect(row).to_contain_text(strings["ui_form.patience.week"])
        expect(inputs.locator("tr", has=page.locator('[data-path="options.allow_spot"]'))).to_contain_text(
            strings["f.yes"])
        discount = inputs.locator("tr", has=page.locator('[data-path="options.discount_rate"]'))
        expect(discount).to_contain_text("6.0%" if locale != "fr" else "6,0\u00a0%")
        expect(inputs.locator("tr", has=page.locator('[data-path="throughput_overrides.V100"]'))).to_contain_text(
            strings["opt.overrides"])
        page.screenshot(path=str(artifacts / f"compare-{locale}.png"), full_page=True)
        assert not problems, problems
    finally:
        page.context.close()
