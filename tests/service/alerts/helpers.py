"""Shared pieces of the alert tests: stored price snapshots, a live catalog over them, a webhook receiver."""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from pytest_httpserver import HTTPServer
from sqlalchemy import Engine
from werkzeug import Request, Response

from pricing.catalog import bundled_catalog
from pricing.live import LiveCatalog
from pricing.observation import FetchResult, PriceObservation
from pricing.refresh import ingest
from service.alerts.signing import EVENT_ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER, verify

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
# stored like `gpuplan import-prices --label lab`: the live catalog counts imported quote sets
SOURCE = "quotes:lab"
PROVIDER = "testcloud"


def cloud(gpu: str, usd: float, name: str = "vm", region: str = "us-east-1", pricing: str = "on_demand",
          gpu_count: int = 1, provider: str = PROVIDER) -> PriceObservation:
    return PriceObservation(source=SOURCE, kind="cloud", gpu=gpu, gpu_count=gpu_count, name=name, usd=usd,
                            observed_at=NOW, provider=provider, region=region, pricing=pricing,
                            reference="test price list")


def store(engine: Engine, prices: list[PriceObservation], now: dt.datetime = NOW, source: str = SOURCE) -> int:
    """Store one snapshot of `source` (as a refresh would) and return its id."""
    outcome = ingest(engine, source, FetchResult(prices, rows_seen=len(prices)), now, "test", None, time.monotonic())
    assert outcome.outcome == "ok", outcome.error
    assert outcome.snapshot_id is not None
    return outcome.snapshot_id


def live_catalog(engine: Engine) -> LiveCatalog:
    return LiveCatalog(engine, bundled_catalog())


@dataclass
class Receiver:
    """A webhook endpoint on loopback that checks every signature (with the secret of the subscription the
    body names) and counts deliveries per event id."""

    secrets: dict[str, str] = field(default_factory=dict)  # subscription id -> its signing secret
    fail_with: int | None = None  # answer this status instead of 200 while set
    bodies: list[dict[str, Any]] = field(default_factory=list)
    bad_signatures: int = 0
    answered_failures: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handle(self, request: Request) -> Response:
        with self.lock:
            if self.fail_with is not None:
                self.answered_failures += 1
                return Response("down", status=self.fail_with)
            body = request.get_data()
            payload = json.loads(body)
            secret = self.secrets.get(payload["subscription"]["id"], "")
            # the tests' clock is not the wall clock: the timestamp window is checked in test_alert_signing
            ok = verify(secret, request.headers.get(TIMESTAMP_HEADER, ""), body,
                        request.headers.get(SIGNATURE_HEADER, ""), dt.datetime.now(dt.UTC), tolerance_s=10**9)
            if not ok:
                self.bad_signatures += 1
                return Response("bad signature", status=400)
            assert request.headers[EVENT_ID_HEADER] == payload["id"]
            self.bodies.append(payload)
            return Response("ok", status=200)

    def expect(self, subscription: dict[str, Any]) -> dict[str, Any]:
        """Remember a just-created subscription's secret (shown only in the create answer)."""
        self.secrets[subscription["id"]] = subscription["secret"]
        return subscription

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for body in self.bodies:
            out[body["id"]] = out.get(body["id"], 0) + 1
        return out


def serve(server: HTTPServer, receiver: Receiver, path: str = "/hook") -> str:
    server.expect_request(path, method="POST").respond_with_handler(receiver.handle)
    return server.url_for(path)
