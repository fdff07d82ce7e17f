"""Control characters in a request are refused at the edge with a 422, before any route or the database sees them.

Why here and not in each model: PostgreSQL cannot store a NUL in text or JSON at all (the driver raises, the
request answered 500), and a newline or an escape sequence in a name ends up in log lines, CSV files and
terminals. No field of this API has a use for them, and ids and filters arrive as path and query strings that no
pydantic model of ours sees, so one check on the decoded path, every query value and every string of a JSON body
covers them all. Tab, line feed and carriage return are allowed inside JSON strings (text a person typed); in a
path or a query nothing below U+0020 nor DEL is.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

import anyio
from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.core.errors import problem

RULE = "no_control_characters"
MESSAGE = "control characters (such as NUL, U+0000) are not allowed"
_IN_URL = re.compile(r"[\x00-\x1f\x7f]")
_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def url_offender(scope: Scope) -> str | None:
    """The field a control character came in by, `path` or the query parameter's name, or None."""
    if _IN_URL.search(scope.get("path", "")):
        return "path"
    query = scope.get("query_string", b"").decode("latin-1")
    for name, value in parse_qsl(query, keep_blank_values=True):
        if _IN_URL.search(name) or _IN_URL.search(value):
            return name if not _IN_URL.search(name) else "query"
    return None


def body_offender(document: Any) -> str | None:
    """The dotted path (`profile.demand.reference_gpu`, `tags[0]`) of the first string or key in a parsed JSON
    body holding a control character, or None. Iterative, so a deeply nested body cannot exhaust the stack."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            if _IN_TEXT.search(value):
                return where or "body"
        elif isinstance(value, dict):
            for key, item in value.items():
                path = f"{where}.{key}" if where else str(key)
                if _IN_TEXT.search(str(key)):
                    return where or "body"
                stack.append((path, item))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", item) for i, item in enumerate(value))
    return None


# A JSON text can hold a control character inside a string only as an escape (`\u0000`, `\b`, `\f`: a raw one is
# not JSON), so the body's bytes are searched for those escapes, in native code, without parsing: parsing every
# body here took 12% of the API process's samples under load, and a 4 MB body of 350,000 keys held the event
# loop 0.7 s (issue 31). `\\u0000` is an escaped backslash and the text u0000, not an escape (see
# `has_control_escape`). Only a body that has one is parsed, to name the field, when it is small.
_ESCAPE = re.compile(rb"\\(?:u00(?:0[0-8bBcCeEfF]|1[0-9a-fA-F])|[bf])")  # a literal first: a fast search
_NAME_FIELD_BELOW = 64 * 1024  # a larger body with one is refused naming `body`
_GUARD_THREADS = anyio.CapacityLimiter(4)


def has_control_escape(body: bytes | bytearray) -> bool:
    """Whether a JSON text escapes a control character in one of its strings (see above). Escaped backslashes
    (`\\\\`) are taken out first, pair by pair from the left as a JSON parser reads them, so every backslash left
    starts an escape: two passes in native code, whatever the body holds."""
    return b"\\" in body and _ESCAPE.search(body.replace(b"\\\\", b"")) is not None


def _offender_in(body: bytes) -> str | None:
    """The field holding a control character, `body` when the body is large or not JSON, None when it has none."""
    if not has_control_escape(body):
        return None
    if len(body) > _NAME_FIELD_BELOW:
        return "body"
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return "body"
    return body_offender(document) or "body"


def _refusal(field: str) -> Any:
    return problem(422, "Invalid request", f"{field}: {MESSAGE}",
                   errors=[{"field": field, "rule": RULE, "message": MESSAGE}])


def _is_json(scope: Scope) -> bool:
    for name, value in scope.get("headers", ()):
        if name == b"content-type":
            media = value.decode("latin-1").split(";", 1)[0].strip().lower()
            return bool(media == "application/json" or media.endswith("+json"))
    return False


class InputGuardMiddleware:
    """Checks the path and query of every HTTP request, and the body of JSON requests (read once, then handed on
    unchanged to the app). A body that is not valid JSON passes through: the app answers it as before."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        field = url_offender(scope)
        if field is not None:
            await _refusal(field)(scope, receive, send)
            return
        if not _is_json(scope):
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        body = bytearray()
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            if not message.get("more_body", False):
                break
        if not has_control_escape(body):  # the common case, a search in native code
            field = None
        else:
            field = await anyio.to_thread.run_sync(_offender_in, bytes(body), limiter=_GUARD_THREADS)
        if field is not None:
            await _refusal(field)(scope, receive, send)
            return
        pending = iter(messages)

        async def replay() -> Message:
            return next(pending, None) or await receive()

        await self.app(scope, replay, send)


def install(app: FastAPI) -> None:
    app.add_middleware(InputGuardMiddleware)
