"""Issue 32 in headless Chromium: a plan made for many futures shows its card (totals of the plan and cloud only,
the chances, a fan of cumulative cost and a histogram of totals) in every language of the page, without a script
error and without the English words of the card in a French or Chinese page.

Screenshots: artifacts/e2e/risk-<locale>.png."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from service.web.i18n import LOCALE_NAMES, catalogue
from tests.e2e.helpers import page_expect

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.e2e

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lab-uncertainty.json"
ENGLISH = ["Cloud only", "Expected total", "futures", "Median", "Chance"]


@pytest.mark.parametrize("locale", sorted(LOCALE_NAMES))
def test_the_risk_card_in_every_language(browser: Browser, service_url: str, artifacts: Path, locale: str) -> None:
    expect = page_expect()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    profile = json.loads(EXAMPLE.read_text())
    profile["uncertainty"]["scenarios"] = 16
    made = page.request.post(f"{service_url}/v1/plans", data=profile)
    assert made.status == 201, made.text()
    page.goto(f"{service_url}/?plan={made.json()['id']}&lang={locale}")
    card = page.locator("#risk")
    strings = catalogue(locale)
    expect(card).to_contain_text(strings["risk.title"].format(count=16))
    assert card.locator("svg").count() == 2 and card.locator("svg polyline").count() == 2
    assert card.locator("svg rect").count() == 24
    expect(page.locator("#unc_on")).to_be_checked()
    if locale != "en":
        text = card.inner_text()
        assert not [w for w in ENGLISH if w in text], text[:1500]
    card.screenshot(path=str(artifacts / f"risk-{locale}.png"))
    assert not problems, problems
    context.close()
