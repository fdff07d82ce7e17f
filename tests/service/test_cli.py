"""The `gpuplan` command prints the same plan as the API."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from service.cli import app
from service.examples import WORKED_EXAMPLE

runner = CliRunner()


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
