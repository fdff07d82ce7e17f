"""Two API processes and two scheduler processes on one PostgreSQL database, as in production: one scheduler
leads, each refresh runs once per tick, the standby takes over within one check interval after the leader is
killed, and no alert is delivered twice."""

from __future__ import annotations

import datetime as dt
import itertools
import time
from collections.abc import Iterator

import pytest
import requests
from pytest_httpserver import HTTPServer
from sqlalchemy import Engine, text

from tests.e2e.cluster.conftest import PriceSource, cluster_env, new_cluster
from tests.e2e.cluster.processes import Cluster, Service, wait_until
from tests.service.alerts.helpers import Receiver

pytestmark = pytest.mark.database

TICK_S = 1.0
INTERVAL_S = 0.9      # the source is due on every tick
LEADER_CHECK_S = 1.0
LEADER = "gpuplan_scheduler_leader"
REFRESHES = "gpuplan_refresh_outcomes_total"


@pytest.fixture(scope="module")
def cluster(make_cluster: list[Cluster], tmp_path_factory: pytest.TempPathFactory, database_in_schema: str,
            loopback: HTTPServer, price_source: PriceSource, receiver: Receiver) -> Iterator[Cluster]:
    env = cluster_env(database_in_schema, loopback.url_for("/").rstrip("/"), TICK_S, INTERVAL_S, LEADER_CHECK_S)
    cluster = new_cluster(make_cluster, tmp_path_factory.mktemp("cluster"), env)
    # all four start at once, each migrating on start: they take turns (an advisory lock), none fails
    for name in ("api-1", "api-2"):
        cluster.start_api(name)
    for name in ("scheduler-1", "scheduler-2"):
        cluster.start_scheduler(name)
    try:
        yield cluster
    except Exception:
        print(cluster.logs())
        raise


def apis(cluster: Cluster) -> list[Service]:
    return [s for s in cluster.services if s.name.startswith("api")]


def schedulers(cluster: Cluster) -> list[Service]:
    return [s for s in cluster.services if s.name.startswith("scheduler") and s.alive]


def the_leader(cluster: Cluster) -> Service:
    """The one scheduler that reports leading; fails unless exactly one does."""
    def one_leads() -> bool:
        return [s.metric(LEADER) for s in schedulers(cluster)].count(1.0) == 1

    wait_until(one_leads, 15, "exactly one scheduler to lead")
    (leader,) = [s for s in schedulers(cluster) if s.metric(LEADER) == 1.0]
    return leader


def snapshot_times(engine: Engine) -> list[dt.datetime]:
    with engine.connect() as conn:
        return list(conn.execute(text("SELECT fetched_at FROM price_snapshots WHERE source = 'runpod' "
                                      "ORDER BY fetched_at")).scalars())


def attempts_with_no_outcome(engine: Engine) -> int:
    """Fetches of runpod that stored no snapshot (failed, rejected) would show as an error in its status."""
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT consecutive_failures FROM source_status WHERE source = 'runpod'"))
                   .scalar() or 0)


def min_gap_s(times: list[dt.datetime]) -> float:
    return min((b - a).total_seconds() for a, b in itertools.pairwise(times))


def test_one_scheduler_leads_and_each_refresh_runs_once_per_tick(cluster: Cluster, cluster_engine: Engine,
                                                                 price_source: PriceSource) -> None:
    leader = the_leader(cluster)
    standby = next(s for s in schedulers(cluster) if s is not leader)
    wait_until(lambda: len(snapshot_times(cluster_engine)) >= 2, 20, "the first refreshes")
    fetches_before, stored_before = price_source.fetches, len(snapshot_times(cluster_engine))
    started = time.monotonic()
    time.sleep(8 * TICK_S)
    fetches, times = price_source.fetches - fetches_before, snapshot_times(cluster_engine)
    elapsed = time.monotonic() - started
    stored = len(times) - stored_before
    # every fetch was stored (none failed, none ran twice), and there was one per tick, never two
    assert attempts_with_no_outcome(cluster_engine) == 0
    assert abs(fetches - stored) <= 1  # a fetch may be in flight at the second count
    assert elapsed / TICK_S * 0.6 <= stored <= elapsed / TICK_S + 1
    assert min_gap_s(times) > 0.5 * TICK_S, "two refreshes in one tick"
    # only the leader refreshed; the standby and the API processes never did
    assert leader.metric(REFRESHES, source="runpod", outcome="ok") >= stored
    assert standby.metric(REFRESHES, source="runpod", outcome="ok") == 0
    assert standby.metric(REFRESHES, source="runpod", outcome="skipped") == 0
    assert standby.metric(LEADER) == 0
    for api in apis(cluster):
        assert api.metric(REFRESHES, source="runpod", outcome="ok") == 0


def test_every_api_replica_is_ready_and_reports_the_same_database_truth(cluster: Cluster) -> None:
    replicas = apis(cluster)
    for api in replicas:
        ready = requests.get(f"{api.url}/readyz", timeout=5)
        assert ready.status_code == 200 and ready.json()["migrations"]["current"] == ready.json()["migrations"]["head"]
        answer = requests.get(f"{api.url}/v1/sources", headers={"X-Request-ID": f"probe-{api.name}"}, timeout=5)
        assert answer.headers["X-Request-ID"] == f"probe-{api.name}"
        # the access line is written just after the answer is sent
        wait_until(lambda api=api: f'"request_id": "probe-{api.name}"' in api.log(), 5, "the request's log line")
    rows = [api.metric("gpuplan_source_rows", source="runpod") for api in replicas]
    assert rows[0] > 0 and rows[0] == rows[1]
    assert all(api.metric("gpuplan_database_up") == 1 for api in replicas)


def test_killing_the_leader_hands_over_within_one_interval_and_no_alert_is_sent_twice(
        cluster: Cluster, cluster_engine: Engine, receiver: Receiver, loopback: HTTPServer) -> None:
    api_1, api_2 = apis(cluster)
    created = requests.post(f"{api_1.url}/v1/alerts", json={
        "name": "RTX 4090 moves on RunPod",
        "condition": {"type": "price_move", "gpu": "RTX 4090", "kind": "cloud", "providers": ["runpod"],
                      "move_pct": 10},
        "delivery": {"type": "webhook", "url": loopback.url_for("/hook")}}, timeout=10)
    assert created.status_code == 201, created.text
    receiver.expect(created.json())
    assert requests.get(f"{api_2.url}/v1/alerts/{created.json()['id']}", timeout=5).status_code == 200
    wait_until(lambda: len(receiver.bodies) >= 3, 30, "the first alerts to arrive")

    leader = the_leader(cluster)
    standby = next(s for s in schedulers(cluster) if s is not leader)
    delivered_before_kill = len(receiver.bodies)
    leader.kill()
    takeover_s = wait_until(lambda: standby.metric(LEADER) == 1.0, 10 * LEADER_CHECK_S, "the standby to lead",
                            step_s=0.02)
    print(f"\nfailover: the standby led {takeover_s:.2f} s after the leader was killed (check interval "
          f"{LEADER_CHECK_S:g} s)")
    assert takeover_s <= LEADER_CHECK_S + 0.5

    # the new leader refreshes and delivers; the old one's work is not repeated
    stored_at_takeover = len(snapshot_times(cluster_engine))
    wait_until(lambda: len(snapshot_times(cluster_engine)) >= stored_at_takeover + 3, 15, "refreshes after failover")
    wait_until(lambda: len(receiver.bodies) >= delivered_before_kill + 3, 30, "alerts after failover")
    assert standby.metric(REFRESHES, source="runpod", outcome="ok") >= 3
    assert min_gap_s(snapshot_times(cluster_engine)) > 0.5 * TICK_S

    with cluster_engine.connect() as conn:
        events = dict(conn.execute(text("SELECT id, status FROM alert_events")).all())
    counts = receiver.counts()
    assert receiver.bad_signatures == 0
    assert counts and max(counts.values()) == 1, {k: v for k, v in counts.items() if v > 1}
    assert set(counts) <= set(events)
    # everything received is marked delivered, except at most the one send the kill cut short
    assert sum(1 for event_id in counts if events[event_id] != "delivered") <= 1


def test_a_stopped_leader_hands_over_at_once_and_a_new_process_stands_by(cluster: Cluster) -> None:
    newcomer = cluster.start_scheduler("scheduler-3")
    leader = the_leader(cluster)
    assert leader is not newcomer and newcomer.metric(LEADER) == 0
    leader.stop()  # SIGTERM: releases the lock on its way out
    takeover_s = wait_until(lambda: newcomer.metric(LEADER) == 1.0, 10 * LEADER_CHECK_S, "the newcomer to lead",
                            step_s=0.02)
    assert takeover_s <= LEADER_CHECK_S + 0.5
    assert leader.process.returncode == 0
