"""gpuhunt offline catalog against its published layout served from loopback (tests/pricing/replays/gpuhunt.py)."""

from __future__ import annotations

import datetime as dt

import pytest
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.observation import FetchResult, SourceError
from pricing.sources.gpuhunt import GpuHuntSource, version_date
from tests.pricing.replays.gpuhunt import VERSION, GpuHuntReplay

NOW = dt.datetime(2026, 11, 23, 12, 0, tzinfo=dt.UTC)
REPLAY = GpuHuntReplay()


def fetch(server: HTTPServer) -> FetchResult:
    source = REPLAY.source(server)
    return source.fetch(source.session(), bundled_gpus(), NOW)


def test_rows_per_provider_dated_by_the_catalog_version(httpserver: HTTPServer) -> None:
    REPLAY.install_good(httpserver)
    result = fetch(httpserver)
    obs = {(o.provider, o.name, o.region, o.pricing): o for o in result.observations}
    p5 = obs[("aws", "p5.48xlarge", "us-east-1", "on_demand")]
    assert (p5.gpu, p5.gpu_count, p5.usd) == ("H100 SXM", 8, 55.04)
    assert p5.observed_at == dt.datetime(2026, 8, 18, tzinfo=dt.UTC)  # the version's date, not the download's
    assert p5.reference.endswith(f"/v2/{VERSION}/catalog.zip")
    assert obs[("aws", "p5.48xlarge", "us-west-2", "spot")].usd == 31.2985
    assert obs[("lambda", "gpu_1x_h100_pcie", "us-east-1", "on_demand")].gpu == "H100 PCIe"  # lambdalabs -> lambda
    assert obs[("nebius", "gpu-h200-sxm", "eu-north1", "on_demand")].gpu == "H200"
    assert dict(result.unknown_skus) == {"T4G": 1}
    assert result.rows_seen == 13
    assert not any(o.name == "m7i.xlarge" for o in result.observations)


def test_version_must_name_a_dated_catalog() -> None:
    assert version_date("20260914-19524") == dt.datetime(2026, 9, 14, tzinfo=dt.UTC)
    for bad in ("latest", "2026-09-14", "20261399-1", '{"Items": ['):
        with pytest.raises(SourceError, match="version"):
            version_date(bad)


def test_cut_short_zip_is_a_source_error(httpserver: HTTPServer) -> None:
    REPLAY.install_truncated(httpserver)
    with pytest.raises(SourceError, match="not a whole zip"):
        fetch(httpserver)


def test_empty_catalog_is_a_source_error(httpserver: HTTPServer) -> None:
    REPLAY.install_empty(httpserver)
    with pytest.raises(SourceError, match="no priced GPU"):
        fetch(httpserver)


def test_source_contract() -> None:
    source = GpuHuntSource()
    assert source.enabled and not source.credentials
    assert source.base_url == "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com"
