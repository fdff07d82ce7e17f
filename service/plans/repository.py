"""Plans kept in the database so that GET /v1/plans/{id} answers after a restart, within the caller's lab."""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Engine, insert, select

from service.core.pagination import Page, newest_first, page
from service.core.timestamps import iso
from service.labs.auth import Caller
from service.plans.tables import PlanRecord
from solvers.profile import Profile
from solvers.result import PlanResult


@dataclass(frozen=True)
class PlanOrigin:
    """What a plan was made from besides its profile body: the saved profile version and the prices in force."""

    profile_id: str | None = None
    profile_version: int | None = None
    prices_in_force: dict[str, int] | None = None


class PlanListItem(BaseModel):
    id: str
    created_at: str
    status: str
    total_cost_usd: float
    currency: str = "USD"
    recommendation: str
    profile_id: str | None
    profile_version: int | None


@dataclass(frozen=True)
class StoredPlan:
    result: dict[str, Any]
    profile: dict[str, Any]
    created_at: dt.datetime
    prices_in_force: dict[str, int] | None


class PlanStore:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def save(self, caller: Caller, profile: Profile, result: PlanResult, now: dt.datetime,
             origin: PlanOrigin) -> PlanResult:
        stored = result.model_copy(update={
            "id": str(uuid.uuid4()), "created_at": iso(now), "profile_id": origin.profile_id,
            "profile_version": origin.profile_version, "prices_in_force": origin.prices_in_force})
        with self._engine.begin() as conn:
            conn.execute(insert(PlanRecord).values(
                id=stored.id, created_at=now, status=stored.status, total_cost_usd=stored.total_cost_usd,
                profile=profile.model_dump(mode="json"), result=stored.model_dump(mode="json"), lab_id=caller.lab_id,
                profile_id=origin.profile_id, profile_version=origin.profile_version,
                prices_in_force=origin.prices_in_force))
        return stored

    def get(self, caller: Caller, plan_id: str) -> StoredPlan | None:
        t = PlanRecord.__table__
        with self._engine.connect() as conn:
            row = conn.execute(select(t.c.result, t.c.profile, t.c.created_at, t.c.prices_in_force)
                               .where(t.c.id == plan_id, caller.owns(t.c.lab_id))).first()
        if row is None:
            return None
        return StoredPlan(dict(row.result), dict(row.profile), row.created_at, row.prices_in_force)

    def list(self, caller: Caller, limit: int, cursor: str | None, profile_id: str | None) -> Page[PlanListItem]:
        t = PlanRecord.__table__
        query = select(t.c.id, t.c.created_at, t.c.status, t.c.total_cost_usd, t.c.result, t.c.profile_id,
                       t.c.profile_version).where(caller.owns(t.c.lab_id))
        if profile_id is not None:
            query = query.where(t.c.profile_id == profile_id)
        with self._engine.connect() as conn:
            rows = list(conn.execute(newest_first(query, t.c.created_at, t.c.id, cursor, limit)))
        items = [PlanListItem(id=r.id, created_at=iso(r.created_at), status=r.status, total_cost_usd=r.total_cost_usd,
                              recommendation=r.result.get("recommendation", ""), profile_id=r.profile_id,
                              profile_version=r.profile_version) for r in rows]
        return page(items, rows, limit)
