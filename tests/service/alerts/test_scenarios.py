"""Alert scenarios end to end: stored price changes -> evaluation -> outbox -> a real receiver on loopback.

The subscriptions are made through the API; refreshes are stored snapshots of a test price list; the
receiver checks every signature. Time is driven by the tests' own clock, not by sleeping.
"""

from __future__ import annotations

import datetime as dt
import email
import email.policy
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from fastapi.testclient import TestClient
from pytest_httpserver import HTTPServer
from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError
from werkzeug import Request, Response

from service.alerts.evaluate import evaluate_pending
from service.alerts.outbox import _deliver_rows, _due, enqueue_test_event
from service.alerts.signing import TIMESTAMP_HEADER
from service.alerts.tables import AlertEvent, Subscription
from service.alerts.worker import AlertWorker
from service.app import create_app
from service.core.settings import Settings
from tests.pricing.replays.runpod import RunPodReplay, scaled_gpu_types
from tests.service.alerts.helpers import NOW, Receiver, cloud, live_catalog, serve, store
from tests.service.alerts.test_senders import free_port

H100_OFFERS = [cloud("H100 SXM", 2.40, name="h1"), cloud("H100 SXM", 2.60, name="h2", region="eu-west-1"),
               cloud("A100 80GB", 1.50, name="a1")]


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    settings = Settings(database_url=database_url, scheduler=False, alerts_allowed_networks=["127.0.0.0/8"])
    with TestClient(create_app(settings, catalog_source=None)) as c:
        yield c


def worker(client: TestClient) -> AlertWorker:
    found: AlertWorker = client.app.state.alerts  # type: ignore[attr-defined]
    return found


def engine_of(client: TestClient) -> Engine:
    found: Engine = client.app.state.engine  # type: ignore[attr-defined]
    return found


def subscribe(client: TestClient, url: str, condition: dict[str, Any], receiver: Receiver | None = None,
              name: str = "watch") -> dict[str, Any]:
    created = client.post("/v1/alerts", json={"name": name, "condition": condition,
                                              "delivery": {"type": "webhook", "url": url}})
    assert created.status_code == 201, created.text
    body: dict[str, Any] = created.json()
    return receiver.expect(body) if receiver else body


def under(usd: float, **extra: Any) -> dict[str, Any]:
    return {"type": "price_threshold", "gpu": "H100 SXM", "kind": "cloud", "below_usd": usd, **extra}


def test_a_price_drop_alerts_each_matching_subscription_once(client: TestClient, server: HTTPServer) -> None:
    receiver = Receiver()
    url = serve(server, receiver)
    engine, alerts = engine_of(client), worker(client)
    store(engine, H100_OFFERS)
    assert alerts.evaluate(NOW).events == 0  # the first prices of a list: nothing was under 2.00 before either
    subs = {
        "any": subscribe(client, url, under(2.0), receiver),
        "us": subscribe(client, url, under(2.0, regions=["us-*"], providers=["TestCloud"]), receiver),
        "eu": subscribe(client, url, under(2.0, regions=["eu-*"]), receiver),          # its offer did not move
        "spot": subscribe(client, url, under(2.0, pricing="spot"), receiver),          # not this pricing
        "a100": subscribe(client, url, {**under(2.0), "gpu": "A100 80GB"}, receiver),  # another GPU, already under
        "low": subscribe(client, url, under(1.0), receiver),                           # not low enough
        "paused": subscribe(client, url, under(2.0), receiver),
    }
    client.post(f"/v1/alerts/{subs['paused']['id']}/pause")
    store(engine, [cloud("H100 SXM", 1.95, name="h1"), *H100_OFFERS[1:]], NOW + dt.timedelta(hours=1))
    report = alerts.evaluate(NOW + dt.timedelta(hours=1))
    assert (report.price_changes, report.events) == (1, 2)

    reports = alerts.deliver(NOW + dt.timedelta(hours=1))
    assert sorted(r.subscription_id for r in reports if r.ok) == sorted([subs["any"]["id"], subs["us"]["id"]])
    delivered = receiver.bodies
    assert {b["subscription"]["id"] for b in delivered} == {subs["any"]["id"], subs["us"]["id"]}
    assert all(n == 1 for n in receiver.counts().values()) and len(receiver.counts()) == 2
    assert receiver.bad_signatures == 0
    assert alerts.deliver(NOW + dt.timedelta(hours=2)) == []
    body = delivered[0]
    assert body["type"] == "price.threshold"
    assert body["summary"] == "H100 SXM on-demand at testcloud h1 (us-east-1) is now 1.95 USD per GPU-hour, under 2.00"
    price = body["data"]["prices"][0]
    assert (price["usd_per_gpu"], price["previous_usd_per_gpu"], price["change_pct"]) == (1.95, 2.4, -18.75)

    # nothing new: evaluating again, or a refresh with the same prices, alerts nobody
    assert alerts.evaluate(NOW + dt.timedelta(hours=2)).events == 0
    store(engine, [cloud("H100 SXM", 1.95, name="h1"), *H100_OFFERS[1:]], NOW + dt.timedelta(hours=2))
    assert alerts.evaluate(NOW + dt.timedelta(hours=2)).events == 0
    # a further drop stays under the line: not a crossing
    store(engine, [cloud("H100 SXM", 1.90, name="h1"), *H100_OFFERS[1:]], NOW + dt.timedelta(hours=3))
    assert alerts.evaluate(NOW + dt.timedelta(hours=3)).events == 0
    # back over the line and under again: a new crossing, a new alert (for the two watching h1 in the US)
    store(engine, [cloud("H100 SXM", 2.20, name="h1"), *H100_OFFERS[1:]], NOW + dt.timedelta(hours=4))
    assert alerts.evaluate(NOW + dt.timedelta(hours=4)).events == 0
    store(engine, [cloud("H100 SXM", 1.99, name="h1"), *H100_OFFERS[1:]], NOW + dt.timedelta(hours=5))
    assert alerts.evaluate(NOW + dt.timedelta(hours=5)).events == 2


def test_a_new_offer_under_the_line_alerts_and_over_the_line_works(client: TestClient) -> None:
    engine, alerts = engine_of(client), worker(client)
    store(engine, H100_OFFERS)
    alerts.evaluate(NOW)
    cheap = subscribe(client, "http://127.0.0.1:9/h", under(2.0))
    dear = subscribe(client, "http://127.0.0.1:9/h", {**under(2.0), "below_usd": None, "above_usd": 2.65})
    later = NOW + dt.timedelta(hours=1)
    store(engine, [*H100_OFFERS, cloud("H100 SXM", 15.2, name="h8", gpu_count=8)], later)  # 1.90 per GPU-hour
    alerts.evaluate(later)
    later2 = later + dt.timedelta(hours=1)
    store(engine, [*H100_OFFERS[:1], cloud("H100 SXM", 2.70, name="h2", region="eu-west-1"), H100_OFFERS[2],
                   cloud("H100 SXM", 15.2, name="h8", gpu_count=8)], later2)
    alerts.evaluate(later2)
    events = _events(engine)
    assert [(e.subscription_id, e.type) for e in events] == [(cheap["id"], "price.threshold"),
                                                             (dear["id"], "price.threshold")]
    assert events[0].payload["data"]["prices"][0]["usd_per_gpu"] == 1.9
    assert events[0].payload["data"]["prices"][0]["previous_usd_per_gpu"] is None
    assert "over 2.65" in events[1].payload["summary"]


def _events(engine: Engine) -> list[Any]:
    t = AlertEvent.__table__
    with engine.connect() as conn:
        return list(conn.execute(select(t).order_by(t.c.created_at, t.c.subscription_id)))


def test_relative_moves_count_from_the_last_alert(client: TestClient) -> None:
    engine, alerts = engine_of(client), worker(client)
    store(engine, [cloud("A100 80GB", 2.00, name="a1")])
    alerts.evaluate(NOW)
    sub = subscribe(client, "http://127.0.0.1:9/h", {"type": "price_move", "gpu": "A100 80GB", "move_pct": 10})
    steps = [(2.10, 0), (2.25, 1), (2.30, 0), (2.00, 1), (1.95, 0)]  # +5%, +12.5% from 2.00, +2.2%, -13%, -2.5%
    for hour, (usd, expected) in enumerate(steps, start=1):
        when = NOW + dt.timedelta(hours=hour)
        store(engine, [cloud("A100 80GB", usd, name="a1")], when)
        assert alerts.evaluate(when).events == expected, (usd, expected)
    summaries = [e.payload["summary"] for e in _events(engine) if e.subscription_id == sub["id"]]
    assert summaries == ["A100 80GB on-demand at testcloud a1 (us-east-1) moved +12.5% to 2.25 USD per GPU-hour",
                         "A100 80GB on-demand at testcloud a1 (us-east-1) moved -11.1% to 2.00 USD per GPU-hour"]


PLAN_PROFILE: dict[str, Any] = {
    "workload": "transformer_training",
    "min_gpu_memory_gb": 24,
    "demand": {"gpus": 1, "utilisation": 0.5, "reference_gpu": "RTX 3090", "start": "2027-01-01"},
    "horizon_months": 24,
    "electricity_usd_per_kwh": 0.15,
    "options": {"providers": ["testcloud"], "allow_used": False},
}


def test_plan_change_alert_fires_when_the_plan_flips_and_not_otherwise(client: TestClient, server: HTTPServer,
                                                                       ) -> None:
    receiver = Receiver()
    url = serve(server, receiver)
    engine, alerts = engine_of(client), worker(client)
    store(engine, [cloud("RTX 3090", 1.20, name="r1"), cloud("H100 SXM", 3.0, name="h1")])
    alerts.evaluate(NOW)
    saved = client.post("/v1/profiles", json={"name": "lab", "profile": PLAN_PROFILE})
    assert saved.status_code == 201, saved.text
    assert saved.json()["plan"]["purchases"], "at 1.20 USD/h, buying should win at 50% utilisation"
    subscribe(client, url, {"type": "plan_change", "profile_id": saved.json()["id"], "cost_move_pct": 5}, receiver)

    # a price of a provider the profile excludes: not even re-planned
    other = cloud("RTX 3090", 0.01, name="o1", provider="othercloud")
    store(engine, [cloud("RTX 3090", 1.20, name="r1"), cloud("H100 SXM", 3.0, name="h1"), other],
          NOW + dt.timedelta(minutes=30))
    report = alerts.evaluate(NOW + dt.timedelta(minutes=30))
    assert (report.profiles_replanned, report.profiles_unaffected, report.events) == (0, 1, 0)

    # an H100 price the plan does not use: re-planned, same plan, no alert
    store(engine, [cloud("RTX 3090", 1.20, name="r1"), cloud("H100 SXM", 2.5, name="h1"), other],
          NOW + dt.timedelta(hours=1))
    report = alerts.evaluate(NOW + dt.timedelta(hours=1))
    assert (report.profiles_replanned, report.events) == (1, 0)

    # the RTX 3090 cloud price collapses: renting beats buying, the plan flips
    store(engine, [cloud("RTX 3090", 0.05, name="r1"), cloud("H100 SXM", 2.5, name="h1"), other],
          NOW + dt.timedelta(hours=2))
    assert alerts.evaluate(NOW + dt.timedelta(hours=2)).events == 1
    alerts.deliver(NOW + dt.timedelta(hours=2))
    body = receiver.bodies[0]
    data = body["data"]
    assert body["type"] == "plan.change" and "purchases changed" in data["reasons"]
    assert data["old"]["purchases"] and not data["new"]["purchases"]
    assert data["new"]["total_cost_usd"] < data["old"]["total_cost_usd"]
    assert [(p["gpu"], p["usd_per_gpu"], p["previous_usd_per_gpu"]) for p in data["prices"]] == [
        ("RTX 3090", 0.05, 1.2)]
    assert "'lab'" in body["summary"]

    # the new plan is the new baseline: a small move of the same price does not alert again
    store(engine, [cloud("RTX 3090", 0.051, name="r1"), cloud("H100 SXM", 2.5, name="h1"), other],
          NOW + dt.timedelta(hours=3))
    assert alerts.evaluate(NOW + dt.timedelta(hours=3)).events == 0

    # the offer the plan rents disappears: the plan changes again (back to buying), with the removal as cause
    store(engine, [cloud("H100 SXM", 2.5, name="h1"), other], NOW + dt.timedelta(hours=4))
    assert alerts.evaluate(NOW + dt.timedelta(hours=4)).events == 1
    alerts.deliver(NOW + dt.timedelta(hours=4))
    gone = receiver.bodies[-1]["data"]
    assert gone["new"]["purchases"] and [(p["name"], p["removed"], p["usd"]) for p in gone["prices"]] == [
        ("r1", True, None)]


def test_a_receiver_that_is_down_gets_every_event_once_after_it_recovers(client: TestClient,
                                                                         server: HTTPServer) -> None:
    receiver = Receiver(fail_with=503)
    url = serve(server, receiver)
    engine, alerts = engine_of(client), worker(client)
    store(engine, H100_OFFERS)
    alerts.evaluate(NOW)
    sub = subscribe(client, url, {"type": "price_move", "gpu": "H100 SXM", "move_pct": 5}, receiver)
    when = NOW
    for usd in (2.0, 2.4, 2.0):  # three moves of more than 5%: three events
        when += dt.timedelta(minutes=10)
        store(engine, [cloud("H100 SXM", usd, name="h1"), *H100_OFFERS[1:]], when)
        alerts.evaluate(when)
    event_ids = [e.id for e in _events(engine)]
    assert len(event_ids) == 3
    # down for six hours: ticks every 10 minutes; only one event per subscription is tried per tick
    for _ in range(36):
        when += dt.timedelta(minutes=10)
        alerts.deliver(when)
    assert receiver.bodies == [] and receiver.answered_failures >= 3
    waits = client.get(f"/v1/alerts/{sub['id']}/deliveries").json()["items"]
    assert all(e["status"] == "pending" and e["next_attempt_at"] for e in waits)
    codes = {a["status_code"] for e in waits for a in e["attempt_log"]}
    assert codes == {503}
    tries = sorted(e["attempts"] for e in waits)
    assert tries[-1] < 36 / 2, "back-off: far fewer attempts than ticks"
    receiver.fail_with = None
    for _ in range(12):  # up to two hours more: every event's next attempt (back-off capped at 1 h) comes
        when += dt.timedelta(minutes=10)
        alerts.deliver(when)
    assert receiver.counts() == {event_id: 1 for event_id in event_ids}
    assert receiver.bad_signatures == 0
    done = client.get(f"/v1/alerts/{sub['id']}/deliveries").json()["items"]
    assert {e["status"] for e in done} == {"delivered"}
    assert client.get(f"/v1/alerts/{sub['id']}").json()["failed_events"] == 0


def test_an_endpoint_that_keeps_failing_is_disabled(database_url: str, server: HTTPServer) -> None:
    settings = Settings(database_url=database_url, scheduler=False, alerts_allowed_networks=["127.0.0.0/8"],
                        alerts_retry_hours=1, alerts_disable_after_failed_events=2)
    receiver = Receiver(fail_with=500)
    url = serve(server, receiver)
    with TestClient(create_app(settings)) as client:
        engine, alerts = engine_of(client), worker(client)
        store(engine, H100_OFFERS)
        alerts.evaluate(NOW)
        sub = subscribe(client, url, {"type": "price_move", "gpu": "H100 SXM", "move_pct": 5}, receiver)
        when = NOW
        for usd in (2.0, 2.4, 2.0):
            when += dt.timedelta(minutes=1)
            store(engine, [cloud("H100 SXM", usd, name="h1"), *H100_OFFERS[1:]], when)
            alerts.evaluate(when)
        for _ in range(40):  # 40 x 5 min: past the 1 h retry window of every event
            when += dt.timedelta(minutes=5)
            alerts.deliver(when)
        state = client.get(f"/v1/alerts/{sub['id']}").json()
        assert state["status"] == "disabled" and "2 events in a row" in state["status_reason"]
        statuses = sorted(e["status"] for e in client.get(f"/v1/alerts/{sub['id']}/deliveries").json()["items"])
        assert statuses == ["failed", "failed", "pending"]  # the third waits: nothing is sent while disabled
        sent_before = receiver.answered_failures
        alerts.deliver(when + dt.timedelta(hours=1))
        assert receiver.answered_failures == sent_before
        # the operator fixes the endpoint and resumes: the waiting event goes out
        receiver.fail_with = None
        assert client.post(f"/v1/alerts/{sub['id']}/resume").json()["failed_events"] == 0
        alerts.deliver(when + dt.timedelta(hours=1))
        assert len(receiver.bodies) == 1


def test_410_gone_disables_at_once(client: TestClient, server: HTTPServer) -> None:
    receiver = Receiver(fail_with=410)
    sub = subscribe(client, serve(server, receiver), under(2.0))
    event = client.post(f"/v1/alerts/{sub['id']}/test").json()
    assert (event["status"], event["last_status_code"]) == ("failed", 410)
    state = client.get(f"/v1/alerts/{sub['id']}").json()
    assert state["status"] == "disabled" and "410 Gone" in state["status_reason"]


KILL_AFTER_EVALUATION = """
import datetime as dt, os, sys
from pricing.catalog import bundled_catalog
from pricing.live import LiveCatalog
from service.alerts.evaluate import evaluate_pending
from service.core.db import make_engine
engine = make_engine(sys.argv[1])
report = evaluate_pending(engine, LiveCatalog(engine, bundled_catalog()), dt.datetime.fromisoformat(sys.argv[2]))
print(report.events, flush=True)
os._exit(137)  # killed before any delivery
"""


def test_events_of_a_process_killed_before_delivery_are_sent_after_restart(database_url: str,
                                                                          server: HTTPServer) -> None:
    settings = Settings(database_url=database_url, scheduler=False, alerts_allowed_networks=["127.0.0.0/8"])
    receiver = Receiver()
    url = serve(server, receiver)
    later = NOW + dt.timedelta(hours=1)
    with TestClient(create_app(settings)) as client:
        engine = engine_of(client)
        store(engine, H100_OFFERS)
        worker(client).evaluate(NOW)
        subscribe(client, url, under(2.0), receiver)
        store(engine, [cloud("H100 SXM", 1.95, name="h1"), *H100_OFFERS[1:]], later)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    run = subprocess.run([sys.executable, "-c", KILL_AFTER_EVALUATION, database_url, later.isoformat()],
                         capture_output=True, text=True, env=env, timeout=120, check=False)
    assert run.returncode == 137 and run.stdout.strip() == "1", run.stderr
    assert receiver.bodies == []
    with TestClient(create_app(settings)) as restarted:  # a new process: the outbox still holds the event
        assert worker(restarted).evaluate(later).events == 0
        reports = worker(restarted).deliver(later)
        assert [r.ok for r in reports] == [True]
        assert worker(restarted).deliver(later + dt.timedelta(hours=1)) == []
    assert len(receiver.bodies) == 1 and receiver.bodies[0]["type"] == "price.threshold"


def test_concurrent_evaluations_write_each_event_once(client: TestClient) -> None:
    engine = engine_of(client)
    store(engine, H100_OFFERS)
    worker(client).evaluate(NOW)
    subscribe(client, "http://127.0.0.1:9/h", under(2.0))
    store(engine, [cloud("H100 SXM", 1.95, name="h1"), *H100_OFFERS[1:]], NOW + dt.timedelta(hours=1))
    barrier = threading.Barrier(4)
    counts: list[int] = []

    def run() -> None:
        barrier.wait()
        counts.append(evaluate_pending(engine, live_catalog(engine), NOW + dt.timedelta(hours=1)).events)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(counts) == [0, 0, 0, 1]
    assert len(_events(engine)) == 1


class _Inbox:
    def __init__(self) -> None:
        self.messages: list[Any] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(envelope)
        return "250 OK"


def test_price_alert_by_email(database_url: str) -> None:
    inbox = _Inbox()
    port = free_port()
    smtp = Controller(inbox, hostname="127.0.0.1", port=port)
    smtp.start()
    try:
        settings = Settings(database_url=database_url, scheduler=False, smtp_host="127.0.0.1", smtp_port=port,
                            smtp_sender="alerts@gpuplan.test")
        with TestClient(create_app(settings)) as client:
            engine, alerts = engine_of(client), worker(client)
            store(engine, H100_OFFERS)
            alerts.evaluate(NOW)
            created = client.post("/v1/alerts", json={"name": "mail me", "condition": under(2.0),
                                                      "delivery": {"type": "email", "to": "lab@example.org"}})
            assert created.status_code == 201 and created.json()["secret"] is None
            store(engine, [cloud("H100 SXM", 1.95, name="h1"), *H100_OFFERS[1:]], NOW + dt.timedelta(hours=1))
            alerts.evaluate(NOW + dt.timedelta(hours=1))
            assert [r.ok for r in alerts.deliver(NOW + dt.timedelta(hours=1))] == [True]
            assert alerts.deliver(NOW + dt.timedelta(hours=2)) == []
    finally:
        smtp.stop()
    [mail] = inbox.messages
    assert mail.rcpt_tos == ["lab@example.org"] and mail.mail_from == "alerts@gpuplan.test"
    message = email.message_from_bytes(mail.content, policy=email.policy.default)
    assert message["Subject"].endswith("is now 1.95 USD per GPU-hour, under 2.00")
    plain, html = message.get_body(("plain",)), message.get_body(("html",))
    assert plain is not None and html is not None
    assert "is now 1.95 USD per GPU-hour, under 2.00" in plain.get_content()


def test_a_scheduled_refresh_of_a_real_source_alerts_through_the_outbox(database_url: str, server: HTTPServer) -> None:
    """RunPod's real answer format from loopback; the scheduler's tick refreshes, then evaluates."""
    scale = {"now": 1.0}
    server.expect_request("/graphql", method="POST").respond_with_handler(
        lambda _: Response(json.dumps(scaled_gpu_types(scale["now"])), content_type="application/json"))
    receiver = Receiver()
    url = serve(server, receiver)
    source = RunPodReplay().source(server)
    settings = Settings(database_url=database_url, scheduler=False, alerts_allowed_networks=["127.0.0.0/8"])
    with TestClient(create_app(settings, price_sources=[source])) as client:
        refresher = client.app.state.refresher  # type: ignore[attr-defined]
        assert [o.outcome for o in refresher.run_due(NOW)] == ["ok"]
        subscribe(client, url, {"type": "price_threshold", "gpu": "H100 SXM", "pricing": "on_demand",
                                "providers": ["runpod"], "below_usd": 2.0}, receiver)
        scale["now"] = 0.6  # RunPod's secure H100 SXM: 2.99 -> 1.794 USD per GPU-hour
        later = NOW + source.interval + dt.timedelta(minutes=1)
        assert [o.outcome for o in refresher.run_due(later)] == ["ok"]
        assert [r.ok for r in worker(client).deliver(later)] == [True]
    [body] = receiver.bodies
    assert body["data"]["prices"][0]["usd_per_gpu"] == pytest.approx(1.794)
    assert body["data"]["prices"][0]["source"] == "runpod"


def test_a_price_new_in_one_pending_snapshot_and_moved_in_the_next_still_crosses(client: TestClient) -> None:
    engine, alerts = engine_of(client), worker(client)
    store(engine, H100_OFFERS)
    alerts.evaluate(NOW)
    subscribe(client, "http://127.0.0.1:9/h", under(2.0))
    later = NOW + dt.timedelta(hours=1)
    store(engine, [*H100_OFFERS, cloud("H100 SXM", 1.50, name="h9")], later)   # new, under the line
    store(engine, [*H100_OFFERS, cloud("H100 SXM", 1.80, name="h9")], later)   # moved, still under
    report = alerts.evaluate(later)  # both snapshots in one evaluation
    assert (len(report.snapshots), report.events) == (2, 1)
    [event] = [e for e in _events(engine) if e.type == "price.threshold"]
    assert event.payload["data"]["prices"][0]["previous_usd_per_gpu"] is None


def test_a_worker_with_a_stale_read_does_not_resend_what_another_just_tried(client: TestClient,
                                                                            server: HTTPServer) -> None:
    receiver = Receiver(fail_with=503)
    engine, alerts = engine_of(client), worker(client)
    sub = subscribe(client, serve(server, receiver), under(2.0), receiver)
    enqueue_test_event(engine, sub["id"], "watch", NOW)
    with engine.connect() as conn:
        stale = _due(conn, NOW, 10)          # worker 1 reads ...
    alerts.deliver(NOW)                      # ... worker 2 tries, fails, reschedules
    assert receiver.answered_failures == 1
    sent = _deliver_rows(engine, alerts.channels, stale, NOW, alerts.policy, random.Random(1))
    assert sent == [] and receiver.answered_failures == 1  # no second send before the retry time


def test_a_slow_endpoint_does_not_age_the_next_events_timestamp(client: TestClient, server: HTTPServer) -> None:
    stamps: list[int] = []

    def slow(request: Request) -> Response:
        time.sleep(1.2)
        return Response("ok", status=200)

    def fast(request: Request) -> Response:
        stamps.append(int(request.headers[TIMESTAMP_HEADER]))
        return Response("ok", status=200)

    server.expect_request("/slow", method="POST").respond_with_handler(slow)
    server.expect_request("/fast", method="POST").respond_with_handler(fast)
    engine, alerts = engine_of(client), worker(client)
    first = subscribe(client, server.url_for("/slow"), under(2.0))
    second = subscribe(client, server.url_for("/fast"), under(2.0))
    enqueue_test_event(engine, first["id"], "slow", NOW)
    enqueue_test_event(engine, second["id"], "fast", NOW + dt.timedelta(microseconds=1))
    assert [r.ok for r in alerts.deliver(NOW + dt.timedelta(seconds=1))] == [True, True]
    assert stamps and stamps[0] >= int(NOW.timestamp()) + 2  # signed when it was sent, not when the batch began


def test_failed_statements_never_show_their_values(client: TestClient) -> None:
    """A webhook secret in a statement that fails must not reach the log through the error message."""
    engine = engine_of(client)
    sub = subscribe(client, "http://127.0.0.1:9/h", under(2.0))
    row = {"id": sub["id"], "name": "dup", "kind": "price_threshold", "condition": {}, "channel": "webhook",
           "target": "http://127.0.0.1:9/h", "secret": "whsec_must_not_leak", "status": "active",
           "failed_events": 0, "created_at": NOW, "updated_at": NOW}
    with pytest.raises(IntegrityError) as failure, engine.begin() as conn:
        conn.execute(insert(Subscription).values(**row))
    assert "whsec_must_not_leak" not in str(failure.value)
