"""Structured logs: one JSON object per line, each carrying the id of the request it belongs to.

Why a context variable: a request id set by the middleware at the edge is then visible to every log call made
while that request runs (routes, storage, the solver), in threads that Starlette runs sync routes in too
(`run_in_threadpool` copies the context), without passing it through every function.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import sys
import time
import uuid
from contextvars import ContextVar
from typing import Any, Literal

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.core.errors import internal_error

request_id: ContextVar[str | None] = ContextVar("gpuplan_request_id", default=None)
access_log = logging.getLogger("gpuplan.access")
log = logging.getLogger("gpuplan")

# a caller's id is echoed only when it is harmless in a log line and a header: printable, no spaces, short
_ACCEPTABLE_ID = re.compile(r"^[A-Za-z0-9._:@/+=-]{1,128}$")
# standard LogRecord attributes; anything else on a record came from `extra=` and belongs in the JSON object
# (uvicorn adds `color_message`, the message with terminal colour codes)
_RECORD_FIELDS = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime",
                                                                                   "color_message"}
_OURS = "_gpuplan_handler"  # marks the handler configure_logging installed, so a second call replaces only it


class RequestIdFilter(logging.Filter):
    """Stamps every record with the current request id (None outside a request: scheduler ticks, start-up)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


class JsonFormatter(logging.Formatter):
    """`{"ts", "level", "logger", "message", "request_id", ...extra fields, "exc_info"}` on one line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "request_id": getattr(record, "request_id", None),
        }
        for key, value in vars(record).items():
            if key not in _RECORD_FIELDS and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_controls(text: str) -> str:
    """`text` on one line: line breaks and other control characters written as escapes (`\\n`, `\\x1b`)."""
    return _CONTROL.sub(lambda m: _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}"), text)


class TextFormatter(logging.Formatter):
    """One line per record for people's terminals. The message is escaped: a path like `/x%0a2026-01-01 ... ERROR`
    (decoded to a line break) must not forge a log line; a traceback, which the service writes itself, keeps
    its lines."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:
        safe = logging.makeLogRecord({**vars(record), "message": escape_controls(record.message)})
        return super().formatMessage(safe)


def configure_logging(level: str = "info", fmt: Literal["json", "text"] = "json") -> None:
    """Send every log record (ours, uvicorn's, APScheduler's) through one stderr handler in `fmt`.

    Idempotent: calling it again (several apps in one test process) replaces only the handler it installed,
    so handlers others attached (pytest's log capture) keep working.
    """
    root = logging.getLogger()
    for handler in [h for h in root.handlers if getattr(h, _OURS, False)]:
        root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    setattr(handler, _OURS, True)
    handler.addFilter(RequestIdFilter())
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    root.addHandler(handler)
    root.setLevel(level.upper())
    # uvicorn installs its own plain-text handlers; route its records through ours instead. Its access log is
    # replaced by `gpuplan.access` (route template, duration, request id), so it is silenced.
    for name in ("uvicorn", "uvicorn.error"):
        logger = logging.getLogger(name)
        logger.handlers.clear()
        logger.propagate = True
    logging.getLogger("uvicorn.access").disabled = True
    # APScheduler logs two INFO lines per job run (every leader check, every tick); failures stay ERROR
    logging.getLogger("apscheduler.executors.default").setLevel(logging.WARNING)


def _incoming_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"x-request-id":
            text = value.decode("latin-1")
            return text if _ACCEPTABLE_ID.match(text) else None
    return None


class RequestIdMiddleware:
    """Accepts the caller's `X-Request-ID` (or makes one), echoes it in the response and logs one access line.

    A plain ASGI middleware rather than Starlette's BaseHTTPMiddleware: it sets the context variable in the task
    that runs the route, and it does not buffer streamed responses.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        rid = _incoming_id(scope) or uuid.uuid4().hex
        token = request_id.set(rid)
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"x-request-id"]
                message = {**message, "headers": [*headers, (b"x-request-id", rid.encode("latin-1"))]}
            await send(message)

        answered = False

        async def send_once(message: Message) -> None:
            nonlocal answered
            answered = answered or message["type"] == "http.response.start"
            await send_with_id(message)

        try:
            await self.app(scope, receive, send_once)
        except Exception:
            log.exception("unhandled error on %s %s", scope["method"], scope["path"])
            self._log(scope, 500, started)
            if answered:  # nothing more can be said on this connection: uvicorn closes it
                raise
            # answered here, inside this middleware, so the 500 carries X-Request-ID too; `Connection: close`
            # because the request's body may be left unread: the next request on the connection was reset
            # (issue 31). The error is not raised on, so the server does not log it a second time.
            await internal_error()(scope, receive, send_with_id)
            return
        self._log(scope, status, started)
        request_id.reset(token)

    @staticmethod
    def _log(scope: Scope, status: int, started: float) -> None:
        route = scope.get("route")
        access_log.info("%s %s %d", scope["method"], scope["path"], status, extra={
            "method": scope["method"], "path": scope["path"], "route": getattr(route, "path", None),
            "status": status, "duration_ms": round(1000 * (time.perf_counter() - started), 2),
            "client": (scope.get("client") or ("", 0))[0]})
