"""Azure Retail Prices parser against real-format pages served from loopback."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
import requests
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.observation import FetchResult, SourceError
from pricing.sources.azure import BASE_FILTER, FRACTIONAL, AzureSource, size_gpu
from tests.pricing.replays.azure import PATH, AzureReplay, azure_pages, serve_pages
from tests.pricing.replays.base import DATA, load_json

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
REPLAY = AzureReplay()

# Hand-read from data/azure/gpu-vms-page-{1,2}.json: (size, region, pricing) -> (GPU, count, USD per VM-hour)
EXPECTED = {
    ("Standard_NC6s_v3", "eastus", "on_demand"): ("V100", 1, 3.06),
    ("Standard_NC6s_v3", "eastus", "spot"): ("V100", 1, 0.3978),
    ("Standard_NC24ads_A100_v4", "eastus", "on_demand"): ("A100 80GB PCIe", 1, 3.673),
    ("Standard_NC24ads_A100_v4", "eastus", "spot"): ("A100 80GB PCIe", 1, 0.444433),
    ("Standard_NC24ads_A100_v4", "westus2", "on_demand"): ("A100 80GB PCIe", 1, 3.673),
    ("Standard_ND96asr_v4", "eastus", "on_demand"): ("A100 40GB", 8, 27.197),
    ("Standard_ND96asr_v4", "eastus", "spot"): ("A100 40GB", 8, 2.99167),
    ("Standard_NV36ads_A10_v5", "eastus", "on_demand"): ("A10", 1, 3.2),
    ("Standard_NC4as_T4_v3", "westus2", "on_demand"): ("T4", 1, 0.526),
    ("Standard_NC4as_T4_v3", "westus2", "spot"): ("T4", 1, 0.061595),
    ("Standard_ND40rs_v2", "westus2", "on_demand"): ("V100 32GB", 8, 22.032),
    ("Standard_ND96isr_H100_v5", "eastus", "on_demand"): ("H100 SXM", 8, 98.32),
    ("Standard_ND96isr_H100_v5", "eastus2", "on_demand"): ("H100 SXM", 8, 98.32),
    ("Standard_ND96amsr_A100_v4", "eastus", "on_demand"): ("A100 80GB", 8, 32.77),
    ("Standard_ND96amsr_A100_v4", "eastus", "spot"): ("A100 80GB", 8, 3.6047),
    ("Standard_NC12s_v3", "westus2", "on_demand"): ("V100", 2, 6.12),
    ("Standard_NC24s_v3", "eastus", "on_demand"): ("V100", 4, 12.24),
    ("Standard_NV72ads_A10_v5", "westus2", "on_demand"): ("A10", 2, 6.52),
    ("Standard_NV72ads_A10_v5", "westus2", "spot"): ("A10", 2, 1.63),
    ("Standard_NC40ads_H100_v5", "eastus", "on_demand"): ("H100 NVL", 1, 6.98),
    ("Standard_ND96isr_MI300X_v5", "eastus", "on_demand"): ("MI300X", 8, 48.0),
}
# GPU sizes of GPUs we do not price (K80 twice, M60, MI25, P100)
EXPECTED_UNKNOWN = {
    "Standard_NC6": 2, "Standard_NV12s_v3": 1, "Standard_NV4as_v4": 1, "Standard_NC6s_v2": 1,
}


def fetch(server: HTTPServer, **overrides: Any) -> FetchResult:
    source = REPLAY.source(server, **overrides)
    return source.fetch(source.session(), bundled_gpus(), NOW)


def by_key(result: FetchResult) -> dict[tuple[str, str, str], tuple[str, int, float]]:
    return {(o.name, o.region, o.pricing): (o.gpu, o.gpu_count, o.usd) for o in result.observations}


def test_good_pages_map_every_gpu_size(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    assert by_key(result) == EXPECTED
    assert len(result.observations) == len(EXPECTED)  # the non-primary duplicate meter is dropped
    assert dict(result.unknown_skus) == EXPECTED_UNKNOWN
    assert result.rows_seen == 25 + 13  # every item of both pages, kept or not
    first = result.observations[0]
    assert (first.source, first.kind, first.provider, first.observed_at) == ("azure", "cloud", "azure", NOW)
    assert first.reference.startswith(httpserver.url_for(PATH))
    assert "meterId eq '" in first.reference


def test_per_gpu_hour_prices(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    per_gpu = {(o.name, o.region, o.pricing): o.usd / o.gpu_count for o in fetch(httpserver).observations}
    assert per_gpu[("Standard_ND96asr_v4", "eastus", "on_demand")] == pytest.approx(27.197 / 8)
    assert per_gpu[("Standard_NV72ads_A10_v5", "westus2", "spot")] == pytest.approx(0.815)
    assert per_gpu[("Standard_NC24s_v3", "eastus", "on_demand")] == pytest.approx(3.06)


def test_skipped_items_leave_no_observation(httpserver: HTTPServer) -> None:
    """Windows, Low Priority, DevTest, reservation, EUR, fractional A10, CPU and FPGA items are all in page 1/2."""
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    names = {o.name for o in result.observations}
    assert "Standard_NV6ads_A10_v5" not in names  # 1/6 of an A10
    assert not {"Standard_D2s_v3", "Standard_NP10s", "Standard_F16s", "Standard_E64_v4"} & names
    assert "Standard_NV6ads_A10_v5" not in result.unknown_skus and "Standard_D2s_v3" not in result.unknown_skus
    nc6s = [o.usd for o in result.observations if o.name == "Standard_NC6s_v3"]
    assert sorted(nc6s) == [0.3978, 3.06]  # not the Windows 4.5, Low Priority 0.612 or EUR 3.1212
    assert all(o.usd < 1000 for o in result.observations)  # the 1-year reservation (19305) is not a rate


def test_first_request_filters_and_next_page_link_is_followed(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    fetch(httpserver)
    requests_seen = [request for request, _ in httpserver.log]
    assert len(requests_seen) == 2
    first, second = requests_seen
    assert first.args["$filter"] == BASE_FILTER
    assert first.args["api-version"] == "2023-01-01-preview"
    assert "$skip" not in first.args
    assert second.args["$skip"] == "1000"  # the query of page 1's NextPageLink, taken as given
    assert second.args["$filter"] == BASE_FILTER


def test_configured_regions_query_each_region(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver, regions=["westus2"])
    assert {o.region for o in result.observations} == {"westus2"}
    assert len(result.observations) == 7
    assert httpserver.log[0][0].args["$filter"] == f"{BASE_FILTER} and armRegionName eq 'westus2'"


@pytest.mark.parametrize(("sku", "expected"), [
    ("Standard_NC6s_v3", ("V100", 1)),
    ("Standard_NC24rs_v3", ("V100", 4)),
    ("Standard_NC64as_T4_v3", ("T4", 4)),
    ("Standard_NC8as_T4_v3", ("T4", 1)),
    ("Standard_NC96ads_A100_v4", ("A100 80GB PCIe", 4)),
    ("Standard_ND96asr_v4", ("A100 40GB", 8)),
    ("Standard_ND96amsr_A100_v4", ("A100 80GB", 8)),
    ("Standard_ND40rs_v2", ("V100 32GB", 8)),
    ("Standard_ND96isr_H100_v5", ("H100 SXM", 8)),
    ("Standard_ND96isr_H200_v5", ("H200", 8)),
    ("Standard_NV36adms_A10_v5", ("A10", 1)),
    ("Standard_NV72ads_A10_v5", ("A10", 2)),
    ("Standard_NV6ads_A10_v5", FRACTIONAL),
    ("Standard_NV12ads_A10_v5", FRACTIONAL),
    ("Standard_NV18ads_A10_v5", FRACTIONAL),
    ("Standard_NC24", "Standard_NC24"),  # K80
    ("Standard_NC24rs_v2", "Standard_NC24rs_v2"),  # P100
    ("Standard_ND24s", "Standard_ND24s"),  # P40
    ("Standard_NV6", "Standard_NV6"),  # M60
    ("Standard_NV8as_v4", "Standard_NV8as_v4"),  # MI25
    ("Standard_NC80adis_H100_v5", ("H100 NVL", 2)),
    ("Standard_NC8ads_A10_v4", "Standard_NC8ads_A10_v4"),  # A10 share per size unknown
    ("Standard_NC48s_v3", "Standard_NC48s_v3"),  # a size the table does not list: never guessed
    ("Standard_ND128isr_NDR_GB200_v6", "Standard_ND128isr_NDR_GB200_v6"),  # an N-series nobody mapped
    ("Standard_D2s_v3", None),
    ("Standard_NP10s", None),  # FPGA
])
def test_size_table(sku: str, expected: object) -> None:
    assert size_gpu(sku, bundled_gpus()) == expected


def test_zero_and_negative_prices_come_through(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver, price_scale=-1.0)
    result = fetch(httpserver)
    assert len(result.observations) == len(EXPECTED)
    assert all(o.usd < 0 for o in result.observations)


def test_scaled_prices(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver, price_scale=5.0)
    got = by_key(fetch(httpserver))
    for key, (_, _, usd) in EXPECTED.items():
        assert got[key][2] == pytest.approx(5.0 * usd)


def test_empty_answer_is_a_source_error(httpserver: HTTPServer) -> None:
    REPLAY.install_empty(httpserver)
    with pytest.raises(SourceError, match="no items"):
        fetch(httpserver)


def test_answer_without_gpu_vms_is_a_source_error(httpserver: HTTPServer) -> None:
    sample = load_json(DATA / "azure" / "retail-prices-sample.json")
    sample["NextPageLink"] = None
    serve_pages(httpserver, [json.dumps(sample)])
    with pytest.raises(SourceError, match="no GPU VM price among 3 items"):
        fetch(httpserver)


def test_next_page_cut_mid_way_fails_the_fetch(httpserver: HTTPServer) -> None:
    REPLAY.install_truncated(httpserver)
    with pytest.raises(SourceError, match="page 2"):
        fetch(httpserver)


def test_next_page_http_error_fails_the_fetch(httpserver: HTTPServer) -> None:
    first = json.dumps(azure_pages(httpserver)[0])
    serve_pages(httpserver, [first])  # page 2 answers 404
    with pytest.raises(requests.HTTPError):
        fetch(httpserver)


def test_next_page_5xx_after_retries_fails_the_fetch(httpserver: HTTPServer) -> None:
    first = json.dumps(azure_pages(httpserver)[0])
    httpserver.expect_request(PATH, query_string={"$skip": "1000", "api-version": "2023-01-01-preview",
                                                  "meterRegion": "'primary'", "$filter": BASE_FILTER}
                              ).respond_with_data("busy", status=503)
    serve_pages(httpserver, [first])
    with pytest.raises(requests.RequestException):
        fetch(httpserver)
    assert len(httpserver.log) == 1 + 3  # page 1, then page 2 tried once and retried twice


def test_page_sequence_that_loops_is_a_source_error(httpserver: HTTPServer) -> None:
    page = azure_pages(httpserver)[1]
    page["NextPageLink"] = httpserver.url_for(PATH) + "?$skip=0&again=1"
    serve_pages(httpserver, [json.dumps(page)])
    with pytest.raises(SourceError, match="does not end"):
        fetch(httpserver)


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda page: page.pop("Items"), "no 'Items' list"),
    (lambda page: page.update(Count=99), "Count says 99"),
    (lambda page: page["Items"][0].pop("armSkuName"), "armSkuName"),
    (lambda page: page["Items"][0].update(retailPrice="3.06"), "retailPrice"),
    (lambda page: page.update(NextPageLink=7), "NextPageLink"),
    (lambda page: page["Items"].append("not an object"), "not an object"),
])
def test_malformed_pages_are_source_errors(httpserver: HTTPServer, mutate: Any, message: str) -> None:
    page = azure_pages(httpserver)[1]
    mutate(page)
    serve_pages(httpserver, [json.dumps(page)])
    with pytest.raises(SourceError, match=message):
        fetch(httpserver)


def test_garbage_body_is_a_source_error(httpserver: HTTPServer) -> None:
    serve_pages(httpserver, ["<html>maintenance</html>"])
    with pytest.raises(SourceError, match="not valid JSON"):
        fetch(httpserver)


def test_source_class_contract() -> None:
    assert (AzureSource.key, AzureSource.kind, AzureSource.supersedes) == ("azure", "cloud", "azure")
    assert AzureSource.credentials == ()
    assert AzureSource().base_url == "https://prices.azure.com/api/retail/prices"
    assert AzureSource().enabled
