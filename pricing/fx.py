"""Exchange rates: the European Central Bank's euro reference rates, bundled and live, and conversions with them.

Why the ECB: its daily reference rates are public, keyless and dated (one set per working day, published about
16:00 CET), so a plan can say exactly which rates it used. Rates are quoted as units of a currency per euro; a
conversion between two non-euro currencies goes through the euro (cross rate), as the ECB itself recommends
for its reference rates.

The bundled set (`pricing/data/ecb_rates.csv`) is one real ECB publication with its date; the `ecb` price
source (`pricing.sources.ecb`) stores newer sets as observations of kind `fx` and `pricing.live` lays the newest
good one over the bundled set.
"""

from __future__ import annotations

import csv
import datetime as dt
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from io import StringIO
from typing import Literal

# the currencies a plan may be made in (issue 16: at least these); any ECB currency may be an input
PLAN_CURRENCIES = ("USD", "EUR", "GBP", "CNY", "JPY", "INR", "CHF", "CAD", "AUD")
PlanCurrency = Literal["USD", "EUR", "GBP", "CNY", "JPY", "INR", "CHF", "CAD", "AUD"]
ECB_DAILY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"


class UnknownCurrency(KeyError):
    """A currency the rates in force do not quote."""


@dataclass(frozen=True)
class ExchangeRates:
    """One ECB publication: units of each currency per euro on `as_of`, and where it came from."""

    as_of: dt.date
    per_eur: dict[str, float]
    source: str
    origin: Literal["bundled", "live"] = "bundled"

    def __post_init__(self) -> None:
        rates = dict(self.per_eur)
        rates["EUR"] = 1.0
        bad = [c for c, r in rates.items() if not r > 0]
        if bad:
            raise ValueError(f"exchange rates must be positive: {bad}")
        object.__setattr__(self, "per_eur", rates)

    def currencies(self) -> list[str]:
        return sorted(self.per_eur)

    def units_per_eur(self, currency: str) -> float:
        try:
            return self.per_eur[currency.upper()]
        except KeyError:
            raise UnknownCurrency(currency) from None

    def usd_per_unit(self, currency: str) -> float:
        """US dollars one unit of `currency` buys (the factor an input in that currency is multiplied by)."""
        return self.units_per_eur("USD") / self.units_per_eur(currency)

    def convert(self, amount: float, from_currency: str, to_currency: str) -> float:
        """`amount` of `from_currency` in `to_currency`, through the euro."""
        if from_currency.upper() == to_currency.upper():
            return amount
        return amount / self.units_per_eur(from_currency) * self.units_per_eur(to_currency)


def parse_rates_csv(text: str) -> ExchangeRates:
    """The bundled file: one row per currency with its rate per euro, the publication date and the source."""
    rows = list(csv.DictReader(StringIO(text)))
    if not rows:
        raise ValueError("ecb_rates.csv has no rows")
    dates = {r["as_of"].strip() for r in rows}
    if len(dates) != 1:
        raise ValueError(f"ecb_rates.csv must hold one publication (one date), found {sorted(dates)}")
    if any(not r["source"].strip() for r in rows):
        raise ValueError("ecb_rates.csv: every row needs a source")
    return ExchangeRates(
        as_of=dt.date.fromisoformat(dates.pop()),
        per_eur={r["currency"].strip().upper(): float(r["units_per_eur"]) for r in rows},
        source=rows[0]["source"].strip(),
    )


@lru_cache(maxsize=1)
def bundled_rates() -> ExchangeRates:
    text = resources.files("pricing").joinpath("data/ecb_rates.csv").read_text(encoding="utf-8")
    return parse_rates_csv(text)
