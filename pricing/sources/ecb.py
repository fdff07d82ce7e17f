"""European Central Bank: the euro foreign exchange reference rates (`eurofxref-daily.xml`), keyless.

Answer shape (the ECB's own file, unchanged for two decades): a `gesmes:Envelope` (namespace
`http://www.gesmes.org/xml/2002-08-01`) holding, in the namespace `http://www.ecb.int/vocabulary/2002-08-01/eurofxref`,
`<Cube><Cube time='YYYY-MM-DD'><Cube currency='USD' rate='1.0705'/>...</Cube></Cube>`: units of each currency per
euro on that day. `eurofxref-hist.xml` has the same shape with one dated `Cube` per working day since 1999; both
are read, the newest day is kept.

Each currency becomes one observation of kind `fx`: `name` the ISO 4217 code, `usd` the US dollars one unit of it
buys (so the field keeps its meaning, a price in USD), a row for EUR itself (its `usd` is the USD rate per euro),
and `reference` the URL with the ECB's date as fragment (`...#2024-06-28`): the date of the rates, which a plan
shows, is the ECB's, not the refresh clock's. The refresh's guards apply as for prices: an answer without USD, or
one that moves a rate by more than the guards allow, keeps the last good set in force.

XML is read with the standard library's parser, which resolves no external entities (the ECB file has none).
Reference: https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/html/index.en.html
"""

from __future__ import annotations

import datetime as dt
import math
import xml.etree.ElementTree as ET
from typing import ClassVar, Literal

import requests

from pricing.gpus import GpuTable
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import Source

NS = "{http://www.ecb.int/vocabulary/2002-08-01/eurofxref}"
PROVIDER = "ecb"


def parse_reference_rates(text: str | bytes) -> tuple[dt.date, dict[str, float]]:
    """(date, units per euro by currency) of the newest day in an ECB eurofxref file."""
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise SourceError(f"ECB reference rates: not XML ({exc})") from None
    days: dict[dt.date, dict[str, float]] = {}
    for day in root.iter(f"{NS}Cube"):
        stamp = day.get("time")
        if stamp is None:
            continue
        try:
            date = dt.date.fromisoformat(stamp)
        except ValueError:
            raise SourceError(f"ECB reference rates: bad date {stamp!r}") from None
        rates: dict[str, float] = {}
        for cube in day.findall(f"{NS}Cube"):
            currency, rate = cube.get("currency"), cube.get("rate")
            if currency is None or rate is None:
                raise SourceError(f"ECB reference rates of {stamp}: a Cube without currency or rate")
            try:
                value = float(rate)
            except ValueError:
                raise SourceError(f"ECB reference rates of {stamp}: {currency} rate {rate!r} is not a number") from None
            if not math.isfinite(value) or value <= 0:
                raise SourceError(f"ECB reference rates of {stamp}: {currency} rate {rate!r} is non-positive")
            rates[currency.strip().upper()] = value
        days[date] = rates
    if not days:
        raise SourceError("ECB reference rates: no dated Cube in the answer")
    newest = max(days)
    if "USD" not in days[newest]:
        raise SourceError(f"ECB reference rates of {newest.isoformat()}: no USD rate (needed for every conversion)")
    return newest, days[newest]


def observations(date: dt.date, per_eur: dict[str, float], now: dt.datetime, url: str) -> list[PriceObservation]:
    usd_per_eur = per_eur["USD"]
    rows = {"EUR": usd_per_eur} | {c: usd_per_eur / r for c, r in per_eur.items()}
    return [
        PriceObservation(source="ecb", kind="fx", gpu="", gpu_count=1, name=currency, usd=usd, observed_at=now,
                         provider=PROVIDER, pricing="reference", reference=f"{url}#{date.isoformat()}")
        for currency, usd in sorted(rows.items())
    ]


class EcbSource(Source):
    key: ClassVar[str] = "ecb"
    kind: ClassVar[Literal["cloud", "hardware", "fx"]] = "fx"
    default_base_url: ClassVar[str] = "https://www.ecb.europa.eu/stats/eurofxref"
    # the ECB publishes once per working day around 16:00 CET; twice a day catches it within half a day
    default_interval_hours: ClassVar[float] = 12.0
    description: ClassVar[str] = "European Central Bank euro reference rates (keyless): exchange rates for plans"

    @property
    def url(self) -> str:
        return f"{self.base_url}/eurofxref-daily.xml"

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        response = http.get(self.url)
        response.raise_for_status()
        date, per_eur = parse_reference_rates(response.content)
        result = FetchResult(rows_seen=len(per_eur))
        result.observations.extend(observations(date, per_eur, now, self.url))
        return result
