"""Plan latency: bundled catalog with a 36-month series vs a synthetic catalog of 10,000 cloud offers.

Prints the median latency of each case, their ratio (target: the 10,000-offer case within 2x of the
bundled one, thanks to pruning), and the share of time spent in the solver. Target for the bundled
case: median below 50 ms on a 2-core machine.

Run: python bench/plan_latency.py [--repeat N]
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import time
from dataclasses import replace

import numpy as np
import pandas as pd

from pricing.catalog import Catalog, bundled_catalog
from solvers import model
from solvers.plan import make_plan
from solvers.profile import Profile

TODAY = dt.date(2026, 11, 21)
SERIES = {
    "workload": "transformer_training",
    "min_gpu_memory_gb": 24,
    "demand": {
        "reference_gpu": "RTX 3090",
        "series": [{"month": f"{2027 + m // 12}-{m % 12 + 1:02d}",
                    "reference_gpu_hours": 1500 + 400 * (m % 5) + (3000 if m % 12 in (2, 10) else 0)}
                   for m in range(36)],
    },
    "electricity_usd_per_kwh": 0.15,
    "options": {"allow_spot": True},
}


def synthetic_catalog(base: Catalog, offers: int, seed: int = 7) -> Catalog:
    """10,000 offers drawn around the bundled ones: same GPUs, prices scaled by 0.8-1.6, new regions."""
    rng = np.random.default_rng(seed)
    picks = base.cloud.iloc[rng.integers(0, len(base.cloud), offers)].reset_index(drop=True)
    synthetic = picks.assign(
        name=[f"{n}-syn{i}" for i, n in enumerate(picks["name"])],
        usd_per_hour=picks["usd_per_hour"].to_numpy() * rng.uniform(0.8, 1.6, offers),
        region=[f"region-{i % 97}" for i in range(offers)],
    )
    return replace(base, cloud=pd.concat([base.cloud, synthetic], ignore_index=True).iloc[:offers])


def measure(catalog: Catalog, repeat: int) -> tuple[float, float]:
    profile = Profile.model_validate(SERIES)
    solver_time = 0.0
    original = model.solve

    def timed_solve(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal solver_time
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            solver_time += time.perf_counter() - started

    import solvers.plan as plan_module

    plan_module.solve = timed_solve  # type: ignore[assignment]
    try:
        make_plan(profile, catalog, TODAY)  # warm-up
        solver_time = 0.0
        samples = []
        for _ in range(repeat):
            started = time.perf_counter()
            make_plan(profile, catalog, TODAY)
            samples.append(time.perf_counter() - started)
    finally:
        plan_module.solve = original  # type: ignore[assignment]
    return statistics.median(samples), solver_time / sum(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    bundled = bundled_catalog()
    big = synthetic_catalog(bundled, 10_000)
    median_bundled, share_bundled = measure(bundled, args.repeat)
    median_big, share_big = measure(big, args.repeat)
    print(f"bundled catalog ({len(bundled.cloud)} cloud offers), 36-month series: "
          f"median {1000 * median_bundled:.1f} ms, solver share {100 * share_bundled:.0f}%")
    print(f"synthetic catalog ({len(big.cloud)} cloud offers), 36-month series: "
          f"median {1000 * median_big:.1f} ms, solver share {100 * share_big:.0f}%")
    print(f"ratio 10,000-offer / bundled: {median_big / median_bundled:.2f}x (target <= 2x)")
    print(f"bundled median below 50 ms: {'yes' if median_bundled < 0.050 else 'NO'}")


if __name__ == "__main__":
    main()
