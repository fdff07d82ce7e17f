"""`gpuplan import-usage`: the sample logs as Rich tables and as JSON, options, and errors without a trace."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from service.cli import app

runner = CliRunner()
DATA = Path(__file__).resolve().parents[2] / "solvers" / "usage" / "data"


def _json(*args: str) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(app, ["import-usage", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)  # type: ignore[no-any-return]


def test_sacct_as_json_with_the_hourly_series() -> None:
    out = _json(str(DATA / "sacct_allocations.txt"))
    assert out["series"]["source_format"] == "slurm"
    assert out["series"]["start"] == "2024-05-01T10:00:00Z"
    assert out["series"]["busy_gpus"] == [2.0, 4.0, 2.25, 5.75]
    assert out["series"]["instant_peak"] == 7.0
    assert (out["summary"]["peak"], out["summary"]["gpu_hours"]) == (5.75, 14.0)
    assert out["summary"]["months"][0]["month"] == "2024-05"
    assert len(out["summary"]["months"][0]["duration_curve"]) == 24


def test_sacct_as_tables() -> None:
    result = runner.invoke(app, ["import-usage", str(DATA / "sacct_allocations.txt")])
    assert result.exit_code == 0, result.output
    for text in ("slurm", "5 GPU jobs", "a100, v100", "14.0", "5.75", "2024-05", "running jobs"):
        assert text in result.output


def test_format_time_zone_and_rule_options() -> None:
    berlin = _json(str(DATA / "nvidia_smi.csv"), "--format", "nvidia-smi", "--tz", "Europe/Berlin")
    assert berlin["series"]["start"] == "2024-05-01T09:00:00Z"
    assert berlin["series"]["busy_gpus"] == [1.0, 1.25, 1.5]
    fractional = _json(str(DATA / "nvidia_smi.csv"), "--fractional")
    assert fractional["series"]["busy_gpus"] == [0.87, 0.8775, 1.495]
    strict = _json(str(DATA / "nvidia_smi.csv"), "--busy-threshold", "50")
    # at 50%: 11h GPU 0 (87); 12h two of four samples on each GPU (92, 100 and 55, 61); 13h 97 of two, 100 of one
    assert strict["series"]["busy_gpus"] == [1.0, 1.0, 1.5]
    later = _json(str(DATA / "sacct_allocations.txt"), "--until", "2024-05-01T15:00:00")
    assert later["series"]["busy_gpus"] == [2.0, 4.0, 2.25, 5.75, 4.0]


def test_dcgm_tables() -> None:
    result = runner.invoke(app, ["import-usage", str(DATA / "dcgm_query_range.json"), "--format", "prometheus"])
    assert result.exit_code == 0, result.output
    assert "prometheus" in result.output and "3 GPUs" in result.output and "2 hosts" in result.output


def test_a_bad_file_names_line_and_field_without_a_trace(tmp_path: Path) -> None:
    log = tmp_path / "gpu.csv"
    log.write_text("timestamp, index, utilization.gpu [%]\n2024/05/01 12:00:00.000, 0, 87 %\n"
                   "2024/05/01 12:00:05.000, 0, lots\n")
    result = runner.invoke(app, ["import-usage", str(log)])
    assert result.exit_code == 2
    assert "line 3, field utilization.gpu [%]" in result.output and "Traceback" not in result.output


def test_the_wrong_format_and_a_bad_threshold_are_refused() -> None:
    wrong = runner.invoke(app, ["import-usage", str(DATA / "nvidia_smi.csv"), "--format", "slurm"])
    assert wrong.exit_code == 2 and "line 1" in wrong.output
    unknown = runner.invoke(app, ["import-usage", str(DATA / "nvidia_smi.csv"), "--format", "csv"])
    assert unknown.exit_code == 2
    threshold = runner.invoke(app, ["import-usage", str(DATA / "nvidia_smi.csv"), "--busy-threshold", "150"])
    assert threshold.exit_code == 2 and "--busy-threshold" in threshold.output
