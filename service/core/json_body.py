"""Request bodies kept as their bytes until the route validates them, off the event loop, with bounded errors.

Why (issue 31): FastAPI parses and validates a body on the event loop, before the route's thread runs. One 4 MB
object with 350,000 unknown keys took about 5 s there (the parse, then 350,000 errors turned into Python objects
and into a 30.7 MB answer), and nothing else was answered meanwhile (eight at once: /healthz took 21 s). A thread
does not help on its own: the JSON parser and pydantic's validator are native code that hold the GIL for the
whole body. So a route here declares its body as `JsonBody` (the bytes, with the model's schema in OpenAPI) and:

- validates it in its own thread with `validated` (pydantic parses and validates the bytes in one pass);
- a body above `SCREEN_ABOVE` bytes is first validated in a plan pool worker (`checked`), in another process and
  within the pool's bounds, so a hostile body never costs the API process more than reading it;
- a 422 lists at most `MAX_ERRORS` errors and says how many there were (`error_count`).

`DeferredBodyRoute` is the route class that hands FastAPI the bytes instead of letting it parse them, and that
watches for the client going away once the body is in (`request_ended`), so a plan whose request ended is
stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import json
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, TypeVar

from fastapi import Request, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, PlainValidator, ValidationError
from pydantic_core import PydanticCustomError

from service.core.errors import MAX_ERRORS, ServiceError, validation_errors

if TYPE_CHECKING:
    from service.core.plan_pool import PlanPool

M = TypeVar("M", bound=BaseModel)
# whether the request being served has ended (its client went away): set for each request by `DeferredBodyRoute`,
# read by the plan pool while it waits for a worker (a thread of the request sees it: contextvars cross into
# FastAPI's threads)
request_ended: contextvars.ContextVar[Callable[[], bool] | None] = contextvars.ContextVar("request_ended",
                                                                                         default=None)
# bodies above this are validated in a plan pool worker first (a profile of a few hundred quote rows is below it)
SCREEN_ABOVE = 256 * 1024


class JsonBody:
    """A JSON request body as it came, validated by the route (`validated`, `checked`)."""

    __slots__ = ("raw",)

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def validated(self, model: type[M]) -> M:
        """The body as `model`, or an `InvalidBody` 422 listing the first errors."""
        try:
            return model.model_validate_json(self.raw)
        except ValidationError as exc:
            raise InvalidBody.of(exc) from None


class InvalidBody(ServiceError):
    """A body that breaks the schema: the first `MAX_ERRORS` errors (field, rule, message) and their count."""

    status, title = 422, "Invalid request"

    def __init__(self, errors: list[dict[str, str]], count: int) -> None:
        shown = errors[:MAX_ERRORS]
        detail = "; ".join(f"{e['field']}: {e['message']} ({e['rule']})" for e in shown)
        if count > len(shown):
            detail += f"; and {count - len(shown)} more errors"
        super().__init__(detail, errors=shown)
        self.count = count
        self.extra = {"error_count": count}

    def __reduce__(self) -> tuple[Any, ...]:  # raised in a plan worker, unpickled in the API process
        return InvalidBody, (self.errors, self.count)

    @classmethod
    def of(cls, exc: ValidationError) -> InvalidBody:
        first = _first_errors(exc)
        return cls(validation_errors([{**e, "loc": ("body", *e["loc"])} for e in first]), exc.error_count())


def _first_errors(exc: ValidationError) -> list[dict[str, Any]]:
    """The first `MAX_ERRORS` errors. pydantic has no call that stops early, and `errors()` builds a Python object
    for every error (350,000 took 1.6 s, issue 31); its JSON is written in native code (0.2 s for the same), so the
    first few are read from the start of that text."""
    text = exc.json(include_url=False, include_context=False, include_input=False)
    decoder, at = json.JSONDecoder(), 1
    first: list[dict[str, Any]] = []
    while len(first) < MAX_ERRORS and text[at] != "]":
        error, at = decoder.raw_decode(text, at)
        first.append(error)
        at += text[at] == ","
    return first


def screen(model: type[BaseModel], raw: bytes) -> InvalidBody | None:
    """In a plan worker: None when `raw` is a valid `model`, else its 422 (returned, not raised, to keep a worker's
    log free of what is only a caller's mistake)."""
    try:
        model.model_validate_json(raw)
    except ValidationError as exc:
        return InvalidBody.of(exc)
    return None


def checked(body: JsonBody, model: type[M], pool: PlanPool, caller: str) -> M:
    """`body.validated(model)`, a large body validated first in a worker (see the module's docstring)."""
    if pool.mode == "process" and len(body.raw) > SCREEN_ABOVE:
        refused = pool.run(caller, screen, model, body.raw)
        if refused is not None:
            raise refused
    return body.validated(model)


def _keep(value: Any) -> JsonBody:
    if isinstance(value, JsonBody):
        return value
    raise PydanticCustomError("json_type", "the body must be JSON, sent with Content-Type: application/json")


def deferred(model: type[BaseModel]) -> PlainValidator:
    """The metadata that makes `Annotated[JsonBody, deferred(Model), Body(...)]` a body OpenAPI documents as
    `Model` while FastAPI hands the route its bytes."""
    return PlainValidator(_keep, json_schema_input_type=model)


def _is_json(content_type: str | None) -> bool:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))


class DeferredBodyRoute(APIRoute):
    """FastAPI's route, handing a `JsonBody` route its bytes unparsed, and setting `request_ended` for the
    route's thread (a task waits for the client's disconnect once the body is in)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        defers = self.body_field is not None and any(
            isinstance(m, PlainValidator) and m.func is _keep for m in self.body_field.field_info.metadata)

        async def handle(request: Request) -> Response:
            body = await request.body()
            if defers and body and _is_json(request.headers.get("content-type")):
                request._json = JsonBody(body)  # what Starlette's request.json() returns from now on
            gone = asyncio.Event()
            watcher = asyncio.create_task(_watch_disconnect(request, gone))
            token = request_ended.set(gone.is_set)
            try:
                return await handler(request)
            finally:
                request_ended.reset(token)
                watcher.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await watcher

        return handle


async def _watch_disconnect(request: Request, gone: asyncio.Event) -> None:
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            gone.set()
            return
