"""Until when a card is sold new: `pricing/data/sold_new.csv`, one row per card the catalog prices new.

Why: a launch price is not an offer. An RTX 2080 Ti at its 2018 MSRP, or an RTX 3090 at an Amazon buy box of
2025, is not a card a lab can buy new in 2026 (issue 30). Each row holds the date of the newest public listing
found that sold the card new (`sold_new_until`) and what that evidence says (`status`):
- `current`: the card is its vendor's current product: offered new whatever the date;
- `channel`: a data-centre part sold through OEM and reseller channels, with no end-of-sale date found: offered;
- `ended`: new sales stopped after the listing (the card was superseded, the listing says discontinued, or no
  later new listing was found): offered new only in plans that start in that listing's year or earlier, since a
  card seen sold new in a year can be bought new that year ("a card sold new in the plan's year").
"""

from __future__ import annotations

import csv
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from io import StringIO

STATUSES = ("current", "channel", "ended")


@dataclass(frozen=True)
class SoldNew:
    gpu: str
    sold_new_until: str  # ISO date of the newest listing that sold it new
    status: str
    source: str
    notes: str = ""

    def offered_on(self, day: dt.date) -> bool:
        """Whether the card can be bought new on `day` (see the module docstring)."""
        if self.status != "ended":
            return True
        return day.year <= dt.date.fromisoformat(self.sold_new_until).year


def parse_sold_new(text: str) -> dict[str, SoldNew]:
    out: dict[str, SoldNew] = {}
    for row in csv.DictReader(StringIO(text)):
        entry = SoldNew(row["gpu"].strip(), row["sold_new_until"].strip(), row["status"].strip(),
                        row["source"].strip(), row.get("notes", "").strip())
        if entry.status not in STATUSES:
            raise ValueError(f"sold_new.csv: {entry.gpu}: status {entry.status!r} is not one of {STATUSES}")
        dt.date.fromisoformat(entry.sold_new_until)  # a row without a date says nothing
        if not entry.source:
            raise ValueError(f"sold_new.csv: {entry.gpu}: no source")
        out[entry.gpu] = entry
    return out


@lru_cache(maxsize=1)
def bundled_sold_new() -> dict[str, SoldNew]:
    return parse_sold_new(resources.files("pricing").joinpath("data/sold_new.csv").read_text(encoding="utf-8"))


def offered_new_card(sold_new: Mapping[str, SoldNew], gpu: str, day: dt.date) -> bool:
    """A new single card of `gpu` is offered on `day`: its card has no row (nothing known against it) or its
    row says it is sold new then."""
    entry = sold_new.get(gpu)
    return entry is None or entry.offered_on(day)
