"""Exchange rates: the European Central Bank's euro reference rates, bundled and live, and conversions with them.

Why the ECB: its daily reference rates are public, keyless and dated (one set per working day, published about
16:00 CET), so a plan can say exactly which rates it used. Rates are quoted as units of a currency per euro; a
conversion between two non-euro currencies goes through the euro (cross rate), as the ECB itself recommends
for its reference rates.

The bundled set (`pricing/data/ecb_rates.csv`) is one real ECB publication with its date; the `ecb` price
source (`pricing.sources.ecb`) stores newer sets as observations of kind `fx` and `pricing.live` lays the newest
good one over the bundled set.

A currency the euro has replaced (BGN from 2026-01-01, HRK from 2023-01-01) is no longer in the ECB's set; an
amount in it converts at its irrevocably fixed rate (`FIXED_EURO_RATES`, source named per rate), which a plan shows.
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
class FixedEuroRate:
    """A currency the euro replaced: the Council fixed its conversion rate irrevocably, so the ECB stops quoting it
    and an amount in it converts exactly at that rate from `since` on."""

    units_per_eur: float
    since: dt.date
    source: str


# Why accept these: a quote, invoice or contract in leva or kuna (older price lists, dual-priced offers) converts
# exactly at the legal rate; refusing it would refuse a well-defined input. Rates and dates read from the Council's
# decisions as reported in the sources named; Regulation (EC) No 2866/98 holds every euro conversion rate.
FIXED_EURO_RATES: dict[str, FixedEuroRate] = {
    "BGN": FixedEuroRate(1.95583, dt.date(2026, 1, 1), (
        "Council of the EU, 8 July 2025: Bulgaria adopts the euro on 1 January 2026 at the irrevocably fixed "
        "conversion rate of 1.95583 lev per euro (Council Regulation amending Regulation (EC) No 2866/98); ECB "
        "press release 'Bulgaria to join euro area on 1 January 2026' of 8 July 2025, as reproduced at "
        "https://www.einpresswire.com/article/829506827/bulgaria-to-join-euro-area-on-1-january-2026")),
    "HRK": FixedEuroRate(7.53450, dt.date(2023, 1, 1), (
        "Council Regulation (EU) 2022/1208 of 12 July 2022 amending Regulation (EC) No 2866/98 as regards the euro "
        "conversion rate for Croatia: 7.53450 kuna per euro from 1 January 2023, as reported by the European "
        "Commission, https://ec.europa.eu/newsroom/ecfin/items/753700/en")),
}


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
        return sorted(set(self.per_eur) | {c for c in FIXED_EURO_RATES if self.fixed(c) is not None})

    def fixed(self, currency: str) -> FixedEuroRate | None:
        """The euro's fixed conversion rate for a currency this publication does not quote (it is replaced)."""
        code = currency.upper()
        found = FIXED_EURO_RATES.get(code)
        if code in self.per_eur or found is None or self.as_of < found.since:
            return None
        return found

    def units_per_eur(self, currency: str) -> float:
        try:
            return self.per_eur[currency.upper()]
        except KeyError:
            fixed = self.fixed(currency)
            if fixed is None:
                raise UnknownCurrency(currency) from None
            return fixed.units_per_eur

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
