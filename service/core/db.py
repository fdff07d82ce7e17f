"""Storage plumbing: the declarative base every domain's tables derive from, the engine and migrations.

The schema is owned by Alembic migrations (service/migrations); each domain keeps its ORM tables in its own
`tables.py`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, make_url
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.pool import NullPool


class Base(DeclarativeBase):
    pass


class JsonText(str):
    """A JSON column's value given as its JSON text (pydantic writes a model's JSON in native code): stored as it
    is, instead of being turned into Python objects and written again (a plan of 10,000 cloud rows spent tens of
    milliseconds of the API process on that, issue 31)."""


def _to_json(value: Any) -> str:
    return str(value) if isinstance(value, JsonText) else json.dumps(value)


def make_engine(url: str, pooled: bool = True) -> Engine:
    """`pooled=False` (NullPool: a connection is closed when it is given back) is for one-shot work such as a CLI
    command: a pool there would only keep its connections open after the work, until the engine is collected, in a
    process that goes on (a test run's CliRunner calls against a shared PostgreSQL server)."""
    # hide_parameters: a failed statement's values (webhook secrets, profile bodies) never reach a log.
    # pre-ping (a round trip before each checkout) finds server connections dropped while pooled; a SQLite file
    # has no server to drop them, so there it is only a query more per checkout (several per plan request); a
    # connection that is not pooled is fresh at every checkout
    pre_ping = pooled and make_url(url).get_backend_name() != "sqlite"
    pool: dict[str, Any] = {} if pooled else {"poolclass": NullPool}
    engine = create_engine(url, future=True, pool_pre_ping=pre_ping, hide_parameters=True, json_serializer=_to_json,
                           **pool)
    if engine.dialect.name == "sqlite":
        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(conn: Any, _record: Any) -> None:  # WAL lets readers and a writer overlap
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()
    return engine


_SQLITE_WRITES = threading.Lock()


@contextmanager
def writing(engine: Engine) -> Iterator[Connection]:
    """`engine.begin()` for a hot write path (a plan stored per plan request). On SQLite the threads of this
    process take turns on a lock first: SQLite lets one writer in at a time and makes the others poll with sleeps
    growing to 100 ms, which at 16 concurrent plans put 100-200 ms into the tail of POST /v1/plans for a 1 ms
    insert. Other databases lock rows, not the file: no lock here."""
    if engine.dialect.name != "sqlite":
        with engine.begin() as conn:
            yield conn
        return
    with _SQLITE_WRITES, engine.begin() as conn:
        yield conn


def alembic_config(url: str) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("service").joinpath("migrations")))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(url: str) -> None:
    """Bring the database to the newest schema (idempotent; the service runs it on start)."""
    command.upgrade(alembic_config(url), "head")
