"""Two labs with keys on a service with auth on, and the service on a real loopback port when threads must race."""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn
from fastapi import FastAPI

from service.labs.repository import create_key, create_lab

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)


@dataclass(frozen=True)
class Lab:
    name: str
    key: str
    read_only_key: str

    def headers(self, read_only: bool = False) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.read_only_key if read_only else self.key}"}


def make_lab(app: FastAPI, name: str) -> Lab:
    engine = app.state.engine
    create_lab(engine, name, NOW)
    _, key = create_key(engine, name, "scripts", False, NOW)
    _, read_only = create_key(engine, name, "dashboard", True, NOW)
    return Lab(name, key, read_only)


@contextmanager
def served(app: FastAPI) -> Iterator[str]:
    """The app under uvicorn on a free loopback port, in a thread: real concurrent HTTP requests."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    port: Any = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
