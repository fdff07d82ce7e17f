"""The audit's checks of rented prices (cloud offers and commitments), per GPU-hour.

Every row is compared with the band of its GPU's same-kind offers from *other providers* (a provider's own
regional copies cannot vouch for each other): `on_demand`, `spot`, `marketplace` (listing aggregates) and
`commitment` are kinds of their own, since a spot or reserved price far below on-demand is the point of it.
The band is the median of the other providers' medians, from half of it to four times it: the issue's
suspect L40S (an aggregator's $0.54 where the cheapest mainstream offer is $0.79) sits below half the other
providers' median ($1.25), while a hyperscaler's list price (AWS p5 at $6.88 against neoclouds' $2-3) stays
inside; a GPU with fewer than `MIN_PEERS` other providers of the kind is not judged.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass

import pandas as pd

from pricing.audit.keys import cloud_key, commitment_key, is_aggregator
from pricing.gpus import GpuTable

BAND_LOW = 0.5
BAND_HIGH = 4.0
MIN_PEERS = 3
# a row whose provider priced the same GPU, kind and size at least this much later, and differently
FRESHER_GAP_DAYS = 182
FRESHER_TOLERANCE = 0.25
MODULE_FORM_FACTORS = ("sxm", "oam", "superchip")


@dataclass(frozen=True)
class Priced:
    """One rented-price row as the checks see it."""

    key: str
    table: str
    provider: str
    name: str
    gpu: str
    gpu_count: int
    kind: str
    per_gpu: float
    as_of: str
    source: str
    label: str

    @property
    def aggregator(self) -> bool:
        return is_aggregator(self.source)


def cloud_rows(frame: pd.DataFrame) -> list[Priced]:
    out = []
    for r in frame.itertuples(index=False):
        listings = getattr(r, "listings", float("nan"))
        marketplace = r.provider == "vast" or (listings == listings and listings is not None)  # NaN != NaN
        kind = "marketplace" if marketplace else str(r.pricing)
        out.append(Priced(cloud_key(r.provider, r.name, r.region, r.pricing, r.gpu, r.gpu_count), "cloud",
                          str(r.provider), str(r.name), str(r.gpu), int(r.gpu_count), kind,
                          float(r.usd_per_hour) / max(int(r.gpu_count), 1), str(r.as_of)[:10], str(r.source),
                          f"{r.provider} {r.name} ({r.gpu_count}x {r.gpu}, {r.region}, {r.pricing})"))
    return out


def commitment_rows(frame: pd.DataFrame) -> list[Priced]:
    return [Priced(commitment_key(r.provider, r.name, r.region, r.pricing, r.term_months, r.payment, r.gpu,
                                  r.gpu_count), "commitment", str(r.provider), str(r.name), str(r.gpu),
                   int(r.gpu_count), "commitment", float(r.usd_per_hour) / max(int(r.gpu_count), 1),
                   str(r.as_of)[:10], str(r.source),
                   f"{r.provider} {r.name} ({r.gpu_count}x {r.gpu}, {r.region}, {r.pricing} {r.term_months} months)")
            for r in frame.itertuples(index=False)]


def band_flags(rows: list[Priced]) -> dict[str, tuple[str, str]]:
    """key -> (check, reason) for rows outside their band of other providers' same-kind offers."""
    by_group: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        by_group[(r.gpu, r.kind)][r.provider].append(r.per_gpu)
    out: dict[str, tuple[str, str]] = {}
    for r in rows:
        providers = by_group[(r.gpu, r.kind)]
        medians = [statistics.median(v) for p, v in providers.items() if p != r.provider]
        if len(medians) < MIN_PEERS:
            continue
        centre = statistics.median(medians)
        low, high = BAND_LOW * centre, BAND_HIGH * centre
        if r.per_gpu < low or r.per_gpu > high:
            side = "below half" if r.per_gpu < low else "above four times"
            out[r.key] = ("out_of_band", f"{r.per_gpu:.4g} USD per GPU-hour is {side} the median ({centre:.4g}) of "
                                         f"{len(medians)} other providers' {r.kind} offers for {r.gpu} (band "
                                         f"{low:.4g}-{high:.4g})")
    return out


def fresher_flags(rows: list[Priced]) -> dict[str, tuple[str, str]]:
    """Rows half a year older than their provider's newest price for the same GPU, kind and size, and far from it."""
    newest: dict[tuple[str, str, str, int], Priced] = {}
    for r in rows:
        group = _fresher_group(r)
        if group not in newest or r.as_of > newest[group].as_of:
            newest[group] = r
    out: dict[str, tuple[str, str]] = {}
    for r in rows:
        fresh = newest[_fresher_group(r)]
        gap = (pd.Timestamp(fresh.as_of) - pd.Timestamp(r.as_of)).days
        if gap < FRESHER_GAP_DAYS or abs(r.per_gpu / fresh.per_gpu - 1.0) <= FRESHER_TOLERANCE:
            continue
        out[r.key] = ("stale_against_fresher",
                      f"{r.per_gpu:.4g} USD per GPU-hour of {r.as_of}; the same provider priced {r.gpu} "
                      f"({r.kind}) at {fresh.per_gpu:.4g} on {fresh.as_of} ({fresh.name}), {gap} days later")
    return out


def _fresher_group(r: Priced) -> tuple[str, str, str, int]:
    """Rows a fresher price of which says something: the same provider, GPU, kind and size (a hyperscaler's
    8-GPU instance carries more CPU per GPU than its 1-GPU one); a marketplace's hosts set per-GPU rates, so its
    sizes compare with each other."""
    return (r.provider, r.gpu, r.kind, 0 if r.kind == "marketplace" else r.gpu_count)


def per_gpu_quote_flags(rows: list[Priced], gpus: GpuTable) -> dict[str, tuple[str, str]]:
    """1-GPU rows of a module GPU (sold on 4- or 8-GPU baseboards) that are a per-GPU quote entered as an
    instance (issue 30: MI300X/MI325X quoted per GPU-hour): the source named no instance, so the row is named by
    its GPU alone. A provider's own 1-GPU offer of a module GPU (RunPod, Nebius, Lambda rent single H100s and
    B200s; the aggregator's rows name the size they list, "-1x" or "-8x") and a marketplace listing (one host's
    GPU) are instances and are not flagged."""
    out: dict[str, tuple[str, str]] = {}
    for r in rows:
        spec = gpus.specs.get(r.gpu)
        if r.gpu_count != 1 or spec is None or spec.form_factor not in MODULE_FORM_FACTORS or r.kind == "marketplace":
            continue
        if r.name == r.gpu:
            out[r.key] = ("per_gpu_quote", f"a 1-GPU offer of the {spec.form_factor.upper()} module {r.gpu} (sold "
                                           "in 4- or 8-GPU machines) whose source named no instance: a price per "
                                           "GPU-hour entered as a 1-GPU instance, which cannot be rented alone")
    return out
