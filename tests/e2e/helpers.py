"""What the browser tests share: how long a page may take, and Playwright's `expect` with that patience."""

from __future__ import annotations

from typing import Any

TIMEOUT_MS = 30_000  # a plan on a loaded 2-core machine, the page's charts and a re-plan can take seconds


def page_expect() -> Any:
    """Playwright's `expect` waiting up to TIMEOUT_MS (imported late: playwright is the e2e extra's)."""
    from playwright.sync_api import expect

    expect.set_options(timeout=TIMEOUT_MS)
    return expect
