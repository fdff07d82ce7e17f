"""Plan warnings about sources that could not refresh: one line however many went stale, and never a provider's
error text (GET /v1/sources has it, for whoever may read it)."""

from __future__ import annotations

import datetime as dt
import re

from pytest_httpserver import HTTPServer
from sqlalchemy import Engine

from pricing.freshness import source_states
from pricing.gpus import bundled_gpus
from pricing.refresh import refresh_source
from pricing.sources.base import Source
from service.plans.staleness import stale_price_warnings
from tests.pricing.replays.runpod import RunPodReplay
from tests.pricing.replays.vast import VastReplay

T0 = dt.datetime(2026, 11, 21, 6, 0, tzinfo=dt.UTC)
LATER = T0 + dt.timedelta(hours=30)  # past the 24 h both sources allow
MAX_AGE = dt.timedelta(days=3650)  # the bundled snapshot is not the point here


def _refreshed_then_failing(engine: Engine, server: HTTPServer) -> list[Source]:
    """Two sources that refreshed at T0 and answer 503 from then on (the error names the loopback URL)."""
    replays = [RunPodReplay(), VastReplay()]
    sources = [r.source(server, stale_after_hours=24) for r in replays]
    for replay in replays:
        replay.install_good(server)
    for source in sources:
        assert refresh_source(engine, source, bundled_gpus(), T0).outcome == "ok"
    server.clear()
    server.expect_request(re.compile(".*")).respond_with_data("down", status=503)
    for source in sources:
        assert refresh_source(engine, source, bundled_gpus(), LATER).outcome == "failed"
    return sources


def test_several_stale_sources_are_one_line_without_their_errors(engine: Engine, server: HTTPServer) -> None:
    sources = _refreshed_then_failing(engine, server)
    states = source_states(engine, sources, LATER)
    assert all(s.too_old and "503" in (s.last_error or "") for s in states)  # the detail is there, for /v1/sources
    used = {"runpod": "2026-11-21", "vast": "2026-11-21", "snapshot/aws": "2026-11-01"}
    (warning,) = stale_price_warnings(used, states, LATER.date(), MAX_AGE)
    assert warning.code == "stale_sources" and warning.params == {"sources": ["runpod", "vast"], "count": 2}
    assert warning.text.startswith("prices from 2 sources are stale (runpod, vast): ")
    assert "GET /v1/sources" in warning.text


def test_one_stale_source_says_why_but_not_the_providers_error(engine: Engine, server: HTTPServer) -> None:
    sources = _refreshed_then_failing(engine, server)
    (warning,) = stale_price_warnings({"runpod": "2026-11-21"}, source_states(engine, sources, LATER), LATER.date(),
                                      MAX_AGE)
    assert warning.code == "stale_source"
    assert warning.params["reasons"] == [
        "last attempt failed (2026-11-22 12:00 UTC): see GET /v1/sources; the last good snapshot stays in force",
        "last success 30.0 h ago, more than the 24 h allowed"]
    assert "503" not in warning.text and server.host not in warning.text
