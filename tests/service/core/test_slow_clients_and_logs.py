"""Issue 19: a client that sends its request slowly is cut off; a path cannot forge a line of the text log."""

from __future__ import annotations

import io
import logging
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from fastapi.testclient import TestClient

from pricing.catalog import Catalog, bundled_catalog
from service.app import create_app
from service.core.logs import RequestIdFilter, TextFormatter
from service.core.settings import Settings
from service.core.slow_clients import protocol_with_read_timeout
from service.plans.examples import CATALOG_EXAMPLE

TIMEOUT_S = 1.0


@pytest.fixture
def address(database_url: str) -> Iterator[tuple[str, int]]:
    """The service as `gpuplan serve` runs it (uvicorn with the read-deadline protocol), plans taking 1.5 s."""
    catalog = bundled_catalog()

    def slow_prices() -> Catalog:
        time.sleep(1.5 * TIMEOUT_S)
        return catalog

    app = create_app(Settings(database_url=database_url, scheduler=False, read_timeout_s=TIMEOUT_S),
                     catalog_source=slow_prices)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on",
                                           http=protocol_with_read_timeout(TIMEOUT_S)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    yield "127.0.0.1", server.servers[0].sockets[0].getsockname()[1]
    server.should_exit = True
    thread.join(timeout=10)


def _read_all(sock: socket.socket, limit_s: float) -> tuple[bytes, float]:
    """Everything the server sends until it closes the connection, and how long that took."""
    sock.settimeout(limit_s)
    started, data = time.monotonic(), b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        pass
    return data, time.monotonic() - started


def test_headers_that_never_finish_lose_the_connection(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        data, took = _read_all(sock, 10 * TIMEOUT_S)
    assert data == b"" and took < 5 * TIMEOUT_S, (data, took)  # closed by the server, not by our recv timeout


def test_an_idle_connection_after_an_answer_gets_the_same_deadline(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.2)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHo")  # the next request, a byte at a time
        data, took = _read_all(sock, 10 * TIMEOUT_S)
    assert data.startswith(b"HTTP/1.1 200") and data.count(b"HTTP/1.1") == 1 and took < 8 * TIMEOUT_S


def test_a_body_that_stops_coming_is_answered_408(address: tuple[str, int]) -> None:
    with socket.create_connection(address) as sock:
        sock.sendall(b"POST /v1/plans HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: 500\r\n\r\n{\"workload\": ")
        data, took = _read_all(sock, 10 * TIMEOUT_S)
    assert data.startswith(b"HTTP/1.1 408"), data[:200]
    assert b"application/problem+json" in data and took < 5 * TIMEOUT_S


def test_a_request_the_service_takes_long_to_answer_is_not_cut(address: tuple[str, int]) -> None:
    import requests

    answer = requests.post(f"http://{address[0]}:{address[1]}/v1/plans", json=CATALOG_EXAMPLE, timeout=30)
    assert answer.status_code == 201, answer.text


def test_a_line_break_in_a_path_cannot_forge_a_text_log_line(database_url: str) -> None:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(TextFormatter())
    handler.addFilter(RequestIdFilter())
    access = logging.getLogger("gpuplan.access")
    with TestClient(create_app(Settings(database_url=database_url, scheduler=False, log_format="text"))) as client:
        access.addHandler(handler)
        try:
            forged = "/v1/gpus%0a2026-11-23 12:00:00,000 ERROR gpuplan [forged] database wiped%0d%1b[2J"
            client.get(forged)
        finally:
            access.removeHandler(handler)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1, lines
    assert "\\n2026-11-23 12:00:00,000 ERROR" in lines[0] and "\\r\\x1b[2J" in lines[0]
