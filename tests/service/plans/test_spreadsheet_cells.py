"""Issue 19: CSV exports never hand a spreadsheet a formula (OWASP CSV injection), whoever named the offer."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

import pandas as pd
import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.dependencies import runtime_of
from service.core.settings import Settings
from service.core.spreadsheet import neutralise
from tests.conftest import cloud_item, owned_item, simple_profile
from tests.service.alerts.helpers import cloud, store

FORMULAS = ["=cmd|' /C calc'!A0", "+SUM(1+1)", "-2+3+cmd|' /C calc'!A0", "@SUM(1,1)", "\tTAB", "\rCR"]


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(Settings(database_url=database_url, scheduler=False))) as c:
        yield c


@pytest.mark.parametrize("text", FORMULAS)
def test_text_that_starts_like_a_formula_is_quoted(text: str) -> None:
    assert neutralise(text) == "'" + text
    assert neutralise("RTX 3090") == "RTX 3090" and neutralise(-12.5) == -12.5 and neutralise("a=b") == "a=b"


def test_the_plan_csv_quotes_formula_names_and_keeps_numbers(client: TestClient) -> None:
    profile = simple_profile([owned_item(1000, name="=cmd|' /C calc'!A0", source="@vendor")],
                             [cloud_item(2.0, name="+SUM(1+1)", provider="-dde")], utilisation=0.6)
    plan = client.post("/v1/plans", json=profile)
    assert plan.status_code == 201, plan.text
    text = client.get(f"/v1/plans/{plan.json()['id']}.csv").text
    rows = list(csv.DictReader(io.StringIO(text)))
    cells = [cell for row in rows for cell in row.values()]
    assert not [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r")], cells
    assert any(c == "'=cmd|' /C calc'!A0" for c in cells)
    # numbers stay numbers: the line totals still add up to the plan's total
    total = sum(float(row["line_total"]) for row in rows)
    assert abs(total - plan.json()["total_cost_usd"]) < 0.005


def test_cloud_lines_starting_with_a_provider_formula_are_quoted(client: TestClient) -> None:
    profile = simple_profile([], [cloud_item(2.0, name="+SUM(1+1)", provider="-2+3")], allow_buy=False)
    plan = client.post("/v1/plans", json=profile)
    assert plan.status_code == 201, plan.text
    rows = list(csv.DictReader(io.StringIO(client.get(f"/v1/plans/{plan.json()['id']}.csv").text)))
    cloud_rows = [row for row in rows if row["type"] == "cloud"]
    assert cloud_rows and all(row["item"].startswith("'-2+3 +SUM") for row in cloud_rows), cloud_rows
    assert all(row["vendor_source"].startswith("'-2+3") for row in cloud_rows)


def test_the_price_history_csv_quotes_formula_names(client: TestClient) -> None:
    engine = runtime_of(client.app).engine  # type: ignore[arg-type]
    store(engine, [cloud("RTX 3090", 0.5, name="=HYPERLINK(\"http://x\")", provider="@evil")])
    answer = client.get("/v1/prices/history", params={"gpu": "RTX 3090", "format": "csv", "include_snapshot": False})
    table = pd.read_csv(io.StringIO(answer.text))
    assert list(table["name"]) == ["'=HYPERLINK(\"http://x\")"] and list(table["provider"]) == ["'@evil"]
    assert table["usd"].tolist() == [0.5]
