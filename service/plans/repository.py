"""Plans kept in the database so that GET /v1/plans/{id} answers after a restart, within the caller's lab."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, insert, select

from service.core.db import JsonText, writing
from service.core.errors import NotFound
from service.core.pagination import Page, newest_first, page
from service.core.timestamps import iso
from service.labs.auth import Caller
from service.plans.schemas import PlanListItem
from service.plans.tables import PlanRecord
from solvers.base.profile import Profile
from solvers.base.result import PlanResult


@dataclass(frozen=True)
class PlanOrigin:
    """What a plan was made from besides its profile body: the saved profile version and the prices in force."""

    profile_id: str | None = None
    profile_version: int | None = None
    prices_in_force: dict[str, int] | None = None


@dataclass(frozen=True)
class StoredPlan:
    result: dict[str, Any]
    profile: dict[str, Any]
    created_at: dt.datetime
    prices_in_force: dict[str, int] | None


def save_plan(engine: Engine, caller: Caller, profile: Profile | str, result: PlanResult, now: dt.datetime,
              origin: PlanOrigin) -> tuple[PlanResult, str]:
    """Store the plan as answered, with a new id and where it came from (`profile` as a model or as its JSON);
    the stored result is returned with its JSON, which is also the answer."""
    stored = result.model_copy(update={
        "id": str(uuid.uuid4()), "created_at": iso(now), "profile_id": origin.profile_id,
        "profile_version": origin.profile_version, "prices_in_force": origin.prices_in_force})
    answer = stored.model_dump_json()
    profile_json = profile if isinstance(profile, str) else profile.model_dump_json()
    # the values as parameters of one statement (compiled once, then cached), not `insert().values(...)`, which
    # builds and compiles a new statement for every plan (about 0.5 ms of the API process's time per plan)
    with writing(engine) as conn:
        conn.execute(insert(PlanRecord), {
            "id": stored.id, "created_at": now, "status": stored.status, "total_cost_usd": stored.total_cost_usd,
            "profile": JsonText(profile_json), "result": JsonText(answer),
            "lab_id": caller.lab_id, "profile_id": origin.profile_id, "profile_version": origin.profile_version,
            "prices_in_force": origin.prices_in_force})
    return stored, answer


def get_plan(engine: Engine, caller: Caller, plan_id: str) -> StoredPlan:
    """The caller's plan with this id (NotFound otherwise: another lab's plans do not exist for it)."""
    t = PlanRecord.__table__
    with engine.connect() as conn:
        row = conn.execute(select(t.c.result, t.c.profile, t.c.created_at, t.c.prices_in_force)
                           .where(t.c.id == plan_id, caller.owns(t.c.lab_id))).first()
    if row is None:
        raise NotFound("plan", plan_id)
    return StoredPlan(dict(row.result), dict(row.profile), row.created_at, row.prices_in_force)


def list_plans(engine: Engine, caller: Caller, limit: int, cursor: str | None,
               profile_id: str | None) -> Page[PlanListItem]:
    t = PlanRecord.__table__
    query = select(t.c.id, t.c.created_at, t.c.status, t.c.total_cost_usd, t.c.result, t.c.profile_id,
                   t.c.profile_version).where(caller.owns(t.c.lab_id))
    if profile_id is not None:
        query = query.where(t.c.profile_id == profile_id)
    with engine.connect() as conn:
        rows = list(conn.execute(newest_first(query, t.c.created_at, t.c.id, cursor, limit)))
    items = [PlanListItem(id=r.id, created_at=iso(r.created_at), status=r.status, total_cost_usd=r.total_cost_usd,
                          recommendation=r.result.get("recommendation", ""), profile_id=r.profile_id,
                          profile_version=r.profile_version) for r in rows]
    return page(items, rows, limit)
