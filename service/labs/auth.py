"""Who is calling: the FastAPI dependency every lab-owned endpoint takes.

With `GPUPLAN_AUTH=off` (the single-user default) every request is the local user, whose objects belong
to no lab. With it on, a request needs `Authorization: Bearer <key>` of an active key; read-only keys may
only read; each key has a rate limit. Objects of other labs do not exist for the caller (404, not 403).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import ColumnElement, Engine, FromClause, select

from service.labs.repository import authenticate

_bearer = HTTPBearer(auto_error=False, description="an API key from `gpuplan keys create LAB` (when GPUPLAN_AUTH=on)")
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


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


def _unauthorized(message: str) -> HTTPException:
    return HTTPException(401, message, headers={"WWW-Authenticate": "Bearer"})


def current_caller(request: Request,
                   credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> Caller:
    state = request.app.state
    if not state.settings.auth:
        return LOCAL_USER
    if credentials is None:
        raise _unauthorized("this endpoint needs an API key: Authorization: Bearer <key>")
    key = authenticate(state.engine, credentials.credentials)
    if key is None:
        raise _unauthorized("the API key is unknown or revoked")
    wait = state.rate_limiter.retry_after(key.id)
    if wait is not None:
        raise HTTPException(429, f"rate limit of {state.settings.rate_limit_per_minute:g} requests per minute for "
                            f"this key reached", headers={"Retry-After": str(max(1, math.ceil(wait)))})
    if key.read_only and request.method not in READ_METHODS:
        raise HTTPException(403, "this API key is read-only")
    return Caller(key.lab_id, key.id, key.read_only)


CallerDep = Annotated[Caller, Depends(current_caller)]
