"""The hostile corpus (issue 19): requests a careless client or an attacker sends, none of which may answer 5xx.

schemathesis generates from the OpenAPI document, so it rarely tries what the document allows but the planner
cannot take (a plan for the year 9999, 1e308 GPU-hours, a 400-digit integer, a subnormal availability) or what
the document cannot describe (NUL in a path id, a cursor nested 5,000 deep, a made-up HTTP method). This corpus
sends those on purpose: every number of a full plan request replaced in turn by huge, tiny and out-of-range
values, every string by NUL, control characters, a formula and 100,000 characters, every date by the calendar's
edges, plus hostile cursors, query filters, path ids, deep nesting and unknown methods.

Each answer must be below 500, a 4xx must be a problem document, every answer must carry X-Request-ID, and the
keep-alive connection must still work for the next request (a 500 used to drop it; one must now close it). Then
the requests of issue 31 (bench/hostile_31.py), each with the answer it must get. `bench/fuzz.py` runs it after
schemathesis; `python bench/hostile.py URL [--read-timeout S]` runs it against any service (S: the service's
GPUPLAN_READ_TIMEOUT_S, 30 by default, which the dripping body waits for).
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import hostile_31
import requests

NUMBERS: list[Any] = [1e308, -1e308, 1e-320, 5e-324, 10**400, -(10**400), 2**63, 0, -0.0, -1]
STRINGS = ["\u0000", "a\u0000b", "\u001b[2J", "x" * 100_000, "=cmd|' /C calc'!A0", "\u202egnp.exe", ""]
DATES = ["0001-01-01", "1900-01-01", "9999-12-31", "0000-01-01", "2101-01-01", "1999-12-31"]
MONTHS = ["0000-01", "9999-12", "1900-01", "2101-01", "0001-13"]
TIMESTAMPS = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "1900-01-01T00:00:00Z", "0001-01-01"]
METHODS = ["FOO", "PROPFIND", "BREW", "X" * 50]

# a plan request that reaches every field: utilisation demand, options, the caller's own prices, overrides
PLAN: dict[str, Any] = {
    "workload": "transformer_training", "min_gpu_memory_gb": 24,
    "demand": {"gpus": 1, "utilisation": 0.15, "reference_gpu": "RTX 3090", "start": "2027-01-01"},
    "horizon_months": 24, "electricity_usd_per_kwh": 0.12,
    "options": {"allow_used": True, "allow_spot": True, "max_capex_usd": 10000, "max_owned_gpus": 4,
                "providers": ["aws", "testcloud"], "pue": 1.2, "availability": 0.9,
                "spot_interruption_overhead": 0.1, "resale_decline_per_year": 0.2, "resale_fee": 0.1,
                "host_watts_per_working_gpu": 100},
    "prices": {"mode": "extend",
               "owned": [{"name": "box", "gpu": "RTX 3090", "gpus_per_unit": 1, "unit_price_usd": 2200,
                          "watts": 450, "idle_watts": 60, "condition": "new", "as_of": "2026-11-01"}],
               "cloud": [{"provider": "testcloud", "name": "vm", "gpu": "RTX 3090", "gpu_count": 1,
                          "usd_per_hour": 0.5, "region": "r1", "max_instances": 4, "as_of": "2026-11-01"}]},
    "throughput_overrides": {"RTX 4090": 1.5},
}
SERIES_PLAN: dict[str, Any] = {
    "workload": "cnn_training",
    "demand": {"reference_gpu": "RTX 3090", "series": [{"month": "2027-01", "reference_gpu_hours": 150},
                                                       {"month": "2027-02", "reference_gpu_hours": 900}]},
}


@dataclass
class Request:
    method: str
    path: str
    params: dict[str, str] | None = None
    body: bytes | None = None
    label: str = ""


@dataclass
class Report:
    sent: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    failures: list[dict[str, Any]] = field(default_factory=list)


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _leaves(item, (*path, i))
    else:
        yield path, value


def _replaced(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(document)
    target = out
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return out


def _values_for(path: tuple[Any, ...], value: Any) -> list[Any]:
    name = str(path[-1])
    if isinstance(value, bool):
        return ["true", 2, None]
    if isinstance(value, int | float):
        return NUMBERS
    if name == "month":
        return MONTHS + STRINGS[:3]
    if name in ("start", "as_of"):
        return DATES + STRINGS[:3]
    return STRINGS


def mutations(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """`document` with one leaf replaced by each hostile value of its kind, and each key by a NUL key."""
    for path, value in _leaves(document):
        for hostile in _values_for(path, value):
            yield f"{'.'.join(map(str, path))}={str(hostile)[:20]!r}", _replaced(document, path, hostile)
    yield "nul key", {**document, "bad\u0000key": 1}
    yield "unknown GPU override key", {**document, "throughput_overrides": {"x" * 10_000: 1.0}}


def _json(document: Any) -> bytes:
    return json.dumps(document).encode()


def _nested(depth: int) -> bytes:
    return ("[" * depth + "]" * depth).encode()


def _cursor(raw: str) -> str:
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def corpus() -> Iterator[Request]:
    for base in (PLAN, SERIES_PLAN):
        for label, body in mutations(base):
            yield Request("POST", "/v1/plans", body=_json(body), label=f"plan {label}")
    for label, body in mutations({"name": "lab profile", "tags": ["a"], "profile": SERIES_PLAN}):
        yield Request("POST", "/v1/profiles", body=_json(body), label=f"profile {label}")
    alert = {"name": "cheap", "condition": {"type": "price_threshold", "gpu": "RTX 3090", "below_usd": 1.0},
             "delivery": {"type": "webhook", "url": "http://127.0.0.1:9/hook"}}
    for label, body in mutations(alert):
        yield Request("POST", "/v1/alerts", body=_json(body), label=f"alert {label}")
    for path in ("/v1/plans", "/v1/profiles", "/v1/alerts", "/v1/alerts/x/deliveries"):
        for depth in (2, 1000, 5000):
            yield Request("GET", path, {"cursor": _cursor("[" * depth + "]" * depth)}, label=f"cursor depth {depth}")
        for stamp in TIMESTAMPS:
            yield Request("GET", path, {"cursor": _cursor(json.dumps([stamp, "x"]))}, label=f"cursor at {stamp}")
        yield Request("GET", path, {"cursor": "%%%" * 1000}, label="cursor garbage")
        for name in ("profile_id", "tag", "name", "status", "kind"):
            yield Request("GET", path, {name: "a\u0000b"}, label=f"NUL in {name}")
        yield Request("GET", path, {"limit": str(10**400)}, label="limit 10^400")
    for stamp in TIMESTAMPS:
        for name in ("since", "until"):
            yield Request("GET", "/v1/prices/history", {"gpu": "RTX 3090", name: stamp}, label=f"history {name}")
    yield Request("GET", "/v1/prices/history", {"gpu": "x" * 100_000}, label="history long gpu")
    yield Request("GET", "/v1/prices/history", {"gpu": "RTX\u00003090"}, label="history NUL gpu")
    yield Request("GET", "/v1/prices/history", {"gpu": "RTX 3090", "limit": str(10**400)}, label="history limit")
    for template in ("/v1/plans/{}", "/v1/plans/{}.csv", "/v1/plans/{}/chart.svg", "/v1/plans/{}/purchase-request",
                     "/v1/profiles/{}", "/v1/profiles/{}/versions", "/v1/alerts/{}"):
        for ident in ("a%00b", "%0a%0d", "x" * 5000, "..%2f..%2fetc%2fpasswd"):
            yield Request("GET", template.format(ident), label=f"id {ident[:10]!r}")
    for path in ("/v1/plans", "/v1/profiles", "/v1/alerts"):
        for depth in (50, 900, 5000, 100_000):
            yield Request("POST", path, body=_nested(depth), label=f"body nested {depth}")
        yield Request("POST", path, body=b'{"name": "a\\u0000b"}', label="NUL escape in body")
    for method in METHODS:
        yield Request(method, "/v1/plans", label=f"method {method[:10]}")


def _failure(req: Request | hostile_31.Check, answer: requests.Response, why: str) -> dict[str, Any]:
    return {"request": req.label, "method": req.method, "path": req.path[:100], "status": answer.status_code,
            "why": why, "body": answer.text[:200]}


def _broken_rules(answer: requests.Response) -> str | None:
    """What every answer must be, whatever was asked."""
    problem = answer.headers.get("content-type", "").startswith("application/problem+json")
    if answer.status_code >= 500:
        return "a server error" + ("" if answer.headers.get("connection") == "close" else " left the connection open")
    if 400 <= answer.status_code < 500 and not problem:
        return "not a problem document"
    if "x-request-id" not in answer.headers:
        return "no X-Request-ID"
    return None


def run(url: str, session: requests.Session | None = None, read_timeout_s: float = 30.0) -> Report:
    """Send the corpus over one keep-alive session; every answer is checked as it comes."""
    http = session or requests.Session()
    report = Report()
    for check in hostile_31.checks():
        headers = {"Content-Type": "application/json"} if check.body is not None else {}
        try:
            answer = http.request(check.method, url + check.path, data=check.body, headers=headers, timeout=120)
        except requests.RequestException as exc:
            report.failures.append({"request": check.label, "error": type(exc).__name__})
            http = requests.Session()
            continue
        report.sent += 1
        key = f"{answer.status_code // 100}xx"
        report.by_status[key] = report.by_status.get(key, 0) + 1
        why = _broken_rules(answer) or check.expect(answer)
        if why is not None:
            report.failures.append(_failure(check, answer, why))
    for label, why in (("re-indented body, one Idempotency-Key", hostile_31.idempotent_reindent(url, http)),
                       ("a body dripping a byte at a time", hostile_31.dripping_body(url, read_timeout_s))):
        report.sent += 1
        if why is not None:
            report.failures.append({"request": label, "why": why})
    for req in corpus():
        headers = {"Content-Type": "application/json"} if req.body is not None else {}
        try:
            answer = http.request(req.method, url + req.path, params=req.params, data=req.body, headers=headers,
                                  timeout=60)
        except requests.RequestException as exc:  # a dropped connection is a failure too
            report.failures.append({"request": req.label, "method": req.method, "path": req.path[:100],
                                    "error": type(exc).__name__})
            http = requests.Session()
            continue
        report.sent += 1
        key = f"{answer.status_code // 100}xx"
        report.by_status[key] = report.by_status.get(key, 0) + 1
        why = _broken_rules(answer)
        if why is not None:
            report.failures.append(_failure(req, answer, why))
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("url", help="e.g. http://127.0.0.1:8000")
    parser.add_argument("--read-timeout", type=float, default=30.0, help="the service's GPUPLAN_READ_TIMEOUT_S")
    args = parser.parse_args()
    report = run(args.url.rstrip("/"), read_timeout_s=args.read_timeout)
    print(f"hostile corpus: {report.sent} requests answered {report.by_status}; failures: {len(report.failures)}")
    for failure in report.failures[:30]:
        print(f"  {failure}")
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
