"""/docs (Swagger UI) and /redoc (ReDoc) render in Chromium with every request to another host refused, as on a
machine without network (issue 33: they loaded their scripts from a CDN and stayed blank offline).

The one request that still leaves is ReDoc's own: the "API docs by Redocly" footer of its standalone bundle loads
its logo from cdn.redoc.ly and hides the image when that fails; nothing of the documentation depends on it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.e2e.helpers import page_expect

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

pytestmark = pytest.mark.e2e
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"  # redoc.standalone.js, the footer's image (onError: hidden)


def _offline(page: Page, service_url: str) -> list[str]:
    """Refuse every request that leaves the service; returns the list of refused URLs."""
    refused: list[str] = []

    def guard(route: Route) -> None:
        url = route.request.url
        if url.startswith((service_url, "data:", "blob:")):
            route.continue_()
        else:
            refused.append(url)
            route.abort()

    page.route("**/*", guard)
    return refused


def test_swagger_ui_and_redoc_work_without_a_cdn(desktop: tuple[Page, list[str]], service_url: str,
                                                 artifacts: Path) -> None:
    expect = page_expect()
    page, problems = desktop
    refused = _offline(page, service_url)
    page.goto(f"{service_url}/docs")
    operation = page.locator("#operations-plans-create_plan")  # Swagger UI's id: tag and operationId
    expect(operation).to_be_visible()
    operation.locator(".opblock-summary").click()  # opens it: parameters and answers are drawn from the document
    expect(operation.locator(".responses-wrapper")).to_contain_text("201")
    page.screenshot(path=str(artifacts / "api-docs-swagger.png"))
    page.goto(f"{service_url}/redoc")
    section = page.locator('[data-section-id="tag/plans/operation/get_plan_sensitivity"]')
    expect(section).to_contain_text("/v1/plans/{plan_id}/sensitivity")
    page.screenshot(path=str(artifacts / "api-docs-redoc.png"))
    assert set(refused) <= {REDOC_LOGO}  # nothing the documentation needs was asked of another host
    # no script error; the only console error is the refused logo's
    assert [p for p in problems if "Failed to load resource" not in p] == [] and len(problems) <= len(refused)
