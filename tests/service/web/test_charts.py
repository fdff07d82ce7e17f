"""The SVG charts: a plan's cumulative cost with its break-even day, and a GPU's price history.

Each chart is parsed as XML and searched for its series (matplotlib writes an artist's gid as the element id,
and text stays text), so a missing line, a wrong total or a marker drawn for a plan that never breaks even fails.
"""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET
from typing import Any

import pandas as pd
import pytest
from fastapi.testclient import TestClient

from pricing.history import HISTORY_COLUMNS
from service.app import create_app
from service.core.settings import Settings
from service.plans.examples import WORKED_EXAMPLE
from service.web.history_chart import cheapest_over_time, price_history_svg
from tests.conftest import cloud_item, owned_item, simple_profile

SVG_NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def client(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url, scheduler=False)), raise_server_exceptions=False)


def _svg(body: bytes) -> tuple[set[str], str]:
    """The ids and all the text of an SVG document (parsing fails the test if it is not well-formed XML)."""
    root = ET.fromstring(body)
    assert root.tag == f"{SVG_NS}svg"
    ids = {el.get("id", "") for el in root.iter()}
    text = " ".join("".join(el.itertext()) for el in root.iter(f"{SVG_NS}text"))
    return ids, text


def _plan(client: TestClient, profile: dict[str, Any]) -> dict[str, Any]:
    created = client.post("/v1/plans", json=profile)
    assert created.status_code == 201, created.text
    body: dict[str, Any] = created.json()
    return body


def test_plan_chart_has_three_series_and_the_break_even_day(client: TestClient) -> None:
    plan = _plan(client, WORKED_EXAMPLE)
    response = client.get(f"/v1/plans/{plan['id']}/chart.svg")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    ids, text = _svg(response.content)
    assert {"series-plan", "series-cloud-only", "series-buy-only"} <= ids
    assert {"break-even-line", "break-even-point", "break-even-label"} <= ids
    days = plan["break_even"]["days"]
    when = dt.date.fromisoformat(plan["horizon"]["start"]) + dt.timedelta(days=days)
    # day 293, Sep 19, 2027 or so: the date as the English page writes it (Intl's month short, day, year)
    assert f"Break-even: day {days:,.0f}" in text and f"{when:%b} {when.day}, {when.year}" in text
    assert f"${plan['alternatives']['cloud_only']['total_cost_usd']:,.0f}" in text  # the series end at their totals
    assert f"${plan['total_cost_usd']:,.0f}" in text
    for label in ("Plan", "Cloud only", "Buy only"):
        assert label in text


def test_no_break_even_marker_when_buying_never_pays(client: TestClient) -> None:
    plan = _plan(client, simple_profile([owned_item(50_000)], [cloud_item(0.2)], utilisation=0.1, months=12))
    assert plan["break_even"]["days"] is None
    ids, text = _svg(client.get(f"/v1/plans/{plan['id']}/chart.svg").content)
    assert "series-plan" in ids and "series-cloud-only" in ids
    assert not {i for i in ids if i.startswith("break-even")}
    assert "Break-even" not in text


def test_same_plan_same_bytes(client: TestClient) -> None:
    """Ids are salted with a constant and no date is written: a stored plan's chart can be cached and compared."""
    plan = _plan(client, WORKED_EXAMPLE)
    first = client.get(f"/v1/plans/{plan['id']}/chart.svg")
    assert first.content == client.get(f"/v1/plans/{plan['id']}/chart.svg").content
    assert "max-age" in first.headers["cache-control"]


def test_unknown_plan_chart_is_a_404_problem(client: TestClient) -> None:
    response = client.get("/v1/plans/no-such-plan/chart.svg")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/problem+json")
    assert "no-such-plan" in response.json()["detail"]


def test_price_history_chart_for_a_gpu(client: TestClient) -> None:
    response = client.get("/v1/prices/history.svg", params={"gpu": "h100 sxm"})  # any known spelling
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("image/svg+xml")
    ids, text = _svg(response.content)
    assert "series-cloud-on_demand" in ids and "series-new" in ids
    assert "H100 SXM: price history" in text
    assert "Cloud, USD per GPU-hour (cheapest)" in text and "Hardware, USD per GPU (cheapest)" in text


@pytest.mark.parametrize(("params", "rule"), [({"gpu": "GTX 9999"}, "known_gpu"), ({}, "missing")])
def test_price_history_chart_names_the_bad_gpu(client: TestClient, params: dict[str, str], rule: str) -> None:
    response = client.get("/v1/prices/history.svg", params=params)
    assert response.status_code == 422
    assert response.headers["content-type"].startswith("application/problem+json")
    named = [{"field": e["field"], "rule": e["rule"]} for e in response.json()["errors"]]
    assert {"field": "gpu", "rule": rule} in named


def _history(rows: list[tuple[str, str, str, str, str, float, int | None]]) -> pd.DataFrame:
    """(observed_at, kind, provider, pricing, name, usd_per_gpu, snapshot_id) rows in the history layout."""
    frame = pd.DataFrame(
        [{"observed_at": pd.Timestamp(at, tz="UTC"), "kind": kind, "provider": provider, "pricing": pricing,
          "name": name, "usd": usd, "gpu_count": 1, "usd_per_gpu": usd, "snapshot_id": snap, "gpu": "X"}
         for at, kind, provider, pricing, name, usd, snap in rows])
    return frame.reindex(columns=HISTORY_COLUMNS)


def test_cheapest_over_time_follows_replacement_per_provider() -> None:
    history = _history([
        ("2025-01-01", "cloud", "a", "on_demand", "small", 2.0, None),   # bundled: a's cheapest is 2
        ("2025-01-01", "cloud", "a", "on_demand", "big", 3.0, None),
        ("2025-03-01", "cloud", "a", "on_demand", "small", 5.0, 7),      # a's refresh replaces both: 5
        ("2025-05-01", "cloud", "b", "on_demand", "x", 4.0, 8),          # b arrives cheaper: 4
        ("2025-06-01", "cloud", "a", "on_demand", "small", 1.5, 9),      # a drops below b: 1.5
        ("2025-02-01", "cloud", "a", "spot", "small", 0.9, None),
        ("2024-06-01", "used", "eBay", "list", "card", 700.0, None),
        ("2024-06-01", "new", "shop", "list", "card", 1500.0, None),
    ])
    series = cheapest_over_time(history)
    assert set(series) == {"cloud-on_demand", "cloud-spot", "used", "new"}
    on_demand = series["cloud-on_demand"]
    assert [t.date().isoformat() for t in on_demand.index] == ["2025-01-01", "2025-03-01", "2025-05-01", "2025-06-01"]
    assert list(on_demand) == [2.0, 5.0, 4.0, 1.5]
    assert list(series["cloud-spot"]) == [0.9] and list(series["used"]) == [700.0] and list(series["new"]) == [1500.0]


def test_price_history_without_prices_says_so() -> None:
    ids, text = _svg(price_history_svg("Nothing", pd.DataFrame(columns=HISTORY_COLUMNS)))
    assert "no prices recorded for Nothing" in text
    assert not {i for i in ids if i.startswith("series-")}


def test_price_history_only_draws_the_panels_it_has() -> None:
    history = _history([("2025-01-01", "cloud", "a", "on_demand", "vm", 2.0, None),
                        ("2025-04-01", "cloud", "a", "on_demand", "vm", 1.0, 3)])
    ids, text = _svg(price_history_svg("X", history, until=dt.datetime(2025, 6, 1, tzinfo=dt.UTC)))
    assert "series-cloud-on_demand" in ids and "series-used" not in ids
    assert "Hardware, USD per GPU (cheapest)" not in text
