"""POST /v1/estimate and `gpuplan estimate`: the workload compiler over HTTP and on the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from pricing.gpus import bundled_gpus
from service.app import create_app
from service.cli import app as cli_app
from service.core.settings import Settings

LORA = {"kind": "fine_tune", "method": "lora", "model": {"params_b": 13}, "tokens": 2e9}
SERVE_70B = {"kind": "serve", "model": {"params_b": 70, "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8},
             "precision": "int8", "requests_per_second": 5}
runner = CliRunner()


@pytest.fixture
def client(database_url: str) -> TestClient:
    return TestClient(create_app(Settings(database_url=database_url)), raise_server_exceptions=False)


def test_estimate_lists_every_gpu_with_jobs_hours_and_flags(client: TestClient) -> None:
    response = client.post("/v1/estimate", json=LORA)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["flops"] == pytest.approx(4 * 13e9 * 2e9)
    rows = {r["gpu"]: r for r in body["gpus"]}
    assert set(rows) == {g.name for g in bundled_gpus()}
    h100 = rows["H100 SXM"]
    assert h100["fits"] and h100["gpus_per_job"] >= 1 and h100["hours_per_job"] > 0
    assert h100["gpu_hours"] == pytest.approx(h100["hours_per_job"] * h100["gpus_per_job"])
    # MI300X rests on the MLPerf LoRA ratios (measured_ratios.csv); the RTX 5090 has no LLM measurement (its timm
    # vision rows speak for the class form only)
    assert not h100["extrapolated"] and not rows["MI300X"]["extrapolated"] and rows["RTX 5090"]["extrapolated"]
    assert all((r["excluded_reason"] is None) == r["fits"] for r in rows.values())


def test_estimate_for_named_gpus_only(client: TestClient) -> None:
    response = client.post("/v1/estimate", params=[("gpu", "RTX4090"), ("gpu", "NVIDIA H100 80GB HBM3")], json=LORA)
    assert response.status_code == 200, response.text
    assert {r["gpu"] for r in response.json()["gpus"]} == {"RTX 4090", "H100 SXM"}


def test_unknown_gpu_and_bad_workload_are_422_naming_the_field(client: TestClient) -> None:
    unknown = client.post("/v1/estimate", params={"gpu": "GTX 9999"}, json=LORA)
    assert unknown.status_code == 422 and "gpu" in unknown.text
    missing = client.post("/v1/estimate", json={"kind": "train", "model": {"params_b": 7}})
    assert missing.status_code == 422 and "tokens" in missing.text and "Traceback" not in missing.text


def test_seven_billion_bf16_does_not_fit_one_80gb_gpu_unsharded(client: TestClient) -> None:
    body = client.post("/v1/estimate", params={"gpu": "H100 SXM"},
                       json={"kind": "train", "model": {"params_b": 7}, "tokens": 1e9}).json()
    row = body["gpus"][0]
    assert row["gpus_per_job"] >= 2 and row["sharding"].startswith("ZeRO-3")
    assert row["memory"]["weights"] * row["gpus_per_job"] == pytest.approx(14.0)


def test_a_serving_replica_over_several_gpus_shows_its_communication(client: TestClient) -> None:
    # Llama-2-70B in int8 at 5 requests a second (figures derived in
    # tests/solvers/workload/test_workload_serving_comm.py):
    # 4 x RTX 4090 over PCIe 4.0, all-reduces through host memory, spend 48% of a request communicating
    response = client.post("/v1/estimate", params=[("gpu", "RTX 4090"), ("gpu", "H100 SXM")], json=SERVE_70B)
    assert response.status_code == 200, response.text
    rows = {r["gpu"]: r for r in response.json()["gpus"]}
    card, h100 = rows["RTX 4090"], rows["H100 SXM"]
    assert card["gpus_per_job"] == 4 and card["gpu_hours"] == pytest.approx(11 * 730 * 4)
    assert card["communication_efficiency"] == pytest.approx(0.523, abs=0.001)
    assert card["all_reduce_latency_us"] == pytest.approx(7.268333 + 3 * 4.981667, rel=1e-5)
    assert card["bus_bandwidth_gbs"] == pytest.approx(18.15)
    assert card["time_per_output_token_ms"] == pytest.approx(36.66, abs=0.01)
    assert "host memory" in card["interconnect"] and "pcie4" in card["interconnect"]
    assert h100["interconnect"].startswith("nvlink4") and "host memory" not in h100["interconnect"]
    assert h100["communication_efficiency"] > card["communication_efficiency"]
    assert any("all-reduces 16-bit activations" in a for a in response.json()["assumptions"])


def test_gpus_endpoint_flags_extrapolated_throughput(client: TestClient) -> None:
    rows = {r["name"]: r for r in client.get("/v1/gpus", params={"workload": "transformer_training"}).json()}
    assert rows["RTX PRO 6000"]["extrapolated"] is True and rows["RTX 4090"]["extrapolated"] is False
    assert rows["MI300X"]["extrapolated"] is False  # MLPerf LoRA ratios (measured_ratios.csv)
    assert rows["RTX 5090"]["extrapolated"] is False  # timm Swin-B against the RTX 4090 (measured_ratios.csv)
    plain = {r["name"]: r for r in client.get("/v1/gpus").json()}
    assert "transformer_training" not in plain["RTX 4090"]["extrapolated_workloads"]
    assert "transformer_training" not in plain["MI300X"]["extrapolated_workloads"]
    assert "cnn_training" in plain["MI300X"]["extrapolated_workloads"]


def test_cli_estimate_table_json_and_errors(tmp_path: Path) -> None:
    work = tmp_path / "work.json"
    work.write_text(json.dumps(LORA))
    table = runner.invoke(cli_app, ["estimate", str(work), "--gpu", "RTX 4090", "--gpu", "MI300X"])
    assert table.exit_code == 0, table.output
    assert "RTX 4090" in table.output and "MI300X" in table.output and "GPUs/job" in table.output
    as_json = runner.invoke(cli_app, ["estimate", str(work), "--json", "--gpu", "A100 80GB"])
    assert as_json.exit_code == 0 and json.loads(as_json.output)["gpus"][0]["gpu"] == "A100 80GB"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "serve", "model": {"params_b": 7}}))
    failed = runner.invoke(cli_app, ["estimate", str(bad)])
    assert failed.exit_code != 0 and "requests_per_second" in failed.output and "Traceback" not in failed.output
