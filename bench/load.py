"""Load: plan requests and price reads at a fixed rate against running API replicas, with locust (headless).

Prints p50/p95/p99 latency, requests/s achieved and the error count, then PASS or FAIL against the target:
no errors, p99 under `--p99-ms` (1000) and at least 90% of the requested rate achieved. The mix
(bench/locustfile.py): 30% POST /v1/plans (the README's three example profiles), the rest price reads
(/v1/prices, per GPU and all, /v1/prices/history, /v1/gpus, /v1/sources), spread round-robin over every URL.

Start the service first (several replicas and a scheduler that refreshes: deploy/compose.yaml, or as
tests/e2e/cluster/test_load.py does on loopback), then:
  python bench/load.py --url http://127.0.0.1:8000 --url http://127.0.0.1:8001 [--rps 50] [--duration 30]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

LOCUSTFILE = Path(__file__).resolve().parent / "locustfile.py"


def run_locust(urls: list[str], rps: float, users: int, duration_s: int, workdir: Path) -> dict[str, Any]:
    prefix = workdir / "load"
    env = {**os.environ, "LOAD_URLS": ",".join(urls), "LOAD_PER_USER_RPS": str(rps / users)}
    command = [sys.executable, "-m", "locust", "-f", str(LOCUSTFILE), "--headless", "--users", str(users),
               "--spawn-rate", str(users), "--run-time", f"{duration_s}s", "--stop-timeout", "10",
               "--csv", str(prefix), "--only-summary", "--loglevel", "WARNING"]
    finished = subprocess.run(command, env=env, capture_output=True, text=True, timeout=duration_s + 120,
                              check=False)
    stats = prefix.with_name("load_stats.csv")
    if not stats.exists():
        raise SystemExit(f"locust wrote no statistics (exit {finished.returncode}):\n{finished.stderr[-4000:]}")
    with stats.open() as handle:
        rows = {row["Name"]: row for row in csv.DictReader(handle)}
    failures_file = prefix.with_name("load_failures.csv")
    with failures_file.open() as handle:
        failures = [{"request": f"{r['Method']} {r['Name']}", "error": r["Error"], "count": int(r["Occurrences"])}
                    for r in csv.DictReader(handle)]
    total = rows["Aggregated"]
    return {
        "urls": urls, "target_rps": rps, "users": users, "duration_s": duration_s,
        "requests": int(total["Request Count"]), "errors": int(total["Failure Count"]),
        "rps": round(float(total["Requests/s"]), 1),
        "p50_ms": float(total["50%"]), "p95_ms": float(total["95%"]), "p99_ms": float(total["99%"]),
        "max_ms": float(total["Max Response Time"]),
        "by_request": {name: {"requests": int(r["Request Count"]), "errors": int(r["Failure Count"]),
                              "p50_ms": float(r["50%"]), "p99_ms": float(r["99%"])}
                       for name, r in rows.items() if name != "Aggregated"},
        "failures": failures,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", action="append", required=True, help="an API replica (repeat for each)")
    parser.add_argument("--rps", type=float, default=50.0, help="requests per second, all replicas together")
    parser.add_argument("--users", type=int, default=50, help="concurrent users sharing the rate")
    parser.add_argument("--duration", type=int, default=30, help="seconds")
    parser.add_argument("--p99-ms", type=float, default=1000.0, help="the p99 latency target")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpuplan-load-") as tmp:
        result = run_locust(args.url, args.rps, args.users, args.duration, Path(tmp))
    result["p99_target_ms"] = args.p99_ms
    result["pass"] = (result["errors"] == 0 and result["p99_ms"] < args.p99_ms
                      and result["rps"] >= 0.9 * args.rps and result["requests"] > 0)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    print(f"load: {result['requests']} requests in {args.duration} s over {len(args.url)} replica(s), "
          f"{result['rps']} req/s (target {args.rps:g}); latency p50 {result['p50_ms']:.0f} ms, "
          f"p95 {result['p95_ms']:.0f} ms, p99 {result['p99_ms']:.0f} ms, max {result['max_ms']:.0f} ms; "
          f"errors {result['errors']}")
    for name, figures in sorted(result["by_request"].items()):
        print(f"  {name:<28} {figures['requests']:>6} requests, p50 {figures['p50_ms']:.0f} ms, "
              f"p99 {figures['p99_ms']:.0f} ms, errors {figures['errors']}")
    for failure in result["failures"][:10]:
        print(f"  error: {failure['request']}: {failure['error']} (x{failure['count']})")
    print("PASS" if result["pass"] else f"FAIL (target: 0 errors, p99 < {args.p99_ms:.0f} ms, "
          f">= {0.9 * args.rps:g} req/s)")
    return 0 if result["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
