"""AWS EC2 Price List CSV parser against real-format region files served from loopback."""

from __future__ import annotations

import datetime as dt
import tracemalloc
from typing import Any

import pytest
import requests
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.observation import FetchResult, SourceError
from pricing.sources.aws import (
    AWS_GPU_COUNTS,
    AWS_GPU_FAMILIES,
    DEFAULT_REGIONS,
    AwsPriceListSource,
    family_gpu,
)
from tests.pricing.replays.aws import METADATA_ROWS, AwsReplay, header_only, region_csv, region_path
from tests.pricing.replays.base import DATA

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
REPLAY = AwsReplay()

# Hand-read from data/aws/us-east-1.csv (the OnDemand / Linux / Shared / Used / NA rows): type -> (GPU, count, USD)
US_EAST_1 = {
    "g4dn.xlarge": ("T4", 1, 0.526), "g4dn.12xlarge": ("T4", 4, 3.912), "g4dn.metal": ("T4", 8, 7.824),
    "g5.xlarge": ("A10G", 1, 1.006), "g5.12xlarge": ("A10G", 4, 5.672), "g5.48xlarge": ("A10G", 8, 16.288),
    "g6.xlarge": ("L4", 1, 0.8048), "g6.12xlarge": ("L4", 4, 4.6016),
    "g6e.xlarge": ("L40S", 1, 1.861), "g6e.48xlarge": ("L40S", 8, 30.13118),
    "p3.2xlarge": ("V100", 1, 3.06), "p3.16xlarge": ("V100", 8, 24.48), "p3dn.24xlarge": ("V100 32GB", 8, 31.212),
    "p4d.24xlarge": ("A100 40GB", 8, 32.7726), "p4de.24xlarge": ("A100 80GB", 8, 40.96575),
    "p5.48xlarge": ("H100 SXM", 8, 98.32), "p5en.48xlarge": ("H200", 8, 84.8),
}
# data/aws/us-west-2.csv holds the same types and prices, without p5en
US_WEST_2 = {name: value for name, value in US_EAST_1.items() if name != "p5en.48xlarge"}


def fetch(server: HTTPServer, **overrides: Any) -> FetchResult:
    source = REPLAY.source(server, **overrides)
    return source.fetch(source.session(), bundled_gpus(), NOW)


def serve(server: HTTPServer, region: str, text: str) -> None:
    server.expect_request(region_path(region)).respond_with_data(text, content_type="text/csv")


def test_good_files_map_every_gpu_instance(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    got = {(o.region, o.name): (o.gpu, o.gpu_count, o.usd) for o in result.observations}
    expected = {("us-east-1", k): v for k, v in US_EAST_1.items()} | {("us-west-2", k): v for k, v in US_WEST_2.items()}
    assert got == expected
    assert dict(result.unknown_skus) == {"g4ad.xlarge": 2, "g5g.xlarge": 1}  # AMD V520, T4G: not priced
    assert result.rows_seen == 70 + 61
    assert {(o.source, o.kind, o.provider, o.pricing, o.observed_at) for o in result.observations} == {
        ("aws", "cloud", "aws", "on_demand", NOW)}
    reference = result.observations[0].reference
    assert reference.startswith(httpserver.url_for(region_path("us-east-1")) + "#")
    assert reference.endswith(".JRTCKXETXF.6YS6EN2CT7")  # the row's RateCode


def test_per_gpu_hour_prices(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    per_gpu = {(o.region, o.name): o.usd / o.gpu_count for o in fetch(httpserver).observations}
    assert per_gpu[("us-east-1", "p4d.24xlarge")] == pytest.approx(4.096575)
    assert per_gpu[("us-west-2", "g5.12xlarge")] == pytest.approx(1.418)


def test_only_linux_on_demand_shared_rows_count(httpserver: HTTPServer) -> None:
    """us-east-1.csv also prices g5.xlarge as Windows, RHEL, dedicated, capacity reservations, SQL Web and
    reserved; p5 as a Capacity Block (31.464); g4dn.xlarge in a Local Zone (0.631); p4d's upfront fee."""
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    g5 = [o.usd for o in result.observations if o.name == "g5.xlarge" and o.region == "us-east-1"]
    assert g5 == [1.006]
    assert [o.usd for o in result.observations if o.name == "p5.48xlarge" and o.region == "us-east-1"] == [98.32]
    assert {o.region for o in result.observations} == {"us-east-1", "us-west-2"}
    assert not [o for o in result.observations if o.usd in (0.631, 287000.0, 31.464)]
    assert not {"c6i.large", "m5.xlarge", "r6i.2xlarge", "inf2.xlarge"} & {o.name for o in result.observations}


def test_default_regions_and_urls() -> None:
    source = AwsPriceListSource()
    assert source.regions == list(DEFAULT_REGIONS) == ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1",
                                                        "eu-west-2"]
    assert source.region_url("eu-west-2") == (
        "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/eu-west-2/index.csv")
    assert (AwsPriceListSource.key, AwsPriceListSource.kind) == ("aws", "cloud")
    assert source.enabled


@pytest.mark.parametrize(("instance", "expected"), [
    ("p5.48xlarge", (True, "H100 SXM")), ("p4de.24xlarge", (True, "A100 80GB")),
    ("p3dn.24xlarge", (True, "V100 32GB")), ("g6e.12xlarge", (True, "L40S")), ("gr6.8xlarge", (True, "L4")),
    ("p6-b200.48xlarge", (True, "B200")), ("p5en.48xlarge", (True, "H200")),
    ("g4ad.xlarge", (True, None)), ("g5g.xlarge", (True, None)), ("p2.xlarge", (True, None)),
    ("g7e.xlarge", (True, None)),  # a family nobody mapped yet: unknown when the CSV says it has GPUs
    ("inf2.xlarge", (False, None)), ("trn1.32xlarge", (False, None)), ("dl1.24xlarge", (False, None)),
    ("g6f.large", (False, None)),  # fractional L4
])
def test_family_table(instance: str, expected: tuple[bool, str | None]) -> None:
    assert family_gpu(instance) == expected


def test_family_table_spellings_are_canonical() -> None:
    """Every GPU spelling in the tables names a GPU of pricing/data/gpus.csv (a typo would hide prices)."""
    gpus = bundled_gpus()
    assert all(gpus.canonical(name) == name for name in AWS_GPU_FAMILIES.values() if name)
    assert all(family_gpu(instance)[1] for instance in AWS_GPU_COUNTS)


def test_zero_and_negative_prices_come_through(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver, price_scale=0.0)
    result = fetch(httpserver)
    assert len(result.observations) == len(US_EAST_1) + len(US_WEST_2)
    assert {o.usd for o in result.observations} == {0.0}


def test_large_file_is_streamed_with_bounded_memory(httpserver: HTTPServer) -> None:
    """A 40 MB region file (kept rows once, then skipped rows over and over) parses in a few MB of memory."""
    lines = region_csv("us-east-1").splitlines(keepends=True)
    padding = "".join(line for line in lines[METADATA_ROWS + 1:] if '"Windows"' in line)
    repeats = 40_000_000 // len(padding)
    serve(httpserver, "us-east-1", "".join(lines) + padding * repeats)
    tracemalloc.start()
    try:
        result = fetch(httpserver, regions=["us-east-1"])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.observations) == len(US_EAST_1)
    assert result.rows_seen == 70 + repeats * padding.count("\n")
    assert peak < 12_000_000  # the body alone is 40 MB


def test_file_without_rows_is_a_source_error(httpserver: HTTPServer) -> None:
    REPLAY.install_empty(httpserver)
    with pytest.raises(SourceError, match="no price rows"):
        fetch(httpserver)


def test_file_without_gpu_rows_is_a_source_error(httpserver: HTTPServer) -> None:
    """The real sample (Tokyo, c6i.large only) is a valid file with no GPU instance."""
    serve(httpserver, "ap-northeast-1", (DATA / "aws" / "sample-ap-northeast-1.csv").read_text(encoding="utf-8"))
    with pytest.raises(SourceError, match="3 rows but no GPU instance"):
        fetch(httpserver, regions=["ap-northeast-1"])


def test_missing_header_column_is_a_source_error(httpserver: HTTPServer) -> None:
    serve(httpserver, "us-east-1", region_csv("us-east-1").replace('"TermType"', '"Term Type"', 1))
    with pytest.raises(SourceError, match=r"lacks column.*TermType"):
        fetch(httpserver, regions=["us-east-1"])


def test_body_cut_mid_way_fails_the_fetch(httpserver: HTTPServer) -> None:
    """us-west-2's body stops at half its Content-Length: requests reports the broken connection."""
    REPLAY.install_truncated(httpserver)
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        fetch(httpserver)


@pytest.mark.parametrize("cut", [0.3, 0.5, 0.77])
def test_file_ending_mid_row_is_a_source_error(httpserver: HTTPServer, cut: float) -> None:
    """Even when the transport reports no error, a last row cut short is caught (column count, open quote)."""
    text = region_csv("us-east-1")
    serve(httpserver, "us-east-1", text[: int(len(text) * cut)])
    with pytest.raises(SourceError, match=r"columns|malformed CSV"):
        fetch(httpserver, regions=["us-east-1"])


def test_garbage_body_is_a_source_error(httpserver: HTTPServer) -> None:
    serve(httpserver, "us-east-1", "<html><body>Service Unavailable</body></html>")
    with pytest.raises(SourceError, match="not an EC2 price list"):
        fetch(httpserver, regions=["us-east-1"])


def test_non_numeric_price_is_a_source_error(httpserver: HTTPServer) -> None:
    serve(httpserver, "us-east-1", region_csv("us-east-1").replace('"1.0060000000"', '"n/a"'))
    with pytest.raises(SourceError, match=r"g5\.xlarge has a non-numeric price"):
        fetch(httpserver, regions=["us-east-1"])


def test_missing_region_file_fails_the_fetch(httpserver: HTTPServer) -> None:
    serve(httpserver, "us-east-1", region_csv("us-east-1"))
    httpserver.expect_request(region_path("us-west-2")).respond_with_data("NoSuchKey", status=404)
    with pytest.raises(requests.HTTPError):
        fetch(httpserver)


def test_header_only_file_body_shape() -> None:
    assert header_only("us-east-1").count("\n") == METADATA_ROWS + 1
