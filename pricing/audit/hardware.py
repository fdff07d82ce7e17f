"""The audit's checks of purchase prices: new against used, and whether a card is still sold new.

- A new card cannot sell below what the same card sells for used at the same time: a "new" price at or below a
  used price of the same card dated within `PAIR_DAYS` is a used or stale price under a new label (issue 30:
  "RTX 4090 (new, street price)" at $1,600 was the low end of a used-market range while used ones listed at
  $2,142). The new row is quarantined; the used row carries the other side of the flag, noted.
- A used card priced over a year ago, with no used price of the card in the last year, is not today's market: it is
  quarantined (kept as history and for the resale fit).
- A new single card of a card whose `sold_new.csv` row says new sales ended before the audit's year is
  withdrawn (kept as price history, not offered new); a consumer or workstation card priced new without a row
  is unexplained: someone must find when it was last sold new.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pandas as pd

from pricing.audit.keys import hardware_key, is_aggregator
from pricing.gpus import GpuTable
from pricing.sold_new import SoldNew

PAIR_DAYS = 120
RETAIL_SEGMENTS = ("consumer", "workstation")
# a used card's price older than this is not today's market: the RTX 3090 sold at USD 704 on eBay in October 2023
# and listed at 1,207 in September 2026 (hardware.SOURCES.md)
STALE_USED_DAYS = 365


@dataclass(frozen=True)
class Bought:
    key: str
    name: str
    gpu: str
    condition: str
    card: bool  # one GPU, no host: a card bought at its newest price (systems are vendors' own products)
    per_gpu: float
    as_of: str
    source: str
    vendor: str

    @property
    def aggregator(self) -> bool:
        return is_aggregator(self.source, self.vendor)


def hardware_rows(frame: pd.DataFrame) -> list[Bought]:
    return [Bought(hardware_key(r.name, r.vendor, r.condition, r.gpu, r.gpus_per_unit, r.as_of), str(r.name),
                   str(r.gpu), str(r.condition), int(r.gpus_per_unit) == 1 and not bool(r.includes_host),
                   float(r.unit_price_usd) / max(int(r.gpus_per_unit), 1), str(r.as_of)[:10], str(r.source),
                   str(r.vendor))
            for r in frame.itertuples(index=False)]


def _days(a: str, b: str) -> int:
    return abs((dt.date.fromisoformat(a) - dt.date.fromisoformat(b)).days)


def new_used_flags(rows: list[Bought]) -> dict[str, list[tuple[str, str, str]]]:
    """key -> [(check, reason, action)] for new cards priced at or below a same-time used price of the card."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    cards = [r for r in rows if r.card]
    for new in (r for r in cards if r.condition == "new"):
        used = [u for u in cards
                if u.condition == "used" and u.gpu == new.gpu and _days(u.as_of, new.as_of) <= PAIR_DAYS]
        dearest = max(used, key=lambda u: u.per_gpu, default=None)
        if dearest is None or new.per_gpu > dearest.per_gpu:
            continue
        out.setdefault(new.key, []).append((
            "new_below_used", f"new at {new.per_gpu:,.2f} USD on {new.as_of}, not above the used price "
                              f"{dearest.per_gpu:,.2f} USD of the same card on {dearest.as_of} ({dearest.name}): a "
                              "used or stale price under a new label", "quarantine"))
        out.setdefault(dearest.key, []).append((
            "used_above_new", f"used at {dearest.per_gpu:,.2f} USD on {dearest.as_of}, at or above the 'new' price "
                              f"{new.per_gpu:,.2f} USD of {new.as_of} ({new.name}), which is quarantined", "noted"))
    return out


def stale_used_flags(rows: list[Bought], on: dt.date) -> dict[str, list[tuple[str, str, str]]]:
    """Used single cards whose price is over a year old and whose card has no used price of the last year: not a
    price a buyer finds today (issue 30: 2023 eBay averages bought in 2026 plans). Kept as history and in the
    resale fit; quarantined from plans unless a second source of the last year confirms it."""
    recent = {r.gpu for r in rows if r.card and r.condition == "used" and (on - dt.date.fromisoformat(r.as_of)).days
              <= STALE_USED_DAYS}
    out: dict[str, list[tuple[str, str, str]]] = {}
    for r in rows:
        age = (on - dt.date.fromisoformat(r.as_of)).days
        if r.card and r.condition == "used" and age > STALE_USED_DAYS and r.gpu not in recent:
            out.setdefault(r.key, []).append((
                "stale_used", f"a used price of {r.as_of} ({age} days old) and no used price of {r.gpu} in the last "
                              "year: used prices move with the market (RTX 3090: USD 704 in October 2023, 1,207 in "
                              "September 2026), so it is not today's price", "quarantine"))
    return out


def sold_new_flags(rows: list[Bought], gpus: GpuTable, sold_new: dict[str, SoldNew],
                   on: dt.date) -> dict[str, list[tuple[str, str, str]]]:
    """Withdrawn new cards no longer sold new in the audit's year; unexplained ones without a sold-new row."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for r in rows:
        if r.condition != "new" or not r.card:
            continue
        entry = sold_new.get(r.gpu)
        spec = gpus.specs.get(r.gpu)
        if entry is None:
            if spec is not None and spec.segment in RETAIL_SEGMENTS:
                out.setdefault(r.key, []).append((
                    "sold_new_unknown", f"a new price of the {spec.segment} card {r.gpu}, with no row in "
                                        "sold_new.csv saying until when it is sold new", "unexplained"))
            continue
        if not entry.offered_on(on):
            out.setdefault(r.key, []).append((
                "not_sold_new", f"{r.gpu} is not sold new in {on.year}: the newest listing selling it new is of "
                                f"{entry.sold_new_until} ({entry.source}); kept as price history, not offered new",
                "withdrawn"))
    return out
