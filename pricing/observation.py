"""What every price source produces: one `PriceObservation` per price it read, with where it came from.

Sources only parse; validation against the last good snapshot and storage happen in `pricing.refresh`,
so a parser never has to know what was stored before.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["cloud", "new", "used"]


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
    summarises, so one outlier never becomes the price.
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

    def key(self) -> str:
        """Identity of the thing priced, stable across refreshes, so prices can be compared and charted."""
        return "|".join((self.kind, self.provider, self.name, self.region, self.pricing, self.gpu,
                         str(self.gpu_count)))


@dataclass
class FetchResult:
    """A whole, parsed provider answer. `unknown_skus` counts provider names that map to no known GPU."""

    observations: list[PriceObservation] = field(default_factory=list)
    rows_seen: int = 0
    unknown_skus: Counter[str] = field(default_factory=Counter)
