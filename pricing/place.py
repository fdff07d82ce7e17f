"""Place: electricity price and grid carbon intensity by location, and the location of cloud regions.

A location is an ISO 3166-1 alpha-2 country code (`DE`), a subdivision as ISO 3166-2 (`US-CA`, a Canadian province
`CA-ON`), or `EU` (the European Union average). The tables are bundled, one sourced and dated row per location (and,
for prices, per consumer: a business's rate everywhere, a household's where a source gave one), each price with the
VAT the place charges on it (`pricing/data/electricity_prices.csv`, `grid_carbon.csv`, `cloud_regions.csv`, described
in `pricing/data/README.md`); no figure is invented, so a location may have a price and no intensity or the reverse.

Look-ups fall back from a subdivision to its country (`US-PR` -> `US`, `CA-ON` -> `CA`) for carbon intensity only, and
say so: the price tables are per state or province where prices differ that much (EIA by state, Hydro-Quebec by city),
the carbon table has every US state and DC, but only the country for Canada and for territories such as `US-PR`. A
price never falls back: a country row would hide the spread between provinces, so a province without a row asks for
a price (`US` itself has a row, the national average, for a profile that names only the country). Where no location
is known at all (a cloud offer listed as "global", a profile without a location) `world_carbon_intensity` gives the
world average
(row `WORLD`), again marked as a fallback, so a carbon price weighs every option and never favours the unknown.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources
from io import StringIO

LOCATION = re.compile(r"^[A-Z]{2}(-[A-Z0-9]{1,3})?$")


@dataclass(frozen=True)
class PlaceFigure:
    """One row of a place table: the value, its unit's currency (prices) and where it comes from."""

    location: str
    name: str
    value: float
    currency: str  # prices: the table's currency; carbon: ""
    period: str
    source: str
    as_of: str
    fallback_from: str | None = None  # set when a subdivision fell back to its country's figure
    # electricity rows: the VAT (and other taxes a VAT-registered business recovers) the place charges on this
    # consumer's price, percent; None where no source gave it
    vat_percent: float | None = None
    vat_source: str = ""


def normalise(location: str) -> str:
    return location.strip().upper().replace("_", "-")


def valid_location(location: str) -> bool:
    return bool(LOCATION.match(normalise(location)))


def _rows(name: str) -> list[dict[str, str]]:
    text = resources.files("pricing").joinpath(f"data/{name}").read_text(encoding="utf-8")
    rows = list(csv.DictReader(StringIO(text)))
    missing = [r.get("location") or r.get("region") for r in rows if not (r.get("source") or "").strip()]
    if missing:
        raise ValueError(f"{name}: rows without a source: {missing}")
    return rows


# whose rate a row is: a business's (Eurostat non-household, EIA commercial) or a household's
CONSUMER_OF_SECTOR = {"non-household": "business", "commercial": "business", "household": "residential"}
CONSUMERS = ("business", "residential")


@lru_cache(maxsize=1)
def electricity_prices() -> dict[tuple[str, str], PlaceFigure]:
    """(location, consumer) -> the row's price and the VAT the place charges on it."""
    return {
        (r["location"], CONSUMER_OF_SECTOR[r["sector"]]): PlaceFigure(
            r["location"], r["name"], float(r["price_per_kwh"]), r["currency"], r["period"], r["source"], r["as_of"],
            vat_percent=float(r["vat_percent"]) if r["vat_percent"].strip() else None, vat_source=r["vat_source"])
        for r in _rows("electricity_prices.csv")
    }


@lru_cache(maxsize=1)
def grid_carbon() -> dict[str, PlaceFigure]:
    return {
        r["location"]: PlaceFigure(r["location"], r["name"], float(r["g_co2e_per_kwh"]), "", r["year"], r["source"],
                                   r["as_of"])
        for r in _rows("grid_carbon.csv")
    }


@lru_cache(maxsize=1)
def cloud_regions() -> dict[tuple[str, str], str]:
    """(provider, region) -> location."""
    return {(r["provider"].strip().lower(), r["region"].strip()): r["location"].strip()
            for r in _rows("cloud_regions.csv")}


def electricity_price(location: str, consumer: str = "business") -> PlaceFigure | None:
    """A business's or a household's price at a location (never another consumer's: their tariffs differ)."""
    return electricity_prices().get((normalise(location), consumer))


def carbon_intensity(location: str) -> PlaceFigure | None:
    """gCO2e per kWh at a location; a subdivision without its own row takes its country's (marked `fallback_from`)."""
    key = normalise(location)
    found = grid_carbon().get(key)
    country = key.split("-", 1)[0]
    if found is None and country != key and country in grid_carbon():
        return replace(grid_carbon()[country], fallback_from=key)
    return found


def world_carbon_intensity(instead_of: str) -> PlaceFigure | None:
    world = grid_carbon().get("WORLD")
    return None if world is None else replace(world, fallback_from=instead_of)


def region_location(provider: str, region: str) -> str | None:
    """The location of a cloud region; a marketplace's country code (`US`, `CA`) is taken as it stands."""
    found = cloud_regions().get((provider.strip().lower(), region.strip()))
    if found is not None:
        return found
    candidate = normalise(region)
    return candidate if LOCATION.match(candidate) and len(candidate) == 2 and candidate != "EU" else None


def known_locations() -> list[str]:
    return sorted(({location for location, _ in electricity_prices()} | set(grid_carbon())) - {"WORLD"})
