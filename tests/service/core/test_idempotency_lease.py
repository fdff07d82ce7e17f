"""Issue 19: an `Idempotency-Key` claim is a lease held while its request lives and given up when its process dies.

The probe retried a slow plan after the old fixed two-minute limit and got a second plan; after a crash, retries
were answered 409 for a minute and a half. Here the lease is shortened to seconds so the same races run quickly.
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from sqlalchemy import insert

from pricing.catalog import Catalog, bundled_catalog
from service.app import create_app
from service.core import idempotency
from service.core.dependencies import runtime_of
from service.core.idempotency import IdempotencyRecord, fingerprint
from service.core.settings import Settings
from service.plans.examples import CATALOG_EXAMPLE
from tests.service.labs.helpers import served

PLAN_TAKES_S = 2.5


@pytest.fixture
def short_lease(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(idempotency, "LEASE", dt.timedelta(seconds=1))
    monkeypatch.setattr(idempotency, "RENEW_EVERY", dt.timedelta(seconds=0.2))


@pytest.fixture
def slow_service(database_url: str, short_lease: None) -> Iterator[str]:
    """A service whose plans take PLAN_TAKES_S (the prices take that long to read), i.e. longer than the lease."""
    catalog = bundled_catalog()

    def slow_prices() -> Catalog:
        time.sleep(PLAN_TAKES_S)
        return catalog

    app = create_app(Settings(database_url=database_url, scheduler=False), catalog_source=slow_prices)
    with served(app) as url:
        yield url


def test_a_retry_of_a_slow_request_waits_for_it_and_gets_its_answer(slow_service: str) -> None:
    headers = {"Idempotency-Key": "slow-plan"}
    answers: dict[str, requests.Response] = {}

    def first() -> None:
        answers["first"] = requests.post(f"{slow_service}/v1/plans", json=CATALOG_EXAMPLE, headers=headers, timeout=60)

    thread = threading.Thread(target=first)
    thread.start()
    time.sleep(PLAN_TAKES_S * 0.6)  # the claim is older than the lease by now: only its renewals keep it
    retry = requests.post(f"{slow_service}/v1/plans", json=CATALOG_EXAMPLE, headers=headers, timeout=60)
    thread.join()
    original = answers["first"]
    assert original.status_code == 201 and retry.status_code == 201, (original.text, retry.text)
    assert retry.json()["id"] == original.json()["id"]
    assert retry.headers.get("idempotent-replayed") == "true"
    assert len(requests.get(f"{slow_service}/v1/plans", timeout=10).json()["items"]) == 1


def _claim_left_by(engine: Any, age: dt.timedelta, key: str, fingerprint_of: dict[str, Any]) -> None:
    """A running claim as a process leaves it when it is killed mid-request `age` after its last renewal."""
    import json

    same = fingerprint("POST", "/v1/plans", "", json.dumps(fingerprint_of).encode())
    with engine.begin() as conn:
        conn.execute(insert(IdempotencyRecord).values(scope="local", key=key, fingerprint=same,
                                                      state="running", created_at=dt.datetime.now(dt.UTC) - age))


@pytest.fixture
def service(database_url: str, short_lease: None) -> Iterator[tuple[str, Any]]:
    app = create_app(Settings(database_url=database_url, scheduler=False))
    with served(app) as url:
        yield url, runtime_of(app).engine


def _post(url: str, key: str) -> requests.Response:
    import json

    return requests.post(f"{url}/v1/plans", data=json.dumps(CATALOG_EXAMPLE).encode(), timeout=60,
                         headers={"Idempotency-Key": key, "Content-Type": "application/json"})


def test_a_claim_of_a_dead_process_is_taken_over_once_its_lease_ran_out(service: tuple[str, Any],
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    url, engine = service
    monkeypatch.setattr(idempotency, "WAIT_FOR_S", 5.0)
    _claim_left_by(engine, dt.timedelta(seconds=0.5), "crashed", CATALOG_EXAMPLE)
    started = time.monotonic()
    retried = _post(url, "crashed")
    assert retried.status_code == 201, retried.text  # no 409: the retry waited out the lease and ran
    assert "idempotent-replayed" not in retried.headers
    assert time.monotonic() - started < 4


def test_a_claim_that_is_still_renewed_is_not_taken_over(service: tuple[str, Any],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    url, engine = service
    monkeypatch.setattr(idempotency, "WAIT_FOR_S", 0.5)
    _claim_left_by(engine, dt.timedelta(0), "alive", CATALOG_EXAMPLE)
    busy = _post(url, "alive")  # within the lease: the owner may still be working
    assert busy.status_code == 409 and busy.headers["retry-after"] == "1", busy.text
