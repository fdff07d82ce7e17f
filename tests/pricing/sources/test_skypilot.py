"""SkyPilot catalog sources against real v8 files served from loopback (tests/pricing/replays/skypilot.py)."""

from __future__ import annotations

import datetime as dt

import pytest
from pytest_httpserver import HTTPServer

from pricing.gpus import bundled_gpus
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources import build_sources
from pricing.sources.skypilot import SkyPilotCatalogSource, gpu_of
from tests.pricing.replays.skypilot import SkyPilotNebiusReplay, SkyPilotVastReplay

NOW = dt.datetime(2026, 11, 23, 12, 0, tzinfo=dt.UTC)


def fetch(server: HTTPServer, replay: SkyPilotNebiusReplay) -> FetchResult:
    source = replay.source(server)
    return source.fetch(source.session(), bundled_gpus(), NOW)


def by_key(result: FetchResult) -> dict[tuple[str, str, str], PriceObservation]:
    return {(o.name, o.region, o.pricing): o for o in result.observations}


def test_price_list_rows_with_spot_where_given(httpserver: HTTPServer) -> None:
    replay = SkyPilotNebiusReplay()
    replay.install_good(httpserver)
    result = fetch(httpserver, replay)
    obs = by_key(result)
    h100 = obs[("gpu-h100-sxm_1gpu-16vcpu-200gb", "eu-north1", "on_demand")]
    assert (h100.gpu, h100.gpu_count, h100.usd, h100.provider, h100.source) == ("H100 SXM", 1, 2.95, "nebius",
                                                                                   "skypilot_nebius")
    assert obs[("gpu-h100-sxm_1gpu-16vcpu-200gb", "eu-north1", "spot")].usd == 1.25
    assert obs[("gpu-b200-sxm_8gpu-160vcpu-1792gb", "us-central1", "on_demand")].usd == 44.0
    assert ("gpu-b200-sxm_8gpu-160vcpu-1792gb", "us-central1", "spot") not in obs  # empty SpotPrice: no spot
    assert ("gpu-l40s-a_1gpu-8vcpu-32gb", "eu-north1", "spot") not in obs
    assert not any(o.name.startswith("cpu-") for o in result.observations)
    assert result.rows_seen == 28 and not result.unknown_skus
    assert h100.reference.endswith("/catalogs/v8/nebius/vms.csv") and h100.observed_at == NOW


def test_marketplace_rows_become_one_aggregate_per_gpu_and_size(httpserver: HTTPServer) -> None:
    replay = SkyPilotVastReplay()
    replay.install_good(httpserver)
    result = fetch(httpserver, replay)
    obs = {(o.gpu, o.gpu_count): o for o in result.observations}
    two = obs[("RTX 5090", 2)]
    assert (two.name, two.usd, two.p10_usd, two.listings, two.region) == ("2x RTX 5090", 0.93, 0.93, 3, "global")
    one = obs[("RTX 5090", 1)]
    assert (one.name, one.usd, one.listings) == ("RTX 5090", 0.48, 2)
    assert obs[("RTX 4090", 1)].listings == 3 and obs[("RTX 4090", 2)].listings == 1
    assert {o.pricing for o in result.observations} == {"on_demand"}  # SpotPrice 0.00: no bid data
    assert dict(result.unknown_skus) == {"RTX3060": 1}


def test_names_and_pcie_instances() -> None:
    gpus = bundled_gpus()
    assert gpu_of("H100", "gpu_1x_h100_pcie", gpus) == "H100 PCIe"
    assert gpu_of("H100", "p5.48xlarge", gpus) == "H100 SXM"
    assert gpu_of("A100-80GB", "1x-A100_PCIE-32-65536", gpus) == "A100 80GB PCIe"
    assert gpu_of("A6000", "gpu_1x_a6000", gpus) == "RTX A6000"
    assert gpu_of("RTX6000-Ada", "x", gpus) == "RTX 6000 Ada"
    assert gpu_of("Gaudi3", "x", gpus) is None


def test_header_only_file_is_a_source_error(httpserver: HTTPServer) -> None:
    replay = SkyPilotNebiusReplay()
    replay.install_empty(httpserver)
    with pytest.raises(SourceError, match="no priced GPU rows"):
        fetch(httpserver, replay)


def test_cut_short_file_is_a_source_error(httpserver: HTTPServer) -> None:
    replay = SkyPilotNebiusReplay()
    replay.install_truncated(httpserver)
    with pytest.raises(SourceError, match=r"cut short|malformed"):
        fetch(httpserver, replay)


def test_not_a_catalog_is_a_source_error(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/catalogs/v8/nebius/vms.csv").respond_with_data("<html>moved</html>")
    with pytest.raises(SourceError, match="not a SkyPilot catalog"):
        fetch(httpserver, SkyPilotNebiusReplay())


def test_each_cloud_is_its_own_source_and_the_uncovered_ones_are_on() -> None:
    sources = [s for s in build_sources() if isinstance(s, SkyPilotCatalogSource)]
    assert len({s.key for s in sources}) == len(sources) >= 10
    on = {s.key for s in sources if s.enabled}
    assert on == {"skypilot_cudo", "skypilot_hyperbolic", "skypilot_hyperstack", "skypilot_jarvislabs",
                  "skypilot_seeweb"}
    (lam,) = [s for s in sources if s.key == "skypilot_lambda"]
    assert lam.url == ("https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs/v8/lambda/"
                       "vms.csv")
