"""One error shape for every failure: RFC 9457 problem details, never a stack trace.

Validation errors list each field with the rule it broke, so a form or a script can point at it.
"""

from __future__ import annotations

import logging
from typing import Any, ClassVar, TypeVar

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from solvers.base.errors import InfeasibleProfile, ProfileError, SolverFailure

log = logging.getLogger("gpuplan")
T = TypeVar("T")
PROBLEM_JSON = "application/problem+json"
# tagged unions put the tag into the error location; people name the field without it
_UNION_TAGS = {
    "demand": {"utilisation", "series", "concurrency"},
    "workload": {"class", "job"},
    "condition": {"price_threshold", "price_move", "plan_change"},
    "delivery": {"webhook", "email"},
}


class ServiceError(Exception):
    """An error that knows its HTTP answer: raised anywhere below a route, answered as one problem document.

    Subclasses fix the status and title; `errors` lists the fields at fault (empty when none is), `headers` are
    sent with the answer (e.g. `Retry-After`).
    """

    status: ClassVar[int] = 500
    title: ClassVar[str] = "Internal error"

    def __init__(self, detail: str, *, errors: list[dict[str, str]] | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.detail, self.errors, self.headers = detail, errors or [], headers
        self.extra: dict[str, Any] = {}  # more members of the problem document (e.g. `error_count`)


class InvalidField(ServiceError):
    """A request value that passed the schema but breaks a rule only the service can check (an unknown GPU,
    a refused webhook target): answered as a 422 naming the field and the rule, like schema errors."""

    status, title = 422, "Invalid request"

    def __init__(self, field: str, rule: str, message: str) -> None:
        super().__init__(f"{field}: {message}", errors=[{"field": field, "rule": rule, "message": message}])
        self.field, self.rule, self.message = field, rule, message


class NotFound(ServiceError):
    """No such object for this caller (another lab's objects do not exist for it either)."""

    status, title = 404, "Not found"

    def __init__(self, what: str, object_id: str) -> None:
        super().__init__(f"no {what} with id {object_id!r}")


class Conflict(ServiceError):
    """The request is valid but the stored state does not allow it (409)."""

    status, title = 409, "Conflict"


class Unauthorized(ServiceError):
    """No API key, or one that is unknown or revoked (401, with the scheme to use)."""

    status, title = 401, "Unauthorized"

    def __init__(self, detail: str) -> None:
        super().__init__(detail, headers={"WWW-Authenticate": "Bearer"})


class Forbidden(ServiceError):
    """A known key that may not do this (a read-only key writing)."""

    status, title = 403, "Forbidden"


class TooManyRequests(ServiceError):
    """The key's rate limit is reached; `Retry-After` says when the next request may go."""

    status, title = 429, "Too many requests"

    def __init__(self, detail: str, retry_after_s: int) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after_s)})


class ServiceUnavailable(ServiceError):
    """This replica cannot take the request now (the planner's queue is full, a worker stopped); `Retry-After`
    says when to try again. Never a silent wait: the client (or its load balancer) decides."""

    status, title = 503, "Service unavailable"

    def __init__(self, detail: str, retry_after_s: int) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after_s)})


# an error names the value it refused, but never sends a megabyte back: echoed text is cut to this many characters
MAX_ECHO = 300
# a problem document lists at most this many errors, and `error_count` says how many there were: 350,000 unknown
# keys answered 30.7 MB (issue 31)
MAX_ERRORS = 20


def brief(text: str, limit: int = MAX_ECHO) -> str:
    """`text` cut to `limit` characters, saying how much was left out."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def problem(status: int, title: str, detail: str, headers: dict[str, str] | None = None,
            errors: list[dict[str, str]] | None = None, **extra: Any) -> JSONResponse:
    """The one error answer: RFC 9457 fields, `errors` always present (empty when no field is at fault), at most
    `MAX_ERRORS` of them, and `error_count` (how many there were, shown or not).

    `detail` and each error's field and message may quote the caller's input, so all three are cut."""
    errors = errors or []
    shown = [{**e, "field": brief(e.get("field", "")), "message": brief(e.get("message", ""))}
             for e in errors[:MAX_ERRORS]]
    body = {"type": "about:blank", "title": title, "status": status, "detail": brief(detail, 4 * MAX_ECHO),
            "errors": shown, "error_count": len(errors), **extra}
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def internal_error() -> JSONResponse:
    """The answer to a failure nobody foresaw: no detail (it is logged with the request id), and the connection
    closed after it, since the request may have been left half read."""
    return problem(500, "Internal error", "the server failed to answer this request; it has been logged",
                   headers={"Connection": "close"})


def field_path(loc: tuple[Any, ...] | list[Any]) -> str:
    """`('body', 'demand', 'utilisation', 'utilisation')` -> `demand.utilisation` (drops the union tag)."""
    parts = list(loc)
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:]
    parts = [part for i, part in enumerate(parts)
             if not (i > 0 and isinstance(parts[i - 1], str) and part in _UNION_TAGS.get(parts[i - 1], ()))]
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "body"


def validation_errors(errors: list[Any]) -> list[dict[str, str]]:
    return [
        {"field": field_path(e.get("loc", ())), "rule": str(e.get("type", "invalid")),
         "message": str(e.get("msg", "invalid value"))}
        for e in errors
    ]


def install(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        every = exc.errors()
        errors = validation_errors(list(every[:MAX_ERRORS]))
        detail = "; ".join(f"{e['field']}: {e['message']} ({e['rule']})" for e in errors)
        return problem(422, "Invalid request", detail, errors=errors, error_count=len(every))

    @app.exception_handler(ProfileError)
    async def _profile(_: Request, exc: ProfileError) -> JSONResponse:
        errors = [{"field": exc.field, "rule": exc.rule, "message": exc.message}]
        return problem(422, "Invalid profile", f"{exc.field}: {exc.message}", errors=errors)

    @app.exception_handler(ServiceError)
    async def _service(_: Request, exc: ServiceError) -> JSONResponse:
        return problem(exc.status, exc.title, exc.detail, headers=exc.headers, errors=exc.errors, **exc.extra)

    @app.exception_handler(InfeasibleProfile)
    async def _infeasible(_: Request, exc: InfeasibleProfile) -> JSONResponse:
        return problem(422, "No plan meets this profile", exc.message, constraint=exc.constraint,
                       nearest_feasible=exc.nearest_feasible,
                       errors=[{"field": exc.constraint, "rule": "feasible", "message": exc.message}])

    @app.exception_handler(SolverFailure)
    async def _solver(_: Request, exc: SolverFailure) -> JSONResponse:
        return problem(503, "Solver failure", str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return problem(exc.status_code, _TITLES.get(exc.status_code, "Error"), str(exc.detail),
                       headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # reached only when service/core/logs.py's middleware (which answers these itself) failed
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return internal_error()


_TITLES = {400: "Bad request", 401: "Unauthorized", 403: "Forbidden", 404: "Not found", 405: "Method not allowed",
           409: "Conflict", 413: "Content too large", 429: "Too many requests",
           503: "Service unavailable"}


def found(value: T | None, what: str, object_id: str) -> T:
    """`value`, or NotFound naming what was looked for: the one way a missing object becomes a 404."""
    if value is None:
        raise NotFound(what, object_id)
    return value
