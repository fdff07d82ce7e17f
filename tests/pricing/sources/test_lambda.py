"""Lambda Cloud source against the real instance-types format on a loopback server (pytest-httpserver)."""

from __future__ import annotations

import datetime as dt

import pytest
import requests
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.observation import FetchResult, SourceError
from pricing.sources.base import SourceConfig
from pricing.sources.lambda_cloud import LambdaSource, parse_description, price_usd
from tests.pricing.replays.base import load_json
from tests.pricing.replays.lambda_cloud import INSTANCE_TYPES, LambdaReplay

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
REPLAY = LambdaReplay()


def fetch(server: HTTPServer) -> FetchResult:
    source = REPLAY.source(server)
    return source.fetch(source.session(), bundled_gpus(), NOW)


def rows(result: FetchResult) -> set[tuple[str, str, int, str, float]]:
    return {(o.name, o.gpu, o.gpu_count, o.region, round(o.usd, 6)) for o in result.observations}


def test_description_parsing() -> None:
    assert parse_description("8x H100 (80 GB SXM5)") == (8, "H100 (80 GB SXM5)")
    assert parse_description("1x A100 (40 GB SXM4)") == (1, "A100 (40 GB SXM4)")
    assert parse_description("N/A") is None


def test_price_cents_as_integer_or_string() -> None:
    assert price_usd(2392, "t") == pytest.approx(23.92)
    assert price_usd("129", "t") == pytest.approx(1.29)
    with pytest.raises(SourceError, match="not a number"):
        price_usd("abc", "t")
    with pytest.raises(SourceError, match="not a number"):
        price_usd(True, "t")


def test_types_mapped_from_description_one_row_per_region_with_capacity(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    assert rows(result) == {
        # the spec example: "4x RTX 6000 (24 GB)" at "110" cents (string) -> Quadro RTX 6000 x4
        ("gpu_4x_a6000", "Quadro RTX 6000", 4, "us-az-1", 1.10),
        ("gpu_8x_h100_sxm5", "H100 SXM", 8, "us-east-1", 23.92),
        ("gpu_8x_h100_sxm5", "H100 SXM", 8, "us-south-1", 23.92),
        ("gpu_1x_h100_pcie", "H100 PCIe", 1, "us-west-1", 2.49),
        # no region has capacity: still priced, region ""
        ("gpu_1x_a100_sxm4", "A100 40GB", 1, "", 1.29),
        # the form factor in the description decides PCIe vs SXM, not the type name
        ("gpu_2x_a100", "A100 40GB PCIe", 2, "us-midwest-1", 2.58),
        # "Tesla " dropped: "V100 (16 GB)"
        ("gpu_8x_v100", "V100", 8, "us-south-1", 4.40),
        ("gpu_1x_gh200", "GH200", 1, "us-east-1", 1.49),
    }
    assert all(o.pricing == "on_demand" and o.provider == "lambda" and o.kind == "cloud" for o in result.observations)
    assert all(o.observed_at == NOW and o.source == "lambda" for o in result.observations)


def test_unknown_and_cpu_types(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    # "1x RTX A100 (24 GB)" (the spec's example) is a GPU we do not know; the CPU type is no GPU
    assert dict(result.unknown_skus) == {"gpu_1x_a100": 1}
    assert result.rows_seen == len(load_json(INSTANCE_TYPES)["data"]) == 9
    assert "cpu_4x_general" not in {o.name for o in result.observations}


def test_bearer_key_is_sent(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    fetch(httpserver)
    request, _ = httpserver.log[0]
    assert request.headers["Authorization"] == "Bearer test-key"


def test_unauthorised_propagates_as_http_error(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/instance-types").respond_with_json(
        {"error": {"code": "global/invalid-api-key", "message": "API key was invalid, expired, or deleted."}},
        status=401)
    with pytest.raises(requests.HTTPError):
        fetch(httpserver)


@pytest.mark.parametrize("scale", [0.0, -1.0])
def test_zero_and_negative_prices_flow_through(httpserver: HTTPServer, scale: float) -> None:
    REPLAY.install_good(httpserver, price_scale=scale)
    result = fetch(httpserver)
    assert len(result.observations) == 8
    h100 = next(o for o in result.observations if o.name == "gpu_1x_h100_pcie")
    assert h100.usd == pytest.approx(2.49 * scale)


def test_empty_answer_is_a_source_error(httpserver: HTTPServer) -> None:
    REPLAY.install_empty(httpserver)
    with pytest.raises(SourceError, match="no instance types"):
        fetch(httpserver)


def test_truncated_body_is_a_source_error(httpserver: HTTPServer) -> None:
    REPLAY.install_truncated(httpserver)
    with pytest.raises(SourceError, match="not valid JSON"):
        fetch(httpserver)


def test_missing_price_is_a_source_error(httpserver: HTTPServer) -> None:
    body = load_json(INSTANCE_TYPES)
    del body["data"]["gpu_1x_h100_pcie"]["instance_type"]["price_cents_per_hour"]
    httpserver.expect_request("/instance-types").respond_with_json(body)
    with pytest.raises(SourceError, match="price_cents_per_hour"):
        fetch(httpserver)


def test_error_envelope_without_data_is_a_source_error(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/instance-types").respond_with_json({"error": {"code": "x", "message": "y"}})
    with pytest.raises(SourceError, match="no 'data' object"):
        fetch(httpserver)


def test_no_known_gpu_is_a_source_error(httpserver: HTTPServer) -> None:
    body = load_json(INSTANCE_TYPES)
    body["data"] = {k: v for k, v in body["data"].items() if k in {"gpu_1x_a100", "cpu_4x_general"}}
    httpserver.expect_request("/instance-types").respond_with_json(body)
    with pytest.raises(SourceError, match="none of 2 instance types"):
        fetch(httpserver)


def test_source_contract() -> None:
    assert (LambdaSource.key, LambdaSource.kind, LambdaSource.supersedes, LambdaSource.credentials) == (
        "lambda", "cloud", "lambda", ("api_key",))
    assert not LambdaSource().enabled
    assert LambdaSource(SourceConfig(api_key="k")).enabled
    assert LambdaSource.default_base_url == "https://cloud.lambdalabs.com/api/v1"
