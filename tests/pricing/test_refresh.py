"""Refresh mechanics on a real source (RunPod's GraphQL answer replayed on loopback): history kept,
changes counted, transactions survive a killed process, and concurrent refreshes never interleave."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import requests
from pytest_httpserver import HTTPServer
from sqlalchemy import Engine, create_engine, func, select
from werkzeug import Request, Response

from pricing.catalog import bundled_catalog
from pricing.freshness import active_sources
from pricing.gpus import bundled_gpus
from pricing.live import LiveCatalog
from pricing.observation import PriceObservation
from pricing.refresh import Guards, RefreshOutcome, Rejected, dedupe, refresh_all, refresh_source, validate
from pricing.storage import PriceObservationRow, PriceSnapshot, SourceStatus
from tests.pricing.replays.runpod import RunPodReplay

T0 = dt.datetime(2026, 11, 21, 6, 0, tzinfo=dt.UTC)
ROOT = Path(__file__).resolve().parents[2]


def _obs(usd: float, name: str = "vm", region: str = "r1") -> PriceObservation:
    return PriceObservation(source="t", kind="cloud", gpu="RTX 4090", gpu_count=1, name=name, usd=usd,
                            observed_at=T0, provider="p", region=region)


def _count(engine: Engine, table: type[PriceSnapshot] | type[PriceObservationRow]) -> int:
    with engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(table)).scalar_one()


def test_validate_guards_against_the_last_good_snapshot() -> None:
    previous = {_obs(1.0, name=f"vm{i}").key(): 1.0 for i in range(20)}
    fine = [_obs(0.31, name=f"vm{i}") if i == 0 else _obs(3.99, name=f"vm{i}") for i in range(20)]
    validate(fine, previous, Guards())  # a 69% drop and a 299% rise are plausible
    with pytest.raises(Rejected, match="dropped more than 70%"):
        validate([_obs(0.29, name="vm0"), *fine[1:]], previous, Guards())
    with pytest.raises(Rejected, match="rose more than 300%"):
        validate([*fine[:-1], _obs(4.01, name="vm19")], previous, Guards())
    with pytest.raises(Rejected, match="only 16 of the 20 rows"):  # 80% kept < 85%
        validate(fine[:16], previous, Guards())
    validate(fine[:17], previous, Guards())  # 85% kept
    with pytest.raises(Rejected, match="accept-implausible"):
        validate([_obs(0.01, name="vm0")], previous, Guards())
    validate([_obs(0.01, name="vm0")], previous, Guards(accept_implausible=True))  # an operator accepts a real move
    with pytest.raises(Rejected, match="empty"):
        validate([], previous, Guards())
    with pytest.raises(Rejected, match="non-positive"):
        validate([_obs(float("nan"))], {}, Guards())
    with pytest.raises(Rejected, match="non-positive"):
        validate([_obs(0.0)], {}, Guards(accept_implausible=True))


def test_dedupe_keeps_the_cheaper_meter_of_one_instance() -> None:
    kept = dedupe([_obs(2.0), _obs(1.5), _obs(1.0, region="r2")])
    assert sorted(o.usd for o in kept) == [1.0, 1.5]


def test_history_grows_and_changes_are_counted(engine: Engine, server: HTTPServer) -> None:
    replay = RunPodReplay()
    source = replay.source(server)
    gpus = bundled_gpus()
    replay.install_good(server)
    first = refresh_source(engine, source, gpus, T0)
    assert first.outcome == "ok" and first.rows_changed == first.rows_fetched > 0
    second = refresh_source(engine, source, gpus, T0 + dt.timedelta(hours=6))
    assert second.outcome == "ok" and second.rows_changed == 0
    server.clear()
    replay.install_good(server, price_scale=1.1)
    third = refresh_source(engine, source, gpus, T0 + dt.timedelta(hours=12))
    assert third.outcome == "ok" and third.rows_changed == third.rows_fetched
    assert _count(engine, PriceSnapshot) == 3
    assert _count(engine, PriceObservationRow) == 3 * first.rows_fetched
    view = LiveCatalog(engine, bundled_catalog())()
    live = view.cloud[view.cloud["feed"] == "runpod"]
    assert len(live) == first.rows_fetched and set(live["as_of"]) == {"2026-11-21T18:00:00Z"}
    # live runpod rows replace the bundled runpod rows of the same pricing models; other providers stay
    assert not (view.cloud["feed"] == "snapshot/runpod").any()
    assert (view.cloud["feed"] == "snapshot/aws").sum() == (bundled_catalog().cloud["feed"] == "snapshot/aws").sum()


def test_a_refresh_killed_mid_write_leaves_the_previous_snapshot(engine: Engine, server: HTTPServer,
                                                                 database_url: str) -> None:
    replay = RunPodReplay()
    replay.install_good(server)
    good = refresh_source(engine, replay.source(server), bundled_gpus(), T0)
    assert good.outcome == "ok"
    snapshots, rows = _count(engine, PriceSnapshot), _count(engine, PriceObservationRow)
    server.clear()
    replay.install_good(server, price_scale=1.2)
    # A second process refreshes and is SIGKILLed right after its first batch of rows went into the open
    # transaction (snapshot row written, observations half written, status not yet moved).
    script = textwrap.dedent(f"""
        import datetime as dt, os, signal
        from sqlalchemy.engine import Connection
        from pricing.gpus import bundled_gpus
        from pricing.refresh import refresh_source
        from pricing.sources.base import SourceConfig
        from pricing.sources.runpod import RunPodSource
        from service.core.db import make_engine
        real_execute = Connection.execute
        def execute(self, statement, *args, **kwargs):
            result = real_execute(self, statement, *args, **kwargs)
            if getattr(getattr(statement, "table", None), "name", "") == "price_observations":
                os.kill(os.getpid(), signal.SIGKILL)
            return result
        Connection.execute = execute
        source = RunPodSource(SourceConfig(base_url={server.url_for("/").rstrip("/")!r}, retries=0))
        refresh_source(make_engine({database_url!r}), source, bundled_gpus(), dt.datetime.now(dt.UTC))
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == -9, done.stderr
    assert (_count(engine, PriceSnapshot), _count(engine, PriceObservationRow)) == (snapshots, rows)
    with engine.connect() as conn:
        assert conn.execute(select(SourceStatus.snapshot_id)).scalar_one() == good.snapshot_id
    # and the database is healthy: the next refresh stores normally
    after = refresh_source(engine, replay.source(server), bundled_gpus(), T0 + dt.timedelta(hours=6))
    assert after.outcome == "ok" and _count(engine, PriceSnapshot) == snapshots + 1


def test_two_refreshes_at_once_do_not_interleave(engine: Engine, server: HTTPServer) -> None:
    replay = RunPodReplay()
    replay.install_good(server)
    good_body: list[Response] = []

    def slow(request: Request) -> Response:
        time.sleep(0.5)
        return good_body[0]

    # capture the good answer once, then serve it slowly so the two refreshes overlap
    good_body.append(Response(requests.post(server.url_for("/graphql"), json={"query": "{}"}, timeout=5).content,
                              content_type="application/json"))
    server.clear()
    server.expect_request("/graphql").respond_with_handler(slow)
    outcomes: list[RefreshOutcome] = []

    def run() -> None:
        outcomes.append(refresh_source(engine, replay.source(server), bundled_gpus(), T0))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert sorted(o.outcome for o in outcomes) == ["ok", "skipped"]
    assert _count(engine, PriceSnapshot) == 1


def _captured_answer(server: HTTPServer) -> dict[str, Any]:
    answer: dict[str, Any] = requests.post(server.url_for("/graphql"), json={"query": "{}"}, timeout=5).json()
    return answer


def test_a_short_but_well_formed_answer_is_rejected_until_accepted(engine: Engine, server: HTTPServer) -> None:
    replay = RunPodReplay()
    replay.install_good(server)
    source = replay.source(server)
    good = refresh_source(engine, source, bundled_gpus(), T0)
    assert good.outcome == "ok" and good.rows_fetched >= 10
    answer = _captured_answer(server)
    types = answer["data"]["gpuTypes"]
    answer["data"]["gpuTypes"] = types[: len(types) // 2]  # a page sequence that ended early, cleanly
    server.clear()
    server.expect_request("/graphql").respond_with_json(answer)
    short = refresh_source(engine, source, bundled_gpus(), T0 + dt.timedelta(hours=6))
    assert short.outcome == "rejected" and short.error and "answer cut short?" in short.error
    assert "--source runpod --accept-implausible" in short.error
    accepted = refresh_source(engine, source, bundled_gpus(), T0 + dt.timedelta(hours=7),
                              guards=Guards(accept_implausible=True))
    assert accepted.outcome == "ok" and accepted.rows_fetched < good.rows_fetched


def test_storage_errors_are_contained_to_their_source(engine: Engine, server: HTTPServer) -> None:
    replay = RunPodReplay()
    replay.install_good(server)
    broken = create_engine("sqlite:////nonexistent-dir/gpuplan.db")
    outcomes = refresh_all(broken, [replay.source(server), replay.source(server)], bundled_gpus(), lambda: T0)
    assert [o.outcome for o in outcomes] == ["failed", "failed"]
    assert all(o.error and o.error.startswith("storage error") for o in outcomes)


def test_switched_off_source_gives_its_rows_back_to_the_snapshot(engine: Engine, server: HTTPServer) -> None:
    replay = RunPodReplay()
    replay.install_good(server)
    assert refresh_source(engine, replay.source(server), bundled_gpus(), T0).outcome == "ok"
    on = LiveCatalog(engine, bundled_catalog(), active_sources([replay.source(server)]))()
    off = LiveCatalog(engine, bundled_catalog(), active_sources([replay.source(server, enabled=False)]))()
    assert (on.cloud["feed"] == "runpod").any() and not (on.cloud["feed"] == "snapshot/runpod").any()
    assert not (off.cloud["feed"] == "runpod").any() and (off.cloud["feed"] == "snapshot/runpod").any()
