"""Who is calling: a lab, or the local user (the dependency that finds it is `service.core.dependencies.CallerDep`).

With `GPUPLAN_AUTH=off` (the single-user default) every request is the local user, whose objects belong
to no lab. With it on, a request needs `Authorization: Bearer <key>` of an active key; read-only keys may
only read; each key has a rate limit. Objects of other labs do not exist for the caller (404, not 403).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Engine, FromClause, select

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# where service/labs/gate.py leaves the key it found for a request (`request.state.api_key`), so the route's
# dependency does not look it up again
KEY_STATE = "api_key"


@dataclass(frozen=True)
class Caller:
    lab_id: str | None  # None: auth is off, the local user
    key_id: str | None = None
    read_only: bool = False

    def owns(self, column: Any) -> ColumnElement[bool]:
        """SQL condition: the row belongs to the caller's lab (no lab when auth is off)."""
        condition: ColumnElement[bool] = column.is_(None) if self.lab_id is None else column == self.lab_id
        return condition


    def row(self, engine: Engine, table: FromClause, object_id: str) -> Any:
        """The row of `table` with this id if it is the caller's, else None (another lab's rows do not exist)."""
        with engine.connect() as conn:
            return conn.execute(select(table).where(table.c.id == object_id, self.owns(table.c.lab_id))).first()


LOCAL_USER = Caller(None)
