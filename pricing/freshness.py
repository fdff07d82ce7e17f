"""How fresh each source is: what `GET /v1/sources` shows and what plan warnings are made from.

A source is stale when its last attempt failed (the reason is the provider's error), when its last
success is older than its `stale_after` age, or when it is enabled and has never succeeded. The prices
in force are never dropped for being stale; staleness is reported, not acted on.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from sqlalchemy import Engine, select

from pricing.sources.base import Source
from pricing.storage import PriceObservationRow, PriceSnapshot, SourceStatus

IMPORT_PREFIX = "quotes:"  # sources loaded by `gpuplan import-prices`, not fetched on a schedule
# an attempt that recorded neither success nor failure this long after it began was cut off (process killed)
INTERRUPTED_AFTER = dt.timedelta(hours=1)


def interrupted(attempt: dt.datetime | None, success: dt.datetime | None, error: dt.datetime | None) -> bool:
    """True when the last attempt ended in neither a success nor a recorded failure."""
    if attempt is None:
        return False
    return all(t is None or t < attempt for t in (success, error))


@dataclass(frozen=True)
class SourceState:
    source: str
    kind: str
    description: str
    enabled: bool
    scheduled: bool
    interval_hours: float | None
    stale_after_hours: float | None
    missing_credentials: list[str]
    last_attempt_at: dt.datetime | None
    last_success_at: dt.datetime | None
    last_error: str | None
    last_error_at: dt.datetime | None
    consecutive_failures: int
    snapshot_id: int | None
    rows_in_force: int
    unknown_skus: int
    unknown_sku_names: list[str]  # the most frequent provider names that map to no known GPU
    stale: bool
    stale_reasons: list[str]
    too_old: bool  # last success older than stale_after (or none yet): plans using it warn
    # rows of the snapshot in force held back from the planner as far below every other offer: "what: why"
    quarantined: list[str] = field(default_factory=list)
    # `stale_reasons` without the provider's error text: what a plan's warning says
    plain_reasons: list[str] = field(default_factory=list)


def active_sources(sources: Iterable[Source]) -> Callable[[str], bool]:
    """Whose stored snapshot the live catalog uses: enabled sources and every imported quote set."""
    enabled = {s.key for s in sources if s.enabled}
    return lambda key: key in enabled or key.startswith(IMPORT_PREFIX)


def _age(now: dt.datetime, then: dt.datetime) -> str:
    hours = (now - then).total_seconds() / 3600
    return f"{hours:.1f} h" if hours < 48 else f"{hours / 24:.1f} days"


def _stale_reasons(status: SourceStatus | None, enabled: bool, stale_after: dt.timedelta | None,
                   now: dt.datetime, errors: bool = True) -> list[str]:
    """Why the source is stale; without `errors`, a failed attempt is named but not its provider error (plan
    warnings: the error may name internal hosts, and GET /v1/sources shows it to whoever may read it)."""
    reasons = []
    failure = f": {status.last_error}" if errors and status is not None else ": see GET /v1/sources"
    if status is None or status.last_success_at is None:
        if enabled:
            reasons.append("no successful refresh yet: the bundled snapshot's prices are used instead")
        if status is not None and status.last_error:
            reasons.append(f"last attempt failed{failure}")
        return reasons
    if interrupted(status.last_attempt_at, status.last_success_at, status.last_error_at) \
            and status.last_attempt_at is not None and now - status.last_attempt_at > INTERRUPTED_AFTER:
        reasons.append(f"the attempt of {status.last_attempt_at:%Y-%m-%d %H:%M} UTC never finished "
                       f"(process stopped?); the last good snapshot stays in force")
    if status.last_error and status.last_error_at and status.last_error_at >= status.last_success_at:
        reasons.append(f"last attempt failed ({status.last_error_at:%Y-%m-%d %H:%M} UTC){failure}; "
                       f"the last good snapshot stays in force")
    if stale_after is not None and now - status.last_success_at > stale_after:
        reasons.append(f"last success {_age(now, status.last_success_at)} ago, more than the "
                       f"{stale_after.total_seconds() / 3600:g} h allowed")
    return reasons


def source_states(engine: Engine, sources: Iterable[Source], now: dt.datetime) -> list[SourceState]:
    """Every configured source, plus every imported quote set, in a stable order."""
    s, snap = SourceStatus.__table__, PriceSnapshot.__table__
    with engine.connect() as conn:
        rows = conn.execute(select(s, snap.c.rows, snap.c.unknown_skus).outerjoin(snap, snap.c.id == s.c.snapshot_id))
        stored = {r.source: r for r in rows}
    states = []
    configured = list(sources)
    for src in configured:
        row = stored.get(src.key)
        status = _status(row)
        states.append(_state(src.key, src.kind, src.description, src.enabled, True, src.interval, src.stale_after,
                             src.missing_credentials(), status, row, now))
    for key in sorted(k for k in stored if k.startswith(IMPORT_PREFIX)):
        row = stored[key]
        states.append(_state(key, "hardware", "vendor quotes loaded with `gpuplan import-prices`", True, False,
                             None, None, [], _status(row), row, now))
    held = quarantined_rows(engine)
    return [replace(state, quarantined=held.get(state.source, [])) for state in states]


def quarantined_rows(engine: Engine) -> dict[str, list[str]]:
    """source -> "provider name region pricing USD: reason" of every quarantined row in force."""
    o, s = PriceObservationRow.__table__, SourceStatus.__table__
    query = (select(s.c.source, o.c.provider, o.c.name, o.c.region, o.c.pricing, o.c.usd, o.c.quarantine_reason)
             .join(o, o.c.snapshot_id == s.c.snapshot_id).where(o.c.quarantined.is_(True))
             .order_by(s.c.source, o.c.provider, o.c.name, o.c.region, o.c.pricing))
    held: dict[str, list[str]] = {}
    with engine.connect() as conn:
        for source, provider, name, region, pricing, usd, reason in conn.execute(query):
            what = " ".join(p for p in (provider, name, region, pricing) if p)
            held.setdefault(source, []).append(f"{what} {usd:g} USD: {reason}")
    return held


def _status(row: object | None) -> SourceStatus | None:
    if row is None:
        return None
    cols = ("source", "snapshot_id", "last_attempt_at", "last_success_at", "last_error", "last_error_at",
            "consecutive_failures")
    return SourceStatus(**{c: getattr(row, c) for c in cols})


def _state(key: str, kind: str, description: str, enabled: bool, scheduled: bool, interval: dt.timedelta | None,
           stale_after: dt.timedelta | None, missing: list[str], status: SourceStatus | None, row: object | None,
           now: dt.datetime) -> SourceState:
    reasons = _stale_reasons(status, enabled and scheduled, stale_after, now) if (enabled or status) else []
    plain = _stale_reasons(status, enabled and scheduled, stale_after, now, errors=False) if reasons else []
    unknown: dict[str, int] = getattr(row, "unknown_skus", None) or {}
    last_success = status.last_success_at if status else None
    too_old = bool(reasons) and (last_success is None or (stale_after is not None and now - last_success > stale_after))
    return SourceState(
        source=key, kind=kind, description=description, enabled=enabled, scheduled=scheduled and enabled,
        interval_hours=None if interval is None else interval.total_seconds() / 3600,
        stale_after_hours=None if stale_after is None else stale_after.total_seconds() / 3600,
        missing_credentials=missing,
        last_attempt_at=status.last_attempt_at if status else None,
        last_success_at=status.last_success_at if status else None,
        last_error=status.last_error if status else None,
        last_error_at=status.last_error_at if status else None,
        consecutive_failures=status.consecutive_failures if status else 0,
        snapshot_id=status.snapshot_id if status else None,
        rows_in_force=int(getattr(row, "rows", 0) or 0),
        unknown_skus=sum(unknown.values()),
        unknown_sku_names=[k for k, _ in sorted(unknown.items(), key=lambda kv: (-kv[1], kv[0]))[:10]],
        stale=bool(reasons), stale_reasons=reasons, too_old=too_old, plain_reasons=plain,
    )
