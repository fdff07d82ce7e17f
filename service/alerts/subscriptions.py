"""Saved profiles and alert subscriptions as the API shows them: create, read, pause, resume, delete.

Checks that need the catalog or the network (a known GPU, a saved profile, a webhook target that is
not on a private network) happen here and fail as `InvalidField`, a 422 naming the field and the rule.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from sqlalchemy import Engine, delete, insert, select, update

from pricing.catalog import Catalog
from service.alerts.models import (
    AttemptOut,
    Email,
    EventOut,
    PlanChange,
    ProfileIn,
    ProfileOut,
    SubscriptionIn,
    SubscriptionOut,
)
from service.alerts.plan_watch import plan_summary, public_summary, summarise
from service.alerts.signing import new_secret
from service.alerts.tables import AlertEvent, DeliveryAttempt, SavedProfile, Subscription
from service.alerts.targets import TargetRefused, check_webhook_url
from service.problems import Conflict, InvalidField
from service.settings import Settings
from solvers.periods import first_of_next_month
from solvers.plan import solve_core
from solvers.profile import Profile, UtilisationDemand


def _iso(moment: dt.datetime | None) -> str | None:
    return None if moment is None else moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _iso_required(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def pinned(profile: Profile, today: dt.date) -> Profile:
    """A utilisation demand without a start starts next month; a saved profile keeps the month it was saved
    for, so that re-planning it later changes only because prices changed."""
    demand = profile.demand
    if isinstance(demand, UtilisationDemand) and demand.start is None:
        return profile.model_copy(update={"demand": demand.model_copy(update={"start": first_of_next_month(today)})})
    return profile


# --- profiles ---------------------------------------------------------------------------------------------

def _profile_out(row: SavedProfile, plan: dict[str, Any] | None = None) -> ProfileOut:
    return ProfileOut(id=row.id, name=row.name, version=row.version, profile=row.profile,
                      created_at=_iso_required(row.created_at), updated_at=_iso_required(row.updated_at),
                      plan=public_summary(plan) if plan else None)  # type: ignore[arg-type]


def create_profile(engine: Engine, body: ProfileIn, catalog: Catalog, now: dt.datetime) -> ProfileOut:
    """Save a profile that can be planned now (an infeasible one is refused with the constraint it breaks)."""
    profile = pinned(body.profile, now.date())
    plan = summarise(solve_core(profile, catalog, now.date()).plan)
    row = SavedProfile(id=str(uuid.uuid4()), name=body.name, version=1, profile=profile.model_dump(mode="json"),
                       created_at=now, updated_at=now)
    with engine.begin() as conn:
        conn.execute(insert(SavedProfile).values(**{c.name: getattr(row, c.name)
                                                    for c in SavedProfile.__table__.columns}))
    return _profile_out(row, plan)


def list_profiles(engine: Engine) -> list[ProfileOut]:
    t = SavedProfile.__table__
    with engine.connect() as conn:
        rows = conn.execute(select(t).order_by(t.c.created_at, t.c.id)).all()
    return [_profile_out(SavedProfile(**r._mapping)) for r in rows]


def get_profile(engine: Engine, profile_id: str) -> SavedProfile | None:
    t = SavedProfile.__table__
    with engine.connect() as conn:
        row = conn.execute(select(t).where(t.c.id == profile_id)).first()
    return None if row is None else SavedProfile(**row._mapping)


def profile_out(engine: Engine, profile_id: str, catalog: Catalog, now: dt.datetime) -> ProfileOut | None:
    """A saved profile with its best plan at today's prices."""
    row = get_profile(engine, profile_id)
    if row is None:
        return None
    return _profile_out(row, plan_summary(Profile.model_validate(row.profile), catalog, now.date()))


def delete_profile(engine: Engine, profile_id: str) -> bool:
    s, t = Subscription.__table__, SavedProfile.__table__
    with engine.begin() as conn:
        watching = conn.execute(select(s.c.id).where(s.c.profile_id == profile_id)).scalars().all()
        if watching:
            raise Conflict(f"profile {profile_id!r} is watched by alert subscription(s) {sorted(watching)}; "
                           f"delete them first")
        return conn.execute(delete(SavedProfile).where(t.c.id == profile_id)).rowcount == 1


# --- subscriptions ----------------------------------------------------------------------------------------

def _delivery(row: Any) -> dict[str, Any]:
    return {"type": "webhook", "url": row.target} if row.channel == "webhook" else {"type": "email", "to": row.target}


def _subscription_out(row: Any, secret: str | None = None) -> SubscriptionOut:
    return SubscriptionOut(id=row.id, name=row.name, condition=row.condition, delivery=_delivery(row),
                           status=row.status, status_reason=row.status_reason, failed_events=row.failed_events,
                           created_at=_iso_required(row.created_at), updated_at=_iso_required(row.updated_at),
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


def create_subscription(engine: Engine, body: SubscriptionIn, catalog: Catalog, settings: Settings,
                        now: dt.datetime) -> SubscriptionOut:
    """Store a subscription; the answer is the only one that shows a webhook's signing secret."""
    _check_delivery(body, settings)
    condition = body.condition.model_dump(mode="json")
    gpu = price_kind = profile_id = None
    baseline = None
    if isinstance(body.condition, PlanChange):
        saved = get_profile(engine, body.condition.profile_id)
        if saved is None:
            raise InvalidField("condition.profile_id", "saved_profile",
                               f"no saved profile with id {body.condition.profile_id!r} (POST /v1/profiles)")
        profile_id = saved.id
        baseline = plan_summary(Profile.model_validate(saved.profile), catalog, now.date())
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
        "created_at": now, "updated_at": now,
    }
    with engine.begin() as conn:
        conn.execute(insert(Subscription).values(**values))
    return _subscription_out(Subscription(**values), secret)


def _row(engine: Engine, subscription_id: str) -> Any:
    t = Subscription.__table__
    with engine.connect() as conn:
        return conn.execute(select(t).where(t.c.id == subscription_id)).first()


def get_subscription(engine: Engine, subscription_id: str) -> SubscriptionOut | None:
    row = _row(engine, subscription_id)
    return None if row is None else _subscription_out(row)


def list_subscriptions(engine: Engine, status: str | None = None) -> list[SubscriptionOut]:
    t = Subscription.__table__
    query = select(t).order_by(t.c.created_at, t.c.id)
    if status is not None:
        query = query.where(t.c.status == status)
    with engine.connect() as conn:
        return [_subscription_out(r) for r in conn.execute(query)]


def set_status(engine: Engine, subscription_id: str, status: str, now: dt.datetime) -> SubscriptionOut | None:
    """Pause or resume; resuming also re-enables a disabled subscription and clears its failure count."""
    t = Subscription.__table__
    values: dict[str, Any] = {"status": status, "updated_at": now}
    if status == "active":
        values.update(status_reason=None, failed_events=0)
    else:
        values.update(status_reason=f"paused on {now:%Y-%m-%d %H:%M} UTC")
    with engine.begin() as conn:
        if conn.execute(update(Subscription).where(t.c.id == subscription_id).values(**values)).rowcount == 0:
            return None
    return get_subscription(engine, subscription_id)


def delete_subscription(engine: Engine, subscription_id: str) -> bool:
    """Delete a subscription with its events and attempts (the delete cascades)."""
    with engine.begin() as conn:
        return conn.execute(delete(Subscription).where(Subscription.__table__.c.id == subscription_id)).rowcount == 1


def deliveries(engine: Engine, subscription_id: str, limit: int, event_id: str | None = None) -> list[EventOut]:
    """The newest events of a subscription (or just `event_id`) with every attempt at delivering them."""
    e, a = AlertEvent.__table__, DeliveryAttempt.__table__
    query = select(e).where(e.c.subscription_id == subscription_id)
    if event_id is not None:
        query = query.where(e.c.id == event_id)
    with engine.connect() as conn:
        events = conn.execute(query.order_by(e.c.created_at.desc(), e.c.id).limit(limit)).all()
        ids = [r.id for r in events]
        attempts: dict[str, list[AttemptOut]] = {i: [] for i in ids}
        for r in conn.execute(select(a).where(a.c.event_id.in_(ids)).order_by(a.c.attempted_at, a.c.id)):
            attempts[r.event_id].append(AttemptOut(attempted_at=_iso_required(r.attempted_at), ok=r.ok,
                                                   status_code=r.status_code, error=r.error,
                                                   duration_ms=r.duration_ms))
    return [EventOut(id=r.id, type=r.type, created_at=_iso_required(r.created_at), status=r.status,
                     attempts=r.attempts, next_attempt_at=_iso(r.next_attempt_at), last_status_code=r.last_status_code,
                     last_error=r.last_error, delivered_at=_iso(r.delivered_at), summary=r.payload.get("summary", ""),
                     attempt_log=attempts[r.id]) for r in events]

