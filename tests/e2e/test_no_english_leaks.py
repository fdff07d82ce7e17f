"""Issue 17's audit in headless Chromium: a workload-form plan, the compare page and the what-if in French and
Chinese say nothing in English that the planner's own texts would say (its sharding and why-left-out sentences,
the closed form's " in ", the tornado's "x", "rent only", the carbon note's "World (average)", raw "2027-01"
months, the catalog's "(used, eBay)" and "(new, Amazon buy box)" qualifiers, the differing inputs' API paths).

Screenshots: artifacts/e2e/no-english-<what>-<locale>.png (workload, plan, compare).
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from service.plans.examples import WORKED_EXAMPLE
from service.web.i18n import catalogue

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Locator, Page

from tests.e2e.helpers import TIMEOUT_MS, page_expect

pytestmark = pytest.mark.e2e

LOCALES = ["fr", "zh-Hans"]
# what the solver writes in English (solvers/workload/reasons.py, solvers/replan/sensitivity.py,
# solvers/explain/simple.py,
# solvers/base/notices.py, pricing/data/hardware_prices.csv's qualifiers, service/plans/compare.py's paths): none of it
# may reach a French or Chinese page
ENGLISH = [r"data parallel", r"replicated", r"sharded", r"tensor parallel", r"GPU\(s\)", r"recomputation",
           r"does not fit", r"no price", r"too slow", r"largest machine", r"on offer", r"usable",
           r"rent only", r"no feasible plan", r"\bbuy \d", r"\d x \S", r" in \d+ x ",
           r"World \(average\)", r"no electricity\.location", r"\bused\b", r"\bnew\b", r"buy box", r"launch MSRP",
           r"\b20\d\d-\d\d\b(?!-)", r"\bGPUs\b", r"\bBought\b", r"demand\.utilisation", r"electricity_usd_per_kwh"]
LEAK = re.compile("|".join(ENGLISH))

# a full fine-tune of 13B on at most 8 GPUs, on the bundled catalog: rows in the plan (ZeRO-3), without a price,
# and too large for small cards (208 GB of states over 8 GPUs leave a 24 GB card short)
FINE_TUNE = {"workload": {"kind": "fine_tune", "method": "full", "model": {"params_b": 13}, "tokens": 2e8,
                          "jobs_per_month": 1, "max_gpus_per_job": 8},
             "horizon_months": 24, "electricity_usd_per_kwh": 0.15}


def _hosted() -> dict[str, Any]:
    """The worked example with a bare card: the plan buys a host machine for it (a purchase the compare lists)."""
    profile = copy.deepcopy(WORKED_EXAMPLE)
    profile["demand"]["utilisation"] = 0.6
    profile["prices"]["owned"] = [{"name": "RTX 3090 (used, eBay)", "gpu": "RTX 3090", "unit_price_usd": 700,
                                   "watts": 350, "idle_watts": 0, "condition": "used", "includes_host": False}]
    return profile


def _made(page: Page, service_url: str, profile: dict[str, Any]) -> dict[str, Any]:
    answer = page.request.post(f"{service_url}/v1/plans", data=profile)
    assert answer.status == 201, answer.text()
    plan: dict[str, Any] = answer.json()
    return plan


def _page(browser: Browser) -> tuple[Page, list[str]]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    return page, problems


def _no_english(where: Locator, what: str) -> None:
    text = where.inner_text()
    found = sorted({m.group(0) for m in LEAK.finditer(text)})
    assert not found, (what, found, text[:2000])


@pytest.mark.parametrize("locale", LOCALES)
def test_a_workload_plan_speaks_only_the_readers_language(browser: Browser, service_url: str, artifacts: Path,
                                                          locale: str) -> None:
    expect = page_expect()
    page, problems = _page(browser)
    plan = _made(page, service_url, FINE_TUNE)
    codes = {r["excluded_notice"]["code"] for r in plan["workload"]["gpus"] if r["excluded_notice"]}
    assert {"no_price", "training_too_large"} <= codes, codes  # the table holds reasons worth translating
    page.goto(f"{service_url}/?plan={plan['id']}&lang={locale}")
    table = page.locator("#workload-gpus")
    expect(table).to_be_visible()
    strings = catalogue(locale)
    expect(table).to_contain_text(strings["wf.why.no_price"])
    expect(table).to_contain_text(strings["wf.shard.zero3"])
    _no_english(table, "workload table")
    _no_english(page.locator("#recommendation"), "recommendation")
    _no_english(page.locator("#months"), "months")
    page.screenshot(path=str(artifacts / f"no-english-workload-{locale}.png"), full_page=True)
    assert not problems, problems
    page.context.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_the_plan_page_and_its_what_if_speak_only_the_readers_language(browser: Browser, service_url: str,
                                                                        artifacts: Path, locale: str) -> None:
    expect = page_expect()
    page, problems = _page(browser)
    plan = _made(page, service_url, _hosted())
    assert plan["hosts"] and plan["break_even"]["simple"]["hosts"] >= 1  # the closed form puts the card in a host
    page.goto(f"{service_url}/?plan={plan['id']}&lang={locale}")
    strings = catalogue(locale)
    expect(page.locator("#sensitivity tbody")).to_contain_text(strings["sens.hardware_prices"], timeout=4 * TIMEOUT_MS)
    for part in ("#recommendation", "#thresholds", "#sensitivity", "#purchases", "#carbon", "#months", "#freshness",
                 "#what-if"):
        _no_english(page.locator(part), part)
    # a threshold beyond a slider's scale is said beside that slider (the worked example's electricity break-even
    # is several dollars a kWh, the slider ends at 1)
    threshold = plan["break_even"]["electricity_threshold_usd_per_kwh"]
    beyond = page.locator("#wi-electricity-beyond")
    if threshold is not None and threshold > 1:
        expect(beyond).to_be_visible()
        expect(beyond).to_contain_text(strings["wi.beyond_high"].split("{mark}")[1].strip(" :："))
    page.screenshot(path=str(artifacts / f"no-english-plan-{locale}.png"), full_page=True)
    assert not problems, problems
    page.context.close()


@pytest.mark.parametrize("locale", LOCALES)
def test_the_compare_page_speaks_only_the_readers_language(browser: Browser, service_url: str, artifacts: Path,
                                                          locale: str) -> None:
    expect = page_expect()
    page, problems = _page(browser)
    first, second = _made(page, service_url, WORKED_EXAMPLE), _made(page, service_url, _hosted())
    page.goto(f"{service_url}/compare?ids={first['id']},{second['id']}&lang={locale}")
    strings = catalogue(locale)
    summary, inputs = page.locator("#compare-summary"), page.locator("#compare-inputs")
    expect(summary).to_be_visible()
    # the hosted plan's host machine is among its purchases, in the reader's words
    host = strings["c.host_item"].format(count=1, name=second["hosts"][0]["name"])
    expect(summary).to_contain_text(host)
    expect(inputs.locator('[data-path="demand.utilisation"]')).to_have_text(strings["form.utilisation"])
    _no_english(summary, "compare summary")
    _no_english(inputs, "compare inputs")
    page.screenshot(path=str(artifacts / f"no-english-compare-{locale}.png"), full_page=True)
    assert not problems, problems
    page.context.close()
