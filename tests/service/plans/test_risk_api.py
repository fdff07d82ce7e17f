"""Issue 32 over HTTP and the CLI: a profile with `uncertainty` plans with a `risk` object, its risk CSV and the
purchase request carry the figures, bad values are 422s naming the field and rule, and `gpuplan plan` prints them."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from service.app import create_app
from service.cli import app as cli
from service.core.settings import Settings

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "lab-uncertainty.json"


def _profile(**uncertainty: Any) -> dict[str, Any]:
    profile = json.loads(EXAMPLE.read_text())
    profile["uncertainty"] = {**profile["uncertainty"], "scenarios": 16, **uncertainty}
    return profile


@pytest.fixture
def client(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url)), raise_server_exceptions=False)


def test_plan_carries_risk_and_its_exports(client: TestClient) -> None:
    created = client.post("/v1/plans", json=_profile())
    assert created.status_code == 201, created.text
    plan = created.json()
    risk = plan["risk"]
    assert risk["scenarios"] == 16 and len(risk["totals_usd"]) == 16 and len(risk["fan"]) == len(plan["periods"])
    assert risk["expected_total_usd"] <= risk["deterministic_expected_total_usd"] + 0.01
    rows = list(csv.DictReader(io.StringIO(client.get(f"/v1/plans/{plan['id']}/risk.csv").text)))
    by_measure = {r["measure"]: r for r in rows}
    assert float(by_measure["expected total"]["plan"]) == risk["expected_total_usd"]
    assert float(by_measure["P90 total"]["cloud_only"]) == risk["cloud_only"]["p90_total_usd"]
    futures = [r for r in rows if r["measure"].startswith("future ")]
    assert [float(r["plan"]) for r in futures] == risk["totals_usd"]
    request = client.get(f"/v1/plans/{plan['id']}/purchase-request").json()
    assert request["risk"]["p50_total_usd"] == risk["p50_total_usd"]
    # a plan without uncertainty has no risk figures
    plain = {k: v for k, v in _profile().items() if k != "uncertainty"}
    other = client.post("/v1/plans", json=plain).json()
    assert other["risk"] is None
    missing = client.get(f"/v1/plans/{other['id']}/risk.csv")
    assert missing.status_code == 409 and missing.headers["content-type"].startswith("application/problem+json")
    assert "without uncertainty" in missing.json()["detail"]


@pytest.mark.parametrize(("uncertainty", "field"), [
    ({"scenarios": 1}, "uncertainty.scenarios"),
    ({"scenarios": 501}, "uncertainty.scenarios"),
    ({"objective": "worst"}, "uncertainty.objective"),
    ({"alpha": 0}, "uncertainty.alpha"),
    ({"decision_months": [6, 0]}, "uncertainty.decision_months"),
    ({"demand": {"scale": [2, 0.5]}}, "uncertainty.demand"),
    ({"demand": {"scale": [0.5, 2], "sigma": 0.3}}, "uncertainty.demand"),
    ({"electricity": {"spread": 1.5}}, "uncertainty.electricity.spread"),
])
def test_bad_uncertainty_is_a_422_naming_the_field(client: TestClient, uncertainty: dict[str, Any],
                                                   field: str) -> None:
    response = client.post("/v1/plans", json=_profile(**uncertainty))
    assert response.status_code == 422, response.text
    fields = [e["field"] for e in response.json()["errors"]]
    assert any(f.startswith(field) for f in fields), fields
    assert all(e["rule"] for e in response.json()["errors"])


def test_cli_prints_the_risk_figures(tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPLAN_DATABASE_URL", database_url)
    profile = tmp_path / "lab.json"
    profile.write_text(json.dumps(_profile()))
    result = CliRunner().invoke(cli, ["plan", str(profile)])
    assert result.exit_code == 0, result.output
    assert "Across 16 futures" in result.output and "value of the stochastic solution" in result.output
    assert "chance the plan beats cloud only" in result.output
