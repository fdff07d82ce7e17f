"""Every source, every fault: the last good snapshot stays in force, the source is marked stale with the
reason, the history is intact, and the other sources refresh normally (issue 3, "Faults").

Each source is served by its replay (tests/pricing/replays) from a real HTTP server on loopback.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Callable

import pytest
from pytest_httpserver import HTTPServer
from sqlalchemy import Engine, func, select
from werkzeug import Request, Response

from pricing.catalog import bundled_catalog
from pricing.freshness import source_states
from pricing.gpus import bundled_gpus
from pricing.live import LiveCatalog
from pricing.refresh import refresh_all, refresh_source
from pricing.storage import PriceObservationRow, PriceSnapshot, SourceStatus
from tests.pricing.replays import all_replays
from tests.pricing.replays.base import Replay

T0 = dt.datetime(2026, 11, 21, 6, 0, tzinfo=dt.UTC)
T1 = T0 + dt.timedelta(hours=6)
REPLAYS = all_replays()
ANY_PATH = re.compile(".*")
UNEXPECTED = re.compile(r"^(TypeError|KeyError|AttributeError|IndexError|ValueError|AssertionError|NameError)\b")


def _slow(request: Request) -> Response:
    time.sleep(0.6)
    return Response("{}", status=200, content_type="application/json")


def _fault_5xx(server: HTTPServer, replay: Replay) -> None:
    server.expect_request(ANY_PATH).respond_with_data("upstream unavailable", status=503)


def _fault_429(server: HTTPServer, replay: Replay) -> None:
    server.expect_request(ANY_PATH).respond_with_data("slow down", status=429, headers={"Retry-After": "0"})


def _fault_timeout(server: HTTPServer, replay: Replay) -> None:
    server.expect_request(ANY_PATH).respond_with_handler(_slow)


def _fault_garbage(server: HTTPServer, replay: Replay) -> None:
    server.expect_request(ANY_PATH).respond_with_data('{"Items": [{"retailPrice": 1.0,', status=200,
                                                      content_type="application/json")


def _fault_garbage_csv(server: HTTPServer, replay: Replay) -> None:
    server.expect_request(ANY_PATH).respond_with_data('"FormatVersion","v1.0"\n"SKU","Offer\n"abc,,\n', status=200,
                                                      content_type="text/csv")


def _fault_empty(server: HTTPServer, replay: Replay) -> None:
    replay.install_empty(server)


def _fault_truncated(server: HTTPServer, replay: Replay) -> None:
    replay.install_truncated(server)


def _scaled(scale: float) -> Callable[[HTTPServer, Replay], None]:
    def install(server: HTTPServer, replay: Replay) -> None:
        replay.install_good(server, price_scale=scale)
    return install


FAULTS: dict[str, tuple[Callable[[HTTPServer, Replay], None], str]] = {
    "http_503": (_fault_5xx, "503"),
    "429_storm": (_fault_429, "429"),
    "timeout": (_fault_timeout, "timed out"),
    "malformed_json": (_fault_garbage, ""),
    "malformed_csv": (_fault_garbage_csv, ""),
    "empty": (_fault_empty, ""),
    "truncated": (_fault_truncated, ""),
    "drop_80pct": (_scaled(0.2), "dropped more than 70%"),
    "rise_400pct": (_scaled(5.0), "rose more than 300%"),
    "zero_prices": (_scaled(0.0), "non-positive"),
    "negative_prices": (_scaled(-1.0), "non-positive"),
}


def _counts(engine: Engine) -> tuple[int, int]:
    with engine.connect() as conn:
        return (conn.execute(select(func.count()).select_from(PriceSnapshot)).scalar_one(),
                conn.execute(select(func.count()).select_from(PriceObservationRow)).scalar_one())


def _snapshot_in_force(engine: Engine, key: str) -> int | None:
    with engine.connect() as conn:
        return conn.execute(select(SourceStatus.snapshot_id).where(SourceStatus.source == key)).scalar_one_or_none()


@pytest.mark.parametrize("fault", list(FAULTS))
@pytest.mark.parametrize("replay", REPLAYS, ids=[r.key for r in REPLAYS])
def test_fault_keeps_last_good_snapshot(engine: Engine, server: HTTPServer, replay: Replay, fault: str) -> None:
    install, expected_reason = FAULTS[fault]
    gpus = bundled_gpus()
    timeout = {"timeout_s": 0.3} if fault == "timeout" else {}
    source = replay.source(server, **timeout)
    replay.install_good(server)
    good = refresh_source(engine, source, gpus, T0)
    assert good.outcome == "ok", good.error
    assert good.rows_fetched >= 2
    catalog = LiveCatalog(engine, bundled_catalog())
    before_rows = _counts(engine)
    before_snapshot = _snapshot_in_force(engine, replay.key)
    before_view = catalog()
    cloud_before = before_view.cloud[before_view.cloud["feed"] == replay.key].reset_index(drop=True)
    hw_before = before_view.hardware[before_view.hardware["feed"] == replay.key].reset_index(drop=True)

    server.clear()
    install(server, replay)
    bad = refresh_source(engine, source, gpus, T1)

    assert bad.outcome in ("failed", "rejected"), f"{fault} was accepted: {bad}"
    assert bad.error and expected_reason in bad.error
    # the fault was recognised as such, not a parser crash on it (describe_error names unexpected exceptions)
    assert not UNEXPECTED.match(bad.error), bad.error
    server.check_assertions()  # every request the source made had an answer installed by the test
    assert _counts(engine) == before_rows  # history intact, nothing half-written
    assert _snapshot_in_force(engine, replay.key) == before_snapshot
    after_view = catalog()
    assert after_view.cloud[after_view.cloud["feed"] == replay.key].reset_index(drop=True).equals(cloud_before)
    assert after_view.hardware[after_view.hardware["feed"] == replay.key].reset_index(drop=True).equals(hw_before)
    (state,) = [s for s in source_states(engine, [source], T1) if s.source == replay.key]
    assert state.stale and state.last_success_at == T0 and state.last_attempt_at == T1
    assert any(bad.error in reason for reason in state.stale_reasons)
    assert state.rows_in_force == good.rows_fetched


@pytest.mark.parametrize("broken", REPLAYS, ids=[r.key for r in REPLAYS])
def test_one_broken_source_never_blocks_the_others(engine: Engine, broken: Replay) -> None:
    servers = []
    sources = []
    try:
        for replay in REPLAYS:
            srv = HTTPServer(host="127.0.0.1", port=0)
            srv.start()
            servers.append(srv)
            if replay is broken:
                _fault_5xx(srv, replay)
            else:
                replay.install_good(srv)
            sources.append(replay.source(srv))
        outcomes = {o.source: o for o in refresh_all(engine, sources, bundled_gpus(), lambda: T0)}
    finally:
        for srv in servers:
            srv.clear()
            srv.stop()
    assert outcomes[broken.key].outcome == "failed"
    assert all(o.outcome == "ok" for key, o in outcomes.items() if key != broken.key), outcomes
    view = LiveCatalog(engine, bundled_catalog())()
    feeds = set(view.cloud["feed"]) | set(view.hardware["feed"])
    assert feeds >= {r.key for r in REPLAYS if r is not broken and r.source_class.kind != "fx"}
    assert broken.key not in feeds
    # exchange rates are no price feed: the ECB's publication is the catalog's rates unless the ECB is the broken one
    assert view.fx.origin == ("bundled" if broken.source_class.kind == "fx" else "live")
