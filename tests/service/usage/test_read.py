"""POST /v1/usage and POST /v1/usage/chart.svg: a usage log read (and charted) without a saved profile, as the
planning page's file input asks; nothing is stored, and the demand it answers plans as POST /v1/plans takes it."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from fastapi.testclient import TestClient

from service.plans.examples import CATALOG_EXAMPLE
from tests.service.labs.helpers import Lab
from tests.service.usage.helpers import DATA, ok


def test_a_sacct_log_is_read_into_a_demand_without_storing_it(client: TestClient, lab: Lab) -> None:
    text = (DATA / "sacct_allocations.txt").read_text()
    answer = ok(client.post("/v1/usage", json={"text": text, "reference_gpu": "RTX 3090"}, headers=lab.headers()))
    # by hand from the sample (as in test_endpoints): 10h 2 GPUs; 11h 2+2; 12h 2 + 1 for 15 min; 13h 1 + 4 + 0.75
    demand = answer["demand"]
    assert demand["busy_gpus"] == [2.0, 4.0, 2.25, 5.75] and demand["reference_gpu"] == "RTX 3090"
    assert demand["start"].startswith("2024-05-01T10:00") and demand["resolution"] == "hour"
    assert (answer["usage"]["peak"], answer["usage"]["gpu_hours"], answer["usage"]["jobs"]) == (5.75, 14.0, 5)
    assert ok(client.get("/v1/profiles", headers=lab.headers()))["items"] == []  # nothing stored
    # the demand plans as it is: the log's span is the horizon (one day), its 14 busy GPU-hours the work
    profile = {**CATALOG_EXAMPLE, "demand": demand}
    profile.pop("horizon_months")
    plan = ok(client.post("/v1/plans", json=profile, headers=lab.headers()), 201)
    assert plan["horizon"]["days"] == 1
    assert sum(p["demand_reference_gpu_hours"] for p in plan["periods"]) == pytest.approx(14.0)


@pytest.mark.parametrize(("name", "fmt", "hours", "peak"), [
    ("nvidia_smi.csv", "nvidia-smi", 3, 1.5), ("dcgm_query_range.json", "prometheus", 2, 2.0),
    ("sacct_allocgres.txt", "slurm", 2, 2.5)])
def test_every_sample_format_is_read(client: TestClient, lab: Lab, name: str, fmt: str, hours: int,
                                     peak: float) -> None:
    answer = ok(client.post("/v1/usage", json={"text": (DATA / name).read_text(), "reference_gpu": "A100 80GB"},
                            headers=lab.headers()))
    assert (answer["usage"]["source_format"], len(answer["demand"]["busy_gpus"]), answer["usage"]["peak"]) == (
        fmt, hours, peak)


def test_a_bad_log_names_the_line_and_the_field(client: TestClient, lab: Lab) -> None:
    lines = (DATA / "sacct_allocations.txt").read_text().splitlines()
    lines[4] = lines[4].replace("gres/gpu=1", "gres/gpu=one")
    refused = client.post("/v1/usage", json={"text": "\n".join(lines), "reference_gpu": "RTX 3090"},
                          headers=lab.headers())
    assert refused.status_code == 422, refused.text
    error = refused.json()["errors"][0]
    assert (error["field"], error["rule"]) == ("text", "usage_log")
    assert "line 5" in error["message"] and "AllocTRES" in error["message"], error
    missing = client.post("/v1/usage", json={"text": "\n".join(lines[:2])}, headers=lab.headers())
    assert missing.status_code == 422 and missing.json()["errors"][0]["field"] == "reference_gpu", missing.text


def test_without_a_key_the_log_is_not_read(client: TestClient) -> None:
    text = (DATA / "sacct_allocations.txt").read_text()
    assert client.post("/v1/usage", json={"text": text, "reference_gpu": "RTX 3090"}).status_code == 401


def test_the_chart_of_a_sent_demand_draws_each_month(client: TestClient, lab: Lab) -> None:
    # 30 hours from 2024-05-31 20:00: four in May, 26 in June, so two curves; June's peak (7) is the busiest
    busy = [1.0] * 4 + [3.0] * 25 + [7.0]
    demand = {"start": "2024-05-31T20:00:00Z", "busy_gpus": busy, "reference_gpu": "RTX 3090"}
    chart = client.post("/v1/usage/chart.svg", json=demand, headers=lab.headers())
    assert chart.status_code == 200 and chart.headers["content-type"].startswith("image/svg+xml"), chart.text
    root = ET.fromstring(chart.content)
    gids = {el.get("id") for el in root.iter() if (el.get("id") or "").startswith("usage-")}
    assert gids == {"usage-2024-05", "usage-2024-06"}
    assert "Jun 2024 (busiest)" in chart.text  # the month as the English page writes it
    bad = client.post("/v1/usage/chart.svg", json={**demand, "busy_gpus": [0.0, 0.0]}, headers=lab.headers())
    assert bad.status_code == 422 and bad.json()["errors"][0]["field"].startswith("busy_gpus"), bad.text
