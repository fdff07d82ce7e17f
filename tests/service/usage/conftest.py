"""The usage routes' client (auth on, rate limits out of the way) and a lab with a key, shared by their tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from service.app import create_app
from service.core.settings import Settings
from tests.service.labs.helpers import Lab, make_lab


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    settings = Settings(database_url=database_url, scheduler=False, auth=True, rate_limit_per_minute=100_000,
                        rate_limit_burst=10_000)
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.fixture
def lab(client: TestClient) -> Lab:
    return make_lab(client.app, "lab A")  # type: ignore[arg-type]
