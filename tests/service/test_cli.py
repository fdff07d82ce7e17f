"""The `gpuplan` command: plans like the API, refreshes prices (table per source), imports vendor quotes.
Every command runs on the test database (GPUPLAN_DATABASE_URL)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
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


def test_snapshot_build_writes_the_refreshed_prices_as_loadable_bundle_files(
        monkeypatch: pytest.MonkeyPatch, server: HTTPServer, tmp_path: Path) -> None:
    import pandas as pd

    from pricing.catalog import bundled_catalog, normalise_cloud, normalise_commitments
    from pricing.gpus import bundled_gpus

    _only_runpod(monkeypatch, server)
    RunPodReplay().install_good(server)
    assert runner.invoke(app, ["refresh"]).exit_code == 0
    result = runner.invoke(app, ["snapshot", "build", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "cloud rows" in result.output and str(tmp_path) in result.output
    cloud = pd.read_csv(tmp_path / "cloud_offers.csv", dtype=str, keep_default_na=False)
    loaded = normalise_cloud(cloud, bundled_gpus(), "snapshot", "cloud_offers.csv")  # the service can read it
    runpod = cloud[cloud["provider"] == "runpod"]
    assert len(runpod) > 0 and runpod["notes"].eq("refreshed by source runpod").all()
    assert runpod["as_of"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()  # a date, not the live timestamp
    bundled = bundled_catalog()
    others = loaded[loaded["provider"] != "runpod"]
    assert len(others) == (bundled.cloud["provider"] != "runpod").sum()  # rows no source refreshed are kept
    commitments = pd.read_csv(tmp_path / "commitments.csv", dtype=str, keep_default_na=False)
    assert len(normalise_commitments(commitments, bundled_gpus(), "snapshot", "commitments.csv")) == len(
        bundled.commitments)
    assert (tmp_path / "hardware_prices.csv").read_text().startswith("name,gpu,condition")


def test_snapshot_build_into_an_unwritable_place_fails_cleanly(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    result = runner.invoke(app, ["snapshot", "build", "--out", str(blocker / "sub")])
    assert result.exit_code == 2 and "snapshot not written" in result.output and "Traceback" not in result.output


def _quotes_with(tmp_path: Path, name: str, replace: dict[str, str]) -> Path:
    """The vendor quote file with some text replaced (e.g. its last price cut short)."""
    text = QUOTES.read_text(encoding="utf-8")
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_first_import_cut_short_is_refused_as_implausible(tmp_path: Path) -> None:
    """Issue 19: 92000 -> 92 made an 8x L40S server cost 92 USD, and plans paid off after 17 days."""
    cut = _quotes_with(tmp_path, "cut.csv", {",92000,": ",92,"})
    refused = runner.invoke(app, ["import-prices", str(cut), "--label", "cut"])
    assert refused.exit_code == 2, refused.output
    assert "L40S" in refused.output and "--accept-implausible" in refused.output
    assert "Thinkmate" not in runner.invoke(app, ["prices", "--gpu", "L40S"]).output  # nothing was loaded
    accepted = runner.invoke(app, ["import-prices", str(cut), "--label", "cut", "--accept-implausible"])
    assert accepted.exit_code == 0, accepted.output


def test_a_re_import_goes_through_the_refresh_guards(tmp_path: Path) -> None:
    assert runner.invoke(app, ["import-prices", str(QUOTES), "--label", "q"]).exit_code == 0
    # a price that fell by more than 70% against the set's last import, yet is not below the reference floors
    dropped = _quotes_with(tmp_path, "q.csv", {",16500,": ",4000,"})
    refused = runner.invoke(app, ["import-prices", str(dropped), "--label", "q"])
    # the console wraps long lines wherever the temporary path's length puts the break
    assert refused.exit_code == 2 and "dropped more than 70%" in " ".join(refused.output.split()), refused.output
    assert "gpuplan refresh" not in refused.output and "--accept-implausible" in refused.output
    assert runner.invoke(app, ["import-prices", str(dropped), "--label", "q", "--accept-implausible"]).exit_code == 0


def test_absurd_prices_are_refused_even_when_implausible_ones_are_accepted(tmp_path: Path) -> None:
    absurd = _quotes_with(tmp_path, "absurd.csv", {",92000,": ",1e308,"})
    for extra in ([], ["--accept-implausible"]):
        refused = runner.invoke(app, ["import-prices", str(absurd), *extra])
        assert refused.exit_code == 2 and "absurd" in refused.output, refused.output


@pytest.mark.parametrize("as_of", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "1900-01-01"])
def test_an_as_of_beyond_the_calendar_is_a_row_error_not_a_traceback(tmp_path: Path, as_of: str) -> None:
    quotes = tmp_path / "q.csv"
    quotes.write_text(f"gpu,condition,unit_price_usd,as_of\nRTX 3090,used,800,{as_of}\n")
    refused = runner.invoke(app, ["import-prices", str(quotes)])
    assert refused.exit_code == 2 and "as_of" in refused.output, refused.output
    assert refused.exception is None or isinstance(refused.exception, SystemExit)


def test_plan_json_on_the_process_stdout_is_json_alone(tmp_path: Path) -> None:
    # HiGHS's C++ writes a banner to the process's stdout (file descriptor 1) when the first solver is made, which
    # CliRunner does not capture: run the real command, as a lab pipes `gpuplan plan --json` into its tools
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps(WORKED_EXAMPLE))
    env = {**os.environ, "GPUPLAN_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}"}
    done = subprocess.run([sys.executable, "-c", "from service.cli import app; app()", "plan", str(profile), "--json"],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert not done.stdout.startswith("Running HiGHS")
    assert 285 <= json.loads(done.stdout)["break_even"]["days"] <= 300


def _eur_plan_output(tmp_path: Path, utilisation: float, width: int) -> list[str]:
    """`gpuplan plan` of a one-GPU CNN profile in EUR (German electricity), its lines as printed."""
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"workload": "cnn_training", "horizon_months": 24, "currency": "EUR",
                                   "demand": {"gpus": 1, "utilisation": utilisation, "reference_gpu": "RTX 4090"},
                                   "electricity": {"location": "DE"}}))
    done = runner.invoke(app, ["plan", str(profile)], terminal_width=width)
    assert done.exit_code == 0, done.output
    return done.output.splitlines()


def test_the_cloud_table_states_the_plans_currency(tmp_path: Path) -> None:
    # a plan in EUR converts every money field, the cloud table's hourly prices too: its column must say EUR/h
    header = next(line for line in _eur_plan_output(tmp_path, 0.2, 200) if "provider" in line and "pricing" in line)
    assert "EUR/h" in header and "USD/h" not in header, header


def test_the_reference_offer_is_priced_in_the_plans_currency(tmp_path: Path) -> None:
    # the cloud-price threshold named its offer as the API does, "... at 0.93 USD/h", beside a EUR threshold
    lines = _eur_plan_output(tmp_path, 0.6, 400)
    rows = [line for line in lines if "cloud price threshold" in line or "closed form" in line]
    assert rows and any(" at " in row for row in rows), lines
    assert all("USD/h" not in row for row in rows), rows
    assert any(re.search(r" at [0-9.]+ EUR/h", row) for row in rows), rows
