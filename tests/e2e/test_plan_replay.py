"""The plan replayed hour by hour on the page (issue 29): the result shows the replay's cost beside the model's and
its chart, in the page's language. Screenshots: artifacts/e2e/plan-replay-<locale>.png."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from service.plans.examples import WORKED_EXAMPLE
from tests.e2e.helpers import TIMEOUT_MS, page_expect

if TYPE_CHECKING:
    from playwright.sync_api import Browser

pytestmark = pytest.mark.e2e


@pytest.mark.parametrize(("locale", "says"), [("en", "Run hour by hour"), ("fr", "Exécuté heure par heure")])
def test_the_replay_card_compares_the_replay_with_the_model(browser: Browser, service_url: str, artifacts: Path,
                                                            locale: str, says: str) -> None:
    expect = page_expect()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
    try:
        answer = page.request.post(f"{service_url}/v1/plans", data=WORKED_EXAMPLE)
        assert answer.status == 201, answer.text()
        plan: dict[str, Any] = answer.json()
        page.goto(f"{service_url}/?plan={plan['id']}&lang={locale}")
        card = page.locator("#replay")
        expect(card).to_contain_text(says, timeout=TIMEOUT_MS)
        chart = page.locator("#replay-chart")
        chart.scroll_into_view_if_needed()
        page.wait_for_function("() => { const i = document.getElementById('replay-chart');"
                               " return i && i.complete && i.naturalWidth > 0; }", timeout=TIMEOUT_MS)
        replay = page.request.get(f"{service_url}/v1/plans/{plan['id']}/replay?hours=false").json()
        assert replay["agrees"] is True and replay["total_usd"] == pytest.approx(plan["total_cost_usd"], abs=0.01)
        card.screenshot(path=str(artifacts / f"plan-replay-{locale}.png"))
        assert not problems, problems
    finally:
        context.close()
