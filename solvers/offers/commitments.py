"""Reserved and committed cloud capacity as options held for a term: allowed by the profile, priced per paid hour
over the horizon (upfront and monthly parts), at the job-slot speed of their GPU.

In: the catalog's commitment rows, the profile, today and a `ThroughputModel`. Out: commitment `OwnedOption`s."""

from __future__ import annotations

import datetime as dt

import pandas as pd

from pricing.catalog import Catalog
from solvers.base.demand_units import add_months
from solvers.base.finance import hourly_part, upfront_fee
from solvers.base.notices import Notice
from solvers.base.options import JobWidths, OwnedOption
from solvers.base.profile import Profile
from solvers.offers.ignored import commitment_item
from solvers.offers.throughput import ThroughputModel, canonical_gpu


def _commitments_allowed(profile: Profile) -> bool:
    opts = profile.options
    if not opts.allow_cloud:
        return False
    if opts.allow_commitments is None:
        return bool(profile.prices.commitments)
    return opts.allow_commitments


def _commitment_frame(catalog: Catalog, profile: Profile, today: dt.date) -> pd.DataFrame:
    frames = [] if profile.prices.mode == "replace" else [catalog.commitments]
    items = profile.prices.commitments
    if items:
        for i, item in enumerate(items):
            canonical_gpu(catalog.gpus, item.gpu, f"prices.commitments[{i}].gpu")
        frames.append(pd.DataFrame({
            "provider": [c.provider for c in items], "name": [c.name for c in items],
            "gpu": [catalog.gpus.canonical(c.gpu) for c in items], "gpu_count": [c.gpu_count for c in items],
            "usd_per_hour": [c.usd_per_hour for c in items], "region": [c.region for c in items],
            "pricing": ["committed"] * len(items), "term_months": [c.term_months for c in items],
            "payment": [c.payment for c in items], "upfront_usd": [c.upfront_usd for c in items],
            "source": [c.source or "request" for c in items],
            "as_of": [(c.as_of or today).isoformat() for c in items], "feed": ["request"] * len(items),
            "max_instances": [c.max_instances for c in items],
            "carbon_usd_per_hour": [c.carbon_usd_per_hour for c in items]}))
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _paid_hours(start: dt.date, term_months: int, horizon_hours: float) -> tuple[float, int]:
    """Hours of whole calendar terms from `start` (a term of m months ends on the same day m months later) until
    the horizon is covered."""
    end = start + dt.timedelta(hours=horizon_hours)
    terms = 1
    while add_months(start, terms * term_months) < end:
        terms += 1
    return 24.0 * (add_months(start, terms * term_months) - start).days, terms


def commitment_options(catalog: Catalog, profile: Profile, throughput: ThroughputModel, today: dt.date,
                       horizon_days: int, start: dt.date | None = None,
                       widths: JobWidths | None = None, ignored: list[Notice] | None = None) -> list[OwnedOption]:
    """Reserved / committed-use offers the profile allows, as owned options with an hourly price for every hour of
    their terms: held from the plan's start and renewed term after term until the horizon is covered; the last
    term is paid in full even when it ends after the horizon (a commitment is owed whether used or not).
    With `widths`, one option per offer and job width of its GPU type, sharing the offer's quota."""
    quotes = profile.prices.commitments
    notes: list[Notice] = [] if ignored is None else ignored
    if not _commitments_allowed(profile):
        code = "ignored_cloud_not_allowed" if not profile.options.allow_cloud else "ignored_commitments_not_allowed"
        notes += [commitment_item(k, q.name, code) for k, q in enumerate(quotes)]
        return []
    notes += [commitment_item(k, q.name, "commitment_beyond_horizon", term_months=q.term_months,
                              horizon_days=horizon_days)
              for k, q in enumerate(quotes)
              if add_months(start or today, q.term_months) > (start or today) + dt.timedelta(days=horizon_days)]
    frame = _commitment_frame(catalog, profile, today)
    if frame.empty:
        return []
    first_quote = len(frame) - len(quotes)
    reasons: dict[int, Notice] = {}
    kept: set[int] = set()
    opts = profile.options
    memory = {g.name: g.memory_gb for g in catalog.gpus}
    horizon_hours = 24.0 * horizon_days
    first = start or today
    out: list[OwnedOption] = []

    def shapes(gpu: str) -> list[tuple[int, float]]:
        return ([(profile.jobs.gpus_per_job, throughput(gpu))] if widths is None
                else sorted(widths.get(gpu, {}).items()))

    rows = ((i, r, w, v) for i, r in enumerate(frame.itertuples(index=False)) for w, v in shapes(str(r.gpu)))
    for i, r, width, speed in rows:
        quote = i - first_quote  # a profile quote's index, negative for catalog rows
        why: tuple[str, dict[str, str | int | float | list[str]]] | None = None
        if opts.providers is not None and r.provider not in opts.providers:
            why = ("ignored_provider", {"provider": str(r.provider)})
        elif opts.regions is not None and r.region not in opts.regions:
            why = ("ignored_region", {"region": str(r.region)})
        elif memory.get(r.gpu, 0.0) < profile.min_gpu_memory_gb:
            why = ("ignored_memory", {"gpu": str(r.gpu), "memory_gb": memory.get(r.gpu, 0.0),
                                      "min_gb": profile.min_gpu_memory_gb})
        elif int(r.gpu_count) < width:
            why = ("ignored_job_wider", {"gpus": int(r.gpu_count), "width": width})
        if why is not None:
            if quote >= 0 and quote not in reasons:
                reasons[quote] = commitment_item(quote, str(r.name), why[0], **why[1])
            continue
        if quote >= 0:
            kept.add(quote)
        paid, terms = _paid_hours(first, int(r.term_months), horizon_hours)
        quota = getattr(r, "max_instances", None)
        payment = r.payment if isinstance(r.payment, str) else ""
        fee = upfront_fee(float(r.usd_per_hour), int(r.term_months), payment, getattr(r, "upfront_usd", None))
        carbon = getattr(r, "carbon_usd_per_hour", 0.0)
        carbon = 0.0 if carbon is None or pd.isna(carbon) else float(carbon)
        hourly = hourly_part(float(r.usd_per_hour), int(r.term_months), payment, fee) + carbon
        out.append(OwnedOption(
            key=f"commit:{i}" if widths is None else f"commit:{i}/w{width}", name=str(r.name), gpu=str(r.gpu),
            condition="new", gpus_per_unit=int(r.gpu_count),
            unit_price_usd=(float(r.usd_per_hour) + carbon) * paid if not fee else fee * terms + hourly * paid,
            includes_host=True, throughput=speed,
            marginal_kwh_per_gpu_hour=0.0, idle_kwh_per_unit_hour=0.0, card_watts=0.0, resale_usd=0.0,
            memory_gb=memory.get(r.gpu, 0.0), slots_per_unit=float(int(r.gpu_count) // width),
            vendor=str(r.provider), source=str(r.source), as_of=str(r.as_of), feed=str(r.feed),
            kind="commitment", usd_per_hour=float(r.usd_per_hour), term_months=int(r.term_months),
            paid_hours=paid, terms=terms, provider=str(r.provider), region=str(r.region), availability=1.0,
            max_units=None if quota is None or pd.isna(quota) else int(quota), width=width,
            offer="" if widths is None else f"commit:{i}", payment=payment, upfront_usd=fee,
            carbon_usd_per_hour=carbon))
    notes += [n for k, n in sorted(reasons.items()) if k not in kept]
    return out
