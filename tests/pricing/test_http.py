"""The price sources' HTTP session: a provider's Retry-After is honoured, but only up to `max_wait_s`; a host that
cannot be reached at all (no network) fails at once, without a warning per retry, and says so in words."""

from __future__ import annotations

import errno
import logging
import os
import socket
import time
from typing import Any

import pytest
import requests
from pytest_httpserver import HTTPServer
from urllib3.connection import HTTPSConnection
from urllib3.exceptions import NewConnectionError

from pricing.http import make_session, unreachable
from pricing.refresh import describe_error


def test_a_long_retry_after_is_capped_at_max_wait(server: HTTPServer) -> None:
    server.expect_ordered_request("/prices").respond_with_data("slow down", status=429, headers={"Retry-After": "5"})
    server.expect_ordered_request("/prices").respond_with_json({"ok": True})
    session = make_session(timeout_s=10, retries=2, backoff_s=0, max_wait_s=1)
    started = time.monotonic()
    answer = session.get(server.url_for("/prices"))
    waited = time.monotonic() - started
    assert answer.status_code == 200 and answer.json() == {"ok": True}
    assert 0.9 <= waited < 4, f"waited {waited:.1f} s for a Retry-After of 5 s capped at 1 s"


def test_a_short_retry_after_is_honoured(server: HTTPServer) -> None:
    server.expect_ordered_request("/prices").respond_with_data("slow down", status=503, headers={"Retry-After": "1"})
    server.expect_ordered_request("/prices").respond_with_json([])
    started = time.monotonic()
    assert make_session(retries=1, backoff_s=0, max_wait_s=60).get(server.url_for("/prices")).json() == []
    assert time.monotonic() - started >= 0.9


# a name under .invalid (RFC 2606) that the test's own resolver refuses: no DNS query leaves the machine
OFFLINE_HOST = "prices.gpuplan.invalid"


@pytest.fixture
def no_dns(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The machine's resolver as it answers without network for OFFLINE_HOST (EAI_NONAME); other names as usual.
    Returns the names looked up, one per connection attempt."""
    looked_up: list[str] = []
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host == OFFLINE_HOST:
            looked_up.append(host)
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return looked_up


def test_a_host_whose_name_does_not_resolve_fails_at_once_without_retry_warnings(
        no_dns: list[str], caplog: pytest.LogCaptureFixture) -> None:
    session = make_session(timeout_s=5, retries=4, backoff_s=1.0)
    started = time.monotonic()
    with caplog.at_level(logging.DEBUG), pytest.raises(requests.ConnectionError) as raised:
        session.get(f"https://{OFFLINE_HOST}/prices")
    assert time.monotonic() - started < 1.0  # four retries with back-off would sleep 2 + 4 + 8 s
    assert no_dns == [OFFLINE_HOST]  # one attempt, not five
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []
    assert describe_error(raised.value) == (f"cannot reach {OFFLINE_HOST}: its name does not resolve "
                                            "(no network, or no DNS)")


def test_a_refused_connection_is_still_retried(server: HTTPServer, caplog: pytest.LogCaptureFixture) -> None:
    """The host is there (it refuses): a restarting provider may answer the next attempt."""
    port = server.port
    server.stop()  # nothing listens on the port now
    with caplog.at_level(logging.WARNING, logger="urllib3"), pytest.raises(requests.ConnectionError) as raised:
        make_session(timeout_s=2, retries=2, backoff_s=0).get(f"http://127.0.0.1:{port}/prices")
    assert len([r for r in caplog.records if r.getMessage().startswith("Retrying")]) == 2
    assert describe_error(raised.value).startswith("connection failed: ")
    server.start()  # the fixture stops it again


@pytest.mark.parametrize(("error", "why"), [
    (errno.ENETUNREACH, "no route to it (no network)"),
    (errno.EHOSTUNREACH, "no route to it (no network)"),
    (errno.ECONNREFUSED, None),
])
def test_which_connection_errors_count_as_unreachable(error: int, why: str | None) -> None:
    failed = NewConnectionError(HTTPSConnection("example.invalid"), "Failed to establish a new connection")
    failed.__cause__ = OSError(error, os.strerror(error))
    assert unreachable(failed) == why
