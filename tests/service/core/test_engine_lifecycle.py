"""An app's shutdown and a CLI command close their engine's pooled connections.

Why: a pool keeps its connections open until the engine is disposed or collected; on a shared PostgreSQL server the
pools of stopped apps and finished commands in one process (the test run) piled up to its max_connections ("sorry,
too many clients already" in CI). These tests run on the test database, PostgreSQL in CI's second run (`database`
marker, from the `database_url` fixture).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlalchemy.pool import Pool, QueuePool
from typer.testing import CliRunner

from service.app import create_app
from service.cli import app as cli
from service.core.dependencies import runtime_of
from service.core.settings import Settings


def test_app_shutdown_closes_the_pooled_connections(database_url: str) -> None:
    app = create_app(Settings(database_url=database_url, scheduler=False))
    engine = runtime_of(app).engine
    with TestClient(app) as client:
        assert client.get("/readyz").status_code == 200  # reads the database through the app's engine
        pool = engine.pool
        assert isinstance(pool, QueuePool)  # the app's engine pools (SQLite files and PostgreSQL alike)
        assert pool.checkedin() >= 1, "the request's connection went back to the pool"
    assert pool.checkedin() == 0, "the app stopped with connections open in its pool"
    assert pool.checkedout() == 0


@pytest.fixture
def open_connections() -> Iterator[Callable[[], int]]:
    """How many database connections opened while the test runs are still open (by the pool events of every
    engine: the CLI makes its own and does not hand it out)."""
    count = [0]

    def opened(_dbapi: Any, _record: Any) -> None:
        count[0] += 1

    def closed(_dbapi: Any, _record: Any = None) -> None:
        count[0] -= 1

    listeners: list[tuple[str, Callable[..., None]]] = [("connect", opened), ("close", closed),
                                                        ("close_detached", closed)]
    for name, listener in listeners:
        event.listen(Pool, name, listener)
    yield lambda: count[0]
    for name, listener in listeners:
        event.remove(Pool, name, listener)


def test_cli_command_closes_its_connections(database_url: str, open_connections: Callable[[], int],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUPLAN_DATABASE_URL", database_url)
    result = CliRunner().invoke(cli, ["labs", "create", "lifecycle"])
    assert result.exit_code == 0, result.output
    assert open_connections() == 0, "the command left connections open"
