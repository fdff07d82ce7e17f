"""RunPod source against the real GraphQL gpuTypes format on a loopback server (pytest-httpserver)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
import requests
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.observation import FetchResult, SourceError
from pricing.sources.runpod import RunPodSource
from tests.pricing.replays.base import load_json
from tests.pricing.replays.runpod import GPU_TYPES, RunPodReplay

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
REPLAY = RunPodReplay()


def fetch(server: HTTPServer, **overrides: str) -> FetchResult:
    source = REPLAY.source(server, **overrides)
    return source.fetch(source.session(), bundled_gpus(), NOW)


def prices(result: FetchResult) -> dict[tuple[str, str], float]:
    return {(o.name, o.pricing): o.usd for o in result.observations}


def test_each_tier_and_market_is_one_observation(httpserver: HTTPServer) -> None:
    RunPodReplay().install_good(httpserver)
    result = fetch(httpserver)
    assert prices(result) == {
        # the documented sample: secureSpotPrice null -> no secure spot price
        ("NVIDIA A100 80GB PCIe (secure)", "on_demand"): 1.89,
        ("NVIDIA A100 80GB PCIe (community)", "on_demand"): 1.59,
        ("NVIDIA A100 80GB PCIe (community)", "spot"): 0.89,
        # community tier not offered (communityCloud false, prices null)
        ("NVIDIA H100 80GB HBM3 (secure)", "on_demand"): 2.99,
        ("NVIDIA H100 80GB HBM3 (secure)", "spot"): 2.69,
        ("NVIDIA GeForce RTX 4090 (secure)", "on_demand"): 0.69,
        ("NVIDIA GeForce RTX 4090 (secure)", "spot"): 0.34,
        ("NVIDIA GeForce RTX 4090 (community)", "on_demand"): 0.34,
        ("NVIDIA GeForce RTX 4090 (community)", "spot"): 0.2,
        ("NVIDIA RTX A6000 (secure)", "on_demand"): 0.49,
        ("NVIDIA RTX A6000 (secure)", "spot"): 0.33,
        ("NVIDIA RTX A6000 (community)", "on_demand"): 0.33,
        # communityCloud false: its communityPrice 0 is "not offered", not a price
        ("NVIDIA L40S (secure)", "on_demand"): 0.86,
        ("AMD Instinct MI300X OAM (secure)", "on_demand"): 2.49,
    }
    assert result.rows_seen == len(load_json(GPU_TYPES)["data"]["gpuTypes"]) == 7


def test_gpu_is_mapped_by_id_not_display_name(httpserver: HTTPServer) -> None:
    RunPodReplay().install_good(httpserver)
    gpus = {o.name: o.gpu for o in fetch(httpserver).observations}
    # displayName "A100 80GB" would be the SXM part; the id says PCIe
    assert gpus["NVIDIA A100 80GB PCIe (secure)"] == "A100 80GB PCIe"
    assert gpus["NVIDIA H100 80GB HBM3 (secure)"] == "H100 SXM"
    assert gpus["NVIDIA GeForce RTX 4090 (community)"] == "RTX 4090"


def test_observation_fields(httpserver: HTTPServer) -> None:
    RunPodReplay().install_good(httpserver)
    obs = next(o for o in fetch(httpserver).observations if o.name == "NVIDIA RTX A6000 (community)")
    assert (obs.source, obs.kind, obs.provider, obs.region, obs.gpu_count, obs.memory_gb) == (
        "runpod", "cloud", "runpod", "", 1, 48.0)
    assert obs.observed_at == NOW
    assert "communityPrice" in obs.reference and "NVIDIA RTX A6000" in obs.reference


def test_unknown_priced_types_are_counted(httpserver: HTTPServer) -> None:
    RunPodReplay().install_good(httpserver)
    result = fetch(httpserver)
    # every priced type is a known GPU (the MI300X too); the "unknown" placeholder carries no price
    assert dict(result.unknown_skus) == {}


def test_query_and_no_key_by_default(httpserver: HTTPServer) -> None:
    RunPodReplay().install_good(httpserver)
    fetch(httpserver)
    request, _ = httpserver.log[0]
    query = json.loads(request.data)["query"]
    for field in ("gpuTypes", "id", "securePrice", "communityPrice", "secureSpotPrice", "communitySpotPrice"):
        assert field in query
    assert "Authorization" not in request.headers
    assert "api_key" not in request.url


def test_configured_key_is_sent_as_bearer(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/graphql", method="POST", headers={"Authorization": "Bearer rp-key"}) \
        .respond_with_json(load_json(GPU_TYPES))
    assert fetch(httpserver, api_key="rp-key").observations


@pytest.mark.parametrize("scale", [0.0, -1.0])
def test_zero_and_negative_prices_flow_through(httpserver: HTTPServer, scale: float) -> None:
    RunPodReplay().install_good(httpserver, price_scale=scale)
    result = prices(fetch(httpserver))
    assert len(result) == 14
    assert result[("NVIDIA H100 80GB HBM3 (secure)", "on_demand")] == pytest.approx(2.99 * scale)


def test_graphql_errors_are_a_source_error(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/graphql", method="POST").respond_with_json(
        {"errors": [{"message": "Cannot query field \"securePrice\" on type \"GpuType\"."}], "data": None})
    with pytest.raises(SourceError, match="GraphQL error: Cannot query field"):
        fetch(httpserver)


def test_empty_answer_is_a_source_error(httpserver: HTTPServer) -> None:
    RunPodReplay().install_empty(httpserver)
    with pytest.raises(SourceError, match="no GPU types"):
        fetch(httpserver)


def test_truncated_body_is_a_source_error(httpserver: HTTPServer) -> None:
    RunPodReplay().install_truncated(httpserver)
    with pytest.raises(SourceError, match="not valid JSON"):
        fetch(httpserver)


def test_missing_data_is_a_source_error(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/graphql", method="POST").respond_with_json({"data": {}})
    with pytest.raises(SourceError, match=r"no data\.gpuTypes"):
        fetch(httpserver)


def test_non_numeric_price_is_a_source_error(httpserver: HTTPServer) -> None:
    body = load_json(GPU_TYPES)
    body["data"]["gpuTypes"][1]["securePrice"] = "2.99"
    httpserver.expect_request("/graphql", method="POST").respond_with_json(body)
    with pytest.raises(SourceError, match="securePrice is not a number"):
        fetch(httpserver)


def test_only_unpriced_or_unknown_types_is_a_source_error(httpserver: HTTPServer) -> None:
    body = load_json(GPU_TYPES)
    keep = {"unknown"}
    body["data"]["gpuTypes"] = [t for t in body["data"]["gpuTypes"] if t["id"] in keep]
    httpserver.expect_request("/graphql", method="POST").respond_with_json(body)
    with pytest.raises(SourceError, match="none of 1 GPU types"):
        fetch(httpserver)


def test_http_error_propagates(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/graphql", method="POST").respond_with_data("unauthorised", status=401)
    with pytest.raises(requests.HTTPError):
        fetch(httpserver)


def test_source_contract() -> None:
    assert (RunPodSource.key, RunPodSource.kind, RunPodSource.supersedes, RunPodSource.credentials) == (
        "runpod", "cloud", "runpod", ())
    assert RunPodSource().enabled
    assert RunPodSource.default_base_url == "https://api.runpod.io"
