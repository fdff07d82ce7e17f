"""The price page in headless Chromium: the cheapest offer per GPU and a price-history chart per GPU."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import pytest

if TYPE_CHECKING:
    from playwright.sync_api import Page

from tests.e2e.helpers import TIMEOUT_MS

pytestmark = pytest.mark.e2e


def _chart_loaded(page: Page) -> str:
    page.wait_for_function("() => { const img = document.querySelector('#history-chart');"
                           " return img && img.src && img.complete && img.naturalWidth > 0 }", timeout=TIMEOUT_MS)
    src: str = page.locator("#history-chart").get_attribute("src") or ""
    return src


def test_cheapest_offers_and_history(desktop: tuple[Page, list[str]], service_url: str, artifacts: Path) -> None:
    from playwright.sync_api import expect

    page, problems = desktop
    page.goto(f"{service_url}/prices")
    prices: list[dict[str, Any]] = page.request.get(f"{service_url}/v1/prices?gpu=RTX%203090&kind=cloud").json()
    cheapest = min(p["usd_per_hour"] / p["gpu_count"] for p in prices)
    row = page.locator('#price-table tbody tr[data-gpu="RTX 3090"]')
    expect(row).to_contain_text(f"${cheapest:.2f}/h", timeout=TIMEOUT_MS)
    assert parse_qs(urlsplit(_chart_loaded(page)).query) == {"gpu": ["RTX 3090"], "lang": ["en"]}  # the default
    # commitment prices in their own table, one row per GPU and term (bundled: e.g. H100 SXM for 12 and 36 months)
    terms = page.locator("#commitment-table tbody tr", has_text="H100 SXM")
    expect(terms.first).to_contain_text("12 months", timeout=TIMEOUT_MS)
    expect(page.locator("#commitment-table")).to_contain_text("36 months")

    page.get_by_role("button", name="Show the price history of H100 SXM").click()
    expect(page.locator("#history-chart")).to_have_attribute("src", re.compile(r"gpu=H100\+SXM&lang=en$"))
    _chart_loaded(page)
    expect(page.get_by_label("Price history of", exact=True)).to_have_value("H100 SXM")
    expect(page.locator('#price-table tbody tr[data-gpu="H100 SXM"]')).to_have_attribute("aria-current", "true")
    page.screenshot(path=str(artifacts / "prices.png"), full_page=True)

    page.set_viewport_size({"width": 390, "height": 844})
    scroll_width, view_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= view_width
    assert not problems, problems
