"""Alert subscriptions as the API shows them: create, read, pause, resume, delete; within the caller's lab.

Checks that need the catalog or the network (a known GPU, a saved profile, a webhook target that is
not on a private network) happen here and fail as `InvalidField`, a 422 naming the field and the rule.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from pricing.catalog import Catalog
from service.alerts.schemas import AttemptOut, Email, EventOut, PlanChange, SubscriptionIn, SubscriptionOut
from service.alerts.signing import new_secret
from service.alerts.tables import AlertEvent, DeliveryAttempt, Subscription
from service.alerts.targets import TargetRefused, check_webhook_url
from service.core.errors import InvalidField
from service.core.pagination import Page, newest_first, page
from service.core.settings import Settings
from service.core.timestamps import iso, iso_or_none
from service.labs.auth import Caller
from service.profiles.repository import get_profile
from solvers.base.profile import Profile

# --- subscriptions ----------------------------------------------------------------------------------------

def _delivery(row: Any) -> dict[str, Any]:
    return {"type": "webhook", "url": row.target} if row.channel == "webhook" else {"type": "email", "to": row.target}


def _subscription_out(row: Any, secret: str | None = None) -> SubscriptionOut:
    return SubscriptionOut(id=row.id, name=row.name, condition=row.condition, delivery=_delivery(row),
                           status=row.status, status_reason=row.status_reason, failed_events=row.failed_events,
                           created_at=iso(row.created_at), updated_at=iso(row.updated_at),
                           secret=secret)


def _check_delivery(body: SubscriptionIn, settings: Settings) -> None:
    if isinstance(body.delivery, Email):
        if not settings.smtp_host:
            raise InvalidField("delivery.to", "email_configured",
                               "e-mail alerts are not available: the operator has not set GPUPLAN_SMTP_HOST")
        return
    try:
        check_webhook_url(str(body.delivery.url), settings.alerts_allowed_networks)
    except TargetRefused as exc:
        raise InvalidField("delivery.url", "allowed_target", str(exc)) from exc


def create_subscription(engine: Engine, caller: Caller, body: SubscriptionIn, catalog: Catalog, settings: Settings,
                        now: dt.datetime, baseline_of: Callable[[Profile], dict[str, Any]]) -> SubscriptionOut:
    """Store a subscription; the answer is the only one that shows a webhook's signing secret. `baseline_of`
    gives a watched profile's plan summary (`plan_watch.plan_summary`, solved in the plan pool by the caller)."""
    _check_delivery(body, settings)
    condition = body.condition.model_dump(mode="json")
    gpu = price_kind = profile_id = None
    baseline = None
    if isinstance(body.condition, PlanChange):
        saved = get_profile(engine, caller, body.condition.profile_id)
        if saved is None:
            raise InvalidField("condition.profile_id", "saved_profile",
                               f"no saved profile with id {body.condition.profile_id!r} (POST /v1/profiles)")
        profile_id = saved.id
        baseline = baseline_of(Profile.model_validate(saved.profile))
    else:
        gpu = catalog.gpus.canonical(body.condition.gpu)
        if gpu is None:
            raise InvalidField("condition.gpu", "known_gpu",
                               f"unknown GPU {body.condition.gpu!r}; see GET /v1/gpus for the names and aliases")
        condition["gpu"] = gpu
        price_kind = body.condition.kind
    is_webhook = body.delivery.type == "webhook"
    secret = new_secret() if is_webhook else None
    values = {
        "id": str(uuid.uuid4()), "name": body.name, "kind": body.condition.type, "condition": condition, "gpu": gpu,
        "price_kind": price_kind, "profile_id": profile_id, "channel": body.delivery.type,
        "target": str(body.delivery.url) if is_webhook else str(body.delivery.to),  # type: ignore[union-attr]
        "secret": secret, "status": "active", "status_reason": None, "failed_events": 0, "baseline": baseline,
        "created_at": now, "updated_at": now, "lab_id": caller.lab_id,
    }
    try:
        with engine.begin() as conn:
            conn.execute(insert(Subscription).values(**values))
    except IntegrityError:  # the watched profile was deleted while its plan was being computed
        raise InvalidField("condition.profile_id", "saved_profile",
                           f"no saved profile with id {profile_id!r} (POST /v1/profiles)") from None
    return _subscription_out(Subscription(**values), secret)


def _row(engine: Engine, caller: Caller, subscription_id: str) -> Any:
    return caller.row(engine, Subscription.__table__, subscription_id)


def get_subscription(engine: Engine, caller: Caller, subscription_id: str) -> SubscriptionOut | None:
    row = _row(engine, caller, subscription_id)
    return None if row is None else _subscription_out(row)


def list_subscriptions(engine: Engine, caller: Caller, status: str | None, kind: str | None, limit: int,
                       cursor: str | None) -> Page[SubscriptionOut]:
    t = Subscription.__table__
    query = select(t).where(caller.owns(t.c.lab_id))
    if status is not None:
        query = query.where(t.c.status == status)
    if kind is not None:
        query = query.where(t.c.kind == kind)
    with engine.connect() as conn:
        rows = list(conn.execute(newest_first(query, t.c.created_at, t.c.id, cursor, limit)))
    return page([_subscription_out(r) for r in rows], rows, limit)


def set_status(engine: Engine, caller: Caller, subscription_id: str, status: str,
               now: dt.datetime) -> SubscriptionOut | None:
    """Pause or resume; resuming also re-enables a disabled subscription and clears its failure count."""
    t = Subscription.__table__
    values: dict[str, Any] = {"status": status, "updated_at": now}
    if status == "active":
        values.update(status_reason=None, failed_events=0)
    else:
        values.update(status_reason=f"paused on {now:%Y-%m-%d %H:%M} UTC")
    with engine.begin() as conn:
        changed = conn.execute(update(Subscription).where(t.c.id == subscription_id, caller.owns(t.c.lab_id))
                               .values(**values))
        if changed.rowcount == 0:
            return None
    return get_subscription(engine, caller, subscription_id)


def delete_subscription(engine: Engine, caller: Caller, subscription_id: str) -> bool:
    """Delete a subscription with its events and attempts (the delete cascades)."""
    t = Subscription.__table__
    with engine.begin() as conn:
        return conn.execute(delete(Subscription).where(t.c.id == subscription_id, caller.owns(t.c.lab_id))
                            ).rowcount == 1


def deliveries(engine: Engine, subscription_id: str, limit: int, cursor: str | None = None,
               status: str | None = None, event_id: str | None = None) -> Page[EventOut]:
    """A subscription's events, newest first, with every attempt at delivering them (the caller has checked
    that the subscription is theirs)."""
    e, a = AlertEvent.__table__, DeliveryAttempt.__table__
    query = select(e).where(e.c.subscription_id == subscription_id)
    if status is not None:
        query = query.where(e.c.status == status)
    if event_id is not None:
        query = query.where(e.c.id == event_id)
    with engine.connect() as conn:
        events = list(conn.execute(newest_first(query, e.c.created_at, e.c.id, cursor, limit)))
        ids = [r.id for r in events]
        attempts: dict[str, list[AttemptOut]] = {i: [] for i in ids}
        for r in conn.execute(select(a).where(a.c.event_id.in_(ids)).order_by(a.c.attempted_at, a.c.id)):
            attempts[r.event_id].append(AttemptOut(attempted_at=iso(r.attempted_at), ok=r.ok,
                                                   status_code=r.status_code, error=r.error,
                                                   duration_ms=r.duration_ms))
    items = [EventOut(id=r.id, type=r.type, created_at=iso(r.created_at), status=r.status, attempts=r.attempts,
                      next_attempt_at=iso_or_none(r.next_attempt_at), last_status_code=r.last_status_code,
                      last_error=r.last_error, delivered_at=iso_or_none(r.delivered_at),
                      summary=r.payload.get("summary", ""), attempt_log=attempts[r.id]) for r in events]
    return page(items, events, limit)
