"""One refresh per source at a time, across threads and processes, released by the OS if a process dies.

PostgreSQL: a session-level advisory lock (several service replicas share the database). SQLite: an
exclusive `flock` on a file beside the database (flock locks belong to the open file, so two threads of
one process exclude each other too). An in-memory database is private to its process: a thread lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, text

_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()


def _advisory_key(name: str) -> int:
    """A stable signed 64-bit key (PostgreSQL's advisory lock key space) for a lock name."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big", signed=True)


@contextmanager
def try_lock(engine: Engine, name: str) -> Iterator[bool]:
    """Yield True when the lock `name` was taken (and hold it until exit), False when someone else holds it."""
    if engine.dialect.name == "postgresql":
        with _postgres_lock(engine, name) as got:
            yield got
        return
    database = engine.url.database
    if engine.dialect.name == "sqlite" and database and database != ":memory:":
        with _file_lock(Path(f"{database}.{_safe(name)}.lock")) as got:
            yield got
        return
    with _thread_lock(name) as got:
        yield got


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)


@contextmanager
def _postgres_lock(engine: Engine, name: str) -> Iterator[bool]:
    key = _advisory_key(f"gpuplan:{name}")
    with engine.connect() as conn:
        got = bool(conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar())
        conn.commit()
        try:
            yield got
        finally:
            if got:  # a session lock outlives transactions: release it before the connection goes back to the pool
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
                conn.commit()


@contextmanager
def _file_lock(path: Path) -> Iterator[bool]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextmanager
def _thread_lock(name: str) -> Iterator[bool]:
    with _thread_locks_guard:
        lock = _thread_locks.setdefault(name, threading.Lock())
    got = lock.acquire(blocking=False)
    try:
        yield got
    finally:
        if got:
            lock.release()
