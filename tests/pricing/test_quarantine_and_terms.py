"""Outlier quarantine in the refresh and commitment prices kept beside (not inside) the planner's catalog."""

from __future__ import annotations

import datetime as dt
import io
import zipfile

from pytest_httpserver import HTTPServer
from sqlalchemy import Engine, select

from pricing.catalog import bundled_catalog
from pricing.freshness import source_states
from pricing.gpus import bundled_gpus
from pricing.live import LiveCatalog
from pricing.observation import PriceObservation
from pricing.refresh import Guards, quarantine, refresh_source
from pricing.storage import PriceObservationRow
from tests.pricing.replays.azure import AzureReplay
from tests.pricing.replays.gpuhunt import FILES, VERSION, GpuHuntReplay

T0 = dt.datetime(2026, 11, 23, 6, 0, tzinfo=dt.UTC)
HEADER = "instance_name,location,price,cpu,memory,gpu_count,gpu_name,gpu_memory,spot,disk_size,gpu_vendor,flags\n"


def _obs(usd: float, name: str, gpu: str = "B200", count: int = 8, pricing: str = "on_demand") -> PriceObservation:
    return PriceObservation(source="t", kind="cloud", gpu=gpu, gpu_count=count, name=name, usd=usd, observed_at=T0,
                            provider="p", region="r", pricing=pricing)


def test_a_row_far_below_every_other_offer_is_held() -> None:
    peers = {("B200", "on_demand"): [("a", 6.0), ("b", 5.5), ("c", 7.0)]}
    rows = [_obs(0.08, "bait"), _obs(44.0, "fair")]  # 0.01 and 5.5 USD per GPU-hour
    held = quarantine(rows, peers, Guards())
    assert list(held) == [rows[0].key()]
    assert "below 25% of the cheapest of 4 other on_demand offers for B200 (5.5)" in held[rows[0].key()]
    # 26% of the cheapest is a low price, not an outlier; spot is compared with spot only
    assert not quarantine([_obs(0.26 * 5.5 * 8, "cheap")], peers, Guards())
    assert not quarantine([_obs(0.08, "spot", pricing="spot")], peers, Guards())
    # too few offers to judge, or an operator who accepted the move: nothing held
    assert not quarantine([_obs(0.08, "bait")], {("B200", "on_demand"): [("a", 6.0)]}, Guards())
    assert not quarantine(rows, peers, Guards(accept_implausible=True))


def _zip_with(extra_rows: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        for path in sorted(FILES.glob("*.csv")):
            text = path.read_text(encoding="utf-8")
            zipped.writestr(path.name, text + extra_rows if path.name == "aws.csv" else text)
    return buffer.getvalue()


def test_quarantined_row_is_stored_reported_and_not_planned_on(engine: Engine, server: HTTPServer) -> None:
    replay = GpuHuntReplay()
    server.expect_request("/v2/version").respond_with_data(VERSION)
    # a B200 machine at 0.08 USD an hour: 0.01 per GPU-hour against 5-18 USD everywhere else
    server.expect_request(f"/v2/{VERSION}/catalog.zip").respond_with_data(
        _zip_with("p6-b200.48xlarge,us-east-1,0.08,192,2048,8,B200,180.0,False,,nvidia,\n"))
    source = replay.source(server)
    outcome = refresh_source(engine, source, bundled_gpus(), T0)
    assert outcome.outcome == "ok"
    assert len(outcome.quarantined) == 1 and outcome.quarantined[0].startswith("aws p6-b200.48xlarge us-east-1")
    with engine.connect() as conn:
        stored = conn.execute(select(PriceObservationRow.quarantined, PriceObservationRow.quarantine_reason)
                              .where(PriceObservationRow.name == "p6-b200.48xlarge")).one()
    assert stored[0] is True and "B200" in stored[1]
    view = LiveCatalog(engine, bundled_catalog())()
    live = view.cloud[view.cloud["feed"] == "gpuhunt"]
    assert "p6-b200.48xlarge" not in set(live["name"]) and "p5.48xlarge" in set(live["name"])
    (state,) = [s for s in source_states(engine, [source], T0) if s.source == "gpuhunt"]
    assert len(state.quarantined) == 1 and "p6-b200.48xlarge" in state.quarantined[0]


def test_commitments_are_kept_apart_from_the_planners_offers(engine: Engine, server: HTTPServer) -> None:
    bundled = bundled_catalog()
    assert set(bundled.cloud["pricing"]) == {"on_demand", "spot"}
    assert set(bundled.commitments["pricing"]) <= {"reserved", "committed"} and len(bundled.commitments) > 0
    assert (bundled.commitments["term_months"] >= 1).all()
    replay = AzureReplay()
    replay.install_good(server)
    assert refresh_source(engine, replay.source(server), bundled_gpus(), T0).outcome == "ok"
    view = LiveCatalog(engine, bundled)()
    assert "reserved" not in set(view.cloud["pricing"])
    live = view.commitments[view.commitments["feed"] == "azure"]
    assert live[["name", "region", "term_months", "payment"]].values.tolist() == [
        ["Standard_NC24ads_A100_v4", "eastus", 12, "all_upfront"]]
    # live Azure reservations replace the bundled Azure reservations; other providers' commitments stay
    assert not ((view.commitments["provider"] == "azure") & (view.commitments["feed"] != "azure")).any()
    assert (view.commitments["provider"] == "gcp").sum() == (bundled.commitments["provider"] == "gcp").sum() > 0


def test_the_planners_offer_table_refuses_commitment_rows() -> None:
    import pandas as pd
    import pytest

    from pricing.catalog import normalise_cloud

    row = {"provider": "aws", "name": "p5.48xlarge", "gpu": "H100 SXM", "gpu_count": "8", "usd_per_hour": "40.45",
           "region": "us-east-1", "pricing": "reserved", "source": "s", "as_of": "2026-08-18"}
    with pytest.raises(ValueError, match="bad pricing"):
        normalise_cloud(pd.DataFrame([row], dtype=str), bundled_gpus(), "request", "prices.cloud")


def test_thin_marketplace_aggregates_are_not_planned_on(engine: Engine, server: HTTPServer) -> None:
    from tests.pricing.replays.vast import VastReplay

    replay = VastReplay()
    replay.install_good(server)
    assert refresh_source(engine, replay.source(server), bundled_gpus(), T0).outcome == "ok"
    live = LiveCatalog(engine, bundled_catalog())().cloud
    vast = live[live["feed"] == "vast"]
    # RTX 4090: three 1-GPU offers (a market), one 2-GPU and one 4-GPU offer (single asks)
    sizes = set(zip(vast.loc[vast["gpu"] == "RTX 4090", "gpu_count"], vast.loc[vast["gpu"] == "RTX 4090", "pricing"],
                    strict=True))
    assert sizes == {(1, "on_demand")}
    one = vast[(vast["gpu"] == "RTX 4090") & (vast["pricing"] == "on_demand")].iloc[0]
    assert one["listings"] == one["max_instances"] == 3 and one["p10_usd_per_hour"] <= one["usd_per_hour"]
    with engine.connect() as conn:  # the thin ones are stored all the same (history, /v1/prices/history)
        stored = conn.execute(select(PriceObservationRow.name).where(PriceObservationRow.source == "vast")).scalars()
        assert "2x RTX 4090" in set(stored)
