"""What every price source produces: one `PriceObservation` per price it read, with where it came from.

Sources only parse; validation against the last good snapshot and storage happen in `pricing.refresh`,
so a parser never has to know what was stored before.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["cloud", "new", "used", "fx"]  # fx: an exchange rate, `usd` per unit of currency `name`
CLOUD_PRICING = ("on_demand", "spot")
# prices for a term: kept in the catalog, served, and planned on as decision variables when a profile allows
# commitments (issue 16); `term_months` and `payment` say which commitment a row prices
COMMITMENT_PRICING = ("reserved", "committed")
PAYMENTS = ("no_upfront", "partial_upfront", "all_upfront", "")  # "" = the source does not say


class SourceError(Exception):
    """A provider answer that cannot be trusted (bad shape, empty, cut short); the reason is shown to users."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class PriceObservation:
    """One price as read from a provider, already in USD and keyed to a canonical GPU name.

    Cloud: `usd` is per instance-hour of `gpu_count` GPUs. Hardware (`new`/`used`): `usd` is per unit
    of `gpu_count` GPUs (a card, a desktop, a server). Marketplaces (Vast.ai, eBay) report a robust
    statistic: `usd` is the median, `p10_usd` the 10th percentile and `listings` how many offers it
    summarises, so one outlier never becomes the price; `reliability` is the median host reliability
    (0..1) where the marketplace publishes one.

    Commitments (`pricing` reserved/committed): `usd` is the effective price per instance-hour over the
    term, `term_months` the term and `payment` the payment option.
    """

    source: str
    kind: Kind
    gpu: str
    gpu_count: int
    name: str
    usd: float
    observed_at: dt.datetime
    provider: str = ""
    region: str = ""
    pricing: str = "on_demand"
    memory_gb: float | None = None
    p10_usd: float | None = None
    listings: int | None = None
    includes_host: bool = False
    watts: float | None = None
    idle_watts: float | None = None
    reference: str = ""
    term_months: int | None = None
    payment: str = ""
    reliability: float | None = None

    def key(self) -> str:
        """Identity of the thing priced, stable across refreshes, so prices can be compared and charted."""
        return price_key(self.kind, self.provider, self.name, self.region, self.pricing, self.gpu, self.gpu_count,
                         self.term_months, self.payment)


def price_key(kind: str, provider: str, name: str, region: str, pricing: str, gpu: str, gpu_count: int,
              term_months: int | None = None, payment: str | None = "") -> str:
    """The key of `PriceObservation.key` from its parts (also for stored rows). Terms only extend the key of
    commitment rows, so the keys of on-demand and spot rows stored before terms existed stay the same."""
    parts = [kind, provider, name, region, pricing, gpu, str(gpu_count)]
    if pricing in COMMITMENT_PRICING:
        parts += [str(term_months or ""), payment or ""]
    return "|".join(parts)


@dataclass
class FetchResult:
    """A whole, parsed provider answer. `unknown_skus` counts provider names that map to no known GPU."""

    observations: list[PriceObservation] = field(default_factory=list)
    rows_seen: int = 0
    unknown_skus: Counter[str] = field(default_factory=Counter)
