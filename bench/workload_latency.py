"""Plan latency of workload-form profiles (issue 14): `make_plan` on the bundled catalog, median of N runs.

bench/plan_latency.py times class-form profiles; a workload-form profile is compiled per GPU type first
(solvers/workload/demand.py) and planned on one model in which every type runs at its own job widths. Prints the
median wall and CPU time per profile and the same-run ratio to a class-form plan of the worked example.

Run: python bench/workload_latency.py [--repeat N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import time
from typing import Any

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.plan import make_plan

TODAY = dt.date(2026, 11, 21)
PROFILES: dict[str, dict[str, Any]] = {
    "13B LoRA, 2B tokens a month": {
        "workload": {"kind": "fine_tune", "method": "lora", "model": {"params_b": 13}, "tokens": 2e9,
                     "jobs_per_month": 1},
        "horizon_months": 24, "electricity_usd_per_kwh": 0.15},
    "7B pre-training, 20B tokens a month": {
        "workload": {"kind": "train", "model": {"params_b": 7}, "tokens": 2e10, "jobs_per_month": 1},
        "horizon_months": 24, "electricity_usd_per_kwh": 0.15},
    "class form (worked example)": {
        "workload": "transformer_training", "horizon_months": 24, "electricity_usd_per_kwh": 0.15,
        "demand": {"gpus": 4, "utilisation": 0.5, "reference_gpu": "RTX 3090"}},
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    catalog = bundled_catalog()
    walls: dict[str, float] = {}
    for name, body in PROFILES.items():
        profile = Profile.model_validate(body)
        make_plan(profile, catalog, TODAY)  # warm caches
        wall, cpu = [], []
        for _ in range(args.repeat):
            w0, c0 = time.perf_counter(), time.process_time()
            make_plan(profile, catalog, TODAY)
            wall.append(time.perf_counter() - w0)
            cpu.append(time.process_time() - c0)
        walls[name] = statistics.median(wall)
        print(f"{name:40s} median {1000 * walls[name]:7.1f} ms wall, {1000 * statistics.median(cpu):7.1f} ms CPU")
    base = walls["class form (worked example)"]
    for name, value in walls.items():
        print(f"{name:40s} {value / base:5.2f}x the class-form plan")


if __name__ == "__main__":
    main()
