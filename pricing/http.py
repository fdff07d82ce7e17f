"""HTTP for price sources: requests with retries (5xx and 429, honouring Retry-After) and a default timeout."""

from __future__ import annotations

import math
from typing import Any

import requests
from requests.adapters import HTTPAdapter
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


def make_session(timeout_s: float = 30.0, retries: int = 4, backoff_s: float = 1.0,
                 max_wait_s: float = 60.0) -> PriceSession:
    """Retries cover POST too: the price APIs' POSTs (GraphQL, Vast search) are read-only queries.

    A provider's Retry-After is honoured, but never longer than `max_wait_s` (a refresh must end): urllib3's
    `Retry(retry_after_max=...)` caps it (urllib3 >= 2.6.3).
    """
    retry = Retry(
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
