"""Fuzz the running service through its OpenAPI document with schemathesis.

Starts `uvicorn service.app:create_app` on loopback (a temporary SQLite database, or `--database-url`, e.g. a
PostgreSQL test database; no scheduler), runs `st run <url>/openapi.json` (examples, coverage, fuzzing and
stateful phases) with the checks below, then the hostile corpus of bench/hostile.py (dates at the calendar's
edges, huge and tiny numbers, NUL and control characters, deep nesting, hostile cursors and methods), then
reads the service's own /metrics to count the requests it answered. PASS: no failure of any check (no 5xx,
no status code, content type, header or body the document does not describe, no resource that vanishes or
outlives its DELETE), no hostile request answered 5xx or without a problem document, no error logged by the
service, and at least `--min-requests` requests answered.

Webhook URLs in generated subscriptions name arbitrary hosts, which the service resolves; run it inside a
network namespace with only loopback so that nothing leaves the machine, e.g.
  unshare --net sh -c 'ip link set lo up && python bench/fuzz.py'
(tests/e2e/test_fuzz.py does that, or leaves out the operations that resolve hosts when it cannot).

Run: python bench/fuzz.py [--examples 30] [--seed 20261121] [--exclude-outbound] [--database-url URL] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import requests
from hostile import run as run_hostile
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parents[1]
CHECKS = ("not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_headers_conformance", "response_schema_conformance", "use_after_free",
          "ensure_resource_availability")
# operations that may make the service contact a host named in the request (DNS for a webhook URL, a test send)
OUTBOUND = r"^/v1/alerts"
READ_TIMEOUT_S = 5.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_service(workdir: Path, database_url: str | None) -> tuple[subprocess.Popen[bytes], str, Path]:
    port = free_port()
    env = {**os.environ, "GPUPLAN_DATABASE_URL": database_url or f"sqlite:///{workdir / 'fuzz.db'}",
           "GPUPLAN_SCHEDULER": "false",
           "GPUPLAN_LOG_FORMAT": "json", "GPUPLAN_LOG_LEVEL": "warning",
           # the fuzzer sends far more than the per-client rate limit allows; 429s would hide the answers
           "GPUPLAN_RATE_LIMIT_PER_MINUTE": "10000000", "GPUPLAN_RATE_LIMIT_BURST": "1000000",
           # the hostile corpus drips a body a byte at a time: answered 408 after this many seconds
           "GPUPLAN_READ_TIMEOUT_S": str(READ_TIMEOUT_S)}
    log = workdir / "service.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "--factory", "service.app:create_app", "--host", "127.0.0.1",
             "--port", str(port), "--log-level", "warning"], cwd=workdir, env=env, stdout=out,
            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            raise SystemExit(f"the service exited with {process.returncode}:\n{log.read_text()}")
        try:
            if requests.get(f"{url}/readyz", timeout=2).status_code == 200:
                return process, url, log
        except requests.ConnectionError:
            pass
        if time.monotonic() > deadline:
            process.kill()
            raise SystemExit("the service did not become ready within 60 s")
        time.sleep(0.2)


def answered(url: str) -> dict[str, int]:
    """Requests the service answered, by status class, from its request histogram (without /metrics itself)."""
    text = requests.get(f"{url}/metrics", timeout=10).text
    counts: dict[str, int] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "gpuplan_http_request_duration_seconds_count" and sample.labels["route"] != "/metrics":
                key = sample.labels["status"][0] + "xx"
                counts[key] = counts.get(key, 0) + int(sample.value)
    return counts


def run(examples: int, seed: int, exclude_outbound: bool, timeout_s: float, workdir: Path,
        database_url: str | None = None) -> dict[str, Any]:
    process, url, log = start_service(workdir, database_url)
    report_dir = workdir / "report"
    command = [sys.executable, "-m", "schemathesis.cli", "run", f"{url}/openapi.json", "--checks", ",".join(CHECKS),
               "--max-examples", str(examples), "--seed", str(seed), "--workers", "2", "--suppress-health-check",
               "all", "--report", "json", "--report-dir", str(report_dir), "--request-timeout", "30",
               "--request-retries", "2"]
    if exclude_outbound:
        command += ["--exclude-path-regex", OUTBOUND]
    started = time.monotonic()
    try:
        st = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s, cwd=workdir,  # its cache too
                            env={**os.environ, "NO_COLOR": "1"}, check=False)
        elapsed = time.monotonic() - started
        hostile = run_hostile(url, read_timeout_s=READ_TIMEOUT_S)
        counts = answered(url)
    finally:
        process.terminate()
        process.wait(timeout=15)
    (report,) = report_dir.glob("*.json")
    summary = json.loads(report.read_text())
    errors_logged = [line for line in log.read_text(errors="replace").splitlines() if '"level": "error"' in line]
    return {
        "seed": seed, "examples_per_operation": examples, "exclude_outbound": exclude_outbound,
        "seconds": round(elapsed, 1), "exit_code": st.returncode,
        "operations_tested": summary["operations"]["tested"], "test_cases": summary["test_cases"]["generated"],
        "requests_answered": sum(counts.values()), "answered_by_status": counts,
        "failures": summary["failures"], "errors": summary["errors"], "service_errors_logged": errors_logged[:20],
        "hostile": {"requests": hostile.sent, "by_status": hostile.by_status, "failures": hostile.failures[:50]},
        "schemathesis_output_tail": st.stdout[-6000:] if st.returncode else "",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=30, help="test cases per operation and phase")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("GPUPLAN_FUZZ_SEED", "20261121")))
    parser.add_argument("--exclude-outbound", action="store_true",
                        help="leave out the operations that resolve or call hosts named in the request")
    parser.add_argument("--min-requests", type=int, default=1000)
    parser.add_argument("--timeout", type=float, default=600, help="stop schemathesis after this many seconds")
    parser.add_argument("--json", type=Path, help="also write the result here")
    parser.add_argument("--database-url", help="the service's database (default: a temporary SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gpuplan-fuzz-") as tmp:
        result = run(args.examples, args.seed, args.exclude_outbound, args.timeout, Path(tmp), args.database_url)
    ok = (result["exit_code"] == 0 and not result["failures"] and not result["errors"]
          and not result["service_errors_logged"] and result["answered_by_status"].get("5xx", 0) == 0
          and not result["hostile"]["failures"]
          and result["requests_answered"] >= args.min_requests)
    result["pass"] = ok
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    print(f"schemathesis (seed {result['seed']}): {result['operations_tested']} operations, "
          f"{result['test_cases']} test cases, {result['requests_answered']} requests answered "
          f"{result['answered_by_status']} in {result['seconds']} s; failures: {len(result['failures'])}, "
          f"errors: {len(result['errors'])}, errors logged by the service: {len(result['service_errors_logged'])}")
    for failure in result["failures"]:
        print(f"  {failure['code']} {failure['title']}: {', '.join(failure['operations'])}")
    hostile = result["hostile"]
    print(f"hostile corpus: {hostile['requests']} requests answered {hostile['by_status']}; "
          f"failures: {len(hostile['failures'])}")
    for failure in hostile["failures"][:20]:
        print(f"  {failure}")
    if result["schemathesis_output_tail"]:
        print(result["schemathesis_output_tail"])
    print("PASS" if ok else f"FAIL (need no failures, no 5xx and at least {args.min_requests} requests)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
