"""Place tables: every row sourced and dated, and the look-ups a plan makes (figures read off the sources)."""

from __future__ import annotations

import csv
from importlib import resources
from io import StringIO

import pytest

from pricing.place import (
    carbon_intensity,
    electricity_price,
    region_location,
    valid_location,
    world_carbon_intensity,
)


@pytest.mark.parametrize("name", ["electricity_prices.csv", "grid_carbon.csv", "cloud_regions.csv", "ecb_rates.csv"])
def test_every_row_names_a_public_source(name: str) -> None:
    text = resources.files("pricing").joinpath(f"data/{name}").read_text(encoding="utf-8")
    rows = list(csv.DictReader(StringIO(text)))
    assert rows
    for row in rows:
        assert row["source"].strip() and "/work/" not in row["source"] and "http" in row["source"], row
        if "as_of" in row:
            assert len(row["as_of"]) == 10 and row["as_of"][4] == "-", row


def test_electricity_prices_as_published() -> None:
    de = electricity_price("de")
    # Eurostat nrg_pc_205 band IB, excl. VAT, 2024-S1 (the API extract's column "band IB", Germany row)
    assert de is not None and (de.value, de.currency, de.period) == (0.2723, "EUR", "2024-S1")
    ca = electricity_price("US-CA")
    assert ca is not None and (ca.value, ca.currency) == (0.2391, "USD")  # EIA 2023 commercial, 23.91 cents
    assert electricity_price("XX") is None


def test_carbon_intensity_and_its_fallbacks() -> None:
    fr = carbon_intensity("FR")
    assert fr is not None and fr.value == 56 and fr.fallback_from is None  # OWID/Ember 2023
    wv = carbon_intensity("US-WV")
    assert wv is not None and wv.value == pytest.approx(1919 * 0.45359237, abs=0.1)  # 1,919 lb/MWh
    pr = carbon_intensity("US-PR")  # no Puerto Rico row: the US average, 1,532 Mt / 4,183,271 GWh
    assert pr is not None and pr.value == pytest.approx(1532e12 / 4183271e9 * 1000, abs=0.1)
    assert pr.fallback_from == "US-PR" and pr.name == "United States"
    assert carbon_intensity("XX") is None  # no row: nothing invented
    world = world_carbon_intensity("aws global")
    assert world is not None and world.value == 481 and world.fallback_from == "aws global"


def test_cloud_regions_map_to_locations() -> None:
    assert region_location("aws", "eu-west-3") == "FR"
    assert region_location("GCP", "europe-west4") == "NL"
    assert region_location("azure", "eastus") == "US-VA"
    assert region_location("runpod", "CA") == "CA"  # a marketplace's country code as it stands
    assert region_location("tensorwave", "global") is None
    assert valid_location("US-CA") and not valid_location("California")


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        # owid/energy-data owid-energy-data.csv@e7897ae, column carbon_intensity_elec, year 2023, read by hand
        ("GB", 235.63),
        ("jp", 492.45),
        ("NL", 268.17),
    ],
)
def test_owid_2023_carbon_rows_as_published(location: str, expected: float) -> None:
    found = carbon_intensity(location)
    assert found is not None and found.value == expected and found.period == "2023" and found.fallback_from is None
    assert "owid/energy-data" in found.source


@pytest.mark.parametrize(
    ("location", "value", "currency", "period"),
    [
        # Eurostat nrg_pc_205 band IB 20-499 MWh, excl. VAT, EUR, 2024-S1 (Qery-Data/Energy extract @a877aa0, by hand)
        ("FR", 0.2451, "EUR", "2024-S1"),
        ("NL", 0.2677, "EUR", "2024-S1"),
        ("it", 0.2444, "EUR", "2024-S1"),
        ("ES", 0.1784, "EUR", "2024-S1"),
        ("NO", 0.0957, "EUR", "2024-S1"),
        ("EU", 0.2299, "EUR", "2024-S1"),
        # EIA commercial 2022, 9.55 cents (Washington Research Council Redbook 2024, Table 43)
        ("US-WY", 0.0955, "USD", "2022"),
    ],
)
def test_new_electricity_rows_as_published(location: str, value: float, currency: str, period: str) -> None:
    found = electricity_price(location)
    assert found is not None and (found.value, found.currency, found.period) == (value, currency, period)


@pytest.mark.parametrize(
    ("location", "expected"),
    [
        # OWID grapher carbon-intensity-electricity.csv (twsaf1-sys copy @7149bf4), 2023, read by hand, 2 decimals
        ("IT", 323.45),   # Italy,ITA,2023,323.4485
        ("CH", 38.01),    # Switzerland,CHE,2023,38.00712
        ("KR", 432.11),   # South Korea,KOR,2023,432.111
        ("SG", 500.87),   # Singapore,SGP,2023,500.87228
        ("EU", 237.49),   # European Union (27),,2023,237.48735
        # EIA Electric Power Annual 2023: CO2 (Table 9.5) / net generation (Table 3.7), g/kWh = kt / GWh x 1000
        ("US-OH", round(63_226 / 133_223 * 1000, 1)),  # 474.6
        ("US-NY", round(29_418 / 124_040 * 1000, 1)),  # 237.2
    ],
)
def test_new_carbon_rows_as_published(location: str, expected: float) -> None:
    found = carbon_intensity(location)
    assert found is not None and found.value == expected and found.period == "2023" and found.fallback_from is None


def test_a_state_with_its_own_row_no_longer_falls_back_and_one_without_still_does() -> None:
    oh, tx, pr = carbon_intensity("US-OH"), carbon_intensity("US-TX"), carbon_intensity("US-PR")
    assert oh is not None and oh.fallback_from is None and oh.value == 474.6
    assert tx is not None and tx.fallback_from is None and tx.value == 372.8
    assert pr is not None and pr.fallback_from == "US-PR"


US_STATES_AND_DC = [
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA",
    "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR",
    "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY"
]


def test_every_us_state_and_dc_has_its_own_carbon_row() -> None:
    assert len(US_STATES_AND_DC) == 51
    for state in US_STATES_AND_DC:
        found = carbon_intensity(f"US-{state}")
        assert found is not None and found.fallback_from is None and 0 < found.value < 1000, state
        assert found.period in {"2022", "2023"}, state


@pytest.mark.parametrize(
    ("location", "lb_per_mwh"),
    [
        # EPA eGRID2022 ST22 STC2ERTA (lb CO2e/MWh), read by hand from the OpenUBEM transcription @2fa127c as
        # kg/kWh (0.372828, 0.207512, 0.084352, 0.785737, 0.251696) and turned back into lb/MWh with 0.453592 kg/lb
        ("US-TX", 821.9),
        ("us-ca", 457.5),
        ("US-WA", 186.0),
        ("US-KY", 1732.3),
        ("US-DC", 554.9),
    ],
)
def test_egrid_2022_state_rows_by_hand(location: str, lb_per_mwh: float) -> None:
    """g/kWh = lb/MWh x 453.592 g/lb / 1,000 kWh/MWh: Texas 821.9 lb/MWh is 372.8 g/kWh."""
    found = carbon_intensity(location)
    assert found is not None and found.period == "2022" and found.fallback_from is None
    assert found.value == pytest.approx(lb_per_mwh * 0.453592, abs=0.06)
    assert "eGRID2022" in found.source and "STC2ERTA" in found.source


def test_us_country_row_for_price_and_carbon() -> None:
    """`US` alone: EIA's 2022 U.S. commercial average, 12.41 cents (172,600 million USD / 1,390,873 GWh), and the
    US carbon row (1,532 Mt / 4,183,271 GWh), neither a fallback."""
    price = electricity_price("us")
    assert price is not None and (price.value, price.currency, price.period) == (0.1241, "USD", "2022")
    assert price.value == pytest.approx(172_600e6 / 1_390_873e6, abs=0.0001)
    carbon = carbon_intensity("US")
    assert carbon is not None and carbon.value == 366.2 and carbon.fallback_from is None


@pytest.mark.parametrize(
    ("location", "value", "currency", "period", "names"),
    [
        # DESNZ QEP table 3.4.2 (incl. CCL, excl. VAT), Small band 20-499 MWh, 2026 Q1: 28.76 p/kWh
        ("GB", 0.2876, "GBP", "2026-Q1", "non-domestic-sector"),
        # SP Group Q2 2026, Low Tension Supplies Non-Domestic: 27.27 cents/kWh before GST
        ("sg", 0.2727, "SGD", "2026-Q2", "Low Tension Supplies, Non-Domestic"),
        # Hydro-Quebec 2022 comparison, 10,000 kWh/month at 40 kW, excl. taxes: Toronto 13.65, Montreal 10.42,
        # Vancouver 11.69, Winnipeg 9.69 Canadian cents/kWh
        ("CA-ON", 0.1365, "CAD", "2022-04", "Toronto, ON 13.65"),
        ("ca_qc", 0.1042, "CAD", "2022-04", "Montreal, QC 10.42"),
        ("CA-BC", 0.1169, "CAD", "2022-04", "Vancouver, BC 11.69"),
        ("CA-MB", 0.0969, "CAD", "2022-04", "Winnipeg, MB 9.69"),
    ],
)
def test_rows_outside_eurostat_and_eia_as_published(
        location: str, value: float, currency: str, period: str, names: str) -> None:
    found = electricity_price(location)
    assert found is not None and (found.value, found.currency, found.period) == (value, currency, period)
    assert names in found.source


def test_places_without_a_stored_source_have_no_price() -> None:
    """JP, KR, AU, IN, CN, CH and Canada as a whole: no price invented (place.SOURCES.md says what was searched)."""
    for location in ["JP", "KR", "AU", "IN", "CN", "CH", "CA", "CA-NS"]:
        assert electricity_price(location) is None, location


def test_a_province_takes_its_country_carbon_figure_and_says_so() -> None:
    on = carbon_intensity("ca-on")
    assert on is not None and on.value == 170 and on.name == "Canada" and on.fallback_from == "CA-ON"
    assert carbon_intensity("CA") is not None and carbon_intensity("CA").fallback_from is None  # type: ignore[union-attr]
    assert carbon_intensity("ZZ-AB") is None  # unknown country: nothing to fall back to
