"""With auth on, a request to a route that needs an API key is answered 401 before its body is read.

Why at the edge (issue 31): the route's own check (`service.core.dependencies.current_caller`) runs after the body
limit and the JSON guard have read the whole body, so anyone could make the API process read and hold 4 MiB per
request without a key. Here a request without a bearer token is refused at once, and one with a token is looked up
first (in a worker thread: it queries the database); the key found is kept in the request's state, so the route
does not look it up again. Routes that need no key (health, docs, the page, the public GPU and price reads) pass
straight on: they are found from the routes themselves (a route needs a key when `current_caller` is among its
dependencies), so no list of paths is kept here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import fastapi.routing
from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.routing import compile_path
from starlette.types import ASGIApp, Receive, Scope, Send

from service.core.dependencies import current_caller, runtime_of
from service.core.errors import problem
from service.labs.auth import KEY_STATE
from service.labs.repository import authenticate


def _needs_key(dependant: Dependant) -> bool:
    return any(d.call is current_caller or _needs_key(d) for d in dependant.dependencies)


def _bearer(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() or None if scheme.lower() == "bearer" else None
    return None


def unauthorized(detail: str) -> Any:
    return problem(401, "Unauthorized", detail, headers={"WWW-Authenticate": "Bearer"})


def _api_routes(app: FastAPI) -> Iterator[tuple[str, APIRoute]]:
    """Every API route with its full path. FastAPI 0.165 keeps included routers whole in `app.routes` and walks
    them with `iter_route_contexts` (as its OpenAPI does); before that, `app.routes` held the routes themselves."""
    contexts = getattr(fastapi.routing, "iter_route_contexts", None)
    if contexts is None:
        yield from ((route.path, route) for route in app.routes if isinstance(route, APIRoute))
        return
    for context in contexts(app.routes):
        if isinstance(context.original_route, APIRoute) and context.path:
            yield context.path, context.original_route


class KeyGateMiddleware:
    """Refuses keyless and unknown-key requests to keyed routes before anything reads their body."""

    def __init__(self, app: ASGIApp, fastapi_app: FastAPI) -> None:
        self.app, self.fastapi_app = app, fastapi_app
        self._keyed: list[tuple[re.Pattern[str], set[str]]] | None = None

    def _route_needs_key(self, scope: Scope) -> bool:
        if self._keyed is None:  # the routes are all in place once requests come
            self._keyed = [(compile_path(path)[0], set(route.methods or ()))
                           for path, route in _api_routes(self.fastapi_app) if _needs_key(route.dependant)]
        method, path = scope["method"], scope["path"]
        return any(method in methods and pattern.match(path) for pattern, methods in self._keyed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not runtime_of(self.fastapi_app).settings.auth \
                or not self._route_needs_key(scope):
            await self.app(scope, receive, send)
            return
        token = _bearer(scope)
        if token is None:
            await unauthorized("this endpoint needs an API key: Authorization: Bearer <key>")(scope, receive, send)
            return
        key = await run_in_threadpool(authenticate, runtime_of(self.fastapi_app).engine, token)
        if key is None:
            await unauthorized("the API key is unknown or revoked")(scope, receive, send)
            return
        scope.setdefault("state", {})[KEY_STATE] = key
        await self.app(scope, receive, send)


def install(app: FastAPI) -> None:
    app.add_middleware(KeyGateMiddleware, fastapi_app=app)
