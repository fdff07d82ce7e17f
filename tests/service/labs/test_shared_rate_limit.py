"""Rate limits shared across replicas through Redis (issue 18): two app instances on one database and one Redis
take from one bucket per key, so the limit is per key and not per process. Runs against the real Redis at
GPUPLAN_TEST_REDIS_URL (default redis://127.0.0.1:6379/0, as on the CI machine)."""

from __future__ import annotations

import os
import time
import uuid

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings
from service.labs.ratelimit import RedisRateLimiter
from tests.service.labs.helpers import make_lab

REDIS_URL = os.environ.get("GPUPLAN_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture
def redis_url() -> str:
    redis = pytest.importorskip("redis")
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.exceptions.ConnectionError:
        pytest.skip(f"no Redis at {REDIS_URL}")
    return REDIS_URL


def test_two_replicas_share_one_budget_per_key(database_url: str, redis_url: str) -> None:
    def replica() -> TestClient:
        return TestClient(create_app(Settings(database_url=database_url, scheduler=False, auth=True,
                                              rate_limit_per_minute=6, rate_limit_burst=4,
                                              rate_limit_redis_url=redis_url)))

    with replica() as first, replica() as second:
        a = make_lab(first.app, f"A {uuid.uuid4()}")  # type: ignore[arg-type]
        b = make_lab(first.app, f"B {uuid.uuid4()}")  # type: ignore[arg-type]
        # burst 4 in all: alternating replicas, the fifth request of key A is refused by whichever it reaches (a
        # token every 10 s, so a slow request on a loaded machine does not find a refilled one)
        codes = [(first if i % 2 == 0 else second).get("/v1/plans", headers=a.headers()).status_code
                 for i in range(5)]
        assert codes == [200, 200, 200, 200, 429]
        refused = second.get("/v1/plans", headers=a.headers())
        assert refused.status_code == 429 and 1 <= int(refused.headers["retry-after"]) <= 10
        assert second.get("/v1/plans", headers=b.headers()).status_code == 200  # per key, not global


def test_bucket_refills_at_the_rate(redis_url: str) -> None:
    limiter = RedisRateLimiter(redis_url, per_minute=6000, burst=2)  # 100 tokens a second
    key = f"test-{uuid.uuid4()}"
    assert limiter.retry_after(key) is None and limiter.retry_after(key) is None
    wait = limiter.retry_after(key)
    assert wait is not None and 0 < wait <= 0.011
    other = RedisRateLimiter(redis_url, per_minute=6000, burst=2)  # another replica sees the same bucket
    time.sleep(0.05)
    assert other.retry_after(key) is None
