"""Where the rows that decide a plan come from: a notice when one was read only from an aggregator (issue 30).

An aggregator (computeprices.com, a listing tracker) collects other sellers' prices; it may be stale or read
wrong, and a buyer should check the price with the seller before acting on it. The catalog audit
(`pricing.audit`) marks each row priced only by an aggregator, with no second source confirming it
(`aggregator_only`); a plan names such a row when it decides the plan: a purchase, or the cloud offer the plan
rents most (the most instance-hours).
"""

from __future__ import annotations

from pricing.audit.keys import cloud_key, hardware_key
from pricing.catalog import Catalog
from solvers.base.notices import Notice, notice
from solvers.base.plan_lines import BuyLine, CloudLine


def _aggregator_only(catalog: Catalog, key: str) -> str | None:
    """The row's source when the audit says only an aggregator prices it, else None."""
    if catalog.audit is None:
        return None
    row = catalog.audit.rows.get(key)
    if row is None or not any(f.check == "aggregator_only" for f in row.flags):
        return None
    return row.source


def aggregator_notices(catalog: Catalog, buy: list[BuyLine], cloud: list[CloudLine]) -> list[Notice]:
    out: list[Notice] = []
    for line in buy:
        if line.vendor is None:  # the profile's own quote: its source is the buyer's
            continue
        source = _aggregator_only(catalog, hardware_key(line.name, line.vendor, line.condition, line.gpu,
                                                        line.gpus_per_unit, line.price_as_of))
        if source is not None:
            out.append(notice("aggregator_purchase", item=line.name, source=source))
    rented = max(cloud, key=lambda c: c.hours, default=None)
    if rented is not None:
        source = _aggregator_only(catalog, cloud_key(rented.provider, rented.name, rented.region, rented.pricing,
                                                     rented.gpu, rented.gpu_count))
        if source is not None:
            out.append(notice("aggregator_cloud", item=f"{rented.provider} {rented.name}", source=source))
    return out
