"""Issue 31 over HTTP: usage imports that took gigabytes and tens of seconds, or answered 500, are a 422 naming the
field, at once, and the profile they were sent to is unchanged."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.plans.examples import SERIES_EXAMPLE
from tests.service.labs.helpers import Lab
from tests.service.usage.helpers import ok

RUNNING = "JobID|Start|End|AllocTRES|State\n1|2026-01-01T00:00:00|Unknown|gres/gpu=1|RUNNING\n"


def _dcgm(stamp: str) -> str:
    series = {"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "gpu": "0", "Hostname": "n1"},
              "values": [[1.767e9, "50"], ["STAMP", "50"]]}
    doc = json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [series]}})
    return doc.replace('"STAMP"', stamp)


CASES: list[tuple[str, dict[str, Any], str]] = [
    ("sacct running until 9999-12-31", {"text": RUNNING, "until": "9999-12-31T00:00:00Z"}, "until"),
    ("sacct running until 2099", {"text": RUNNING, "until": "2099-01-01T00:00:00Z"}, "until"),
    ("sacct 10^20 GPUs", {"text": RUNNING.replace("gpu=1", "gpu=100000000000000000000")}, "text"),
    ("DCGM -1e12 s", {"text": _dcgm("-1e12")}, "text"),
    ("DCGM NaN", {"text": _dcgm("NaN")}, "text"),
    ("DCGM Infinity", {"text": _dcgm("Infinity")}, "text"),
    ("DCGM 1e300", {"text": _dcgm("1e300")}, "text"),
    ("DCGM nested 50,000 deep", {"text": "[" * 50_000 + "]" * 50_000, "format": "prometheus"}, "text"),
    ("nvidia-smi year 5000", {"text": "timestamp, index, utilization.gpu [%]\n"
                                      "5000/01/01 00:00:00.000, 0, 50 %\n"}, "text"),
]


@pytest.mark.parametrize(("label", "body", "field"), CASES, ids=[c[0] for c in CASES])
def test_a_hostile_log_is_a_422_naming_the_field(client: TestClient, lab: Lab, label: str, body: dict[str, Any],
                                                 field: str) -> None:
    saved = ok(client.post("/v1/profiles", json={"name": "p", "profile": SERIES_EXAMPLE}, headers=lab.headers()), 201)
    began = time.perf_counter()
    answer = client.post(f"/v1/profiles/{saved['id']}/usage", json=body, headers=lab.headers())
    assert answer.status_code == 422, (label, answer.status_code, answer.text[:300])
    assert time.perf_counter() - began < 5, label
    assert [e["field"] for e in answer.json()["errors"]] == [field], answer.text
    unsaved = client.post("/v1/usage", json={**body, "reference_gpu": "RTX 3090"}, headers=lab.headers())
    assert unsaved.status_code == 422 and unsaved.json()["errors"][0]["field"] == field, unsaved.text
    versions = ok(client.get(f"/v1/profiles/{saved['id']}/versions", headers=lab.headers()))
    assert len(versions) == 1  # nothing stored changed
