"""Plan warnings about the age of the prices a plan used (issue 3: warn when a source is stale)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping

from sqlalchemy import Engine

from pricing.freshness import SourceState, source_states
from pricing.sources.base import Source
from solvers.base.notices import Notice, notice, texts
from solvers.base.result import PlanResult


def with_stale_warnings(result: PlanResult, engine: Engine, sources: Iterable[Source], now: dt.datetime,
                        snapshot_max_age: dt.timedelta) -> PlanResult:
    """`result` with the stale-price warnings appended (the same for plans made over HTTP and on the CLI)."""
    extra = stale_price_warnings(result.prices_as_of, source_states(engine, sources, now), now.date(), snapshot_max_age)
    if not extra:
        return result
    return result.model_copy(update={"warnings": [*result.warnings, *texts(extra)],
                                     "notices": [*result.notices, *extra]})


def stale_price_warnings(prices_as_of: Mapping[str, str], states: Iterable[SourceState], today: dt.date,
                         snapshot_max_age: dt.timedelta) -> list[Notice]:
    """One warning for the live sources the plan used whose prices are older than their `stale_after` age (one
    line however many: offline, every source goes stale together, and a plan page listed each one with its
    provider's error), and one for bundled prices older than `snapshot_max_age`. A failed attempt alone does not
    warn: the prices in force are still as fresh as their last success. The warning never carries a provider's
    error text (it may name internal hosts): GET /v1/sources shows it, to whoever may read it.

    `prices_as_of` maps each feed the plan drew candidates from to its oldest price date: live feeds are
    source keys (`azure`), bundled ones `snapshot/<provider>`, the request's own prices `request`.
    """
    by_key = {s.source: s for s in states}
    stale = [state for feed in sorted(prices_as_of) if (state := by_key.get(feed)) is not None and state.too_old]
    warnings = [_stale_notice(stale)] if stale else []
    old = {feed: as_of for feed, as_of in prices_as_of.items()
           if feed.startswith("snapshot/") and today - dt.date.fromisoformat(as_of[:10]) > snapshot_max_age}
    if old:
        oldest = min(old.values())[:10]
        warnings.append(notice("old_snapshot", providers=sorted(f.split("/", 1)[1] for f in old), oldest=oldest,
                               max_age_days=snapshot_max_age.days))
    return warnings


def _stale_notice(stale: list[SourceState]) -> Notice:
    """One source: its name and why (`stale_source`, `stale_source_never`); several: their names and count
    (`stale_sources`), the detail of each on GET /v1/sources."""
    if len(stale) > 1:
        return notice("stale_sources", sources=[s.source for s in stale], count=len(stale))
    (state,) = stale
    success = state.last_success_at.isoformat() if state.last_success_at else None
    return notice("stale_source" if success else "stale_source_never", source=state.source,
                  reasons=state.plain_reasons, last_success_at=success, stale_after_hours=state.stale_after_hours)
