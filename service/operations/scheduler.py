"""Scheduled refreshes: APScheduler ticks, the database decides what is due.

Why not one APScheduler job per source with its own interval: the due-ness of a source is a fact about
stored history (when it was last attempted, whether that failed), which survives restarts and is the
same for every replica. A tick asks `due(now)` and refreshes those sources; tests drive `run_due(now)`
with a clock of their own instead of sleeping.

With a leader lock (service.operations.leader), the ticks and the other jobs are scheduled only while this process
leads: a standby re-checks every `leader_check_s` and adds them when it takes over, a leader that loses its
lock removes them, so several scheduler processes never refresh or send side by side.
"""

from __future__ import annotations

import datetime as dt
import logging
import threading
from collections.abc import Callable, Sequence

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, JobExecutionEvent
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import Engine, select

from pricing.audit.report import flagged_rows, summary
from pricing.catalog import bundled_catalog
from pricing.freshness import INTERRUPTED_AFTER, interrupted
from pricing.gpus import GpuTable
from pricing.live import catalog_at, snapshots_in_force
from pricing.refresh import RefreshOutcome, refresh_all
from pricing.sources.base import Source
from pricing.storage import SourceStatus
from service.alerts.worker import DELIVERY_JOB_ID
from service.core import metrics
from service.core.clock import utcnow
from service.operations.leader import LeaderLock

log = logging.getLogger(__name__)

# after a failure, try again sooner than the full interval, backing off: 15 min, 30 min, 1 h, ... up to it
FIRST_RETRY = dt.timedelta(minutes=15)
JOB_ID = "price-refresh-tick"
LEADER_JOB_ID = "leader-check"


def retry_delay(source: Source, failures: int) -> dt.timedelta:
    if failures <= 0:
        return source.interval
    delay: dt.timedelta = min(source.interval, FIRST_RETRY * 2 ** min(failures - 1, 16))
    return delay


def audit_in_force(engine: Engine) -> None:
    """Audit the catalog now in force (bundled rows and every source's snapshot) and log what it holds back.

    The flags are a function of the stored snapshots, so the catalog every request reads (pricing.live) carries
    the same audit and `/v1/prices` shows it; this log is the operator's record of each refresh's audit."""
    try:
        catalog = catalog_at(engine, bundled_catalog(), dict(snapshots_in_force(engine)))
    except Exception:  # the audit must never stop a refresh tick
        log.exception("catalog audit after refresh failed")
        return
    if catalog.audit is None:
        return
    log.info("catalog audit: %s", summary(catalog.audit))
    for row in flagged_rows(catalog.audit, ("quarantined", "unexplained")):
        for flag in row.flags:
            if flag.action in ("quarantined", "unexplained"):
                log.warning("catalog audit: %s: %s", row.label, flag.text())


class RefreshScheduler:
    def __init__(self, engine: Engine, sources: Sequence[Source], gpus: GpuTable,
                 clock: Callable[[], dt.datetime] = utcnow,
                 after_refresh: Callable[[dt.datetime], object] | None = None) -> None:
        """`after_refresh(now)` runs after every tick, whether or not a source was due: alert evaluation,
        which also picks up snapshots a CLI import or an interrupted tick left unevaluated."""
        self.engine = engine
        self.sources = [s for s in sources if s.enabled]
        self.gpus = gpus
        self.clock = clock
        self.after_refresh = after_refresh
        self._scheduler: BackgroundScheduler | None = None
        self._running = threading.Lock()
        self._leader: LeaderLock | None = None
        self._jobs: list[tuple[str, Callable[[], object], float]] = []
        self.leading = False

    def next_due(self) -> dict[str, dt.datetime]:
        """When each enabled source is next due (a source never attempted is due at once: the epoch)."""
        t = SourceStatus.__table__
        with self.engine.connect() as conn:
            query = select(t.c.source, t.c.last_attempt_at, t.c.consecutive_failures, t.c.last_success_at,
                           t.c.last_error_at)
            rows = {r.source: r for r in conn.execute(query)}
        due = {}
        for src in self.sources:
            row = rows.get(src.key)
            if row is None or row.last_attempt_at is None:
                due[src.key] = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
            elif interrupted(row.last_attempt_at, row.last_success_at, row.last_error_at):
                # the attempt never recorded an end (process killed): retry like after a failure
                due[src.key] = row.last_attempt_at + max(INTERRUPTED_AFTER, retry_delay(src, 1))
            else:
                due[src.key] = row.last_attempt_at + retry_delay(src, row.consecutive_failures)
        return due

    def _log_outcome(self, outcome: RefreshOutcome) -> None:
        """One INFO line per source and refresh, with when it is tried next: a source that cannot reach its host
        (no network) says so here once, not in a warning per retry (pricing/http.py)."""
        metrics.observe_refresh(outcome)
        try:
            next_try = self.next_due().get(outcome.source)
        except Exception:  # the database may be what failed: the line is still written, without the time
            next_try = None
        log.info("refresh %s: %s (%d rows, %d changed)%s%s", outcome.source, outcome.outcome, outcome.rows_fetched,
                 outcome.rows_changed, f": {outcome.error}" if outcome.error else "",
                 f"; next try {next_try:%Y-%m-%d %H:%M} UTC" if next_try else "")

    def due(self, now: dt.datetime) -> list[Source]:
        when = self.next_due()
        return [s for s in self.sources if when[s.key] <= now]

    def run_due(self, now: dt.datetime | None = None) -> list[RefreshOutcome]:
        """Refresh every source that is due at `now` (the scheduler's clock when not given)."""
        if not self._running.acquire(blocking=False):  # a slow tick must not overlap the next one
            return []
        clock = self.clock if now is None else (lambda: now)
        try:
            outcomes = refresh_all(self.engine, self.due(clock()), self.gpus, clock, on_done=self._log_outcome)
            if any(o.outcome == "ok" for o in outcomes):
                audit_in_force(self.engine)
            if self.after_refresh is not None:
                try:
                    self.after_refresh(clock())
                except Exception:  # the next tick tries again: nothing is marked done before it commits
                    log.exception("after-refresh step failed")
            return outcomes
        finally:
            self._running.release()

    def start(self, tick_s: float, first_tick_s: float, jobs: Sequence[tuple[str, Callable[[], object], float]] = (),
              leader: LeaderLock | None = None, leader_check_s: float = 5.0) -> None:
        """Tick every `tick_s`; `jobs` are further (id, function, interval in s) jobs, e.g. alert delivery.

        With `leader`, all of them run only while this process holds it: the first check happens here (so a
        single process leads at once), later ones every `leader_check_s`.
        """
        scheduler = BackgroundScheduler(timezone=dt.UTC)
        scheduler.add_listener(self._job_done, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
        self._scheduler = scheduler
        self._jobs = [(JOB_ID, self.run_due, tick_s), *jobs]
        if leader is None:
            self._lead(first_tick_s)
        else:
            self._leader = leader
            self.check_leadership(first_tick_s)
            scheduler.add_job(self.check_leadership, IntervalTrigger(seconds=leader_check_s), id=LEADER_JOB_ID,
                              max_instances=1, coalesce=True)
        scheduler.start()

    def check_leadership(self, first_tick_s: float = 0.0) -> bool:
        """Take or confirm the leader lock and start or stop the jobs to match; True while leading.

        A standby that takes over runs its first tick at once (`first_tick_s` only delays the start-up one,
        so that the service answers before it refreshes)."""
        assert self._leader is not None
        leads = self._leader.check()
        if leads and not self.leading:
            log.info("scheduler: leading (jobs: %s)", ", ".join(job_id for job_id, _, _ in self._jobs))
            self._lead(first_tick_s)
        elif not leads and self.leading:
            log.warning("scheduler: lost the leader lock; standing by")
            self._stand_by()
        elif not leads:
            log.debug("scheduler: standing by, another process leads")
        return leads

    def _lead(self, first_tick_s: float) -> None:
        assert self._scheduler is not None
        first = utcnow() + dt.timedelta(seconds=first_tick_s)
        for job_id, function, interval_s in self._jobs:
            self._scheduler.add_job(function, IntervalTrigger(seconds=interval_s), id=job_id, max_instances=1,
                                    coalesce=True, next_run_time=first, replace_existing=True)
        self.leading = True
        metrics.SCHEDULER_LEADER.set(1)

    def _stand_by(self) -> None:
        assert self._scheduler is not None
        for job_id, _, _ in self._jobs:
            if self._scheduler.get_job(job_id) is not None:
                self._scheduler.remove_job(job_id)
        self.leading = False
        metrics.SCHEDULER_LEADER.set(0)

    @staticmethod
    def _job_done(event: JobExecutionEvent) -> None:
        if event.exception is not None:
            metrics.SCHEDULER_JOB_ERRORS.labels(event.job_id).inc()
        elif event.job_id == DELIVERY_JOB_ID and isinstance(event.retval, list):
            metrics.observe_deliveries(event.retval)

    def shutdown(self) -> None:
        if self._scheduler is not None:
            self._scheduler.shutdown(wait=False)
            self._scheduler = None
        if self._leader is not None:
            self._leader.release()
            self._leader = None
        if self.leading:
            self.leading = False
            metrics.SCHEDULER_LEADER.set(0)
