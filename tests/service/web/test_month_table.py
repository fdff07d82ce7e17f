"""The page's month-by-month table shows the plan's per-period report (peaks, idle rented GPUs, waiting), run
in Node on a minimal DOM (skipped where Node is not installed)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings
from service.plans.examples import CATALOG_EXAMPLE
from tests.service.web.node_page import NODE, run_page


def month_table(plan: dict[str, Any]) -> list[list[str]]:
    """Rows of the page's month table (header first, footer last) as the browser would show their text."""
    rows: list[list[str]] = run_page(["plan-text.js", "plan-result.js"],
                                     "const rows = find(gpResult.months(INPUT), 'tr');"
                                     "console.log(JSON.stringify(rows.map((r) => r.children.map(text))));", plan)
    return rows


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_month_table_shows_peaks_idle_rented_gpus_and_waiting(database_url: str) -> None:
    with TestClient(create_app(Settings(database_url=database_url, scheduler=False))) as client:
        answer = client.post("/v1/plans", json=CATALOG_EXAMPLE)
    assert answer.status_code in (200, 201), answer.text
    plan = answer.json()
    header, first, *_, footer = month_table(plan)
    assert header[4:7] == ["Peak owned GPUs", "Peak rented GPUs", "Unused rented GPU-h"]
    assert "Waited GPU-h" not in header  # nothing may wait in this profile
    period = plan["periods"][0]
    assert first[4:7] == [f"{period[k]:,.1f}" for k in ("peak_owned_gpus", "peak_rented_gpus",
                                                          "unused_rented_gpu_hours")]
    assert footer[6] == f"{sum(p['unused_rented_gpu_hours'] for p in plan['periods']):,.1f}"

    plan["periods"][1] |= {"waited_gpu_hours": 12.5, "max_wait_hours": 30}
    header, _, second, *_ = month_table(plan)
    assert header[7:9] == ["Waited GPU-h", "Max wait (h)"] and second[7:9] == ["12.5", "30"]


@pytest.mark.skipif(NODE is None, reason="Node.js is not installed")
def test_the_month_table_says_whether_always_on_load_was_served_every_hour(database_url: str) -> None:
    service = {"workload": "inference_16bit", "min_gpu_memory_gb": 80, "horizon_months": 3,
               "demand": {"gpus": 2, "utilisation": 1.0, "reference_gpu": "H100 SXM", "start": "2027-01-01"},
               "jobs": {"runs": "continuously"}}
    with TestClient(create_app(Settings(database_url=database_url, scheduler=False))) as client:
        answer = client.post("/v1/plans", json=service)
        training = client.post("/v1/plans", json=CATALOG_EXAMPLE).json()
    assert answer.status_code == 201, answer.text
    plan = answer.json()
    header, first, *_, footer = month_table(plan)
    column = header.index("Served every hour")
    assert first[column] == "yes" and footer[column] == "yes"
    plan["periods"][1]["served_every_hour"] = False
    _, _, second, *_, footer = month_table(plan)
    assert second[column] == "no" and footer[column] == "no"
    assert "Served every hour" not in month_table(training)[0]  # work that runs until done: no such column
