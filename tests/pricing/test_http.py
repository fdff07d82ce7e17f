"""The price sources' HTTP session: a provider's Retry-After is honoured, but only up to `max_wait_s`."""

from __future__ import annotations

import time

from pytest_httpserver import HTTPServer

from pricing.http import make_session


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
