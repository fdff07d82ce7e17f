"""Issue 33 (the page as a reader sees it) in headless Chromium, measured: at 1280 px no result table is cut at its
card's edge and no figure breaks over two lines (the sensitivity table's "Decision at the ends", the workload
table's in-plan and why-left-out columns, the months with every optional column, the cash flows) in English,
French and Chinese; the sensitivity chart on a 390 px phone draws its text at least 10 px high, none over another
and all inside the image, and at 1280 px none over another; the lab's own prices show whole names.

Screenshots: artifacts/e2e/fits-<example>-<locale>.png (the result column), sensitivity-phone-<locale>.png,
own-prices.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import requests

from service.plans.examples import FINANCE_EXAMPLE, WORKLOAD_EXAMPLE
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.every_input import EVERY_INPUT
from tests.e2e.helpers import TIMEOUT_MS, page_expect
from tests.e2e.measure import chart_text, cut_inputs, cut_tables

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.e2e

LOCALES = ["en", "fr", "zh-Hans"]
SMALLEST_PX = 10.0  # a chart's text at least this high on the screen


@pytest.fixture(scope="module")
def made(service_url: str) -> dict[str, dict[str, Any]]:
    """The workload form's example (the per-GPU-type table) and the finance example (cash flows, commitments,
    money in six figures, a decision that changes at the ends of the sensitivity), made once for the module."""
    plans = {}
    for name, profile in (("workload", WORKLOAD_EXAMPLE), ("finance", FINANCE_EXAMPLE)):
        answer = requests.post(f"{service_url}/v1/plans", json=profile, timeout=TIMEOUT_MS / 1000 * 4)
        assert answer.status_code == 201, answer.text
        plans[name] = answer.json()
    return plans


def _opened(browser: Browser, service_url: str, plan: dict[str, Any], locale: str,
            viewport: dict[str, int]) -> tuple[Page, list[str]]:
    """The plan's permalink in `locale`, its sensitivity loaded (every end a new plan: it takes a while)."""
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    page.goto(f"{service_url}/?plan={plan['id']}&lang={locale}")
    page.locator("#sensitivity table").wait_for(timeout=6 * TIMEOUT_MS)
    return page, problems


def _loaded(page: Page, selector: str) -> None:
    page.wait_for_function("s => { const img = document.querySelector(s);"
                           " return img && img.complete && img.naturalWidth > 0 }", arg=selector, timeout=TIMEOUT_MS)


@pytest.mark.parametrize("locale", LOCALES)
@pytest.mark.parametrize("example", ["workload", "finance"])
def test_no_result_column_is_cut_off_at_1280_px(browser: Browser, service_url: str, artifacts: Path,
                                               made: dict[str, dict[str, Any]], example: str, locale: str) -> None:
    expect = page_expect()
    page, problems = _opened(browser, service_url, made[example], locale, DESKTOP)
    try:
        if example == "workload":
            expect(page.locator("#workload-gpus tbody tr")).to_have_count(len(made[example]["workload"]["gpus"]))
        else:
            expect(page.locator("#finance-cash-flows")).to_be_visible()
        # the widest month table a plan can have: work that waited (all of it, a month long) adds two columns
        # (always-on load adds one, but it cannot wait: solvers/base/profile.py)
        page.evaluate("""async (id) => {
          const plan = await (await fetch(`/v1/plans/${id}`)).json();
          for (const p of plan.periods) Object.assign(p, { waited_gpu_hours: p.demand_reference_gpu_hours,
            max_wait_hours: 719 });
          const widest = gpResult.months(plan);
          widest.id = 'months-widest';
          document.getElementById('result').append(widest);
        }""", made[example]["id"])
        expect(page.locator("#months-widest thead th")).to_have_count(11)
        page.evaluate("() => document.querySelectorAll('#result details').forEach((d) => { d.open = true; })")
        result = page.locator("#result")
        assert cut_tables(result) == []
        page.locator("#result").screenshot(path=str(artifacts / f"fits-{example}-{locale}.png"))
        # the tornado at a desktop's width: no text over another, none outside the image
        _loaded(page, "#sensitivity-chart")
        src = page.locator("#sensitivity-chart").evaluate("img => img.currentSrc")
        assert "size=narrow" not in src, src
        drawn = chart_text(browser, page.request.get(src).body(),
                           page.locator("#sensitivity-chart").bounding_box()["width"])  # type: ignore[index]
        assert drawn["overlaps"] == [] and drawn["outside"] == [], drawn
        assert not problems, problems
    finally:
        page.context.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_the_sensitivity_chart_is_legible_on_a_phone(browser: Browser, service_url: str, artifacts: Path,
                                                     made: dict[str, dict[str, Any]], locale: str) -> None:
    page, problems = _opened(browser, service_url, made["finance"], locale, PHONE)
    try:
        chart = page.locator("#sensitivity-chart")
        chart.scroll_into_view_if_needed()
        _loaded(page, "#sensitivity-chart")
        src = chart.evaluate("img => img.currentSrc")
        assert "size=narrow" in src, src  # the phone is given the chart drawn for its width
        shown = chart.bounding_box()
        assert shown is not None and 300 <= shown["width"] <= PHONE["width"]
        drawn = chart_text(browser, page.request.get(src).body(), shown["width"])
        assert drawn["count"] > 20, drawn  # names, ranges, end labels, ticks, the title
        assert drawn["smallest"] >= SMALLEST_PX, drawn
        assert drawn["overlaps"] == [], drawn["overlaps"]
        assert drawn["outside"] == [], drawn["outside"]
        page.locator("#sensitivity").screenshot(path=str(artifacts / f"sensitivity-phone-{locale}.png"))
        # the table under it: each input a block, nothing wider than the phone
        assert cut_tables(page.locator("#sensitivity")) == []
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], width
        assert not problems, problems
    finally:
        page.context.close()


def test_own_price_rows_show_their_whole_names(desktop: tuple[Page, list[str]], service_url: str,
                                               artifacts: Path) -> None:
    expect = page_expect()
    page, problems = desktop
    made = page.request.post(f"{service_url}/v1/plans", data=EVERY_INPUT)
    assert made.status == 201, made.text()
    page.goto(f"{service_url}/?plan={made.json()['id']}")
    page.locator("#advanced-box").evaluate("box => { box.open = true }")
    name = page.get_by_label("Name (Hardware quotes 1)")
    expect(name).to_have_value(EVERY_INPUT["prices"]["owned"][0]["name"])
    prices = page.locator("#own-prices")
    assert prices.locator("input:visible, select:visible").count() >= 30  # every field of the three quotes
    assert cut_inputs(prices) == []
    assert cut_tables(prices) == []
    prices.screenshot(path=str(artifacts / "own-prices.png"))
    assert not problems, problems
