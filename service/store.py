"""Plans kept in the database so that GET /v1/plans/{id} answers after a restart."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from service.db import PlanRecord
from solvers.profile import Profile
from solvers.result import PlanResult


class PlanStore:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    def save(self, profile: Profile, result: PlanResult, now: dt.datetime) -> PlanResult:
        stored = result.model_copy(update={"id": str(uuid.uuid4()), "created_at": now.isoformat()})
        record = PlanRecord(
            id=stored.id, created_at=now, status=stored.status, total_cost_usd=stored.total_cost_usd,
            profile=profile.model_dump(mode="json"), result=stored.model_dump(mode="json"),
        )
        with self._sessions.begin() as session:
            session.add(record)
        return stored

    def get(self, plan_id: str) -> dict[str, Any] | None:
        with self._sessions() as session:
            record = session.get(PlanRecord, plan_id)
            return None if record is None else dict(record.result)
