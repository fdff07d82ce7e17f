"""Sources that could not refresh, as a reader sees them (issue 33): the plan page says it in one line and links to
the price page, which lists each source with its state and why, in words. The test service runs without its
scheduler, so no source has refreshed: every enabled one is stale, as on a machine without network."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.e2e.helpers import page_expect

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.e2e


def test_the_plan_page_says_stale_sources_in_one_line_and_the_price_page_lists_them(
        desktop: tuple[Page, list[str]], service_url: str, artifacts: Path) -> None:
    expect = page_expect()
    page, problems = desktop
    sources = page.request.get(f"{service_url}/v1/sources").json()
    stale = [s["source"] for s in sources if s["enabled"] and s["stale"]]
    enabled = [s for s in sources if s["enabled"]]
    assert len(stale) >= 2, sources
    page.goto(f"{service_url}/")
    page.get_by_role("button", name="Plan", exact=True).click()
    freshness = page.locator("#freshness")
    line = freshness.locator("#sources-line")
    expect(line).to_have_text(f"Live sources: {len(stale)} of {len(enabled)} are stale ({', '.join(stale)}); the "
                              "plan used their last good prices, or the bundled snapshot's. Each source on the price "
                              "page")
    # the prices the plan used stay a table; the sources are that one line, not a table or a line each
    assert freshness.locator("table").count() == 1
    assert all(freshness.get_by_text(name, exact=True).count() == 0 for name in stale)
    page.screenshot(path=str(artifacts / "plan-sources-line.png"), full_page=True)

    line.get_by_role("link").click()
    expect(page).to_have_url(f"{service_url}/prices#sources")
    rows = page.locator("#sources-table tbody tr")
    expect(rows).to_have_count(len(sources))
    first = rows.filter(has_text=stale[0])
    expect(first).to_contain_text("stale")
    expect(first).to_contain_text("no successful refresh yet")
    assert problems == []
