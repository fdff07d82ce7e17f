"""Evaluate subscriptions against what a refresh changed, and write the resulting events to the outbox.

This module is the evaluation's order and its one transaction; what changed is `price_changes.py`, the
subscriptions that match are `price_rules.py` (thresholds, moves) and `plan_rules.py` (plan changes), and the
events they write are `event_records.py`.

Set-based: the changes of every snapshot not yet evaluated are one table; the subscriptions they can
touch are selected by GPU in one query per kind and matched with a join, never one query per
subscription. Saved profiles are re-planned once each, whatever number of subscriptions watch them.

Exactly once per change: evaluations run one at a time (a lock, across processes), and the events,
the baselines they move and the "evaluated" mark of each snapshot are written in one transaction,
guarded by the mark's primary key. A process killed before that commit leaves the snapshots pending
and they are evaluated again; killed after it, the events are in the outbox and are delivered later.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from pricing.catalog import Catalog
from pricing.locks import try_lock
from pricing.storage import PriceSnapshot
from service.alerts.event_records import Writes
from service.alerts.plan_rules import plan_events
from service.alerts.plan_watch import Replan, plan_summary
from service.alerts.price_changes import price_changes
from service.alerts.price_rules import move_events, threshold_events
from service.alerts.tables import AlertEvent, Evaluation, PriceBaseline, Subscription

log = logging.getLogger(__name__)


@dataclass
class EvaluationReport:
    snapshots: list[int] = field(default_factory=list)
    price_changes: int = 0
    events: int = 0
    subscriptions_matched: int = 0
    profiles_replanned: int = 0
    profiles_unaffected: int = 0  # no changed price could enter their plans: not re-planned
    replan_s: float = 0.0
    total_s: float = 0.0
    skipped: str | None = None


def pending_snapshots(conn: Connection) -> list[tuple[int, str]]:
    """Snapshots (id, source) whose changes no evaluation has looked at yet, oldest first."""
    s, e = PriceSnapshot.__table__, Evaluation.__table__
    query = (select(s.c.id, s.c.source).outerjoin(e, e.c.snapshot_id == s.c.id)
             .where(e.c.snapshot_id.is_(None)).order_by(s.c.id))
    return [(int(r.id), str(r.source)) for r in conn.execute(query)]


def _upsert_baselines(conn: Connection, values: list[dict[str, Any]]) -> None:
    if not values:
        return
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    stmt = dialect.insert(PriceBaseline)
    conn.execute(stmt.on_conflict_do_update(index_elements=["subscription_id", "price_key"],
                                            set_={"usd_per_gpu": stmt.excluded.usd_per_gpu}), values)


def _write(engine: Engine, pending: list[tuple[int, str]], writes: Writes, now: dt.datetime) -> bool:
    """Everything the evaluation decided, in one transaction; False when another evaluation got there first."""
    s = Subscription.__table__
    wanted = ({e["subscription_id"] for e in writes.events} | {k[0] for k in writes.baselines}
              | set(writes.plan_baselines))
    try:
        with engine.begin() as conn:
            alive = {r[0] for r in conn.execute(select(s.c.id).where(s.c.id.in_(sorted(wanted))))} if wanted else set()
            events = [e for e in writes.events if e["subscription_id"] in alive]
            conn.execute(insert(Evaluation), [{"snapshot_id": sid, "evaluated_at": now, "events": len(events)}
                                              for sid, _ in pending])
            if events:
                conn.execute(insert(AlertEvent), events)
            _upsert_baselines(conn, [{"subscription_id": k[0], "price_key": k[1], "usd_per_gpu": v}
                                     for k, v in writes.baselines.items() if k[0] in alive])
            for sub_id, baseline in writes.plan_baselines.items():
                if sub_id in alive:
                    conn.execute(update(Subscription).where(s.c.id == sub_id).values(baseline=baseline))
    except IntegrityError:
        log.info("alert evaluation of snapshots %s already done by another process", [p for p, _ in pending])
        return False
    return True


def evaluate_pending(engine: Engine, catalog: Callable[[], Catalog], now: dt.datetime,
                     replan: Replan = plan_summary) -> EvaluationReport:
    """Evaluate every snapshot not yet evaluated; the events land in the outbox for the delivery worker.
    `replan` gives a watched profile's plan summary (in the API process: through the plan pool)."""
    started = time.perf_counter()
    report = EvaluationReport()
    with try_lock(engine, "alerts:evaluate") as got:
        if not got:
            report.skipped = "another evaluation is running"
            return report
        with engine.connect() as conn:
            pending = pending_snapshots(conn)
            if not pending:
                return report
            changes = price_changes(conn, pending)
            writes = Writes()
            dedupe_key = f"snapshots:{pending[0][0]}-{pending[-1][0]}"
            offered = changes[~changes["removed"].astype(bool)]
            if not offered.empty:
                report.subscriptions_matched += threshold_events(conn, offered, dedupe_key, now, writes)
                report.subscriptions_matched += move_events(conn, offered, dedupe_key, now, writes)
            if not changes.empty:
                watched = plan_events(conn, changes, catalog, dedupe_key, now, writes, replan)
                report.subscriptions_matched += watched.subscriptions_matched
                report.profiles_replanned = watched.profiles_replanned
                report.profiles_unaffected = watched.profiles_unaffected
                report.replan_s = watched.replan_s
        report.snapshots = [sid for sid, _ in pending]
        report.price_changes = len(changes)
        if _write(engine, pending, writes, now):
            report.events = len(writes.events)
    report.total_s = time.perf_counter() - started
    return report
