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
    assert de is not None and (de.value, de.currency, de.period) == (0.233, "EUR", "2024")  # Eurostat band IB 2024
    ca = electricity_price("US-CA")
    assert ca is not None and (ca.value, ca.currency) == (0.2391, "USD")  # EIA 2023 commercial, 23.91 cents
    assert electricity_price("XX") is None


def test_carbon_intensity_and_its_fallbacks() -> None:
    fr = carbon_intensity("FR")
    assert fr is not None and fr.value == 56 and fr.fallback_from is None  # OWID/Ember 2023
    wv = carbon_intensity("US-WV")
    assert wv is not None and wv.value == pytest.approx(1919 * 0.45359237, abs=0.1)  # 1,919 lb/MWh
    tx = carbon_intensity("US-TX")  # no Texas row: the US average, 1,532 Mt / 4,183,271 GWh
    assert tx is not None and tx.value == pytest.approx(1532e12 / 4183271e9 * 1000, abs=0.1)
    assert tx.fallback_from == "US-TX"
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
