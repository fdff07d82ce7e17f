"""HTTP for price sources: requests with retries (5xx and 429, honouring Retry-After) and a default timeout.

A host that cannot be reached at all (its name does not resolve, no route to it, no answer to the connection) is
not retried within the refresh: on a machine without network every retry fails the same way, each one logged by
urllib3 as a warning and slept through with back-off (about 28 s per source with the defaults), so the server
started offline with a wall of warnings and a first refresh of minutes. The scheduler's own back-off
(service/operations/scheduler.py: 15 min, 30 min, ...) is the retry; the refresh says once why it failed.
"""

from __future__ import annotations

import errno
import math
from types import TracebackType
from typing import Any, Self

import requests
from requests.adapters import HTTPAdapter
from urllib3.connectionpool import ConnectionPool
from urllib3.exceptions import ConnectTimeoutError, MaxRetryError, NameResolutionError, NewConnectionError
from urllib3.response import BaseHTTPResponse
from urllib3.util.retry import Retry

RETRY_STATUSES = (429, 500, 502, 503, 504)
USER_AGENT = "gpuplan/0.1 (+https://github.com/gpuplan; price refresh)"


class PriceSession(requests.Session):
    """A `requests.Session` whose requests time out by default, so a hung provider cannot stall a refresh."""

    def __init__(self, timeout_s: float) -> None:
        super().__init__()
        self.timeout_s = timeout_s

    def request(self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", self.timeout_s)
        return super().request(method, url, *args, **kwargs)


_NO_ROUTE = (errno.ENETUNREACH, errno.EHOSTUNREACH)


def unreachable(error: BaseException | None) -> str | None:
    """Why a connection could not be made at all, in words, or None when the host answered (a refused or reset
    connection: the host is there and a retry may find it up) or the error is not about connecting."""
    if isinstance(error, NameResolutionError):
        return "its name does not resolve (no network, or no DNS)"
    if isinstance(error, NewConnectionError):  # before ConnectTimeoutError: urllib3 derives it from that
        cause = error.__cause__
        return "no route to it (no network)" if isinstance(cause, OSError) and cause.errno in _NO_ROUTE else None
    if isinstance(error, ConnectTimeoutError):
        return "the connection timed out (no network, or a firewall drops it)"
    return None


class PriceRetry(Retry):
    """urllib3's Retry, except that an unreachable host fails at once instead of being retried (module docstring).

    `increment` is Retry's public hook for every failed attempt; raising MaxRetryError from it is what Retry itself
    does when it runs out, so requests turns it into the same ConnectionError as before."""

    def increment(self, method: str | None = None, url: str | None = None,
                  response: BaseHTTPResponse | None = None, error: Exception | None = None,
                  _pool: ConnectionPool | None = None, _stacktrace: TracebackType | None = None) -> Self:
        if unreachable(error) is not None:
            raise MaxRetryError(_pool, url or "", error) from error  # type: ignore[arg-type]
        return super().increment(method, url, response, error, _pool, _stacktrace)


def make_session(timeout_s: float = 30.0, retries: int = 4, backoff_s: float = 1.0,
                 max_wait_s: float = 60.0) -> PriceSession:
    """Retries cover POST too: the price APIs' POSTs (GraphQL, Vast search) are read-only queries.

    A provider's Retry-After is honoured, but never longer than `max_wait_s` (a refresh must end): urllib3's
    `Retry(retry_after_max=...)` caps it (urllib3 >= 2.6.3).
    """
    retry = PriceRetry(
        total=retries, connect=retries, read=retries, status=retries, backoff_factor=backoff_s,
        status_forcelist=RETRY_STATUSES, allowed_methods=None, respect_retry_after_header=True,
        raise_on_status=True, retry_after_max=math.ceil(max_wait_s),
    )
    session = PriceSession(timeout_s)
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    session.headers["User-Agent"] = USER_AGENT
    return session


def json_body(response: requests.Response, what: str) -> Any:
    """The JSON of a successful answer, or a SourceError that says what was wrong with it."""
    from pricing.observation import SourceError

    response.raise_for_status()
    try:
        return response.json()
    except ValueError as exc:
        raise SourceError(f"{what}: answer is not valid JSON ({exc})") from None
