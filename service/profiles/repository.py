"""Saved profiles in the database: create, new versions, read, list, delete; always within the caller's lab."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from sqlalchemy import Engine, delete, insert, select, update

from service.alerts.plan_watch import public_summary
from service.alerts.tables import Subscription
from service.core.errors import Conflict
from service.core.pagination import Page, newest_first, page
from service.core.timestamps import iso
from service.labs.auth import Caller
from service.profiles.schemas import PlanSummary, ProfileIn, ProfileOut, ProfileVersionOut
from service.profiles.tables import ProfileVersion, SavedProfile
from solvers.base.demand_forms import UtilisationDemand
from solvers.base.demand_units import first_of_next_month
from solvers.base.profile import Profile


def pinned(profile: Profile, today: dt.date) -> Profile:
    """A utilisation demand without a start starts next month; a saved profile keeps the month it was saved
    for, so that re-planning it later changes only because prices changed."""
    demand = profile.demand
    if isinstance(demand, UtilisationDemand) and demand.start is None:
        return profile.model_copy(update={"demand": demand.model_copy(update={"start": first_of_next_month(today)})})
    return profile


def _out(row: Any, plan: dict[str, Any] | None = None) -> ProfileOut:
    summary = PlanSummary.model_validate(public_summary(plan)) if plan and "error" not in plan else None
    return ProfileOut(id=row.id, name=row.name, tags=list(row.tags or []), version=row.version, profile=row.profile,
                      created_at=iso(row.created_at), updated_at=iso(row.updated_at), plan=summary)


def _row(engine: Engine, caller: Caller, profile_id: str) -> Any:
    return caller.row(engine, SavedProfile.__table__, profile_id)


def get_profile(engine: Engine, caller: Caller, profile_id: str) -> SavedProfile | None:
    row = _row(engine, caller, profile_id)
    return None if row is None else SavedProfile(**row._mapping)


def create_profile(engine: Engine, caller: Caller, body: ProfileIn, profile: Profile, plan: dict[str, Any],
                   now: dt.datetime) -> ProfileOut:
    """Save `profile` (the body's, `pinned`) with the summary of its plan now; the caller planned it first, so an
    infeasible one was refused with the constraint it breaks before anything is stored."""
    values = {"id": str(uuid.uuid4()), "name": body.name, "tags": body.tags, "version": 1,
              "profile": profile.model_dump(mode="json"), "created_at": now, "updated_at": now,
              "lab_id": caller.lab_id}
    with engine.begin() as conn:
        conn.execute(insert(SavedProfile).values(**values))
        conn.execute(insert(ProfileVersion).values(profile_id=values["id"], version=1, name=body.name,
                                                   tags=body.tags, profile=values["profile"], created_at=now))
    return _out(SavedProfile(**values), plan)


def update_profile(engine: Engine, caller: Caller, current: SavedProfile, body: ProfileIn, profile: Profile,
                   summary: dict[str, Any], now: dt.datetime) -> ProfileOut | None:
    """A new version of `current` (as read before planning `profile`, the body's `pinned`, into `summary`).
    Plan-change subscriptions watching the profile start again from the new version's plan: an edit of the
    profile is not a price change."""
    profile_id = current.id
    version = current.version + 1
    values = {"name": body.name, "tags": body.tags, "version": version, "profile": profile.model_dump(mode="json"),
              "updated_at": now}
    t, s = SavedProfile.__table__, Subscription.__table__
    with engine.begin() as conn:
        # only over the version this request read: of two concurrent PUTs one wins, the other is told
        bumped = conn.execute(update(SavedProfile).where(t.c.id == profile_id, t.c.version == current.version)
                              .values(**values))
        if bumped.rowcount != 1:
            raise Conflict(f"profile {profile_id!r} was changed by another request meanwhile; read it and retry")
        conn.execute(insert(ProfileVersion).values(profile_id=profile_id, version=version, name=body.name,
                                                   tags=body.tags, profile=values["profile"], created_at=now))
        conn.execute(update(Subscription).where(s.c.profile_id == profile_id).values(baseline=summary))
    return _out(_row(engine, caller, profile_id), summary)


def list_profiles(engine: Engine, caller: Caller, limit: int, cursor: str | None, tag: str | None,
                  name: str | None) -> Page[ProfileOut]:
    t = SavedProfile.__table__
    query = select(t).where(caller.owns(t.c.lab_id))
    if name is not None:
        query = query.where(t.c.name.ilike(f"%{name}%"))
    with engine.connect() as conn:
        rows = list(conn.execute(newest_first(query, t.c.created_at, t.c.id, cursor, limit if tag is None else 10**6)))
    if tag is not None:  # tags are a JSON list: filtered here, the same on every database
        rows = [r for r in rows if tag in (r.tags or [])]
        rows = rows[:limit + 1]
    return page([_out(r) for r in rows], rows, limit)


def profile_out(saved: SavedProfile, plan: dict[str, Any]) -> ProfileOut:
    """A saved profile with the summary of its best plan (`plan_watch.plan_summary`)."""
    return _out(saved, plan)


def versions(engine: Engine, caller: Caller, profile_id: str) -> list[ProfileVersionOut] | None:
    if _row(engine, caller, profile_id) is None:
        return None
    v = ProfileVersion.__table__
    with engine.connect() as conn:
        rows = conn.execute(select(v).where(v.c.profile_id == profile_id).order_by(v.c.version)).all()
    return [ProfileVersionOut(version=r.version, name=r.name, tags=list(r.tags), profile=r.profile,
                              created_at=iso(r.created_at)) for r in rows]


def delete_profile(engine: Engine, caller: Caller, profile_id: str) -> bool:
    s, t = Subscription.__table__, SavedProfile.__table__
    with engine.begin() as conn:
        found = conn.execute(select(t.c.id).where(t.c.id == profile_id, caller.owns(t.c.lab_id))).first()
        if found is None:
            return False
        watching = conn.execute(select(s.c.id).where(s.c.profile_id == profile_id)).scalars().all()
        if watching:
            raise Conflict(f"profile {profile_id!r} is watched by alert subscription(s) {sorted(watching)}; "
                           f"delete them first")
        conn.execute(delete(SavedProfile).where(t.c.id == profile_id))
        return True
