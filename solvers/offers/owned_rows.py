"""Hardware a lab can own, as rows: the catalog's current card and machine prices (new while still sold new, used
at market value) and the profile's own quotes.

In: a catalog, a profile and today. Out: `OwnedRow`s the owned options are made from, and the catalog of what is
offered on a day."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import NamedTuple

import numpy as np
import pandas as pd

from pricing.catalog import Catalog
from pricing.sold_new import SoldNew, offered_new_card
from solvers.base import defaults
from solvers.base.profile import Profile
from solvers.offers.throughput import canonical_gpu


class OwnedRow(NamedTuple):
    """One purchase a lab can make: a catalog row or a profile quote. A named tuple, not a dataclass: a profile
    may bring 200 quotes, and a frozen dataclass's `__init__` took a tenth of the offers stage's time for them."""

    name: str
    gpu: str
    condition: str
    gpus_per_unit: int
    unit_price_usd: float
    includes_host: bool
    watts: float | None
    idle_watts: float | None
    vendor: str
    source: str
    as_of: str
    feed: str
    kind: str | None = None  # a whole machine's kind, when its quote says (solvers.offers.pue.system_kind)


def _catalog_owned_rows(hardware: pd.DataFrame) -> list[OwnedRow]:
    return [
        OwnedRow(r.name, r.gpu, r.condition, int(r.gpus_per_unit), float(r.unit_price_usd), bool(r.includes_host),
                  None if pd.isna(r.watts) else float(r.watts), None if pd.isna(r.idle_watts) else float(r.idle_watts),
                  r.vendor, r.source, r.as_of, r.feed)
        for r in current_card_prices(hardware).itertuples(index=False)
    ]


def current_card_prices(hardware: pd.DataFrame) -> pd.DataFrame:
    """The catalog's hardware with only the newest price of each single card (GPU and condition): a card sells at
    its market price today, not at its launch price (a new RTX 5090: USD 1,999 MSRP in January 2025, USD 3,400 at
    the low end of street prices in February 2026). Whole systems (several GPUs, or a host included) are kept
    apart: each is a vendor's own product and price."""
    card = (hardware["gpus_per_unit"] == 1) & ~hardware["includes_host"].astype(bool)
    cards = hardware[card]
    newest = cards["as_of"].astype(str) == cards.groupby(["gpu", "condition"])["as_of"].transform(
        lambda d: d.astype(str).max())
    return pd.concat([cards[newest], hardware[~card]]).sort_index()


@dataclass(frozen=True)
class HardwareTable:
    frame: pd.DataFrame  # held, so that `is` identifies the catalog table this was computed from
    rows: list[OwnedRow]
    used_value: dict[str, float]


_last_hardware: HardwareTable | None = None  # the last catalog's table (plans reuse one catalog)


def hardware_table(catalog: Catalog) -> HardwareTable:
    """The catalog's hardware as rows and its used market values, computed once per catalog: alert evaluation
    re-plans hundreds of saved profiles against one catalog and would otherwise convert the same table each time.
    """
    global _last_hardware
    cached = _last_hardware
    if cached is not None and cached.frame is catalog.hardware:
        return cached
    table = HardwareTable(catalog.hardware, _catalog_owned_rows(catalog.hardware), used_market_value(catalog))
    _last_hardware = table
    return table


def offered_new(row: OwnedRow, today: dt.date, sold_new: Mapping[str, SoldNew] | None = None) -> bool:
    """Whether a catalog row is offered today: a new whole system (several GPUs, or a host included) only within
    `defaults.NEW_SYSTEM_OFFER_YEARS` of its price date, so a 2017 DGX-1 or a 2020 DGX A100 launch price is not a
    system a lab can buy new today (the row stays in the catalog and `/v1/prices` as history). Cards follow
    `current_card_prices` (their newest price), and a new card only while it is sold new (`sold_new`, the
    catalog's `pricing/data/sold_new.csv`: an RTX 2080 Ti at its 2018 MSRP is not on offer in 2026)."""
    return offered_new_on(row.condition, row.includes_host, row.gpus_per_unit, row.as_of, today, row.gpu, sold_new)


def offered_new_on(condition: str, includes_host: bool, gpus_per_unit: int, as_of: str, today: dt.date,
                   gpu: str = "", sold_new: Mapping[str, SoldNew] | None = None) -> bool:
    """`offered_new` on a row's fields (a catalog frame's row or an `OwnedRow`)."""
    if condition != "new":
        return True
    if not (includes_host or gpus_per_unit > 1):
        return offered_new_card(sold_new or {}, gpu, today)
    priced = dt.date.fromisoformat(as_of)
    years = defaults.NEW_SYSTEM_OFFER_YEARS
    last = priced.replace(year=priced.year + years, day=28) if (priced.month, priced.day) == (2, 29) else (
        priced.replace(year=priced.year + years))
    return today <= last


def offered_catalog(catalog: Catalog, today: dt.date) -> Catalog:
    """The catalog with only the purchase rows on offer today (`offered_new`): the workload compiler sizes machines
    and prices GPU types from it, so a type whose only purchase is a retired system is not shown as bought."""
    frame = catalog.hardware
    keep = np.array([offered_new_on(str(r.condition), bool(r.includes_host), int(r.gpus_per_unit), str(r.as_of), today,
                                    str(r.gpu), catalog.sold_new) for r in frame.itertuples(index=False)], dtype=bool)
    return catalog if keep.all() else replace(catalog, hardware=frame[keep].reset_index(drop=True))


_last_offered: tuple[HardwareTable, Mapping[str, SoldNew], dt.date, list[OwnedRow]] | None = None


def _offered_rows(catalog: Catalog, today: dt.date) -> list[OwnedRow]:
    """The catalog's rows offered today (`offered_new`), kept for the last catalog table, sold-new list and day:
    plans on one catalog on one day ask the same of the same rows (a date parsed per whole system, some 30 us a
    plan). The caller copies the list before adding to it."""
    global _last_offered
    table = hardware_table(catalog)
    cached = _last_offered
    if cached is not None and cached[0] is table and cached[1] is catalog.sold_new and cached[2] == today:
        return cached[3]
    rows = [r for r in table.rows if offered_new(r, today, catalog.sold_new)]
    _last_offered = (table, catalog.sold_new, today, rows)
    return rows


def rows_to_own(catalog: Catalog, profile: Profile, today: dt.date) -> list[OwnedRow]:
    """The catalog's rows on offer today (in `extend` mode), then the profile's quotes. Each quote's GPU spelling is
    resolved once and today's date written once: 200 quotes name a handful of GPU types (issue 31)."""
    rows = list(_offered_rows(catalog, today)) if profile.prices.mode == "extend" else []
    names: dict[str, str] = {}
    today_text = today.isoformat()
    # every field given, in order: the tuple made directly, without the named tuple's generated `__new__` that
    # only passes its arguments on (half of the 0.3 us a quote's row took)
    made = tuple.__new__
    for i, item in enumerate(profile.prices.owned):
        gpu = names.get(item.gpu)
        if gpu is None:
            gpu = names[item.gpu] = canonical_gpu(catalog.gpus, item.gpu, f"prices.owned[{i}].gpu")
        rows.append(made(OwnedRow, (item.name, gpu, item.condition, item.gpus_per_unit, item.unit_price_usd,
                                    item.includes_host, item.watts, item.idle_watts, "request",
                                    item.source or "request",
                                    today_text if item.as_of is None else item.as_of.isoformat(), "request",
                                    item.kind)))
    return rows


def used_market_value(catalog: Catalog) -> dict[str, float]:
    """The newest used price per GPU in the catalog (the lowest of that date): what a card of that model sells
    for today. The lowest price of any date was a 2023 eBay average where a 2026 listing now says more."""
    hw = catalog.hardware
    used = hw[(hw["condition"] == "used") & (hw["gpus_per_unit"] == 1) & ~hw["includes_host"].astype(bool)]
    if used.empty:
        return {}
    newest = used[used["as_of"].astype(str) == used.groupby("gpu")["as_of"].transform(lambda d: d.astype(str).max())]
    values: dict[str, float] = newest.groupby("gpu")["unit_price_usd"].min().to_dict()
    return values
