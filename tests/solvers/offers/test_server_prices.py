"""Whole servers as bought in 2025-2026 (issue 14): the bundled 8-GPU H200/B200/B300 prices are bought when buying
pays, superseded "new" systems (DGX-1, DGX A100) are no longer offered as new, GH200 comes in 1- and 2-superchip
servers. Hand-checked figures are in the comments."""

from __future__ import annotations

import dataclasses
import datetime as dt
from importlib import resources
from typing import Any

import pandas as pd
import pytest

from pricing.catalog import Catalog, bundled_catalog
from solvers.base.profile import Profile
from solvers.base.result import PlanResult as Plan
from solvers.offers.options import build_options
from solvers.plan import make_plan
from tests.conftest import TODAY, cloud_item, owned_item, simple_profile

H200_ROW = "NVIDIA HGX H200 8-GPU server (price guide, low end)"
RETIRED = ["NVIDIA DGX-1 (8x V100 SXM2)", "NVIDIA DGX A100 320GB (8x A100 SXM4 40GB)",
           "NVIDIA DGX A100 640GB (8x A100 SXM4 80GB)",
           "Dihuni OptiReady HGX A100 8-GPU server 640GB (8x A100 SXM4 80GB)"]


def catalog_with(gpus: set[str]) -> Catalog:
    """The bundled catalog with the bundled hardware of these GPU types only (so a plan is hand-checkable)."""
    catalog = bundled_catalog()
    return dataclasses.replace(catalog, hardware=catalog.hardware[catalog.hardware["gpu"].isin(gpus)])


def server_profile(gpu: str, utilisation: float, usd_per_gpu_hour: float, **options: Any) -> dict[str, Any]:
    """8 GPUs of `gpu` (the reference) for 36 months from 2027-01-01 (26,280 h), on the bundled hardware and one
    cloud offer of that GPU, no resale, availability 1, USD 0.10/kWh."""
    profile = simple_profile([], [cloud_item(usd_per_gpu_hour, gpu=gpu)], utilisation=utilisation, months=36,
                             providers=["testcloud"], **options)
    profile["demand"] = {"gpus": 8, "utilisation": utilisation, "reference_gpu": gpu, "start": "2027-01-01"}
    profile["prices"]["mode"] = "extend"
    profile["min_gpu_memory_gb"] = 0
    return profile


def plan(profile: dict[str, Any], catalog: Catalog, today: dt.date = TODAY) -> Plan:
    return make_plan(Profile.model_validate(profile), catalog, today)


def test_every_2025_2026_server_row_is_sourced_dated_and_labelled() -> None:
    hw = bundled_catalog().hardware
    servers = hw[hw["gpu"].isin(["H200", "B200", "B300"]) & (hw["gpus_per_unit"] == 8) & hw["includes_host"]]
    assert set(servers["gpu"]) == {"H200", "B200", "B300"}
    assert (servers["source"].str.contains("https://")).all()
    dates = pd.to_datetime(servers["as_of"], format="%Y-%m-%d")
    assert (dates >= pd.Timestamp("2025-01-01")).all() and (dates <= pd.Timestamp(TODAY)).all()
    with resources.files("pricing").joinpath("data/hardware_prices.csv").open(encoding="utf-8") as f:
        raw = pd.read_csv(f, dtype=str)
    notes = raw.set_index("name").loc[servers["name"], "notes"]
    assert notes.str.startswith("Secondary").all()  # none is a vendor's own price list: each says so


def test_an_8x_h200_server_is_bought_when_it_pays() -> None:
    # 8 H200s busy around the clock, renting at USD 4.40 per GPU-hour (the median a 2026-09 buyer's post found):
    # cloud 8 x 4.40 x 26,280 h = USD 925,056. Buying the bundled HGX H200 server: USD 320,000 + energy
    # (8 x 700 W + 8 x 100 W of host) x PUE 1.54 (a server room: solvers/base/defaults.py) x 26,280 h x USD 0.10 =
    # USD 25,901, so the plan buys one server and rents nothing. It pays back after 320,000 / (35.20 - 0.9856) =
    # 9,353 h = 389.7 days (the post's midpoint USD 370,000 gives 370,000 / 35.20 = 10,511 h = 14.4 months, its own
    # figure).
    result = plan(server_profile("H200", 1.0, 4.40), catalog_with({"H200"}))
    assert [(line.name, line.count, line.gpus_per_unit) for line in result.buy] == [(H200_ROW, 1, 8)]
    assert result.costs.capex_usd == pytest.approx(320_000)
    assert not result.cloud
    assert result.break_even.days == pytest.approx(320_000 / (8 * 4.40 - 0.64 * 1.54) / 24, rel=0.01)


def test_the_h200_server_is_not_bought_when_renting_is_cheaper() -> None:
    # at 10% of the hours the same demand rents for 0.1 x 925,056 = USD 92,506 over 36 months: less than the server
    result = plan(server_profile("H200", 0.1, 4.40), catalog_with({"H200"}))
    assert not result.buy and result.cloud


def test_b200_servers_are_offered_and_the_cheaper_one_is_bought() -> None:
    # two bundled 8x B200 systems: DGX B200 USD 515,000 (2025-03) and a Gigabyte/Thinkmate one at USD 538,120
    # (2026-09); at USD 6 per B200-hour for 36 months (8 x 6 x 26,280 = USD 1,261,440) the DGX is bought
    result = plan(server_profile("B200", 1.0, 6.0), catalog_with({"B200"}))
    assert [(line.name, line.count) for line in result.buy] == [("NVIDIA DGX B200 (price as reported)", 1)]
    options = build_options(catalog_with({"B200", "B300"}), Profile.model_validate(server_profile("B200", 1.0, 6.0)),
                            TODAY, 1095)
    assert {o.name for o in options.owned} >= {"NVIDIA DGX B200 (price as reported)",
                                              "Gigabyte G894-SD1-AAX5 8x B200 (Thinkmate)",
                                              "NVIDIA HGX B300 8-GPU server (reseller listings, low end)"}


def offered(today: dt.date) -> set[str]:
    profile = Profile.model_validate(server_profile("A100 80GB", 1.0, 10.0))
    return {o.name for o in build_options(bundled_catalog(), profile, today, 1095).owned}


def test_superseded_new_systems_are_not_offered_as_new_today() -> None:
    # a new whole system is offered for 3 years after its price date (defaults.NEW_SYSTEM_OFFER_YEARS): the
    # DGX-1 (2017), the DGX A100s (2020, 2021) and the 2023-09-23 HGX A100 are history now; the 2024 H100 servers
    # and the 2025-2026 ones are offered
    names = offered(TODAY)
    assert not names & set(RETIRED)
    assert {"NVIDIA DGX H100 640GB (Delta Computer, EUR converted)", H200_ROW} <= names
    assert set(RETIRED[1:]) <= offered(dt.date(2021, 7, 1))  # in mid-2021 the DGX A100s were current


def test_old_dgx_rows_are_not_bought_as_new() -> None:
    # 8 A100 80GB busy, cloud at USD 10 per A100-hour (8 x 10 x 26,280 h = USD 2.1M over 36 months), on the bundled
    # V100 and A100 hardware only: before the rule the plan bought the USD 148,390 HGX A100 (2023) or a DGX A100;
    # now none of those is offered new, so it rents
    result = plan(server_profile("A100 80GB", 1.0, 10.0), catalog_with({"A100 80GB", "A100 40GB", "V100"}))
    assert not result.buy and result.cloud
    # on the whole bundled catalog it buys a 2024-2026 server instead, never a retired one
    bought = {line.name for line in plan(server_profile("A100 80GB", 1.0, 10.0), bundled_catalog()).buy}
    assert bought and not bought & set(RETIRED)


def test_a_lab_quote_for_an_old_system_is_still_bought() -> None:
    # the cutoff applies to the bundled catalog only: a lab's own quote for a DGX A100 today is its price
    quote = owned_item(100_000.0, watts=6500, gpu="A100 80GB", gpus_per_unit=8, name="refurbished DGX A100 quote")
    profile = server_profile("A100 80GB", 1.0, 10.0)
    profile["prices"]["owned"] = [quote]
    result = plan(profile, catalog_with({"A100 80GB"}))
    assert [(line.name, line.count) for line in result.buy] == [("refurbished DGX A100 quote", 1)]


@pytest.mark.parametrize("superchips", [1, 2])
def test_gh200_servers_of_one_or_two_superchips_are_bought(superchips: int) -> None:
    # NVIDIA's GH200 NVL2 platform with one or two GH200s (MLPerf Inference v4.1): a lab's quote for such a server
    # is a valid purchase (before issue 14's fix only 4- or 8-GPU units were offered, so the plan rented instead)
    server = owned_item(40_000.0 * superchips, watts=1000 * superchips, gpu="GH200", gpus_per_unit=superchips,
                        name=f"{superchips}x GH200 server")
    profile = simple_profile([server], [cloud_item(10.0, gpu="GH200")], utilisation=1.0, months=36)
    profile["demand"] = {"gpus": superchips, "utilisation": 1.0, "reference_gpu": "GH200", "start": "2027-01-01"}
    profile["min_gpu_memory_gb"] = 0
    result = plan(profile, bundled_catalog())
    assert [(line.gpus_per_unit, line.count) for line in result.buy] == [(superchips, 1)]
    three = owned_item(100.0, watts=3000, gpu="GH200", gpus_per_unit=3, name="3x GH200 box")
    profile["prices"]["owned"] = [three]
    assert not plan(profile, bundled_catalog()).buy  # no 3-superchip server exists
