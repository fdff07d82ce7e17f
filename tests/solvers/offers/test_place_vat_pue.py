"""Issue 30 item 5: VAT on electricity where the place charges it, and the cooling overhead (PUE) of owned machines by
where they stand. Every expectation is the bundled tables' figures (quoted) and arithmetic done here.

2027 has 365 days, so a GPU busy 15% of the time works 0.15 x 8,760 = 1,314 hours; an RTX 4090 draws 450 W
(gpus.csv), so with no host share its energy at PUE 1 is 1,314 x 0.450 = 591.3 kWh.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

import pytest

import pricing.place as place
from pricing.catalog import Host, bundled_catalog
from solvers.base.errors import ProfileError
from solvers.base.options import OwnedOption
from solvers.base.profile import Profile
from solvers.base.result import PlanResult
from solvers.offers.pue import pue_of, system_kind
from solvers.plan import make_plan
from tests.conftest import owned_item, simple_profile
from tests.solvers.offers.by_hand import by_place

TODAY = dt.date(2026, 11, 23)
HOURS = 0.15 * 8760
KWH_4090 = HOURS * 0.450
EUR_USD = 1.1794  # ECB reference rate of 2026-02-06, the bundled publication
SERVER_PUE = 1.54  # Uptime Institute Global Data Center Survey 2025 (solvers/base/defaults.py)


def plan(body: dict[str, Any]) -> PlanResult:
    return make_plan(Profile.model_validate(body), bundled_catalog(), TODAY)


def owned_4090(electricity: dict[str, Any], **options: Any) -> dict[str, Any]:
    body = simple_profile([owned_item(2000, gpu="RTX 4090")], [], utilisation=0.15, months=12, allow_cloud=False,
                          host_watts_per_working_gpu=0, **options)
    body["demand"]["reference_gpu"] = "RTX 4090"
    del body["electricity_usd_per_kwh"]
    body["electricity"] = electricity
    return body


def test_the_table_states_vat_for_business_and_household_rates_with_sources() -> None:
    """Germany 2024-S1 (Eurostat): business band IB 0.2723 EUR/kWh without VAT and recoverable taxes, which band IC
    puts at 0.2798 / 0.2328 - 1 = 20.2% of the price; household band DC 0.332 without VAT, 0.3951 with it: 19.0%.
    Denmark's business figure is 154.4% (0.2496 / 0.0981: VAT and the electricity tax VAT-registered businesses
    recover). The UK 20% (HMRC Notice 701/19: business use is standard-rated), Singapore's GST 9%, Quebec's GST + QST
    14.975%, no VAT in the United States."""
    de = place.electricity_price("DE")
    assert de is not None and de.value == 0.2723 and de.vat_percent == round((0.2798 / 0.2328 - 1) * 100, 1) == 20.2
    home = place.electricity_price("DE", "residential")
    assert home is not None and home.value == 0.332 and home.vat_percent == round((0.3951 / 0.332 - 1) * 100, 1)
    dk = place.electricity_price("DK")
    assert dk is not None and dk.vat_percent == 154.4
    assert [place.electricity_price(loc).vat_percent for loc in ("GB", "SG", "CA-QC", "US-CA")] == [20, 9, 14.975, 0]
    assert place.electricity_price("US-CA", "residential") is None  # no household row: a price is asked for
    for (location, consumer), row in place.electricity_prices().items():
        assert row.vat_source, (location, consumer)
        assert consumer in place.CONSUMERS


def test_a_business_that_reclaims_vat_pays_none_on_electricity() -> None:
    """options.vat_percent 0 (the default): purchases as quoted, VAT reclaimed, so electricity too."""
    result = plan(owned_4090({"location": "DE"}))
    assert result.electricity is not None and result.electricity.vat_percent == 0
    assert "reclaimed" in (result.electricity.vat_source or "")
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * 0.2723 * EUR_USD, abs=0.02)


def test_a_business_that_pays_vat_on_its_purchases_pays_it_on_electricity() -> None:
    """A lab paying 19% VAT on its purchases cannot reclaim it: 0.2723 EUR x 1.202 = 0.3273 EUR/kWh."""
    result = plan(owned_4090({"location": "DE"}, vat_percent=19))
    assert result.electricity is not None and result.electricity.vat_percent == 20.2
    assert result.electricity.price_per_kwh == pytest.approx(0.2723 * 1.202 * EUR_USD, rel=1e-6)
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * 0.2723 * 1.202 * EUR_USD, abs=0.02)


def test_a_household_pays_the_household_rate_with_its_vat() -> None:
    """A desktop at home in Germany: 0.332 EUR x 1.19 = 0.3951 EUR/kWh (Eurostat's figure with all taxes)."""
    result = plan(owned_4090({"location": "DE", "consumer": "residential"}))
    assert result.electricity is not None and result.electricity.consumer == "residential"
    assert result.electricity.vat_percent == 19.0 and "nrg_pc_204" in result.electricity.source
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * 0.332 * 1.19 * EUR_USD, abs=0.02)


def test_a_household_without_a_household_row_is_asked_for_a_price() -> None:
    with pytest.raises(ProfileError) as raised:
        plan(owned_4090({"location": "US-CA", "consumer": "residential"}))
    assert raised.value.field == "electricity.consumer" and "price_per_kwh" in str(raised.value)


def test_a_price_the_profile_gives_is_taken_as_it_is_unless_vat_is_added() -> None:
    """0.20 USD/kWh as given; with electricity.vat_percent 10: 0.22."""
    assert plan(owned_4090({"price_per_kwh": 0.20}, vat_percent=19)).costs.electricity_usd == pytest.approx(
        KWH_4090 * 0.20, abs=0.01)
    result = plan(owned_4090({"price_per_kwh": 0.20, "vat_percent": 10}))
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * 0.22, abs=0.01)
    assert result.electricity is not None and result.electricity.vat_source == "electricity.vat_percent"


def test_a_place_without_a_vat_figure_is_used_without_and_said(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = dict(place.electricity_prices())
    rows[("DE", "business")] = replace(rows[("DE", "business")], vat_percent=None, vat_source="none found")
    monkeypatch.setattr(place, "electricity_prices", lambda: rows)
    result = plan(owned_4090({"location": "DE"}, vat_percent=19))
    assert result.costs.electricity_usd == pytest.approx(KWH_4090 * 0.2723 * EUR_USD, abs=0.02)
    assert [n.code for n in result.notices if n.code == "electricity_vat_unknown"] == ["electricity_vat_unknown"]


def eight_gpu_server(**options: Any) -> dict[str, Any]:
    """A quoted whole 8-GPU machine at 8 x 700 W + 1,400 W = 7,000 W busy, no idle draw: a server by its size."""
    item = owned_item(250000, watts=7000, gpu="H100 SXM", gpus_per_unit=8)
    body = simple_profile([item], [], utilisation=0.15, months=12, allow_cloud=False, **options)
    body["demand"].update({"gpus": 8, "reference_gpu": "H100 SXM"})
    return body


def test_a_server_pays_the_survey_pue_and_an_office_machine_none() -> None:
    """8 GPUs busy 15% of 2027: 8 x 1,314 = 10,512 GPU-hours at 7,000 / 8 = 875 W each = 9,198 kWh; at 0.10 USD/kWh
    and PUE 1.54: 1,416.49 USD. The 1-GPU RTX 4090 box (a workstation by its size) at PUE 1: 591.3 kWh, 59.13 USD."""
    server = plan(eight_gpu_server())
    assert server.costs.electricity_usd == pytest.approx(8 * HOURS * 0.875 * 0.10 * SERVER_PUE, abs=0.02)
    assert server.cooling is not None and server.cooling.pue_by_host_kind == {"desktop": 1.0, "workstation": 1.0,
                                                                              "server": SERVER_PUE}
    assert "Uptime" in server.cooling.source
    office = owned_4090({"price_per_kwh": 0.10})
    assert plan(office).costs.electricity_usd == pytest.approx(KWH_4090 * 0.10, abs=0.01)


def test_options_pue_wins_for_every_machine() -> None:
    result = plan(eight_gpu_server(pue=1.2))
    assert result.costs.electricity_usd == pytest.approx(8 * HOURS * 0.875 * 0.10 * 1.2, abs=0.02)
    assert result.cooling is not None and result.cooling.source == "options.pue"
    assert set(result.cooling.pue_by_host_kind.values()) == {1.2}
    office = owned_4090({"price_per_kwh": 0.10}, pue=1.2)
    assert plan(office).costs.electricity_usd == pytest.approx(KWH_4090 * 0.10 * 1.2, abs=0.01)


def test_a_whole_machines_kind_follows_its_quote_else_its_size() -> None:
    gpus = bundled_catalog().gpus
    assert system_kind(gpus["H100 SXM"], 8) == "server"  # a module
    assert system_kind(gpus["L40S"], 8) == "server"  # more than 4 cards
    assert system_kind(gpus["RTX 4090"], 4) == "workstation"
    assert system_kind(gpus["RTX 4090"], 1, "server") == "server"  # the quote says where it stands
    assert pue_of("server", None) == SERVER_PUE and pue_of("desktop", None) == 1.0 and pue_of("desktop", 1.3) == 1.3


def test_a_card_that_fits_an_office_machine_and_a_server_is_offered_once_for_each() -> None:
    """A bare card priced at PUE 1 (1 kWh a working hour, 0.1 idle) accepted by a desktop (0) and a server (1): two
    copies, the desktop's at 1.0 kWh and the server's at 1.54, each taking only its own host."""
    desktop = Host("desktop", 1, 1000, 1500, 40, "test", "2026-01-01", kind="desktop")
    server = Host("server", 8, 20000, 5400, 150, "test", "2026-01-01", kind="server", passive_cooling=True)
    option = OwnedOption(key="own:0", name="card", gpu="RTX A6000", condition="new", gpus_per_unit=1,
                         unit_price_usd=4000, includes_host=False, throughput=1.0, marginal_kwh_per_gpu_hour=1.0,
                         idle_kwh_per_unit_hour=0.1, card_watts=300, resale_usd=0, memory_gb=48, slots_per_unit=1,
                         vendor="v", source="s", as_of="2026-01-01", feed="f", accepting_hosts=(0, 1))
    office, room = by_place(option, [desktop, server], None, "workstation")
    assert (office.key, office.accepting_hosts, office.marginal_kwh_per_gpu_hour) == ("own:0@pue1", (0,), 1.0)
    assert (room.key, room.accepting_hosts) == ("own:0@pue1.54", (1,))
    assert room.marginal_kwh_per_gpu_hour == pytest.approx(1.54) and room.idle_kwh_per_unit_hour == pytest.approx(0.154)
    (same,) = by_place(option, [desktop, server], 1.1, "workstation")  # one PUE everywhere: no copies
    assert same.key == "own:0" and same.accepting_hosts == (0, 1) and same.marginal_kwh_per_gpu_hour == 1.1
