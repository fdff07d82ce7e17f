"""A read timeout for slow clients: a request must arrive within `GPUPLAN_READ_TIMEOUT_S`, headers and body.

Why: uvicorn closes idle keep-alive connections but has no deadline for a request that is being sent, so a
client that sends its headers or body a byte at a time (slowloris) holds a connection, and a worker's attention,
for as long as it likes. Two pieces, because the two phases live in different layers:

- headers: `protocol_with_read_timeout` is uvicorn's h11 protocol with a deadline from the moment a connection
  opens (or its previous answer is complete) until the next request's headers are in; when it passes, the
  connection is closed. `gpuplan serve` runs uvicorn with it.
- body: `ReadTimeoutMiddleware` answers 408 when the whole body has not come within the timeout of the app first
  asking for it (this part works under any ASGI server). A deadline per chunk let a body dripping one byte every
  20 s stay open forever (issue 31).
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from service.core.errors import problem


class _ReadDeadlineH11Protocol(H11Protocol):
    read_timeout_s = 30.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        self._waiting_since_cycle = self.cycle  # the request whose headers are awaited comes after this one
        self._deadline: asyncio.TimerHandle | None = self.loop.call_later(self.read_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if getattr(self, "_deadline", None) is not None:
            self._deadline.cancel()  # type: ignore[union-attr]
            self._deadline = None

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not self._waiting_since_cycle:  # a new request's headers are complete
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._disarm()
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _too_slow(self) -> None:
        self._deadline = None
        if self.cycle is self._waiting_since_cycle and not self.transport.is_closing():
            self.transport.close()


def protocol_with_read_timeout(seconds: float) -> type[H11Protocol]:
    """uvicorn's `http=` protocol class that closes a connection whose request headers take longer than
    `seconds` to arrive."""
    return type("ReadDeadlineH11Protocol", (_ReadDeadlineH11Protocol,), {"read_timeout_s": seconds})


class ReadTimeoutMiddleware:
    """The whole request body must arrive within `timeout_s` of the first time the app asks for it, else the
    answer is 408 and the connection is closed."""

    def __init__(self, app: ASGIApp, timeout_s: float) -> None:
        self.app = app
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = body_done = False
        deadline: float | None = None

        async def send_watching(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        async def receive_in_time() -> Message:
            """With one deadline for the whole body; after it, waiting (for a disconnect) is not the client's
            slowness but the app's own, however long a plan takes."""
            nonlocal body_done, deadline
            if body_done:
                return await receive()
            loop = asyncio.get_running_loop()
            deadline = deadline or loop.time() + self.timeout_s
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                raise _TooSlow from None
            body_done = message["type"] != "http.request" or not message.get("more_body", False)
            return message

        try:
            await self.app(scope, receive_in_time, send_watching)
        except* _TooSlow:
            if not started:
                answer = problem(408, "Request timeout", f"the request body did not arrive within {self.timeout_s:g} s",
                                 headers={"Connection": "close"})
                await answer(scope, receive, send)


class _TooSlow(Exception):
    pass


def install(app: FastAPI, timeout_s: float) -> Any:
    app.add_middleware(ReadTimeoutMiddleware, timeout_s=timeout_s)
