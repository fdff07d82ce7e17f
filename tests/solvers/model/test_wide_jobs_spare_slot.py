"""Bare cards pooled for jobs wider than one GPU are bought in whole jobs (solvers/model/arrays.py `unit_bound`).

Hand case: an always-on service of one 2-GPU replica (2 GPUs busy every hour, `jobs.gpus_per_job` 2, `runs`
continuously) for 2027, no cloud, availability 0.95, own price only: bare RTX 6000 Ada cards at $7,000, 300 W, no
idle draw, $0.10 per kWh, no resale. At 95% availability one replica's slot works at most 95% of the hours, so the
service needs a second slot, a spare replica: 2 more cards, 4 in all, each pair in one host (a job's GPUs sit in one
machine). The bound on units counted cards, ceil(1 / 0.95 slots x 2 GPUs / 2 per job ...) = 3 cards, of which only
one whole 2-GPU job could be made, and the profile was called infeasible. The plan: 4 cards ($28,000) in two 2-GPU
workstations ($3,170 each, the bundled catalogue's cheapest host that holds them), energy for 2 working GPUs every
hour with the host's 100 W per working GPU: 2 x 0.4 kW x 8,760 h x $0.10 = $700.80; total $35,040.80.
"""

from __future__ import annotations

import pytest

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.plan import make_plan
from tests.conftest import TODAY


def test_a_spare_replica_of_a_two_gpu_job_is_two_more_cards() -> None:
    body = {"workload": "inference_16bit",
            "demand": {"gpus": 2, "utilisation": 1.0, "reference_gpu": "RTX 6000 Ada", "start": "2027-01-01"},
            "jobs": {"gpus_per_job": 2, "runs": "continuously"}, "horizon_months": 12, "electricity_usd_per_kwh": 0.1,
            "options": {"allow_cloud": False, "resale": False, "availability": 0.95},
            "prices": {"mode": "replace", "cloud": [],
                       "owned": [{"name": "RTX 6000 Ada card", "gpu": "RTX 6000 Ada", "unit_price_usd": 7000,
                                  "watts": 300, "idle_watts": 0, "includes_host": False}]}}
    plan = make_plan(Profile.model_validate(body), bundled_catalog(), TODAY)
    assert [(b.name, b.count) for b in plan.buy] == [("RTX 6000 Ada card", 4)]
    assert sum(h.count * h.unit_price_usd for h in plan.hosts) == pytest.approx(6_340.0)
    assert plan.total_cost_usd == pytest.approx(35_040.80, abs=0.01)
