"""The refresh schedule, driven by a clock of the test's own (no sleeping): due when the interval has
passed since the last attempt, sooner after a failure with back-off, never for a disabled source."""

from __future__ import annotations

import datetime as dt
import logging
import socket
from typing import Any

import pytest
from apscheduler.triggers.interval import IntervalTrigger
from pytest_httpserver import HTTPServer
from sqlalchemy import Engine

from pricing.freshness import source_states
from pricing.gpus import bundled_gpus
from pricing.refresh import record_attempt
from service.operations.scheduler import JOB_ID, RefreshScheduler
from tests.pricing.replays.runpod import RunPodReplay

T0 = dt.datetime(2026, 11, 21, 0, 0, tzinfo=dt.UTC)
H = dt.timedelta(hours=1)


def test_sources_refresh_on_their_interval(engine: Engine, server: HTTPServer) -> None:
    replay = RunPodReplay()
    replay.install_good(server)
    fast = replay.source(server, interval_hours=6)
    disabled = replay.source(server, enabled=False)
    scheduler = RefreshScheduler(engine, [fast, disabled], bundled_gpus())
    assert [o.outcome for o in scheduler.run_due(T0)] == ["ok"]  # never attempted: due at once
    assert scheduler.run_due(T0 + 5.9 * H) == []
    assert scheduler.next_due()["runpod"] == T0 + 6 * H
    assert [o.outcome for o in scheduler.run_due(T0 + 6 * H)] == ["ok"]


def test_failures_retry_sooner_with_back_off(engine: Engine, server: HTTPServer) -> None:
    replay = RunPodReplay()
    source = replay.source(server, interval_hours=6)
    scheduler = RefreshScheduler(engine, [source], bundled_gpus())
    server.expect_request("/graphql").respond_with_data("down", status=503)
    assert [o.outcome for o in scheduler.run_due(T0)] == ["failed"]
    assert scheduler.next_due()["runpod"] == T0 + dt.timedelta(minutes=15)
    assert [o.outcome for o in scheduler.run_due(T0 + dt.timedelta(minutes=15))] == ["failed"]
    assert scheduler.next_due()["runpod"] == T0 + dt.timedelta(minutes=45)  # 30 min after the second failure
    server.clear()
    replay.install_good(server)
    assert [o.outcome for o in scheduler.run_due(T0 + dt.timedelta(minutes=45))] == ["ok"]
    assert scheduler.next_due()["runpod"] == T0 + dt.timedelta(minutes=45) + 6 * H


def test_an_attempt_that_never_finished_is_retried_and_reported(engine: Engine, server: HTTPServer) -> None:
    replay = RunPodReplay()
    replay.install_good(server)
    source = replay.source(server, interval_hours=6)
    scheduler = RefreshScheduler(engine, [source], bundled_gpus())
    assert [o.outcome for o in scheduler.run_due(T0)] == ["ok"]
    record_attempt(engine, "runpod", T0 + H)  # a refresh began, and its process was killed
    assert scheduler.next_due()["runpod"] == T0 + 2 * H  # retried after an hour, not after the full 6 h
    (state,) = source_states(engine, [source], T0 + 1.5 * H)
    assert not state.stale  # still running, as far as anyone can tell
    (state,) = source_states(engine, [source], T0 + 2.5 * H)
    assert state.stale and "never finished" in state.stale_reasons[0] and not state.too_old
    assert [o.outcome for o in scheduler.run_due(T0 + 2.5 * H)] == ["ok"]
    (state,) = source_states(engine, [source], T0 + 2.5 * H)
    assert not state.stale


def test_apscheduler_ticks_the_due_check(engine: Engine, server: HTTPServer) -> None:
    scheduler = RefreshScheduler(engine, [RunPodReplay().source(server)], bundled_gpus())
    scheduler.start(tick_s=60, first_tick_s=3600)
    try:
        assert scheduler._scheduler is not None
        job = scheduler._scheduler.get_job(JOB_ID)
        assert isinstance(job.trigger, IntervalTrigger) and job.trigger.interval == dt.timedelta(seconds=60)
        assert job.func == scheduler.run_due and job.max_instances == 1
    finally:
        scheduler.shutdown()


def test_the_service_schedules_alert_delivery_and_evaluates_after_each_tick(database_url: str) -> None:
    from fastapi.testclient import TestClient

    from service.alerts.worker import DELIVERY_JOB_ID
    from service.app import create_app
    from service.core.dependencies import runtime_of
    from service.core.settings import Settings

    settings = Settings(database_url=database_url, scheduler=True, scheduler_first_tick_s=3600, alerts_tick_s=7)
    app = create_app(settings, price_sources=[])
    with TestClient(app):
        refresher = runtime_of(app).refresher
        assert refresher.after_refresh == runtime_of(app).alerts.evaluate
        job = refresher._scheduler.get_job(DELIVERY_JOB_ID)
        assert job.func == runtime_of(app).alerts.deliver and job.trigger.interval == dt.timedelta(seconds=7)
    assert refresher._scheduler is None  # shut down with the service


def test_a_source_that_cannot_reach_its_host_says_so_once_at_info_with_the_next_try(
        engine: Engine, server: HTTPServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """No network: one INFO line per refresh naming the host and when the source is tried next, no warnings."""
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == "api.gpuplan.invalid":  # answered here as a resolver without network does: no query leaves
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    source = RunPodReplay().source(server, base_url="https://api.gpuplan.invalid", retries=4, backoff_s=1.0)
    scheduler = RefreshScheduler(engine, [source], bundled_gpus())
    with caplog.at_level(logging.DEBUG):
        assert [o.outcome for o in scheduler.run_due(T0)] == ["failed"]
    lines = [r for r in caplog.records if "runpod" in r.getMessage()]
    assert [(r.levelno, r.getMessage()) for r in lines] == [(logging.INFO, (
        "refresh runpod: failed (0 rows, 0 changed): cannot reach api.gpuplan.invalid: its name does not resolve "
        "(no network, or no DNS); next try 2026-11-21 00:15 UTC"))]
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    (state,) = source_states(engine, [source], T0)
    assert state.last_error == "cannot reach api.gpuplan.invalid: its name does not resolve (no network, or no DNS)"
