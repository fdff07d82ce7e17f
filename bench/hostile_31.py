"""The hostile corpus of issue 31: requests that stalled, bloated or wedged the service, each with what it must be
answered now (bench/hostile.py sends them after its own corpus, on the same keep-alive session).

- a 4 MB object of 350,000 unknown keys: a 422 listing 20 errors and `error_count` (it was a 30.7 MB answer after
  5 s of the event loop), to every route that takes a body;
- bodies above the limit on GET, DELETE and OPTIONS: 413 (they were read whole);
- usage logs whose times could not become hours or would become hundreds of millions of them: a sacct running job
  `until` 9999-12-31 or 2099, a GPU count of 10^20, DCGM timestamps NaN, infinite, 1e300 and -1e12, DCGM JSON
  nested 50,000 deep, an nvidia-smi sample of year 5000: 422s naming the field;
- a financing rate of 1e-320..1e-15, `workload.tokens` 1e-320, a model of 5e-324 billion parameters: 422s;
- names of a few thousand characters (a 3.9 MB quote name over 120 months became a 488 MB answer): 422;
- the same body re-indented under one Idempotency-Key: the first answer replayed, not a 422;
- a body dripping a byte every half second: answered 408 within the service's read timeout, connection closed.

Every answer must carry X-Request-ID, and a 5xx (none is expected) must close its connection.
"""

from __future__ import annotations

import json
import socket
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import requests

SACCT_RUNNING = "JobID|Start|End|AllocTRES|State\n1|2026-01-01T00:00:00|Unknown|gres/gpu=1|RUNNING\n"
WORKLOAD_PLAN = {"workload": {"kind": "fine_tune", "method": "lora", "model": {"params_b": 13}, "tokens": 2e9,
                              "jobs_per_month": 1}, "horizon_months": 24}
FINANCED = {"workload": "transformer_training", "horizon_months": 36,
            "demand": {"gpus": 2, "utilisation": 0.6, "reference_gpu": "RTX 3090"},
            "options": {"financing": {"annual_rate": 0.07, "term_months": 24}}}
LONG_SERIES = {"workload": "cnn_training", "demand": {"reference_gpu": "RTX 3090", "series": [
    {"month": f"{2027 + m // 12}-{m % 12 + 1:02d}", "reference_gpu_hours": 500} for m in range(120)]}}


@dataclass
class Check:
    """A request with what its answer must be (`expect` returns why not, or None)."""

    method: str
    path: str
    body: bytes | None = None
    label: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    expect: Callable[[requests.Response], str | None] = lambda _: None


def status(*allowed: int, max_bytes: int = 100_000,
           within_s: float = 10.0) -> Callable[[requests.Response], str | None]:
    """The status is one of `allowed`, the answer at most `max_bytes`, and it came within `within_s` (a sacct log
    running until 9999 was a 422 too, after 33 s and 3.55 GB)."""
    def check(answer: requests.Response) -> str | None:
        if answer.status_code not in allowed:
            return f"status {answer.status_code}, expected {allowed}"
        if len(answer.content) > max_bytes:
            return f"{len(answer.content):,} bytes answered"
        if answer.elapsed.total_seconds() > within_s:
            return f"answered after {answer.elapsed.total_seconds():.1f} s"
        return None
    return check


def bounded_errors(answer: requests.Response) -> str | None:
    if answer.status_code != 422 or len(answer.content) > 20_000:
        return f"status {answer.status_code}, {len(answer.content):,} bytes"
    problem = answer.json()
    return None if len(problem["errors"]) <= 20 and problem.get("error_count", 0) > 350_000 else "errors unbounded"


def _json(document: Any, **dumps: Any) -> bytes:
    return json.dumps(document, **dumps).encode()


def _dcgm(stamp: str) -> str:
    series = {"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "gpu": "0", "Hostname": "n1"},
              "values": [[1.767e9, "50"], ["STAMP", "50"]]}
    return json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [series]}}).replace(
        '"STAMP"', stamp)


def _usage(text: str, **extra: Any) -> bytes:
    return _json({"text": text, "reference_gpu": "RTX 3090", **extra})


def checks(max_body_bytes: int = 4 * 1024 * 1024) -> Iterator[Check]:
    many = _json({f"{i:x}": 1 for i in range(350_000)}, separators=(",", ":"))
    for path in ("/v1/plans", "/v1/profiles", "/v1/plans/what-if", "/v1/usage", "/v1/estimate", "/v1/alerts"):
        yield Check("POST", path, many, f"350,000 unknown keys to {path}", expect=bounded_errors)
    over = b"x" * (max_body_bytes + 1)
    for method in ("GET", "DELETE", "OPTIONS"):
        yield Check(method, "/healthz", over, f"{method} body above the limit", expect=status(413))
    logs = {"sacct until 9999-12-31": _usage(SACCT_RUNNING, until="9999-12-31T00:00:00Z"),
            "sacct until 2099": _usage(SACCT_RUNNING, until="2099-01-01T00:00:00Z"),
            "sacct 10^20 GPUs": _usage(SACCT_RUNNING.replace("gpu=1", "gpu=100000000000000000000")),
            "DCGM nested 50,000 deep": _usage("[" * 50_000 + "]" * 50_000, format="prometheus"),
            "nvidia-smi year 5000": _usage("timestamp, index, utilization.gpu [%]\n5000/01/01 00:00:00.000, 0, 50 %\n"),
            **{f"DCGM timestamp {stamp}": _usage(_dcgm(stamp)) for stamp in ("NaN", "Infinity", "-Infinity", "1e300",
                                                                            "-1e12")}}
    for label, body in logs.items():
        yield Check("POST", "/v1/usage", body, label, expect=status(422))
    for rate in (1e-320, 1e-16, 1e-15):
        profile = {**FINANCED, "options": {"financing": {"annual_rate": rate, "term_months": 24}}}
        yield Check("POST", "/v1/plans", _json(profile), f"annual_rate {rate:g}", expect=status(422))
    for path, value in ((("workload", "tokens"), 1e-320), (("workload", "model", "params_b"), 5e-324)):
        workload = json.loads(json.dumps(WORKLOAD_PLAN))
        target = workload
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value
        yield Check("POST", "/v1/plans", _json(workload), f"{'.'.join(path)} {value:g}", expect=status(422))
    named = {**LONG_SERIES, "prices": {"cloud": [{"provider": "lab", "name": "q" * 3_000_000, "gpu": "RTX 3090",
                                                  "usd_per_hour": 0.4}]}}
    yield Check("POST", "/v1/plans", _json(named), "a 3 MB quote name over 120 months", expect=status(422))


def idempotent_reindent(url: str, session: requests.Session) -> str | None:
    """The same body re-indented under one key is the same request (it was refused as another)."""
    headers = {"content-type": "application/json", "Idempotency-Key": f"hostile-{uuid.uuid4().hex}"}
    first = session.post(f"{url}/v1/plans", data=_json(FINANCED), headers=headers, timeout=60)
    again = session.post(f"{url}/v1/plans", data=_json(FINANCED, indent=4), headers=headers, timeout=60)
    if first.status_code != 201 or again.status_code != 201 or again.headers.get("idempotent-replayed") != "true":
        return f"first {first.status_code}, re-indented {again.status_code} {again.headers.get('idempotent-replayed')}"
    return None


def dripping_body(url: str, read_timeout_s: float) -> str | None:
    """A body sent a byte every half second must end in a 408 within the read timeout (plus a margin)."""
    host, port = url.removeprefix("http://").split(":")
    began = time.monotonic()
    answer = b""
    with socket.create_connection((host, int(port)), timeout=read_timeout_s + 10) as conn:
        conn.sendall(b"POST /v1/plans HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 100000\r\n\r\n")
        conn.settimeout(0.5)
        while b"\r\n\r\n" not in answer and time.monotonic() - began < read_timeout_s + 10:
            try:
                conn.sendall(b" ")
                chunk = conn.recv(65536)
            except TimeoutError:
                continue
            except OSError:  # closed by the server: whatever it answered was read before
                break
            if not chunk:
                break
            answer += chunk
    took = time.monotonic() - began
    if not answer.startswith(b"HTTP/1.1 408") or took > read_timeout_s + 5:
        return f"answered {answer[:40]!r} after {took:.1f} s"
    return None
