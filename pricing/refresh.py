"""Refresh: fetch -> validate -> compare with the last good snapshot -> store, one source at a time.

Nothing a bad fetch does can remove prices: a failed, empty or implausible answer only updates the
source's status (stale, with the reason) and the snapshot in force stays where it is. A good answer is
written as a new snapshot and made current in one transaction, so a process killed half-way leaves the
previous snapshot in force. A per-source lock keeps two refreshes of one source from interleaving.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import logging
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import requests
from sqlalchemy import Engine, insert, select, update
from sqlalchemy.engine import Connection
from urllib3.exceptions import MaxRetryError

from pricing.gpus import GpuTable
from pricing.http import unreachable
from pricing.locks import try_lock
from pricing.observation import CLOUD_PRICING, FetchResult, PriceObservation, SourceError, price_key
from pricing.plausibility import absurd
from pricing.redact import redact
from pricing.sources.base import Source
from pricing.storage import PriceObservationRow, PriceSnapshot, SourceStatus

log = logging.getLogger(__name__)

Outcome = Literal["ok", "failed", "rejected", "skipped"]


@dataclass(frozen=True)
class Guards:
    """Plausibility limits against the last good snapshot (issue 3: a drop > 70% or a rise > 300% is implausible)."""

    max_drop: float = 0.70
    max_rise: float = 3.00
    # a page sequence that ends early looks like a normal, shorter answer: refuse to lose many rows at once
    min_kept_ratio: float = 0.85
    min_rows_for_ratio: int = 10
    # an operator who checked that a big move is real accepts it (`gpuplan refresh --accept-implausible`):
    # only empty answers and non-positive prices are refused then
    accept_implausible: bool = False
    # outlier quarantine: a cloud row whose per-GPU price is below `quarantine_ratio` x the cheapest other
    # offer for the same GPU and pricing model (with at least `quarantine_min_peers` others to compare) is
    # stored but held back from the planner (a B200 at $0.01/h is a bug or bait, not a market)
    quarantine_ratio: float = 0.25
    quarantine_min_peers: int = 3


@dataclass
class RefreshOutcome:
    source: str
    outcome: Outcome
    rows_fetched: int = 0
    rows_changed: int = 0
    rows_seen: int = 0
    unknown_skus: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    snapshot_id: int | None = None
    duration_s: float = 0.0
    quarantined: list[str] = field(default_factory=list)  # "what: why" of each row held back


ACCEPT_HINT = "; if the change is real: gpuplan refresh --source {source} --accept-implausible"


class Rejected(Exception):
    """A parsed answer that fails validation; its rows are not stored."""


def dedupe(observations: Iterable[PriceObservation]) -> list[PriceObservation]:
    """One row per key: when a provider lists the same instance and region twice (two meters), the cheaper wins.

    Hardware rows are stored with pricing "list" (a price to buy, not a rate), as the bundled rows show.
    """
    best: dict[str, PriceObservation] = {}
    for obs in observations:
        if obs.kind in ("new", "used") and obs.pricing != "list":
            obs = dataclasses.replace(obs, pricing="list")
        key = obs.key()
        kept = best.get(key)
        if kept is None or obs.usd < kept.usd:
            best[key] = obs
    return list(best.values())


def validate(observations: list[PriceObservation], previous: dict[str, float], guards: Guards) -> None:
    """Raise Rejected naming the first problems found; the caller keeps the previous snapshot in force."""
    if not observations:
        raise Rejected("empty answer: no prices")
    bad = [o for o in observations if not math.isfinite(o.usd) or o.usd <= 0]
    if bad:
        raise Rejected(f"{len(bad)} non-positive or non-numeric prices, e.g. {_describe(bad[0])} at {bad[0].usd}")
    beyond = absurd(observations)  # like a non-positive price: refused even when big moves are accepted
    if beyond:
        raise Rejected(beyond)
    if guards.accept_implausible:
        return
    keys = {o.key() for o in observations}
    kept = sum(1 for k in previous if k in keys)
    if len(previous) >= guards.min_rows_for_ratio and kept < guards.min_kept_ratio * len(previous):
        raise Rejected(f"only {kept} of the {len(previous)} rows of the last good snapshot are still there "
                       f"({len(observations)} rows now; answer cut short?)"
                       + ACCEPT_HINT.format(source=observations[0].source))
    drops, rises = [], []
    for obs in observations:
        old = previous.get(obs.key())
        if old is None or old <= 0:
            continue
        if obs.usd < (1 - guards.max_drop) * old:
            drops.append((obs, old))
        elif obs.usd > (1 + guards.max_rise) * old:
            rises.append((obs, old))
    problems = []
    if drops:
        obs, old = drops[0]
        problems.append(f"{len(drops)} prices dropped more than {guards.max_drop:.0%}, e.g. {_describe(obs)} "
                        f"{old:g} -> {obs.usd:g} USD")
    if rises:
        obs, old = rises[0]
        problems.append(f"{len(rises)} prices rose more than {guards.max_rise:.0%}, e.g. {_describe(obs)} "
                        f"{old:g} -> {obs.usd:g} USD")
    if problems:
        raise Rejected("implausible prices against the last good snapshot: " + "; ".join(problems)
                       + ACCEPT_HINT.format(source=observations[0].source))


def _describe(obs: PriceObservation) -> str:
    return " ".join(p for p in (obs.provider, obs.name, obs.region, obs.pricing) if p)


def describe_error(exc: BaseException) -> str:
    """A one-line reason a user can act on (shown in /v1/sources and plan warnings); never a traceback, and
    never a credential or query string (redacted, like every stored error)."""
    return redact(_reason(exc))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, SourceError):
        return exc.reason
    if (offline := _unreachable_host(exc)) is not None:
        return offline
    if isinstance(exc, requests.exceptions.RetryError):
        return f"gave up after retries: {_last_reason(exc)}"
    if isinstance(exc, requests.exceptions.Timeout):
        return f"timed out: {_last_reason(exc)}"
    if isinstance(exc, requests.exceptions.HTTPError) and exc.response is not None:
        return f"HTTP {exc.response.status_code} from {exc.response.url}"
    if isinstance(exc, requests.exceptions.ConnectionError):
        return f"connection failed: {_last_reason(exc)}"
    return f"{type(exc).__name__}: {exc}"[:500]


def _unreachable_host(exc: BaseException) -> str | None:
    """"cannot reach HOST: why" for a connection that could not be made at all (pricing.http.unreachable), in
    words instead of urllib3's text (`HTTPSConnection(host=..., port=443): Failed to resolve ... ([Errno -2]
    ...)`): what GET /v1/sources shows a user whose machine has no network."""
    inner = exc.args[0] if isinstance(exc, requests.exceptions.ConnectionError) and exc.args else None
    if not isinstance(inner, MaxRetryError):
        return None
    why = unreachable(inner.reason)
    host = getattr(inner.pool, "host", None) or "the provider"
    return None if why is None else f"cannot reach {host}: {why}"


def _last_reason(exc: BaseException) -> str:
    inner = exc.args[0] if exc.args else exc
    reason = getattr(inner, "reason", None)
    return str(reason or inner)[:300]


def current_prices(conn: Connection, snapshot_id: int | None) -> dict[str, float]:
    """key -> USD of the snapshot in force, the baseline a new answer is checked against."""
    if snapshot_id is None:
        return {}
    t = PriceObservationRow.__table__
    rows = conn.execute(
        select(t.c.kind, t.c.provider, t.c.name, t.c.region, t.c.pricing, t.c.gpu, t.c.gpu_count, t.c.term_months,
               t.c.payment, t.c.usd)
        .where(t.c.snapshot_id == snapshot_id)
    )
    return {price_key(*r[:9]): r[9] for r in rows}


PeerPrices = dict[tuple[str, str], list[tuple[str, float]]]  # (gpu, pricing) -> [(who, USD per GPU-hour)]


def peer_prices(conn: Connection, exclude_source: str) -> PeerPrices:
    """Per-GPU-hour cloud prices in force at every other source (not quarantined): what a new row is compared to."""
    t, s = PriceObservationRow.__table__, SourceStatus.__table__
    rows = conn.execute(
        select(t.c.provider, t.c.gpu, t.c.pricing, t.c.usd, t.c.gpu_count)
        .join(s, s.c.snapshot_id == t.c.snapshot_id)
        .where(t.c.kind == "cloud", t.c.quarantined.is_(False), s.c.source != exclude_source,
               t.c.pricing.in_(CLOUD_PRICING))
    )
    peers: PeerPrices = {}
    for provider, gpu, pricing, usd, count in rows:
        peers.setdefault((gpu, pricing), []).append((provider, usd / max(count, 1)))
    return peers


def quarantine(observations: list[PriceObservation], peers: PeerPrices, guards: Guards) -> dict[str, str]:
    """key -> reason for every cloud row far below every other offer for its GPU and pricing model.

    The comparison is per GPU-hour against the other sources' prices in force (and the bundled snapshot,
    when the caller adds it to `peers`) plus the other rows of this answer, so one bad row cannot hide
    behind its own source. Too few peers: nothing is judged."""
    if guards.accept_implausible:
        return {}
    answer: dict[tuple[str, str], list[float]] = {}  # this answer's own per-GPU prices, per GPU and pricing
    for obs in observations:
        if obs.kind == "cloud" and obs.pricing in CLOUD_PRICING:
            answer.setdefault((obs.gpu, obs.pricing), []).append(obs.usd / max(obs.gpu_count, 1))
    two_cheapest = {group: sorted(values)[:2] for group, values in answer.items()}
    held: dict[str, str] = {}
    for obs in observations:
        if obs.kind != "cloud" or obs.pricing not in CLOUD_PRICING:
            continue
        group = (obs.gpu, obs.pricing)
        own = obs.usd / max(obs.gpu_count, 1)
        outside = [usd for _, usd in peers.get(group, [])]
        # the cheapest of this answer's other rows: its cheapest, unless that is this row itself
        cheapest_here = two_cheapest[group]
        inside = cheapest_here[1:2] if cheapest_here[0] == own else cheapest_here[:1]
        count = len(outside) + len(answer[group]) - 1
        if count < guards.quarantine_min_peers:
            continue
        cheapest = min(outside + inside)
        if own < guards.quarantine_ratio * cheapest:
            held[obs.key()] = (f"{own:.4g} USD per GPU-hour is below {guards.quarantine_ratio:.0%} of the cheapest "
                               f"of {count} other {obs.pricing} offers for {obs.gpu} ({cheapest:.4g})")
    return held


def _status(conn: Connection, source: str) -> SourceStatus | None:
    row = conn.execute(select(SourceStatus.__table__).where(SourceStatus.__table__.c.source == source)).first()
    return None if row is None else SourceStatus(**row._mapping)


def _upsert_status(conn: Connection, source: str, **values: Any) -> None:
    if conn.execute(update(SourceStatus).where(SourceStatus.source == source).values(**values)).rowcount == 0:
        conn.execute(insert(SourceStatus).values(**{"source": source, "consecutive_failures": 0, **values}))


def record_attempt(engine: Engine, source: str, now: dt.datetime) -> None:
    with engine.begin() as conn:
        _upsert_status(conn, source, last_attempt_at=now)


def record_failure(engine: Engine, source: str, now: dt.datetime, reason: str) -> None:
    reason = redact(reason)  # shown by /v1/sources and the CLI: no token, password or query string in it
    with engine.begin() as conn:
        status = _status(conn, source)
        failures = (status.consecutive_failures if status else 0) + 1
        _upsert_status(conn, source, last_error=reason, last_error_at=now, consecutive_failures=failures)


def _observation_rows(snapshot_id: int, observations: list[PriceObservation],
                      held: dict[str, str]) -> list[dict[str, Any]]:
    return [
        {
            "snapshot_id": snapshot_id, "source": o.source, "kind": o.kind, "gpu": o.gpu, "gpu_count": o.gpu_count,
            "name": o.name, "provider": o.provider, "region": o.region, "pricing": o.pricing, "usd": o.usd,
            "p10_usd": o.p10_usd, "listings": o.listings, "memory_gb": o.memory_gb,
            "includes_host": o.includes_host, "watts": o.watts, "idle_watts": o.idle_watts,
            "reference": o.reference, "observed_at": o.observed_at, "term_months": o.term_months,
            "payment": o.payment, "reliability": o.reliability, "quarantined": o.key() in held,
            "quarantine_reason": held.get(o.key()),
        }
        for o in observations
    ]


def store_snapshot(engine: Engine, source: str, result: FetchResult, observations: list[PriceObservation],
                   now: dt.datetime, origin: str, duration_s: float, previous: dict[str, float],
                   held: dict[str, str] | None = None) -> tuple[int, int]:
    """Write the snapshot, its rows and the status change in ONE transaction; return (snapshot id, rows changed)."""
    new = {o.key(): o.usd for o in observations}
    changed = sum(1 for k, v in new.items() if previous.get(k) != v) + sum(1 for k in previous if k not in new)
    with engine.begin() as conn:
        snapshot_id = conn.execute(
            insert(PriceSnapshot).values(
                source=source, fetched_at=now, rows=len(observations), rows_seen=result.rows_seen,
                rows_changed=changed, unknown_skus=dict(result.unknown_skus), duration_s=duration_s, origin=origin,
            ).returning(PriceSnapshot.id)
        ).scalar_one()
        rows = _observation_rows(snapshot_id, observations, held or {})
        for start in range(0, len(rows), 5000):
            conn.execute(insert(PriceObservationRow), rows[start:start + 5000])
        _upsert_status(conn, source, snapshot_id=snapshot_id, last_success_at=now, last_error=None,
                       last_error_at=None, consecutive_failures=0)
    return snapshot_id, changed


def ingest(engine: Engine, source: str, result: FetchResult, now: dt.datetime, origin: str,
           guards: Guards | None, started: float) -> RefreshOutcome:
    """Validate a parsed answer and store it, or record why it was rejected. Guards None: no history checks."""
    observations = dedupe(result.observations)
    base = RefreshOutcome(source, "ok", rows_fetched=len(observations), rows_seen=result.rows_seen,
                          unknown_skus=dict(result.unknown_skus))
    with engine.connect() as conn:
        status = _status(conn, source)
        previous = current_prices(conn, status.snapshot_id if status else None)
        peers = peer_prices(conn, source) if guards is not None else {}
    try:
        validate(observations, previous if guards else {}, guards or Guards())
    except Rejected as exc:
        if guards is not None:  # an import (no guards) that is refused leaves no trace: nothing was loaded
            record_failure(engine, source, now, str(exc))
        base.outcome, base.error, base.duration_s = "rejected", str(exc), time.monotonic() - started
        return base
    held = quarantine(observations, _with_bundled(peers), guards) if guards is not None else {}
    duration = time.monotonic() - started
    base.snapshot_id, base.rows_changed = store_snapshot(engine, source, result, observations, now, origin, duration,
                                                          previous, held)
    base.duration_s = duration
    base.quarantined = [f"{_describe(o)} {o.usd:g} USD: {held[o.key()]}" for o in observations if o.key() in held]
    for line in base.quarantined:
        log.warning("source %s: row quarantined: %s", source, line)
    return base


def _with_bundled(peers: PeerPrices) -> PeerPrices:
    """`peers` plus the bundled snapshot's cloud prices: with no other source refreshed yet, a new row is still
    compared with the prices the service ships."""
    from pricing.catalog import bundled_catalog  # the catalog module reads package data; import when needed

    merged = {k: list(v) for k, v in peers.items()}
    cloud = bundled_catalog().cloud
    per_gpu = cloud["usd_per_hour"] / cloud["gpu_count"].clip(lower=1)
    for provider, gpu, pricing, usd in zip(cloud["provider"], cloud["gpu"], cloud["pricing"], per_gpu, strict=True):
        merged.setdefault((gpu, pricing), []).append((f"bundled {provider}", float(usd)))
    return merged


def refresh_source(engine: Engine, source: Source, gpus: GpuTable, now: dt.datetime,
                   guards: Guards | None = None) -> RefreshOutcome:
    """Refresh one source. Never raises for a provider problem: the outcome says what happened."""
    started = time.monotonic()
    with try_lock(engine, f"refresh:{source.key}") as got:
        if not got:
            return RefreshOutcome(source.key, "skipped", error="another refresh of this source is running")
        record_attempt(engine, source.key, now)
        try:
            with source.session() as session:
                result = source.fetch(session, gpus, now)
        except Exception as exc:  # one bad source must never stop the others: record why and go on
            reason = describe_error(exc)
            if not isinstance(exc, SourceError | requests.RequestException):
                log.exception("source %s failed unexpectedly", source.key)
            record_failure(engine, source.key, now, reason)
            return RefreshOutcome(source.key, "failed", error=reason, duration_s=time.monotonic() - started)
        guards = dataclasses.replace(guards or Guards(), min_kept_ratio=source.min_kept_ratio)
        return ingest(engine, source.key, result, now, source.base_url, guards, started)


def refresh_contained(engine: Engine, source: Source, gpus: GpuTable, now: dt.datetime,
                      guards: Guards | None = None) -> RefreshOutcome:
    """`refresh_source`, with storage errors too (database locked or gone) turned into a failed outcome,
    so that a loop over sources always reaches the next one."""
    try:
        return refresh_source(engine, source, gpus, now, guards)
    except Exception as exc:
        log.exception("refresh of %s failed in storage", source.key)
        reason = f"storage error: {describe_error(exc)}"
        with contextlib.suppress(Exception):  # the database may be the thing that is broken
            record_failure(engine, source.key, now, reason)
        return RefreshOutcome(source.key, "failed", error=reason)


def refresh_all(engine: Engine, sources: Iterable[Source], gpus: GpuTable, clock: Callable[[], dt.datetime],
                on_done: Callable[[RefreshOutcome], None] | None = None,
                on_start: Callable[[Source], None] | None = None,
                guards: Guards | None = None) -> list[RefreshOutcome]:
    """Refresh each source in turn; each one's failure is contained to itself."""
    outcomes = []
    for source in sources:
        if on_start:
            on_start(source)
        outcome = refresh_contained(engine, source, gpus, clock(), guards)
        outcomes.append(outcome)
        if on_done:
            on_done(outcome)
    return outcomes
