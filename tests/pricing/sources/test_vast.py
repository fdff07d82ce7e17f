"""Vast.ai source against the real bundles-search format on a loopback server (pytest-httpserver)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import requests
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.vast import SEARCH_QUERY, VastSource
from tests.pricing.replays.base import load_json
from tests.pricing.replays.vast import BUNDLES, VastReplay

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
REPLAY = VastReplay()


def fetch(server: HTTPServer) -> FetchResult:
    source = REPLAY.source(server)
    return source.fetch(source.session(), bundled_gpus(), NOW)


def by_key(result: FetchResult) -> dict[tuple[str, str], PriceObservation]:
    """1-GPU machines by (gpu, pricing); sizes are checked with `by_size`."""
    return {(o.gpu, o.pricing): o for o in result.observations if o.gpu_count == 1}


def by_size(result: FetchResult) -> dict[tuple[str, int, str], PriceObservation]:
    return {(o.gpu, o.gpu_count, o.pricing): o for o in result.observations}


def test_request_is_the_cli_default_search(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    fetch(httpserver)
    request, _ = httpserver.log[0]
    assert request.method == "POST"
    sent = json.loads(request.data)
    assert sent == SEARCH_QUERY
    assert sent["rentable"] == {"eq": True} and sent["verified"] == {"eq": True} and sent["type"] == "on-demand"


def test_median_p10_and_count_per_gpu_and_size(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    obs = by_size(result)
    # RTX 4090 1-GPU machines, dph_total: 0.2466759 (sample), 0.40, 0.35; the 2- and 4-GPU machines apart
    rtx = obs[("RTX 4090", 1, "on_demand")]
    assert rtx.usd == pytest.approx(0.35)
    assert rtx.p10_usd == pytest.approx(0.2466759259259259 + 0.2 * (0.35 - 0.2466759259259259))
    assert rtx.listings == 3
    assert (rtx.gpu_count, rtx.region, rtx.provider, rtx.kind, rtx.name) == (1, "global", "vast", "cloud", "RTX 4090")
    assert rtx.observed_at == NOW and rtx.source == "vast"
    two = obs[("RTX 4090", 2, "on_demand")]
    assert (two.name, two.usd, two.listings) == ("2x RTX 4090", 0.9, 1)
    assert obs[("RTX 4090", 4, "on_demand")].usd == 12.0  # the outlier stays in its own size
    # H100 SXM: one offer per size, each its own market
    assert {(c, o.usd) for (g, c, p), o in obs.items() if g == "H100 SXM" and p == "on_demand"} == {
        (1, 2.5), (2, 4.0), (8, 17.6)}


def test_reliability_is_the_median_of_the_hosts(httpserver: HTTPServer) -> None:
    body = load_json(BUNDLES)
    ones = [o for o in body["offers"] if o["gpu_name"] == "RTX 4090" and o["num_gpus"] == 1]
    for offer, reliability in zip(ones, (0.9, 0.99, 0.95), strict=True):
        offer["reliability2"] = reliability
    httpserver.expect_request("/bundles/", method="POST").respond_with_json(body)
    obs = by_key(fetch(httpserver))
    assert obs[("RTX 4090", "on_demand")].reliability == pytest.approx(0.95)
    assert obs[("RTX 4090", "spot")].reliability == pytest.approx(0.95)


def test_spot_from_min_bid_skipping_offers_without_a_bid(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    obs = by_size(fetch(httpserver))
    # RTX 4090 1-GPU machines, min_bid: 0.2, 0.25, (null)
    rtx = obs[("RTX 4090", 1, "spot")]
    assert rtx.usd == pytest.approx(0.225)
    assert rtx.listings == 2
    assert rtx.p10_usd == pytest.approx(0.2 + 0.1 * 0.05)
    # H100 SXM: 12.0 (8 GPUs), 1.6 (1 GPU), the 2-GPU machine has no min_bid key
    assert obs[("H100 SXM", 8, "spot")].usd == 12.0 and obs[("H100 SXM", 1, "spot")].usd == 1.6
    assert ("H100 SXM", 2, "spot") not in obs


def test_memory_decides_a100_and_v100_size(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    obs = by_key(fetch(httpserver))
    assert obs[("A100 80GB", "on_demand")].usd == pytest.approx(1.2)  # "A100 SXM4", 81920 MiB
    assert by_size(fetch(httpserver))[("A100 40GB", 2, "on_demand")].usd == 1.6  # "A100 SXM4", 40960 MiB
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
    assert obs[("RTX 4090", "on_demand")].usd == pytest.approx(0.35 * scale)
    assert obs[("RTX 4090", "spot")].usd == pytest.approx(0.225 * scale)


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
    assert (VastSource.key, VastSource.kind, VastSource.credentials) == (
        "vast", "cloud", ())
    assert VastSource().enabled
    assert VastSource.default_base_url == "https://console.vast.ai/api/v0"
