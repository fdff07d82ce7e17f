"""One error shape for every failure: RFC 9457 problem details, never a stack trace.

Validation errors list each field with the rule it broke, so a form or a script can point at it.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from solvers.errors import InfeasibleProfile, ProfileError
from solvers.plan import SolverFailure

log = logging.getLogger("gpuplan")
PROBLEM_JSON = "application/problem+json"
# tagged unions put the tag into the error location; people name the field without it
_UNION_TAGS = {
    "demand": {"utilisation", "series"},
    "condition": {"price_threshold", "price_move", "plan_change"},
    "delivery": {"webhook", "email"},
}


class InvalidField(ValueError):
    """A request value that passed the schema but breaks a rule only the service can check (an unknown GPU,
    a refused webhook target): answered as a 422 naming the field and the rule, like schema errors."""

    def __init__(self, field: str, rule: str, message: str) -> None:
        super().__init__(message)
        self.field, self.rule, self.message = field, rule, message


class Conflict(Exception):
    """The request is valid but the stored state does not allow it (409)."""


def problem(status: int, title: str, detail: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    body = {"type": "about:blank", "title": title, "status": status, "detail": detail, **extra}
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


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
        errors = validation_errors(list(exc.errors()))
        detail = "; ".join(f"{e['field']}: {e['message']} ({e['rule']})" for e in errors)
        return problem(422, "Invalid request", detail, errors=errors)

    @app.exception_handler(ProfileError)
    async def _profile(_: Request, exc: ProfileError) -> JSONResponse:
        errors = [{"field": exc.field, "rule": exc.rule, "message": exc.message}]
        return problem(422, "Invalid profile", f"{exc.field}: {exc.message}", errors=errors)

    @app.exception_handler(InvalidField)
    async def _field(_: Request, exc: InvalidField) -> JSONResponse:
        errors = [{"field": exc.field, "rule": exc.rule, "message": exc.message}]
        return problem(422, "Invalid request", f"{exc.field}: {exc.message}", errors=errors)

    @app.exception_handler(Conflict)
    async def _conflict(_: Request, exc: Conflict) -> JSONResponse:
        return problem(409, "Conflict", str(exc))

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
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return problem(500, "Internal error", "the server failed to answer this request; it has been logged")


_TITLES = {400: "Bad request", 401: "Unauthorized", 403: "Forbidden", 404: "Not found", 405: "Method not allowed",
           409: "Conflict", 429: "Too many requests"}
