"""Leader election (service.operations.leader) on the test database (SQLite file lock; PostgreSQL advisory lock in the
`-m database` run): one holder at a time, released on request or when the holder's connection dies, and the
scheduler's jobs follow the lock."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text

from pricing.gpus import bundled_gpus
from pricing.sources import SOURCE_CLASSES
from service.core import metrics
from service.core.settings import Settings
from service.operations.leader import AlwaysLeader, FileLeaderLock, PostgresLeaderLock, exclusive, leader_lock
from service.operations.scheduler import JOB_ID, LEADER_JOB_ID, RefreshScheduler
from service.scheduler_process import run


def test_one_holder_at_a_time_and_the_next_one_after_release(engine: Engine) -> None:
    first, second = leader_lock(engine), leader_lock(engine)
    try:
        assert first.check() and first.check()  # still held on the next check
        assert not second.check()
        first.release()
        assert second.check()
        assert not first.check()
    finally:
        first.release()
        second.release()


def test_the_lock_matches_the_database(engine: Engine, tmp_path: Path) -> None:
    expected = PostgresLeaderLock if engine.dialect.name == "postgresql" else FileLeaderLock
    lock = leader_lock(engine)
    assert isinstance(lock, expected)
    lock.release()
    assert isinstance(leader_lock(create_engine("sqlite://")), AlwaysLeader)


def test_a_leader_whose_connection_dies_knows_it_and_the_lock_is_free(engine: Engine) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("a connection that dies is a PostgreSQL matter (SQLite's lock is a file of this process)")
    leader, standby = PostgresLeaderLock(engine), PostgresLeaderLock(engine)
    try:
        assert leader.check() and not standby.check()
        assert leader._conn is not None
        backend = leader._conn.execute(text("SELECT pg_backend_pid()")).scalar()
        with engine.connect() as admin:  # what a network cut or a restart of the leader's host amounts to
            admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": backend})
            admin.commit()
        # the server frees the lock when the session has ended, which pg_terminate_backend only starts:
        # the standby retries, as it does every check interval
        deadline = time.monotonic() + 10
        while not standby.check():
            assert time.monotonic() < deadline, "the lock of a terminated session was never freed"
            time.sleep(0.05)
        assert not leader.check()  # and the old leader notices on its next check
    finally:
        leader.release()
        standby.release()


def test_exclusive_makes_the_second_caller_wait(engine: Engine) -> None:
    order: list[str] = []
    inside = threading.Event()

    def second() -> None:
        inside.wait(5)
        with exclusive(engine, "test-exclusive"):
            order.append("second")

    thread = threading.Thread(target=second)
    thread.start()
    with exclusive(engine, "test-exclusive"):
        inside.set()
        time.sleep(0.3)
        order.append("first")
    thread.join(10)
    assert order == ["first", "second"]


def test_the_scheduler_runs_its_jobs_only_while_it_leads(engine: Engine) -> None:
    leading = RefreshScheduler(engine, [], bundled_gpus())
    waiting = RefreshScheduler(engine, [], bundled_gpus())
    job = ("extra-job", lambda: None, 3600.0)
    leading.start(60, 3600, jobs=[job], leader=leader_lock(engine), leader_check_s=3600)
    waiting.start(60, 3600, jobs=[job], leader=leader_lock(engine), leader_check_s=3600)
    try:
        assert leading.leading and leading._scheduler is not None
        assert {JOB_ID, "extra-job", LEADER_JOB_ID} <= {j.id for j in leading._scheduler.get_jobs()}
        assert not waiting.leading and waiting._scheduler is not None
        assert {j.id for j in waiting._scheduler.get_jobs()} == {LEADER_JOB_ID}
        assert not waiting.check_leadership()
        leading.shutdown()  # releases the lock
        assert waiting.check_leadership()
        assert {JOB_ID, "extra-job"} <= {j.id for j in waiting._scheduler.get_jobs()}
        assert metrics.SCHEDULER_LEADER._value.get() == 1
    finally:
        leading.shutdown()
        waiting.shutdown()
    assert metrics.SCHEDULER_LEADER._value.get() == 0


def test_the_scheduler_process_leads_until_stopped_then_lets_go(database_url: str) -> None:
    """`gpuplan scheduler`'s loop: waits for the schema, leads, and releases the lock when stopped."""
    off = {key: {"enabled": False} for key in SOURCE_CLASSES}
    settings = Settings(database_url=database_url, sources=off, scheduler_tick_s=0.2, leader_check_s=0.2,
                        scheduler_first_tick_s=0)
    stop = threading.Event()
    thread = threading.Thread(target=run, args=(settings, stop))
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while metrics.SCHEDULER_LEADER._value.get() != 1:
            assert time.monotonic() < deadline, "the scheduler process never led"
            time.sleep(0.05)
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive()
    assert metrics.SCHEDULER_LEADER._value.get() == 0
    engine = create_engine(database_url)
    lock = leader_lock(engine)
    try:
        assert lock.check()  # released: anyone can lead now
    finally:
        lock.release()
        engine.dispose()
