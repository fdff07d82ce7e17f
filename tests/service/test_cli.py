"""The `gpuplan` command: plans like the API, refreshes prices (table per source), imports vendor quotes.
Every command runs on the test database (GPUPLAN_DATABASE_URL)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from typer.testing import CliRunner

from pricing.sources import SOURCE_CLASSES
from service.cli import app
from service.plans.examples import WORKED_EXAMPLE
from tests.pricing.replays.runpod import RunPodReplay

runner = CliRunner()
QUOTES = Path(__file__).resolve().parents[1] / "pricing" / "sources" / "data" / "feed" / "vendor_quotes.csv"


@pytest.fixture(autouse=True)
def cli_database(database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPLAN_DATABASE_URL", database_url)


def _only_runpod(monkeypatch: pytest.MonkeyPatch, server: HTTPServer) -> None:
    for key in SOURCE_CLASSES:
        if key != "runpod":
            monkeypatch.setenv(f"GPUPLAN_SOURCES__{key.upper()}__ENABLED", "false")
    monkeypatch.setenv("GPUPLAN_SOURCES__RUNPOD__BASE_URL", server.url_for("/").rstrip("/"))
    monkeypatch.setenv("GPUPLAN_SOURCES__RUNPOD__RETRIES", "0")


def test_plan_json_and_tables(tmp_path: Path) -> None:
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps(WORKED_EXAMPLE))
    as_json = runner.invoke(app, ["plan", str(profile), "--json"])
    assert as_json.exit_code == 0, as_json.output
    assert 285 <= json.loads(as_json.output)["break_even"]["days"] <= 300
    tables = runner.invoke(app, ["plan", str(profile)])
    assert tables.exit_code == 0 and "Break-even" in tables.output and "293" in tables.output


def test_plan_reports_bad_input_without_trace(tmp_path: Path) -> None:
    profile = tmp_path / "bad.json"
    profile.write_text(json.dumps({**WORKED_EXAMPLE, "horizon_months": 0}))
    result = runner.invoke(app, ["plan", str(profile)])
    assert result.exit_code == 2
    assert "horizon_months" in result.output and "Traceback" not in result.output


def test_gpus_and_prices_commands() -> None:
    assert "RTX 3090" in runner.invoke(app, ["gpus"]).output
    out = runner.invoke(app, ["prices", "--gpu", "RTX 4090"]).output
    assert "eBay" in out


def test_refresh_stores_prices_and_prints_a_summary(monkeypatch: pytest.MonkeyPatch, server: HTTPServer) -> None:
    _only_runpod(monkeypatch, server)
    RunPodReplay().install_good(server)
    result = runner.invoke(app, ["refresh"])
    assert result.exit_code == 0, result.output
    assert "runpod" in result.output and "ok" in result.output and "rows fetched" in result.output
    assert "disabled" in result.output and "azure" in result.output
    listed = runner.invoke(app, ["prices", "--provider", "runpod"]).output
    assert "(secure)" in listed  # the live RunPod rows (named by tier) replaced the bundled ones


def test_refresh_failure_exits_non_zero_and_says_why(monkeypatch: pytest.MonkeyPatch, server: HTTPServer) -> None:
    _only_runpod(monkeypatch, server)
    server.expect_request("/graphql").respond_with_data("oops", status=500)
    result = runner.invoke(app, ["refresh", "--source", "runpod"])
    assert result.exit_code == 1 and "failed" in result.output and "500" in result.output
    assert runner.invoke(app, ["refresh", "--source", "nosuch"]).exit_code == 2


def test_import_prices_loads_vendor_quotes(tmp_path: Path) -> None:
    result = runner.invoke(app, ["import-prices", str(QUOTES), "--label", "lab-q4"])
    assert result.exit_code == 0, result.output
    assert "imported" in result.output and "quotes:lab-q4" in result.output
    listed = runner.invoke(app, ["prices", "--gpu", "RTX 3090"]).output
    assert "Local reseller" in listed and "719" in listed
    bad = tmp_path / "bad.csv"
    bad.write_text("gpu,condition,unit_price_usd\nRTX 4090,mint,1500\n")
    refused = runner.invoke(app, ["import-prices", str(bad)])
    assert refused.exit_code == 2 and "condition" in refused.output and "Traceback" not in refused.output


def test_alerts_command_evaluates_imports_and_sends(tmp_path: Path, server: HTTPServer, database_url: str,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """The cron set-up: prices imported by the CLI, alerts evaluated and sent by the CLI, no service running."""
    from fastapi.testclient import TestClient

    from service.app import create_app
    from service.core.settings import Settings
    from tests.service.alerts.helpers import Receiver, serve

    monkeypatch.setenv("GPUPLAN_ALERTS_ALLOWED_NETWORKS", "127.0.0.0/8")
    quotes = tmp_path / "q.csv"
    quotes.write_text("gpu,condition,unit_price_usd,vendor\nRTX 3090,used,800,Local reseller\n")
    assert runner.invoke(app, ["import-prices", str(quotes), "--label", "lab"]).exit_code == 0
    assert "0 alert event(s)" in runner.invoke(app, ["alerts"]).output
    receiver = Receiver()
    with TestClient(create_app(Settings(database_url=database_url, scheduler=False))) as client:
        receiver.expect(client.post("/v1/alerts", json={
            "name": "used 3090", "delivery": {"type": "webhook", "url": serve(server, receiver)},
            "condition": {"type": "price_threshold", "gpu": "RTX 3090", "kind": "used", "below_usd": 700}}).json())
    quotes.write_text("gpu,condition,unit_price_usd,vendor\nRTX 3090,used,650,Local reseller\n")
    assert runner.invoke(app, ["import-prices", str(quotes), "--label", "lab"]).exit_code == 0
    result = runner.invoke(app, ["alerts"])
    assert result.exit_code == 0, result.output
    assert "1 alert event(s)" in result.output and "sent 1 alert(s)" in result.output
    assert [b["summary"] for b in receiver.bodies] == [
        "used RTX 3090 from Local reseller is now 650.00 USD per GPU, under 700.00"]
