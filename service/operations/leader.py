"""Leader election for the scheduler: of all processes that could refresh prices and send alerts, one leads.

PostgreSQL: a session-level advisory lock held on a connection of its own for as long as the process leads.
When the leader dies, its connection closes and the server frees the lock at once (a leader whose host
vanishes is dropped by TCP keepalives, set short on that session); a standby that retries every check
interval then takes over within one interval. SQLite: an exclusive `flock` on a file beside the database,
which the OS frees when the process dies. An in-memory SQLite database is private to its process, which
therefore always leads.

Why a dedicated connection: a pooled connection goes back to the pool and can be closed or recycled at any
time, taking the lock with it without anyone noticing; this one is never shared, and every check also
verifies that the server still lists the lock as held by this session.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from sqlalchemy import Connection, Engine, create_engine, text
from sqlalchemy.pool import NullPool

log = logging.getLogger(__name__)

DEFAULT_NAME = "scheduler"
# how long PostgreSQL waits before it drops the session of a leader whose host went silent (idle + interval x
# count): the lock is free again after about 20 s
# the schema the tables live in (the search path itself when its schema does not exist yet)
SCHEMA = text("SELECT coalesce(current_schema(), current_setting('search_path'))")
_KEEPALIVES = {"tcp_keepalives_idle": 5, "tcp_keepalives_interval": 5, "tcp_keepalives_count": 3}


class LeaderLock(Protocol):
    def check(self) -> bool:
        """Take the lock if it is free, or confirm it is still held; True while this process leads."""

    def release(self) -> None:
        """Give up the lock (at shutdown), so a standby can lead without waiting for a timeout."""


def advisory_key(name: str) -> int:
    """A stable signed 64-bit key (PostgreSQL's advisory lock key space) for a lock name."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


def leader_lock(engine: Engine, name: str = DEFAULT_NAME) -> LeaderLock:
    """The right lock for the database behind `engine`."""
    if engine.dialect.name == "postgresql":
        return PostgresLeaderLock(engine, name)
    database = engine.url.database
    if engine.dialect.name == "sqlite" and database and database != ":memory:":
        return FileLeaderLock(Path(f"{database}.leader-{name}.lock"))
    return AlwaysLeader()


@contextmanager
def exclusive(engine: Engine, name: str) -> Iterator[None]:
    """Wait for and hold the lock `name` for the block: one process at a time, e.g. migrating on start when
    several replicas start together."""
    if engine.dialect.name == "postgresql":
        locker = create_engine(engine.url, poolclass=NullPool)
        try:
            with locker.connect() as conn:
                conn = conn.execution_options(isolation_level="AUTOCOMMIT")
                schema = conn.execute(SCHEMA).scalar()
                key = advisory_key(f"gpuplan:{name}:{schema}")
                conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": key})
                try:
                    yield
                finally:
                    conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
        finally:
            locker.dispose()
        return
    database = engine.url.database
    if engine.dialect.name == "sqlite" and database and database != ":memory:":
        fd = os.open(f"{database}.{name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the file drops the flock
        return
    yield


class PostgresLeaderLock:
    """`pg_try_advisory_lock` on a NullPool connection kept open for the process lifetime.

    The key includes the schema, so two deployments sharing one database in different schemas each get a
    leader of their own.
    """

    def __init__(self, engine: Engine, name: str = DEFAULT_NAME) -> None:
        self.name = name
        self._engine = create_engine(engine.url, poolclass=NullPool)
        self._conn: Connection | None = None
        self._key: int | None = None
        self._held = False
        self._guard = threading.Lock()  # checks run on the scheduler's thread, release on the main one

    @property
    def held(self) -> bool:
        return self._held

    def check(self) -> bool:
        with self._guard:
            try:
                conn = self._connection()
                if self._held:
                    self._held = self._still_listed(conn)
                    if not self._held:
                        log.warning("leader lock %r is no longer held by this session", self.name)
                        self._drop()
                else:
                    self._held = bool(conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": self._key})
                                      .scalar())
            except Exception as exc:  # the connection died: whatever we held is gone with it
                if self._held:
                    log.warning("leader lock %r lost with its connection: %s", self.name, type(exc).__name__)
                else:
                    log.info("leader lock %r: database not reachable (%s); retrying", self.name,
                             type(exc).__name__)
                self._held = False
                self._drop()
            return self._held

    def release(self) -> None:
        with self._guard:
            if self._conn is not None and self._held:
                try:
                    self._conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": self._key})
                except Exception:  # closing the connection below frees it anyway
                    log.debug("unlock failed; closing the connection frees the lock", exc_info=True)
            self._held = False
            self._drop()
            self._engine.dispose()

    def _connection(self) -> Connection:
        if self._conn is None:
            conn = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            for setting, value in _KEEPALIVES.items():  # best effort: ignored on Unix sockets
                try:
                    conn.execute(text(f"SET {setting} = {int(value)}"))
                except Exception:
                    log.debug("could not set %s", setting, exc_info=True)
            schema = conn.execute(SCHEMA).scalar()
            self._key = advisory_key(f"gpuplan:leader:{self.name}:{schema}")
            self._conn = conn
        return self._conn

    def _still_listed(self, conn: Connection) -> bool:
        """pg_locks shows a bigint advisory key as classid (high 32 bits), objid (low 32 bits), objsubid 1."""
        assert self._key is not None
        unsigned = self._key & 0xFFFFFFFFFFFFFFFF
        found = conn.execute(text(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted "
            "AND objsubid = 1 AND classid::bigint = :high AND objid::bigint = :low"),
            {"high": unsigned >> 32, "low": unsigned & 0xFFFFFFFF}).scalar()
        return bool(found)

    def _drop(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                log.debug("closing the leader connection failed", exc_info=True)
            self._conn = None


class FileLeaderLock:
    """An exclusive flock on a file beside the SQLite database, held open while leading."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._guard = threading.Lock()

    @property
    def held(self) -> bool:
        return self._fd is not None

    def check(self) -> bool:
        with self._guard:
            if self._fd is not None:
                return True
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return False
            self._fd = fd
            return True

    def release(self) -> None:
        with self._guard:
            if self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)
                os.close(self._fd)
                self._fd = None


class AlwaysLeader:
    """A database private to this process has no one else to elect."""

    held = True

    def check(self) -> bool:
        return True

    def release(self) -> None:
        return None
