"""The catalog audit's checks (pricing/audit) on small synthetic catalogs, and the bundled snapshot's audit."""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest
from typer.testing import CliRunner

from pricing.audit.keys import cloud_key, hardware_key
from pricing.audit.run import audit_catalog, audited
from pricing.catalog import Catalog, bundled_catalog, normalise_cloud, normalise_hardware
from pricing.gpus import bundled_gpus
from pricing.sold_new import SoldNew
from service.cli import app

DAY = dt.date(2026, 11, 28)
GPUS = bundled_gpus()
NO_CURATED: tuple[tuple[str, str, float, str, str], ...] = ()


def _cloud(*rows: tuple[str, str, str, int, float, str, str, str]) -> pd.DataFrame:
    """(provider, name, gpu, count, usd_per_hour, pricing, as_of, source) rows as the catalog holds them."""
    frame = pd.DataFrame([{"provider": p, "name": n, "gpu": g, "gpu_count": str(c), "usd_per_hour": str(u),
                           "region": "us", "pricing": k, "source": s, "as_of": a}
                          for p, n, g, c, u, k, a, s in rows],
                         columns=["provider", "name", "gpu", "gpu_count", "usd_per_hour", "region", "pricing", "source",
                                  "as_of"])
    return normalise_cloud(frame, GPUS, "snapshot", "test")


def _hardware(*rows: tuple[str, str, str, float, str, str]) -> pd.DataFrame:
    """(name, gpu, condition, unit_price_usd, as_of, source) single cards."""
    frame = pd.DataFrame([{"name": n, "gpu": g, "condition": c, "gpus_per_unit": "1", "unit_price_usd": str(u),
                           "includes_host": "false", "watts": "", "idle_watts": "", "vendor": "shop", "source": s,
                           "as_of": a} for n, g, c, u, a, s in rows],
                         columns=["name", "gpu", "condition", "gpus_per_unit", "unit_price_usd", "includes_host",
                                  "watts", "idle_watts", "vendor", "source", "as_of"])
    return normalise_hardware(frame, GPUS, "snapshot", "test")


def _catalog(cloud: pd.DataFrame | None = None, hardware: pd.DataFrame | None = None,
             sold_new: dict[str, SoldNew] | None = None) -> Catalog:
    return Catalog(gpus=GPUS, cloud=cloud if cloud is not None else _cloud(),
                   hardware=hardware if hardware is not None else _hardware(), sold_new=sold_new or {})


def _peers(gpu: str = "L40S", price: float = 1.25) -> list[tuple[str, str, str, int, float, str, str, str]]:
    return [(f"p{i}", "x1", gpu, 1, price, "on_demand", "2026-08-18", f"doc{i}") for i in range(4)]


def _checks(catalog: Catalog, key: str) -> dict[str, str]:
    return {f.check: f.action for f in audit_catalog(catalog, DAY, NO_CURATED).flags_of(key)}


def test_a_price_below_half_the_other_providers_median_is_quarantined() -> None:
    catalog = _catalog(_cloud(*_peers(), ("cheap", "l40s-1x", "L40S", 1, 0.54, "on_demand", "2026-08-18", "agg")))
    assert _checks(catalog, cloud_key("cheap", "l40s-1x", "us", "on_demand", "L40S", 1))["out_of_band"] == "quarantined"
    at_band = _catalog(_cloud(*_peers(), ("cheap", "l40s-1x", "L40S", 1, 0.63, "on_demand", "2026-08-18", "agg")))
    assert "out_of_band" not in _checks(at_band, cloud_key("cheap", "l40s-1x", "us", "on_demand", "L40S", 1))


def test_the_band_is_per_kind_and_per_gpu_so_a_spot_price_is_compared_with_spot() -> None:
    catalog = _catalog(_cloud(*_peers(), ("cheap", "l40s-1x", "L40S", 1, 0.54, "spot", "2026-08-18", "agg")))
    assert _checks(catalog, cloud_key("cheap", "l40s-1x", "us", "spot", "L40S", 1)) == {}  # no spot peers


def test_a_second_independent_source_confirms_an_out_of_band_row() -> None:
    rows = [*_peers(), ("cheap", "l40s-1x", "L40S", 1, 0.54, "on_demand", "2026-08-18", "agg"),
            ("cheap", "l40s-2x", "L40S", 2, 1.10, "on_demand", "2026-07-01", "the provider's page")]
    flags = audit_catalog(_catalog(_cloud(*rows)), DAY, NO_CURATED).flags_of(
        cloud_key("cheap", "l40s-1x", "us", "on_demand", "L40S", 1))
    band = next(f for f in flags if f.check == "out_of_band")
    assert band.action == "confirmed" and "the provider's page" in band.confirmed_by


def test_an_old_row_far_from_its_providers_newer_price_of_the_same_size_is_quarantined() -> None:
    rows = [("aws", "old", "L4", 1, 0.71, "on_demand", "2024-12-01", "a"),
            ("aws", "new", "L4", 1, 0.56, "on_demand", "2026-08-18", "b"),
            ("aws", "big", "L4", 8, 13.35, "on_demand", "2024-12-01", "a")]  # another size: not compared
    catalog = _catalog(_cloud(*rows))
    old = _checks(catalog, cloud_key("aws", "old", "us", "on_demand", "L4", 1))
    assert old["stale_against_fresher"] == "quarantined"
    assert "stale_against_fresher" not in _checks(catalog, cloud_key("aws", "big", "us", "on_demand", "L4", 8))


def test_a_per_gpu_quote_entered_as_a_one_gpu_instance_of_a_module_gpu_is_quarantined() -> None:
    rows = [("tensorwave", "MI300X", "MI300X", 1, 1.50, "on_demand", "2026-05-18", "note"),
            ("azure", "Standard_ND96isr_MI300X_v5", "MI300X", 8, 48.0, "on_demand", "2026-05-18", "note"),
            ("runpod", "MI300X", "RTX 4090", 1, 0.40, "on_demand", "2026-05-18", "x")]  # a PCIe card may be alone
    catalog = _catalog(_cloud(*rows))
    assert _checks(catalog, cloud_key("tensorwave", "MI300X", "us", "on_demand", "MI300X", 1))["per_gpu_quote"] == \
        "quarantined"
    assert "per_gpu_quote" not in _checks(catalog, cloud_key("azure", "Standard_ND96isr_MI300X_v5", "us", "on_demand",
                                                             "MI300X", 8))
    assert "per_gpu_quote" not in _checks(catalog, cloud_key("runpod", "MI300X", "us", "on_demand", "RTX 4090", 1))


def test_a_new_price_at_or_below_a_same_time_used_price_is_quarantined_and_the_used_one_noted() -> None:
    hardware = _hardware(("4090 new", "RTX 4090", "new", 1600, "2026-02-15", "report"),
                         ("4090 used", "RTX 4090", "used", 2142, "2026-01-31", "tracker"),
                         ("4090 old new", "RTX 4090", "new", 1599, "2022-10-12", "msrp"))  # years apart: not paired
    catalog = _catalog(hardware=hardware)
    new = hardware_key("4090 new", "shop", "new", "RTX 4090", 1, "2026-02-15")
    used = hardware_key("4090 used", "shop", "used", "RTX 4090", 1, "2026-01-31")
    assert _checks(catalog, new)["new_below_used"] == "quarantined"
    assert _checks(catalog, used)["used_above_new"] == "noted"
    assert "new_below_used" not in _checks(catalog, hardware_key("4090 old new", "shop", "new", "RTX 4090", 1,
                                                                 "2022-10-12"))


def test_a_card_no_longer_sold_new_is_withdrawn_and_one_without_a_sold_new_row_is_unexplained() -> None:
    hardware = _hardware(("2080 Ti new", "RTX 2080 Ti", "new", 999, "2018-09-20", "msrp"),
                         ("3090 new", "RTX 3090", "new", 1499, "2020-09-24", "msrp"))
    sold = {"RTX 2080 Ti": SoldNew("RTX 2080 Ti", "2018-09-20", "ended", "launch news")}
    audit = audit_catalog(_catalog(hardware=hardware, sold_new=sold), DAY, NO_CURATED)
    assert {f.check: f.action for f in audit.flags_of(hardware_key("2080 Ti new", "shop", "new", "RTX 2080 Ti", 1,
                                                                   "2018-09-20"))}["not_sold_new"] == "withdrawn"
    assert {f.check: f.action for f in audit.flags_of(hardware_key("3090 new", "shop", "new", "RTX 3090", 1,
                                                                   "2020-09-24"))}["sold_new_unknown"] == "unexplained"
    assert audit.counts()["unexplained"] == 1
    still = {"RTX 2080 Ti": SoldNew("RTX 2080 Ti", "2026-02-01", "ended", "a shop")}  # seen new in the audit's year
    assert "not_sold_new" not in {f.check for f in audit_catalog(_catalog(hardware=hardware, sold_new=still), DAY,
                                                                 NO_CURATED).flags_of(
        hardware_key("2080 Ti new", "shop", "new", "RTX 2080 Ti", 1, "2018-09-20"))}


def test_age_and_aggregator_only_are_noted() -> None:
    rows = [("p", "old", "L40S", 1, 1.0, "on_demand", "2024-01-01", "doc (rows the monitor read from the "
                                                                      "computeprices.com aggregator)")]
    flags = _checks(_catalog(_cloud(*rows)), cloud_key("p", "old", "us", "on_demand", "L40S", 1))
    assert flags == {"stale": "noted", "aggregator_only": "noted"}


def test_audited_moves_quarantined_rows_out_of_the_planners_view_and_back_for_the_next_audit() -> None:
    catalog = _catalog(_cloud(*_peers(), ("cheap", "l40s-1x", "L40S", 1, 0.54, "on_demand", "2026-08-18", "agg")))
    view = audited(catalog, DAY)
    assert "cheap" not in set(view.cloud["provider"]) and list(view.held.cloud["provider"]) == ["cheap"]
    again = audited(view, DAY)  # held rows are compared again, not lost
    assert list(again.held.cloud["provider"]) == ["cheap"] and len(again.cloud) == len(view.cloud)


def test_the_bundled_snapshot_passes_the_audit_with_no_unexplained_flag() -> None:
    catalog = bundled_catalog()
    assert catalog.audit is not None
    counts = catalog.audit.counts()
    assert counts["unexplained"] == 0 and counts["quarantined"] > 0
    held = set(zip(catalog.held.cloud["provider"], catalog.held.cloud["name"], strict=True))
    # the suspect rows: the aggregator's L40S at 0.54 and the AMD per-GPU quotes
    assert {("packet-ai", "packet-ai-l40s-1x"), ("tensorwave", "MI300X"), ("tensorwave", "MI325X")} <= held
    assert "RTX 4090 (new, street price, Feb 2026)" in set(catalog.held.hardware["name"])
    # Azure's H100 list price is above the band, but the monitor's own reading of Azure's price list confirms it
    # (pricing/data/audit_confirmations.csv): a hyperscaler's premium, kept in plans
    assert ("azure", "Standard_ND96isr_H100_v5") not in held and counts["confirmed"] >= 1
    result = CliRunner().invoke(app, ["catalog", "audit", "--bundled"])
    assert result.exit_code == 0, result.output
    assert "0 unexplained" in result.output


def test_the_audit_command_exits_non_zero_on_an_unexplained_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    hardware = _hardware(("3090 new", "RTX 3090", "new", 1499, "2020-09-24", "msrp"))
    unexplained = audited(_catalog(hardware=hardware), DAY)
    # the command imports it when it runs (service/cli.py imports nothing heavy at the top)
    monkeypatch.setattr("pricing.catalog.bundled_catalog", lambda: unexplained)
    result = CliRunner().invoke(app, ["catalog", "audit", "--bundled"])
    assert result.exit_code == 1
    assert "sold_new_unknown" in result.output and "1 unexplained" in result.output


def test_a_used_price_over_a_year_old_is_quarantined_unless_the_card_has_a_recent_one() -> None:
    hardware = _hardware(("3090 Ti used 2023", "RTX 3090 Ti", "used", 853, "2023-10-31", "ebay"),
                         ("3090 used 2023", "RTX 3090", "used", 704, "2023-10-31", "ebay"),
                         ("3090 used 2026", "RTX 3090", "used", 1207, "2026-09-30", "tracker"))
    catalog = _catalog(hardware=hardware)
    assert _checks(catalog, hardware_key("3090 Ti used 2023", "shop", "used", "RTX 3090 Ti", 1,
                                         "2023-10-31"))["stale_used"] == "quarantined"
    # the RTX 3090 has a price of this year: its 2023 row is history, not a stale offer (plans take the newest)
    assert "stale_used" not in _checks(catalog, hardware_key("3090 used 2023", "shop", "used", "RTX 3090", 1,
                                                             "2023-10-31"))
