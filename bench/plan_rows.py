"""A plan whose request brings 10,000 cloud rows, end to end over HTTP (issue 31 target: under 300 ms).

Starts `gpuplan serve` on loopback with plans solved in worker processes (as deployed), posts the 36-month bursty
series with `prices.cloud` holding 10,000 quotes (drawn around the bundled offers: same GPUs and providers, prices
scaled by 0.8-1.6, 97 regions; about 1.4 MB of JSON) one request at a time, and prints the median and p90 of the
wall time from sending the request to reading the whole answer. Beside it, in the same run and interleaved, the same
series without the rows, so the rows' own cost reads as a difference on a shared machine.

Where the time goes is printed from one process too (`--breakdown`): validating the body, the plan itself, and
each part of it that handles the rows.

Run: python bench/plan_rows.py [--rows 10000] [--repeat 15] [--breakdown]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import requests
from load import serve
from plan_latency import SERIES

from pricing.catalog import bundled_catalog


def cloud_rows(count: int, seed: int = 11) -> list[dict[str, Any]]:
    base = bundled_catalog().cloud
    rng = np.random.default_rng(seed)
    picks = base.iloc[rng.integers(0, len(base), count)].reset_index(drop=True)
    scale = rng.uniform(0.8, 1.6, count)
    return [{"provider": str(row.provider), "name": f"{row.name} q{i}", "gpu": str(row.gpu),
             "gpu_count": int(row.gpu_count), "usd_per_hour": round(float(row.usd_per_hour) * float(scale[i]), 4),
             "region": f"region-{i % 97}"} for i, row in enumerate(picks.itertuples())]


def with_rows(count: int) -> dict[str, Any]:
    return {**SERIES, "prices": {"mode": "extend", "cloud": cloud_rows(count)}}


def _percentile(values: list[float], q: int) -> float:
    return float(np.percentile(values, q))


def over_http(url: str, bodies: dict[str, bytes], repeat: int) -> dict[str, list[float]]:
    """Each body posted `repeat` times, the bodies taking turns, on one keep-alive session; seconds per answer."""
    times: dict[str, list[float]] = {name: [] for name in bodies}
    with requests.Session() as session:
        for body in bodies.values():  # warm: the first plan of a kind reads the catalog in the worker
            session.post(f"{url}/v1/plans", data=body, headers={"content-type": "application/json"}, timeout=120)
        for _ in range(repeat):
            for name, body in bodies.items():
                began = time.perf_counter()
                answer = session.post(f"{url}/v1/plans", data=body, headers={"content-type": "application/json"},
                                      timeout=120)
                _ = answer.content
                times[name].append(time.perf_counter() - began)
                assert answer.status_code == 201, answer.text[:300]
    return times


def breakdown(count: int, repeat: int) -> None:
    """The parts of the server path that handle the rows, timed in this process (medians, ms)."""
    from solvers.base.profile import Profile
    from solvers.plan import make_plan

    raw = json.dumps(with_rows(count)).encode()
    catalog, today = bundled_catalog(), dt.date(2026, 11, 21)
    profile = Profile.model_validate_json(raw)
    small = Profile.model_validate(SERIES)

    def timed(run: Any) -> float:
        run()
        samples = []
        for _ in range(repeat):
            began = time.perf_counter()
            run()
            samples.append(time.perf_counter() - began)
        return 1000 * statistics.median(samples)

    print(f"  body {len(raw) / 1e6:.2f} MB: validate (Profile.model_validate_json) "
          f"{timed(lambda: Profile.model_validate_json(raw)):.1f} ms; profile's JSON for storage "
          f"{timed(profile.model_dump_json):.1f} ms")
    with_ms = timed(lambda: make_plan(profile, catalog, today))
    without_ms = timed(lambda: make_plan(small, catalog, today))
    print(f"  make_plan with the rows {with_ms:.1f} ms, without {without_ms:.1f} ms: the rows' own "
          f"{with_ms - without_ms:.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--target-ms", type=float, default=300.0)
    parser.add_argument("--breakdown", action="store_true", help="also time the parts in this process")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    bodies = {"rows": json.dumps(with_rows(args.rows)).encode(), "series": json.dumps(SERIES).encode()}
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    with tempfile.TemporaryDirectory(prefix="gpuplan-rows-") as tmp, serve("process", Path(tmp)) as url:
        times = over_http(url, bodies, args.repeat)
    figures = {name: {"median_ms": round(1000 * statistics.median(t), 1), "p90_ms": round(1000 * _percentile(t, 90), 1)}
               for name, t in times.items()}
    rows, series = figures["rows"], figures["series"]
    print(f"{args.rows:,} cloud rows in the request ({len(bodies['rows']) / 1e6:.2f} MB): median "
          f"{rows['median_ms']} ms, p90 {rows['p90_ms']} ms over HTTP (target < {args.target_ms:g} ms: "
          f"{'met' if rows['median_ms'] < args.target_ms else 'NOT met'}); the same series without rows: median "
          f"{series['median_ms']} ms, p90 {series['p90_ms']} ms; the rows' own "
          f"{rows['median_ms'] - series['median_ms']:.1f} ms")
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    if args.breakdown:
        breakdown(args.rows, 5)
    if args.json:
        args.json.write_text(json.dumps({"rows": args.rows, **figures, "load_average": os.getloadavg()}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
