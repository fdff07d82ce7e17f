"""POST /v1/profiles/{id}/usage and GET /v1/profiles/{id}/usage.svg on the sample logs of tests/solvers/usage/data."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from fastapi.testclient import TestClient

from service.plans.examples import CATALOG_EXAMPLE
from tests.service.labs.helpers import Lab
from tests.service.usage.helpers import DATA, ok


def saved_profile(client: TestClient, lab: Lab) -> str:
    body = {"name": "cluster", "tags": ["usage"], "profile": CATALOG_EXAMPLE}
    return str(ok(client.post("/v1/profiles", json=body, headers=lab.headers()), 201)["id"])


def test_a_sacct_log_becomes_the_profiles_hourly_demand(client: TestClient, lab: Lab) -> None:
    pid = saved_profile(client, lab)
    text = (DATA / "sacct_allocations.txt").read_text()
    answer = ok(client.post(f"/v1/profiles/{pid}/usage", json={"text": text, "reference_gpu": "A100 80GB"},
                            headers=lab.headers()))
    # by hand from the sample (see tests/solvers/usage): 10h 2 GPUs; 11h 2+2; 12h 2 + 1 GPU for 15 min;
    # 13h 2 for half the hour + 4 (running, until the file's last time 14:00) + 1 for 45 min
    demand = answer["profile"]["profile"]["demand"]
    assert demand["busy_gpus"] == [2.0, 4.0, 2.25, 5.75]
    assert demand["start"].startswith("2024-05-01T10:00") and demand["resolution"] == "hour"
    assert demand["reference_gpu"] == "A100 80GB"
    assert answer["profile"]["version"] == 2 and answer["profile"]["profile"]["horizon_months"] is None
    usage = answer["usage"]
    assert usage["source_format"] == "slurm" and usage["hours"] == 4 and usage["jobs"] == 5
    assert usage["peak"] == 5.75 and usage["gpu_hours"] == 14.0 and usage["mean"] == 3.5
    assert [m["month"] for m in usage["months"]] == ["2024-05"]
    curve = usage["months"][0]["duration_curve"]
    assert curve[0] == 5.75 and curve[-1] == 2.0 and curve == sorted(curve, reverse=True)
    # the stored profile is the new version, and the old one stays readable
    assert ok(client.get(f"/v1/profiles/{pid}", headers=lab.headers()))["profile"]["demand"] == demand
    versions = ok(client.get(f"/v1/profiles/{pid}/versions", headers=lab.headers()))
    assert [v["profile"]["demand"].get("utilisation") for v in versions] == [0.15, None]


@pytest.mark.parametrize(("name", "fmt", "hours", "peak"), [
    ("nvidia_smi.csv", "nvidia-smi", 3, 1.5), ("dcgm_query_range.json", "prometheus", 2, 2.0),
    ("sacct_allocgres.txt", "slurm", 2, 2.5)])
def test_every_sample_format_imports(client: TestClient, lab: Lab, name: str, fmt: str, hours: int,
                                     peak: float) -> None:
    pid = saved_profile(client, lab)
    usage = ok(client.post(f"/v1/profiles/{pid}/usage", json={"text": (DATA / name).read_text(), "format": fmt},
                           headers=lab.headers()))["usage"]
    assert (usage["source_format"], usage["hours"], usage["peak"]) == (fmt, hours, peak)


def test_a_bad_log_names_line_and_field_and_changes_nothing(client: TestClient, lab: Lab) -> None:
    pid = saved_profile(client, lab)
    lines = (DATA / "sacct_allocations.txt").read_text().splitlines()
    lines[2] = lines[2].replace("2024-05-01T11:00:00", "yesterday")
    refused = client.post(f"/v1/profiles/{pid}/usage", json={"text": "\n".join(lines)}, headers=lab.headers())
    assert refused.status_code == 422, refused.text
    error = refused.json()["errors"][0]
    assert error["field"] == "text" and "line 3" in error["message"] and "Start" in error["message"]
    zone = client.post(f"/v1/profiles/{pid}/usage", json={"text": "\n".join(lines[:2]), "tz": "Mars/Olympus"},
                       headers=lab.headers())
    assert zone.status_code == 422 and zone.json()["errors"][0]["field"] == "tz", zone.text
    idle = "JobID|Start|End|AllocTRES|State\n1|2024-05-01T10:00:00|2024-05-01T11:00:00|cpu=4|COMPLETED\n"
    nothing = client.post(f"/v1/profiles/{pid}/usage", json={"text": idle}, headers=lab.headers())
    assert nothing.status_code == 422 and nothing.json()["errors"][0]["field"] == "text", nothing.text
    unknown = client.post(f"/v1/profiles/{pid}/usage", json={"text": lines[0] + "\n" + lines[1],
                                                             "reference_gpu": "GeForce 256"}, headers=lab.headers())
    assert unknown.status_code == 422, unknown.text
    stored = ok(client.get(f"/v1/profiles/{pid}", headers=lab.headers()))
    assert stored["version"] == 1 and stored["profile"]["demand"]["utilisation"] == 0.15


def test_the_chart_draws_one_load_duration_curve_per_month(client: TestClient, lab: Lab) -> None:
    pid = saved_profile(client, lab)
    assert client.get(f"/v1/profiles/{pid}/usage.svg", headers=lab.headers()).status_code == 409
    ok(client.post(f"/v1/profiles/{pid}/usage", json={"text": (DATA / "sacct_allocations.txt").read_text()},
                   headers=lab.headers()))
    chart = client.get(f"/v1/profiles/{pid}/usage.svg", headers=lab.headers())
    assert chart.status_code == 200 and chart.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(chart.content)
    gids = {el.get("id") for el in root.iter() if (el.get("id") or "").startswith("usage-")}
    assert gids == {"usage-2024-05"}
    assert "busiest" in chart.text
