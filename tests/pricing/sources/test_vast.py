"""Vast.ai source against the real bundles-search format on a loopback server (pytest-httpserver)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import requests
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.vast import SEARCH_QUERY, VastSource, percentile
from tests.pricing.replays.base import load_json
from tests.pricing.replays.vast import BUNDLES, VastReplay

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
REPLAY = VastReplay()


def fetch(server: HTTPServer) -> FetchResult:
    source = REPLAY.source(server)
    return source.fetch(source.session(), bundled_gpus(), NOW)


def by_key(result: FetchResult) -> dict[tuple[str, str], PriceObservation]:
    return {(o.gpu, o.pricing): o for o in result.observations}


def test_percentile_interpolates_between_order_statistics() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0, 5.0], 0.5) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 0.1) == pytest.approx(1.4)
    assert percentile([7.0], 0.1) == 7.0
    with pytest.raises(ValueError):
        percentile([], 0.5)


def test_request_is_the_cli_default_search(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    fetch(httpserver)
    request, _ = httpserver.log[0]
    assert request.method == "POST"
    sent = json.loads(request.data)
    assert sent == SEARCH_QUERY
    assert sent["rentable"] == {"eq": True} and sent["verified"] == {"eq": True} and sent["type"] == "on-demand"


def test_median_and_p10_per_gpu_hour(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    obs = by_key(result)
    # RTX 4090, dph_total / num_gpus: 0.2466759 (sample), 0.40, 0.90/2, 0.35, 12.0/4 (an outlier)
    rtx = obs[("RTX 4090", "on_demand")]
    assert rtx.usd == pytest.approx(0.40)
    assert rtx.p10_usd == pytest.approx(0.2466759259259259 + 0.4 * (0.35 - 0.2466759259259259))
    assert rtx.listings == 5
    assert (rtx.gpu_count, rtx.region, rtx.provider, rtx.kind, rtx.name) == (1, "global", "vast", "cloud", "RTX 4090")
    assert rtx.observed_at == NOW and rtx.source == "vast"
    # H100 SXM: 17.6/8, 2.5, 4.0/2
    h100 = obs[("H100 SXM", "on_demand")]
    assert h100.usd == pytest.approx(2.2)
    assert h100.listings == 3
    assert h100.p10_usd == pytest.approx(2.0 + 0.2 * 0.2)


def test_spot_from_min_bid_per_gpu_skipping_offers_without_a_bid(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    obs = by_key(fetch(httpserver))
    # RTX 4090 min_bid / num_gpus: 0.2, 0.25, 0.6/2, (null), 2.0/4
    rtx = obs[("RTX 4090", "spot")]
    assert rtx.usd == pytest.approx(0.275)
    assert rtx.listings == 4
    assert rtx.p10_usd == pytest.approx(0.2 + 0.3 * 0.05)
    # H100 SXM: 12.0/8, 1.6, (no min_bid key)
    h100 = obs[("H100 SXM", "spot")]
    assert h100.usd == pytest.approx(1.55)
    assert h100.listings == 2


def test_memory_decides_a100_and_v100_size(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    obs = by_key(fetch(httpserver))
    assert obs[("A100 80GB", "on_demand")].usd == pytest.approx(1.2)  # "A100 SXM4", 81920 MiB
    assert obs[("A100 40GB", "on_demand")].usd == pytest.approx(0.8)  # "A100 SXM4", 40960 MiB, 1.6 / 2
    assert obs[("V100 32GB", "on_demand")].usd == pytest.approx(0.3)  # "Tesla V100", 32768 MiB
    assert ("V100", "on_demand") not in obs


def test_unknown_gpus_are_counted_not_guessed(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    assert dict(result.unknown_skus) == {"A100X": 1}
    assert result.rows_seen == len(load_json(BUNDLES)["offers"]) == 13
    assert {o.gpu for o in result.observations} == {
        "RTX 4090", "H100 SXM", "A100 80GB", "A100 40GB", "V100 32GB", "H100 NVL"}


@pytest.mark.parametrize("scale", [0.0, -1.0])
def test_zero_and_negative_prices_flow_through(httpserver: HTTPServer, scale: float) -> None:
    REPLAY.install_good(httpserver, price_scale=scale)
    obs = by_key(fetch(httpserver))
    assert obs[("RTX 4090", "on_demand")].usd == pytest.approx(0.40 * scale)
    assert obs[("RTX 4090", "spot")].usd == pytest.approx(0.275 * scale)


def test_empty_answer_is_a_source_error(httpserver: HTTPServer) -> None:
    REPLAY.install_empty(httpserver)
    with pytest.raises(SourceError, match="no offers"):
        fetch(httpserver)


def test_truncated_body_is_a_source_error(httpserver: HTTPServer) -> None:
    REPLAY.install_truncated(httpserver)
    with pytest.raises(SourceError, match="not valid JSON"):
        fetch(httpserver)


def test_offer_without_price_is_a_source_error(httpserver: HTTPServer) -> None:
    body = load_json(BUNDLES)
    del body["offers"][3]["dph_total"]
    httpserver.expect_request("/bundles/", method="POST").respond_with_json(body)
    with pytest.raises(SourceError, match="dph_total"):
        fetch(httpserver)


def test_only_unknown_gpus_is_a_source_error(httpserver: HTTPServer) -> None:
    body = load_json(BUNDLES)
    body["offers"] = [o for o in body["offers"] if o["gpu_name"] in {"A100X"}]
    httpserver.expect_request("/bundles/", method="POST").respond_with_json(body)
    with pytest.raises(SourceError, match="none of 1 offers"):
        fetch(httpserver)


def test_wrong_shape_is_a_source_error(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/bundles/", method="POST").respond_with_json([{"gpu_name": "RTX 4090"}])
    with pytest.raises(SourceError, match="no 'offers' list"):
        fetch(httpserver)


def test_http_error_propagates(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/bundles/", method="POST").respond_with_data("no", status=403)
    with pytest.raises(requests.HTTPError):
        fetch(httpserver)


def test_source_contract() -> None:
    assert (VastSource.key, VastSource.kind, VastSource.supersedes, VastSource.credentials) == (
        "vast", "cloud", "vast", ())
    assert VastSource().enabled
    assert VastSource.default_base_url == "https://console.vast.ai/api/v0"
