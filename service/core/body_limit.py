"""Request bodies above `GPUPLAN_MAX_BODY_BYTES` are refused with a 413 before anything parses them.

Why at the edge: the JSON guard, pydantic and the planner each hold a body in memory, several times its size; a
declared `Content-Length` above the limit is refused at once, and a chunked body is counted as it arrives and
refused as soon as it passes the limit, so no request makes the process hold more than the limit. Every method:
a GET, DELETE or OPTIONS body was let through whole (a 600 MB body to /healthz took the process from 352 MB to
2.7 GB, issue 31). With auth on, a keyed route without a valid key is answered 401 before this reads anything
(service/labs/gate.py, outside this middleware).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.core.errors import problem

RULE = "max_body_bytes"


def _too_large(limit: int) -> Any:
    message = f"the request body may be at most {limit} bytes"
    return problem(413, "Content too large", message, errors=[{"field": "body", "rule": RULE, "message": message}])


def _declared_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _declared_length(scope)
        if declared is not None and declared > self.max_bytes:
            await _too_large(self.max_bytes)(scope, receive, send)
            return
        messages: list[Message] = []
        size = 0
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                await _too_large(self.max_bytes)(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        pending = iter(messages)

        async def replay() -> Message:
            return next(pending, None) or await receive()

        await self.app(scope, replay, send)


def install(app: FastAPI, max_bytes: int) -> None:
    app.add_middleware(BodyLimitMiddleware, max_bytes=max_bytes)
