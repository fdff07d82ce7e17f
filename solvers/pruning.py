"""Remove options that can never be in a cheapest plan, before the model is built.

Three rules, each safe (tests compare optima with and without pruning):
1. Cloud offers are perfect substitutes in the demand constraint, so among offers without a
   quota only the cheapest per reference hour can be used; quota-limited offers survive only
   if they are cheaper than that one.
2. An owned option is dominated by another with the same unit shape (GPUs per unit, host or not)
   that is no worse in every respect the model sees: throughput, purchase price (budget), net
   price after resale, idle energy, energy per reference hour and card power (PSU). Swapping
   units one for one keeps every constraint and never costs more.
3. With an unlimited cloud offer at c per reference hour, one unit of an owned option can save at
   most sum over blocks of min(its capacity, demand) x (c - its energy cost per reference hour).
   If its net price plus idle energy is at least that, replacing its work by cloud hours never
   costs more, so it is never needed. (Not used for the buy-only alternative, which has no cloud.)
Rules 1 and 2 do not depend on the electricity rate, demand or a uniform cloud price change, so the
decision thresholds can vary those and keep the pruned lists.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from solvers.blocks import Block
from solvers.options import CloudOption, OwnedOption


def prune_cloud_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Rule 1, vectorised: the cheapest unlimited offer plus the quota-limited ones cheaper than it.

    Ties between equally cheap unlimited offers go to the first by provider, name and region; only the few
    kept rows are sorted (sorting thousands of offers by text per plan cost more than the solve).
    """
    if frame.empty:
        return frame
    price = frame["usd_per_ref_hour"].to_numpy()
    unlimited = frame["max_instances"].isna().to_numpy()
    if not unlimited.any():
        return frame.sort_values(["usd_per_ref_hour", "provider", "name", "region"], kind="stable")
    cheapest = price[unlimited].min()
    tied = frame[unlimited & (price == cheapest)]
    first = tied.sort_values(["provider", "name", "region"], kind="stable").index[0]
    keep = (~unlimited) & (price < cheapest)
    kept = frame[keep | (frame.index == first)]
    return kept.sort_values(["usd_per_ref_hour", "provider", "name", "region"], kind="stable")


def _dominates(a: OwnedOption, b: OwnedOption) -> bool:
    """True if `a` is at least as good as `b` in everything the model sees."""
    return (
        a.gpus_per_unit == b.gpus_per_unit
        and a.includes_host == b.includes_host
        and a.throughput >= b.throughput
        and a.unit_price_usd <= b.unit_price_usd
        and a.net_price_usd <= b.net_price_usd
        and a.idle_kwh_per_unit_hour <= b.idle_kwh_per_unit_hour
        and a.marginal_kwh_per_gpu_hour / a.throughput <= b.marginal_kwh_per_gpu_hour / b.throughput
        and a.card_watts <= b.card_watts
    )


def prune_dominated(owned: list[OwnedOption]) -> list[OwnedOption]:
    """Rule 2. Of options that dominate each other (identical terms) the first listed is kept."""
    ordered = sorted(owned, key=lambda o: (o.net_price_usd, o.unit_price_usd, o.key))
    kept: list[OwnedOption] = []
    for candidate in ordered:
        if not any(_dominates(k, candidate) for k in kept):
            kept = [k for k in kept if not _dominates(candidate, k)]
            kept.append(candidate)
    return sorted(kept, key=lambda o: o.key)


def prune_unprofitable(owned: list[OwnedOption], cloud: list[CloudOption], blocks: list[Block],
                       availability: float, usd_per_kwh: float) -> list[OwnedOption]:
    """Rule 3; a no-op when no cloud offer is unlimited."""
    unlimited = [c.usd_per_ref_hour for c in cloud if c.max_instances is None]
    if not unlimited:
        return owned
    c = min(unlimited)
    hours = np.array([b.hours for b in blocks])
    demand = np.array([b.demand for b in blocks])
    total_hours = float(hours.sum())
    kept = []
    for o in owned:
        saving_per_ref = c - o.marginal_usd_per_ref_hour(usd_per_kwh)
        if saving_per_ref <= 0:
            continue
        capacity = availability * o.gpus_per_unit * o.throughput * hours
        max_saving = float(np.minimum(capacity, demand).sum()) * saving_per_ref
        fixed = o.net_price_usd + usd_per_kwh * o.idle_kwh_per_unit_hour * total_hours
        if fixed < max_saving:
            kept.append(o)
    return kept
