"""The delivery worker: sends outbox events at least once, with back-off, and gives up loudly.

At least once: an event is claimed with a lease before it is sent and marked delivered only after the
receiver answered 2xx, so a worker that dies mid-send leaves it to be sent again when the lease ends;
receivers de-duplicate on the event id. Failed sends are retried with exponential back-off and jitter
until the event is `give_up_after` old, then marked failed; a subscription with
`disable_after_failed_events` failed events in a row is disabled with the reason, so a dead endpoint
stops costing work. Several workers may run: the claim is a conditional UPDATE, so each send has one owner.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import random
import time
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, insert, or_, select, update
from sqlalchemy.engine import Connection

from service.alerts.senders import EmailSender, SendOutcome, WebhookSender
from service.alerts.tables import AlertEvent, DeliveryAttempt, Subscription

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryPolicy:
    first_delay: dt.timedelta = dt.timedelta(seconds=30)
    max_delay: dt.timedelta = dt.timedelta(hours=1)
    give_up_after: dt.timedelta = dt.timedelta(hours=24)
    disable_after_failed_events: int = 5
    # longer than any single send may take (webhook and SMTP timeouts are seconds)
    lease: dt.timedelta = dt.timedelta(minutes=5)

    def delay(self, attempts: int, rng: random.Random) -> dt.timedelta:
        """Exponential back-off with "equal jitter": half the step fixed, half random, so a receiver that
        comes back is not hit by every waiting event in the same second."""
        step: dt.timedelta = min(self.max_delay, self.first_delay * (1 << min(max(attempts - 1, 0), 30)))
        return step / 2 + step / 2 * rng.random()


@dataclass
class Channels:
    """The senders in use; `email` is None when no SMTP server is configured."""

    webhook: WebhookSender
    email: EmailSender | None = None


@dataclass(frozen=True)
class DeliveryReport:
    event_id: str
    subscription_id: str
    ok: bool
    status: str            # the event's status afterwards: delivered, pending (retry later) or failed
    status_code: int | None
    error: str | None


def event_body(payload: dict[str, Any]) -> bytes:
    """The webhook body: the same bytes on every attempt, so a signature can be checked against a re-send."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()


def _due(conn: Connection, now: dt.datetime, limit: int, event_id: str | None = None) -> list[Any]:
    e, s = AlertEvent.__table__, Subscription.__table__
    query = (select(e.c.id, e.c.subscription_id, e.c.payload, e.c.attempts, e.c.created_at, s.c.channel,
                    s.c.target, s.c.secret)
             .join(s, s.c.id == e.c.subscription_id)
             .where(e.c.status == "pending", s.c.status == "active",
                    or_(e.c.claimed_until.is_(None), e.c.claimed_until < now)))
    query = query.where(e.c.id == event_id if event_id is not None else e.c.next_attempt_at <= now)
    return list(conn.execute(query.order_by(e.c.next_attempt_at, e.c.created_at).limit(limit)))


def _claim(engine: Engine, row: Any, now: dt.datetime, lease: dt.timedelta) -> bool:
    """Take the event for one send, only as this worker read it: if another worker attempted it meanwhile
    (its attempt count moved), the read is stale and the event is left to its new retry time."""
    e = AlertEvent.__table__
    with engine.begin() as conn:
        claimed = conn.execute(
            update(AlertEvent)
            .where(e.c.id == row.id, e.c.status == "pending", e.c.attempts == row.attempts,
                   or_(e.c.claimed_until.is_(None), e.c.claimed_until < now))
            .values(claimed_until=now + lease))
        return claimed.rowcount == 1


def _send(channels: Channels, row: Any, now: dt.datetime) -> SendOutcome:
    if row.channel == "webhook":
        return channels.webhook.send(row.target, row.secret or "", row.id, event_body(row.payload), now)
    if channels.email is None:
        return SendOutcome(False, None, "e-mail delivery is not configured (GPUPLAN_SMTP_HOST)")
    return channels.email.send(row.target, row.id, row.payload)


def _record(engine: Engine, row: Any, outcome: SendOutcome, now: dt.datetime, took_ms: float,
            policy: RetryPolicy, rng: random.Random) -> str:
    """Store the attempt and the event's next state; count failed events against the subscription."""
    e, s = AlertEvent.__table__, Subscription.__table__
    attempts = row.attempts + 1
    values: dict[str, Any] = {"attempts": attempts, "claimed_until": None, "last_status_code": outcome.status_code,
                              "last_error": outcome.error}
    if outcome.ok:
        status = "delivered"
        values.update(status=status, delivered_at=now, next_attempt_at=None, last_error=None)
    else:
        deadline = row.created_at + policy.give_up_after
        status = "failed" if outcome.permanent or now >= deadline else "pending"
        retry_at = min(now + policy.delay(attempts, rng), deadline)
        values.update(status=status, next_attempt_at=retry_at if status == "pending" else None)
    with engine.begin() as conn:
        conn.execute(insert(DeliveryAttempt).values(
            event_id=row.id, attempted_at=now, ok=outcome.ok, status_code=outcome.status_code, error=outcome.error,
            duration_ms=round(took_ms, 2)))
        conn.execute(update(AlertEvent).where(e.c.id == row.id).values(**values))
        if outcome.ok:
            conn.execute(update(Subscription).where(s.c.id == row.subscription_id).values(failed_events=0))
        elif status == "failed":
            _count_failed_event(conn, row.subscription_id, outcome, now, policy)
    return status


def _count_failed_event(conn: Connection, subscription_id: str, outcome: SendOutcome, now: dt.datetime,
                        policy: RetryPolicy) -> None:
    s = Subscription.__table__
    failed = conn.execute(select(s.c.failed_events).where(s.c.id == subscription_id)).scalar_one() + 1
    values: dict[str, Any] = {"failed_events": failed, "updated_at": now}
    gone = outcome.status_code == 410
    if gone or failed >= policy.disable_after_failed_events:
        why = "the receiver answered 410 Gone" if gone else f"{failed} events in a row could not be delivered"
        values.update(status="disabled", status_reason=f"disabled on {now:%Y-%m-%d %H:%M} UTC: {why}; last error: "
                      f"{outcome.error or outcome.status_code}; resume it once the endpoint works")
        log.warning("alert subscription %s disabled: %s", subscription_id, why)
    conn.execute(update(Subscription).where(s.c.id == subscription_id).values(**values))


def _deliver_rows(engine: Engine, channels: Channels, rows: list[Any], now: dt.datetime, policy: RetryPolicy,
                  rng: random.Random) -> list[DeliveryReport]:
    reports = []
    failing: set[str] = set()  # a subscription whose endpoint just failed is not tried again this round
    batch_started = time.monotonic()
    for row in rows:
        # the time of this send, not of the batch: slow endpoints earlier in the batch must not age the
        # signature timestamp, the lease or the retry time of the events after them
        now_here = now + dt.timedelta(seconds=time.monotonic() - batch_started)
        if row.subscription_id in failing or not _claim(engine, row, now_here, policy.lease):
            continue
        started = time.perf_counter()
        try:
            outcome = _send(channels, row, now_here)
        except Exception as exc:  # a sender bug must not stop the other events
            log.exception("sending alert event %s failed unexpectedly", row.id)
            outcome = SendOutcome(False, None, f"internal error: {type(exc).__name__}")
        status = _record(engine, row, outcome, now_here, 1000 * (time.perf_counter() - started), policy, rng)
        if not outcome.ok:
            failing.add(row.subscription_id)
        reports.append(DeliveryReport(row.id, row.subscription_id, outcome.ok, status, outcome.status_code,
                                      outcome.error))
    return reports


def deliver_due(engine: Engine, channels: Channels, now: dt.datetime, policy: RetryPolicy | None = None,
                limit: int = 200, rng: random.Random | None = None) -> list[DeliveryReport]:
    """Send every event that is due (up to `limit`); returns what happened to each one sent."""
    with engine.connect() as conn:
        rows = _due(conn, now, limit)
    return _deliver_rows(engine, channels, rows, now, policy or RetryPolicy(), rng or random.Random())


def deliver_now(engine: Engine, channels: Channels, event_id: str, now: dt.datetime,
                policy: RetryPolicy | None = None) -> DeliveryReport | None:
    """Send one event at once, whatever its retry time (a test event; a resumed subscription's backlog)."""
    with engine.connect() as conn:
        rows = _due(conn, now, 1, event_id)
    reports = _deliver_rows(engine, channels, rows, now, policy or RetryPolicy(), random.Random())
    return reports[0] if reports else None


def enqueue_test_event(engine: Engine, subscription_id: str, name: str, now: dt.datetime) -> str:
    event_id = str(uuid.uuid4())
    payload = {"id": event_id, "type": "test", "created_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
               "subscription": {"id": subscription_id, "name": name},
               "summary": f"Test event for alert subscription {name!r}: delivery works", "data": {}}
    with engine.begin() as conn:
        conn.execute(insert(AlertEvent).values(
            id=event_id, subscription_id=subscription_id, dedupe_key=f"test:{event_id}", type="test", payload=payload,
            created_at=now, status="pending", attempts=0, next_attempt_at=now))
    return event_id
