"""`Idempotency-Key` on POST: a retried request gets the first answer again, never a second object.

The first request with a key claims it (a row, primary key = caller + key) before it runs; a retry while
it runs waits for its answer; a retry after it replays the stored answer (`Idempotent-Replayed: true`).
The same key with a different request body is refused (422); "different" is of the parsed JSON, so a retry that
re-indents the same body (or orders its keys otherwise) is the same request (issue 31). Answers that a retry
should not see again (5xx, 401, 403, 429, and a 422 `plan_time_budget`, which a quieter moment may not give)
are not kept, so the retry runs afresh. Keys are kept for `KEEP_FOR`.

A claim is a lease: while its request runs, the process renews it every `RENEW_EVERY` (the row's `created_at`
is the time of the last renewal), however long the request takes, so a retry of a slow plan waits for it and
never makes a second object. When the process dies (kill -9, a lost node), the renewals stop and a retry takes
the claim over once it is `LEASE` old, instead of being answered 409 for minutes. With auth on, keys belong to
the API key that sent them, and only a still-valid key gets a replay (which counts against its rate limit).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import json
import logging
import math
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import Response
from sqlalchemy import JSON, Engine, Integer, LargeBinary, String, delete, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column
from starlette.concurrency import run_in_threadpool
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.types import ASGIApp, Receive, Scope, Send

from pricing.storage import UtcDateTime
from service.core.clock import utcnow
from service.core.db import Base
from service.core.dependencies import runtime_of
from service.core.errors import problem
from service.labs.repository import authenticate

log = logging.getLogger(__name__)
HEADER = "Idempotency-Key"
LEASE = dt.timedelta(seconds=15)  # a running claim not renewed for this long belongs to a dead process
RENEW_EVERY = dt.timedelta(seconds=5)  # well inside LEASE, so a busy event loop or database still renews in time
KEEP_FOR = dt.timedelta(hours=24)
WAIT_FOR_S = 30.0
NOT_KEPT = frozenset({401, 403, 429})
TRANSIENT_RULE = b"plan_time_budget"  # service/core/plan_pool.py: a 422 that a retry may not get again
REPLAYED_HEADERS = ("content-type", "location")


class IdempotencyRecord(Base):
    __tablename__ = "idempotency_keys"

    scope: Mapped[str] = mapped_column(String(64), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(12))
    status_code: Mapped[int | None] = mapped_column(Integer)
    headers: Mapped[dict[str, str] | None] = mapped_column(JSON)
    body: Mapped[bytes | None] = mapped_column(LargeBinary)
    created_at: Mapped[dt.datetime] = mapped_column(UtcDateTime())  # claimed, last renewed or answered at


def _claim(engine: Engine, scope: str, key: str, fingerprint: str, now: dt.datetime) -> tuple[str, Any]:
    """("run", None) when this request owns the key now; ("replay", row), ("busy", None) or ("mismatch", None)."""
    t = IdempotencyRecord.__table__
    with engine.begin() as conn:  # expired keys go, with the answers they kept
        conn.execute(delete(IdempotencyRecord).where(t.c.created_at < now - KEEP_FOR))
    try:
        with engine.begin() as conn:
            conn.execute(insert(IdempotencyRecord).values(scope=scope, key=key, fingerprint=fingerprint,
                                                          state="running", created_at=now))
        return "run", None
    except IntegrityError:
        pass
    with engine.begin() as conn:
        row = conn.execute(select(t).where(t.c.scope == scope, t.c.key == key)).first()
        if row is None:  # the other request's answer was not kept: run again
            return _claim(engine, scope, key, fingerprint, now)
        if row.fingerprint != fingerprint:
            return "mismatch", None
        if row.state == "done":
            return "replay", row
        taken = conn.execute(update(IdempotencyRecord).where(
            t.c.scope == scope, t.c.key == key, t.c.state == "running", t.c.created_at < now - LEASE,
        ).values(created_at=now))
        return ("run", None) if taken.rowcount == 1 else ("busy", None)


def _renew(engine: Engine, scope: str, key: str, now: dt.datetime) -> None:
    t = IdempotencyRecord.__table__
    with engine.begin() as conn:
        conn.execute(update(IdempotencyRecord).where(t.c.scope == scope, t.c.key == key, t.c.state == "running")
                     .values(created_at=now))


async def _keep_renewing(engine: Engine, scope: str, key: str) -> None:
    """Renew the lease until cancelled (when the request has its answer). A failed renewal is logged and tried
    again: the request itself goes on, and at worst a retry runs it a second time after `LEASE`."""
    while True:
        await asyncio.sleep(RENEW_EVERY.total_seconds())
        try:
            await run_in_threadpool(_renew, engine, scope, key, utcnow())
        except Exception as exc:
            log.warning("idempotency: could not renew the claim on a key: %s", type(exc).__name__)


def _transient(status: int, body: bytes) -> bool:
    """An answer a retry should not see again: a server error, a refused key, a rate limit, or a plan that did
    not finish within the time budget this time (a quieter moment may solve it)."""
    if status >= 500 or status in NOT_KEPT:
        return True
    if status != 422 or TRANSIENT_RULE not in body:
        return False
    try:
        errors = json.loads(body).get("errors", [])
    except (ValueError, AttributeError):
        return False
    return any(isinstance(e, dict) and e.get("rule") == TRANSIENT_RULE.decode() for e in errors)


def fingerprint(method: str, path: str, query: str, body: bytes) -> str:
    """What makes two requests the same: method, path, query and the body's JSON as parsed (keys sorted, no
    layout), or its bytes when it is not JSON."""
    try:
        canonical = json.dumps(json.loads(body), sort_keys=True, separators=(",", ":")).encode() if body else b""
    except (ValueError, RecursionError):
        canonical = body
    return hashlib.sha256(b"\n".join([method.encode(), path.encode(), query.encode(), canonical])).hexdigest()


def _finish(engine: Engine, scope: str, key: str, response: Response, body: bytes) -> None:
    t = IdempotencyRecord.__table__
    with engine.begin() as conn:
        where = (t.c.scope == scope) & (t.c.key == key)
        if _transient(response.status_code, body):
            conn.execute(delete(IdempotencyRecord).where(where))
            return
        headers = {h: response.headers[h] for h in REPLAYED_HEADERS if h in response.headers}
        conn.execute(update(IdempotencyRecord).where(where).values(state="done", status_code=response.status_code,
                                                                   headers=headers, body=body))


def _release(engine: Engine, scope: str, key: str) -> None:
    t = IdempotencyRecord.__table__
    with engine.begin() as conn:
        conn.execute(delete(IdempotencyRecord).where(t.c.scope == scope, t.c.key == key))


def _scope(request: Request) -> str | None:
    """Whose key space the request is in: the API key's id when auth is on (None without a valid key, so a
    revoked key replays nothing), one local space when it is off. Keys of two labs never meet."""
    runtime = runtime_of(request.app)
    if not runtime.settings.auth:
        return "local"
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    found = authenticate(runtime.engine, token.strip()) if scheme.lower() == "bearer" and token.strip() else None
    return None if found is None else f"key:{found.id}"


def _rate_limited(request: Request, scope: str) -> Response | None:
    """A replay counts against the key's rate limit like any request (the route is not run for it)."""
    if not scope.startswith("key:"):
        return None
    wait = runtime_of(request.app).rate_limiter.retry_after(scope.removeprefix("key:"))
    if wait is None:
        return None
    return problem(429, "Too many requests", "rate limit reached for this key",
                   headers={"Retry-After": str(max(1, math.ceil(wait)))})


def _replay(row: Any) -> Response:
    return Response(row.body, status_code=row.status_code, headers={**(row.headers or {}),
                                                                    "Idempotent-Replayed": "true"})


class IdempotencyMiddleware(BaseHTTPMiddleware):
    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        key = request.headers.get(HEADER)
        if request.method != "POST" or key is None:
            return await call_next(request)
        if not 1 <= len(key) <= 255:
            errors = [{"field": HEADER, "rule": "length", "message": "1 to 255 characters"}]
            return problem(422, "Invalid request", f"{HEADER}: 1 to 255 characters", errors=errors)
        engine = runtime_of(request.app).engine
        scope = await run_in_threadpool(_scope, request)
        if scope is None:  # no valid key: the route answers 401, and nothing is claimed or replayed
            return await call_next(request)
        body = await request.body()
        # parsed in a worker thread: only callers with a valid key get here when auth is on
        same = await run_in_threadpool(fingerprint, request.method, request.url.path, request.url.query, body)
        waited = 0.0
        while True:
            verdict, row = await run_in_threadpool(_claim, engine, scope, key, same, utcnow())
            if verdict == "replay":
                limited = _rate_limited(request, scope)
                return limited if limited is not None else _replay(row)
            if verdict == "mismatch":
                errors = [{"field": HEADER, "rule": "same_request",
                           "message": "this key was used for a different request"}]
                return problem(422, "Invalid request", f"{HEADER}: this key was used for a different request",
                               errors=errors)
            if verdict == "run":
                break
            if waited >= WAIT_FOR_S:
                return problem(409, "Conflict", f"a request with this {HEADER} is still running; retry later",
                               headers={"Retry-After": "1"})
            await asyncio.sleep(0.05)
            waited += 0.05
        lease = asyncio.create_task(_keep_renewing(engine, scope, key))
        try:
            response = await call_next(request)
        except BaseException:  # an unhandled error (answered 500): free the key so a retry runs again
            lease.cancel()
            await run_in_threadpool(_release, engine, scope, key)
            raise
        finally:
            lease.cancel()
        chunks = [chunk async for chunk in response.body_iterator]  # type: ignore[attr-defined]
        content = b"".join(c if isinstance(c, bytes) else c.encode() for c in chunks)
        await run_in_threadpool(_finish, engine, scope, key, response, content)
        return Response(content, status_code=response.status_code, headers=dict(response.headers))


_HEADER_BYTES = HEADER.lower().encode()


class IdempotencyGate:
    """Only a POST carrying the header goes through `IdempotencyMiddleware`; every other request passes straight
    on. Starlette's BaseHTTPMiddleware costs a task group, streams and a copy of the answer per request (about a
    tenth of the API process's time per plan at 16 concurrent clients): paid only where a key asks for it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.keyed = IdempotencyMiddleware(app)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and any(
                name == _HEADER_BYTES for name, _ in scope.get("headers", ())):
            await self.keyed(scope, receive, send)
        else:
            await self.app(scope, receive, send)


def install(app: FastAPI) -> None:
    app.add_middleware(IdempotencyGate)
