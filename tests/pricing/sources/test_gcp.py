"""GCP source against the real Cloud Billing Catalog SKU format on a loopback server (pytest-httpserver)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import requests
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.observation import FetchResult, SourceError
from pricing.sources.base import SourceConfig
from pricing.sources.gcp import GPU_SKU, MACHINE_TYPES, GcpSource, gpu_model
from tests.pricing.replays.base import load_json
from tests.pricing.replays.gcp import API_KEY, PAGES, SKUS_PATH, GcpReplay

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
REPLAY = GcpReplay()

# unit prices in the replay data (tests/pricing/sources/data/gcp/skus_page*.json)
A2_CORE, A2_RAM, A100 = 0.031611, 0.004237, 2.933908  # the opencost sample SKUs, us-central1 on demand
A2_CORE_SPOT, A2_RAM_SPOT, A100_SPOT = 0.012644, 0.001695, 1.1472
A100_80 = 3.92802
G2_CORE_SPOT, G2_RAM_SPOT, L4_SPOT = 0.009996, 0.001171, 0.2240
N1_CORE_NL, N1_RAM_NL, T4_NL = 0.034773, 0.004661, 0.35


def fetch(server: HTTPServer, **overrides: Any) -> FetchResult:
    source = REPLAY.source(server, **overrides)
    return source.fetch(source.session(), bundled_gpus(), NOW)


def prices(result: FetchResult) -> dict[tuple[str, str, str], float]:
    return {(o.name, o.region, o.pricing): o.usd for o in result.observations}


def serve_pages(server: HTTPServer, pages: list[dict[str, Any]]) -> None:
    tokens = [None, *(p["nextPageToken"] for p in pages[:-1])]
    for token, page in zip(tokens, pages, strict=True):
        query = {"pageSize": "5000", **({"pageToken": token} if token else {})}
        server.expect_request(SKUS_PATH, query_string=query).respond_with_json(page)


def pages() -> list[dict[str, Any]]:
    return [load_json(path) for path in PAGES]


def test_vm_price_is_cores_plus_ram_plus_gpus(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    got = prices(fetch(httpserver))
    assert got[("a2-highgpu-1g", "us-central1", "on_demand")] == pytest.approx(12 * A2_CORE + 85 * A2_RAM + A100)
    # 96 x 0.031611 + 680 x 0.004237 + 8 x 2.933908 = 29.38708, the bundled snapshot's figure for this VM
    assert got[("a2-highgpu-8g", "us-central1", "on_demand")] == pytest.approx(29.38708)
    assert got[("a2-highgpu-4g", "us-central1", "spot")] == pytest.approx(
        48 * A2_CORE_SPOT + 340 * A2_RAM_SPOT + 4 * A100_SPOT)
    assert got[("a2-ultragpu-2g", "us-central1", "on_demand")] == pytest.approx(
        24 * A2_CORE + 340 * A2_RAM + 2 * A100_80)
    assert got[("g2-standard-4", "us-central1", "spot")] == pytest.approx(4 * G2_CORE_SPOT + 16 * G2_RAM_SPOT + L4_SPOT)
    assert got[("n1-standard-8 + 1x nvidia-tesla-t4", "europe-west4", "on_demand")] == pytest.approx(
        8 * N1_CORE_NL + 30 * N1_RAM_NL + T4_NL)


def test_machine_types_map_to_gpu_and_count(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    shapes = {o.name: (o.gpu, o.gpu_count) for o in result.observations}
    assert shapes["a2-highgpu-8g"] == ("A100 40GB", 8)
    assert shapes["a2-ultragpu-1g"] == ("A100 80GB", 1)
    assert shapes["a2-megagpu-16g"] == ("A100 40GB", 16)
    assert shapes["g2-standard-96"] == ("L4", 8)
    assert shapes["g2-standard-32"] == ("L4", 1)
    assert shapes["n1-standard-64 + 8x nvidia-tesla-v100"] == ("V100", 8)
    assert all(o.provider == "gcp" and o.kind == "cloud" and o.observed_at == NOW for o in result.observations)


def test_missing_component_skips_the_machine_type(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    got = prices(fetch(httpserver))
    # the H100 SKU is only in us-east5, where there is no A3 core/RAM SKU in the data
    assert not any(name == "a3-highgpu-8g" for name, _, _ in got)
    # no spot A100 80GB SKU: ultragpu only on demand; no spot V100 SKU: n1 + V100 only on demand
    assert ("a2-ultragpu-1g", "us-central1", "spot") not in got
    assert ("n1-standard-8 + 1x nvidia-tesla-v100", "us-central1", "spot") not in got
    # europe-west4 has no spot N1 core/RAM SKU and no A2 SKUs
    assert ("n1-standard-8 + 1x nvidia-tesla-t4", "europe-west4", "spot") not in got
    assert not any(name.startswith("a2-") and region == "europe-west4" for name, region, _ in got)
    assert len(got) == 45  # us-central1: 20 on demand + 14 spot; europe-west4: 11 on demand


def test_unknown_gpu_skus_are_counted(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    # K80 on demand and spot, P100; the T4 Virtual Workstation licence and the commitment SKU are not GPUs
    assert dict(result.unknown_skus) == {"Nvidia Tesla K80": 2, "Nvidia Tesla P100": 1}
    assert result.rows_seen == sum(len(page["skus"]) for page in pages()) == 37


def test_regions_come_from_config(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver, regions=["us-east1"])
    assert {o.region for o in result.observations} == {"us-east1"}
    assert prices(result)[("a2-highgpu-1g", "us-east1", "on_demand")] == pytest.approx(
        12 * A2_CORE + 85 * A2_RAM + A100)


def test_follows_page_tokens_and_sends_key_in_header(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    fetch(httpserver)
    assert len(httpserver.log) == 2
    first, second = (request for request, _ in httpserver.log)
    assert "pageToken" not in first.args and second.args["pageToken"] == pages()[0]["nextPageToken"]
    assert first.args["pageSize"] == "5000"
    assert all(r.headers["X-Goog-Api-Key"] == API_KEY and API_KEY not in r.url for r in (first, second))


def test_gpu_sku_descriptions() -> None:
    gpus = bundled_gpus()
    spot = GPU_SKU.match("Nvidia H100 80GB GPU attached to Spot Preemptible VMs running in Americas")
    assert spot is not None and spot["model"] == "Nvidia H100 80GB"
    assert gpu_model("Nvidia H100 80GB", gpus) == "H100 SXM"
    assert gpu_model("Nvidia Tesla A100", gpus) == "A100 40GB"
    assert gpu_model("Nvidia A100 80GB", gpus) == "A100 80GB"
    assert gpu_model("Nvidia H200 141GB", gpus) == "H200"  # vendor words dropped: "H200 141GB"
    assert gpu_model("Nvidia Tesla K80", gpus) is None
    assert GPU_SKU.match("Nvidia L4 GPU Virtual Workstation running in Americas") is None


@pytest.mark.parametrize("scale", [0.0, -1.0])
def test_zero_and_negative_prices_flow_through(httpserver: HTTPServer, scale: float) -> None:
    REPLAY.install_good(httpserver, price_scale=scale)
    got = prices(fetch(httpserver))
    assert len(got) == 45
    assert got[("a2-highgpu-8g", "us-central1", "on_demand")] == pytest.approx(29.38708 * scale)


def test_truncated_page_sequence_fails(httpserver: HTTPServer) -> None:
    REPLAY.install_truncated(httpserver)
    with pytest.raises(requests.RequestException):
        fetch(httpserver)


def test_next_page_token_leading_to_404_fails(httpserver: HTTPServer) -> None:
    first, _ = pages()
    serve_pages(httpserver, [first])
    first_query = {"pageSize": "5000", "pageToken": first["nextPageToken"]}
    httpserver.expect_request(SKUS_PATH, query_string=first_query).respond_with_json(
        {"error": {"code": 404, "message": "Page token not found", "status": "NOT_FOUND"}}, status=404)
    with pytest.raises(requests.HTTPError):
        fetch(httpserver)


def test_repeated_page_token_is_a_source_error(httpserver: HTTPServer) -> None:
    first, second = pages()
    second["nextPageToken"] = first["nextPageToken"]
    serve_pages(httpserver, [first, second])
    with pytest.raises(SourceError, match="repeats a page token"):
        fetch(httpserver)


def test_empty_answer_is_a_source_error(httpserver: HTTPServer) -> None:
    REPLAY.install_empty(httpserver)
    with pytest.raises(SourceError, match="no GPU machine type could be priced"):
        fetch(httpserver)


def test_non_usd_skus_are_skipped(httpserver: HTTPServer) -> None:
    first, second = pages()
    for sku in second["skus"]:
        if "Netherlands" in sku["description"] and sku["description"].startswith("N1"):
            sku["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]["currencyCode"] = "EUR"
    serve_pages(httpserver, [first, second])
    got = prices(fetch(httpserver))
    assert not any(name.startswith("n1-") and region == "europe-west4" for name, region, _ in got)
    assert ("g2-standard-4", "europe-west4", "on_demand") in got


def test_last_tier_is_used(httpserver: HTTPServer) -> None:
    first, second = pages()
    rates = first["skus"][0]["pricingInfo"][0]["pricingExpression"]["tieredRates"]  # the A100 GPU SKU
    rates.insert(0, {"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD", "units": "0", "nanos": 0}})
    rates[1]["startUsageAmount"] = 10
    serve_pages(httpserver, [first, second])
    got = prices(fetch(httpserver))
    assert got[("a2-highgpu-1g", "us-central1", "on_demand")] == pytest.approx(12 * A2_CORE + 85 * A2_RAM + A100)


@pytest.mark.parametrize(("change", "message"), [
    (lambda sku: sku.pop("pricingInfo"), "pricing information missing"),
    (lambda sku: sku.pop("serviceRegions"), "no serviceRegions"),
    (lambda sku: sku.pop("description"), "description is missing"),
    (lambda sku: sku["pricingInfo"][0]["pricingExpression"].update(usageUnit="mo"), "priced per 'mo'"),
])
def test_malformed_sku_is_a_source_error(httpserver: HTTPServer, change: Any, message: str) -> None:
    first, second = pages()
    change(first["skus"][0])
    serve_pages(httpserver, [first, second])
    with pytest.raises(SourceError, match=message):
        fetch(httpserver)


def test_machine_table_is_consistent() -> None:
    gpus = bundled_gpus()
    assert len({m.name for m in MACHINE_TYPES}) == len(MACHINE_TYPES)
    assert all(m.gpu in gpus and m.gpu_count >= 1 and m.vcpus >= 1 for m in MACHINE_TYPES)


def test_source_contract() -> None:
    assert (GcpSource.key, GcpSource.kind, GcpSource.credentials) == (
        "gcp", "cloud", ("api_key",))
    assert not GcpSource().enabled
    assert GcpSource(SourceConfig(api_key="k")).regions == ("us-central1", "europe-west4")
    assert GcpSource.default_base_url == "https://cloudbilling.googleapis.com/v1"
