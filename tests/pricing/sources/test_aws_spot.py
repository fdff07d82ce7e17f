"""AWS spot source (boto3 DescribeSpotPriceHistory) against an EC2 Query API replay on loopback."""

from __future__ import annotations

import datetime as dt
import sys
import time
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from pricing.gpus import bundled_gpus
from pricing.observation import FetchResult, SourceError
from pricing.sources.aws import DEFAULT_REGIONS
from pricing.sources.aws_spot import AwsSpotSource
from pricing.sources.base import SourceConfig
from tests.pricing.replays.aws_spot import AwsSpotReplay, error_xml, recorded_pages, request_region, serve, spot_xml

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
REPLAY = AwsSpotReplay()

# Hand-read from data/aws_spot/*.json: lowest Linux/UNIX price over the AZs -> (GPU, count, USD per hour)
EXPECTED = {
    ("us-east-1", "p3.2xlarge"): ("V100", 1, 0.41),  # the "(Amazon VPC)" record; not the Windows 0.30
    ("us-east-1", "g5.xlarge"): ("A10G", 1, 0.3948),  # us-east-1d of 0.4012 / 0.3948 / 0.45
    ("us-east-1", "g4dn.xlarge"): ("T4", 1, 0.1824),
    ("us-east-1", "p4d.24xlarge"): ("A100 40GB", 8, 6.8179),
    ("us-east-1", "p5.48xlarge"): ("H100 SXM", 8, 23.1583),
    ("us-east-1", "g6.xlarge"): ("L4", 1, 0.3885),
    ("us-east-1", "g5.48xlarge"): ("A10G", 8, 3.2217),
    ("us-east-1", "p5en.48xlarge"): ("H200", 8, 19.5489),
    ("us-east-1", "g6e.xlarge"): ("L40S", 1, 0.899),
    ("us-east-1", "p3.16xlarge"): ("V100", 8, 3.4748),
    ("us-west-2", "p3.2xlarge"): ("V100", 1, 0.9548),
    ("us-west-2", "g5.xlarge"): ("A10G", 1, 0.3656),
    ("us-west-2", "g6.xlarge"): ("L4", 1, 0.3814),
    ("us-west-2", "p4de.24xlarge"): ("A100 80GB", 8, 5.8554),
    ("us-west-2", "g6e.xlarge"): ("L40S", 1, 0.8679),
}


def fetch(server: HTTPServer, **overrides: Any) -> FetchResult:
    source = REPLAY.source(server, **overrides)
    return source.fetch(source.session(), bundled_gpus(), NOW)


def test_good_answer_keeps_lowest_price_per_region(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    got = {(o.region, o.name): (o.gpu, o.gpu_count, o.usd) for o in result.observations}
    assert got == EXPECTED
    assert dict(result.unknown_skus) == {"g4ad.xlarge": 1, "g5g.xlarge": 1}  # inf2, m5, t3, g7e: not GPU-priced
    assert result.rows_seen == 11 + 13 + 8
    assert {(o.source, o.kind, o.provider, o.pricing, o.observed_at) for o in result.observations} == {
        ("aws_spot", "cloud", "aws", "spot", NOW)}
    g5 = next(o for o in result.observations if (o.region, o.name) == ("us-east-1", "g5.xlarge"))
    assert "AvailabilityZone=us-east-1d" in g5.reference


def test_per_gpu_hour_prices(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    per_gpu = {(o.region, o.name): o.usd / o.gpu_count for o in fetch(httpserver).observations}
    assert per_gpu[("us-east-1", "p5.48xlarge")] == pytest.approx(2.8947875)
    assert per_gpu[("us-west-2", "p4de.24xlarge")] == pytest.approx(0.731925)


def test_requests_are_signed_queries_paged_by_next_token(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    fetch(httpserver)
    sent = [request for request, _ in httpserver.log]
    assert [request_region(r) for r in sent] == ["us-east-1", "us-east-1", "us-west-2"]
    first, second, _ = sent
    assert first.form["Action"] == "DescribeSpotPriceHistory"
    assert first.form["ProductDescription.1"] == "Linux/UNIX"
    assert first.form["StartTime"].startswith("2026-11-21T12:00:00")
    assert first.form["MaxResults"] == "1000"
    assert "NextToken" not in first.form
    assert second.form["NextToken"] == recorded_pages("us-east-1")[0]["NextToken"]
    assert "Credential=AKIDEXAMPLE/" in first.headers["Authorization"]


def test_zero_and_negative_prices_come_through(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver, price_scale=-1.0)
    result = fetch(httpserver)
    assert len(result.observations) == len(EXPECTED)
    assert all(o.usd < 0 for o in result.observations)


def test_empty_answer_is_a_source_error(httpserver: HTTPServer) -> None:
    REPLAY.install_empty(httpserver)
    with pytest.raises(SourceError, match="no spot prices at all"):
        fetch(httpserver)


def test_answer_without_gpu_instances_is_a_source_error(httpserver: HTTPServer) -> None:
    page = {"SpotPriceHistory": [r for r in recorded_pages("us-west-2")[0]["SpotPriceHistory"]
                                 if r["InstanceType"] == "t3.micro"]}
    serve(httpserver, lambda region: [spot_xml(page)])
    with pytest.raises(SourceError, match="no GPU instance spot price"):
        fetch(httpserver, regions=["us-west-2"])


def test_next_page_cut_mid_way_is_a_source_error(httpserver: HTTPServer) -> None:
    REPLAY.install_truncated(httpserver)
    with pytest.raises(SourceError, match="not EC2 XML"):
        fetch(httpserver)


def test_garbage_body_is_a_source_error(httpserver: HTTPServer) -> None:
    serve(httpserver, lambda region: ["<html>oops"])
    with pytest.raises(SourceError, match="us-east-1: answer is not EC2 XML"):
        fetch(httpserver)


def error_handler(status: int, code: str) -> Any:
    def handler(request: Request) -> Response:
        return Response(error_xml(code, "We encountered an internal error."), status=status,
                        content_type="text/xml;charset=UTF-8")
    return handler


def test_5xx_is_retried_a_bounded_number_of_times_then_a_source_error(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/", method="POST").respond_with_handler(error_handler(503, "Unavailable"))
    with pytest.raises(SourceError, match=r"us-east-1: Unavailable \(HTTP 503\) after retries"):
        fetch(httpserver, retries=2)
    assert len(httpserver.log) == 3  # the first attempt and config.retries retries


def test_throttling_is_a_source_error_naming_the_code(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/", method="POST").respond_with_handler(error_handler(503, "RequestLimitExceeded"))
    with pytest.raises(SourceError, match="RequestLimitExceeded"):
        fetch(httpserver, retries=0)
    assert len(httpserver.log) == 1


def test_rejected_credentials_are_a_source_error_without_retries(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/", method="POST").respond_with_handler(error_handler(401, "AuthFailure"))
    with pytest.raises(SourceError, match=r"AuthFailure \(HTTP 401\)"):
        fetch(httpserver)
    assert len(httpserver.log) == 1


def test_timeout_is_a_source_error(httpserver: HTTPServer) -> None:
    def slow(request: Request) -> Response:
        time.sleep(0.6)
        return Response(spot_xml(recorded_pages("us-west-2")[0]), content_type="text/xml")

    httpserver.expect_request("/", method="POST").respond_with_handler(slow)
    with pytest.raises(SourceError, match="timed out after retries: Read timeout"):
        fetch(httpserver, timeout_s=0.2, retries=0)


def test_repeated_next_token_is_a_source_error(httpserver: HTTPServer) -> None:
    page = recorded_pages("us-east-1")[0]
    serve(httpserver, lambda region: [spot_xml(page)] * 3)
    with pytest.raises(SourceError, match="NextToken repeats"):
        fetch(httpserver, regions=["us-east-1"])


def test_non_numeric_spot_price_is_a_source_error(httpserver: HTTPServer) -> None:
    page = recorded_pages("us-west-2")[0]
    page["SpotPriceHistory"][0]["SpotPrice"] = "n/a"
    serve(httpserver, lambda region: [spot_xml(page)])
    with pytest.raises(SourceError, match=r"p3\.2xlarge in us-west-2a has a non-numeric SpotPrice"):
        fetch(httpserver, regions=["us-west-2"])


def test_credentials_are_required() -> None:
    source = AwsSpotSource()
    assert not source.enabled
    assert source.missing_credentials() == ["api_key", "api_secret"]
    assert (AwsSpotSource.key, AwsSpotSource.kind) == ("aws_spot", "cloud")
    assert source.regions == list(DEFAULT_REGIONS)
    with pytest.raises(SourceError, match="not set"):
        source.client("us-east-1")


def test_botocore_retries_and_timeouts_follow_the_config() -> None:
    source = AwsSpotSource(SourceConfig(timeout_s=7.5, retries=3))
    config = source.botocore_config()
    assert (config.connect_timeout, config.read_timeout) == (7.5, 7.5)
    assert config.retries == {"max_attempts": 3, "mode": "standard"}


def test_boto3_is_imported_only_when_the_source_fetches() -> None:
    """boto3 is the optional `aws` extra: the app, the CLI and every source module load without importing it."""
    import subprocess

    program = ("import sys, pricing.sources, pricing.sources.aws_spot, service.app, service.cli; "
               "print(sorted(m for m in sys.modules if m.split('.')[0] in ('boto3', 'botocore')))")
    loaded = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"


def test_without_boto3_the_source_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "boto3", None)  # as if the `aws` extra were not installed
    source = AwsSpotSource(SourceConfig(api_key="AKIDEXAMPLE", api_secret="secret"))
    with pytest.raises(SourceError, match=r"pip install 'gpuplan\[aws\]'"):
        source.client("us-east-1")
