"""Prometheus metrics: what happens in this process (requests, solves, refreshes, deliveries) and what the
database says now (rows and staleness per source, outbox depth).

Why two kinds: counters and histograms only make sense where the thing happens, so each process keeps its
own (Prometheus sums them over replicas). State, however, lives in the database: it is read at scrape time
by `DatabaseCollector`, so every replica reports the same truth and nothing goes stale in a process that has
not refreshed anything itself.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from fastapi import FastAPI
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy import Engine, func, select
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pricing.freshness import source_states
from pricing.sources.base import Source
from pricing.storage import PriceSnapshot

log = logging.getLogger(__name__)

_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
REQUEST_SECONDS = Histogram(
    "gpuplan_http_request_duration_seconds", "HTTP request latency by route template, method and status.",
    ["method", "route", "status"], buckets=_LATENCY_BUCKETS)
PLAN_SOLVE_SECONDS = Histogram(
    "gpuplan_plan_solve_seconds", "Time the MIP solver took per plan (solver.solve_ms).",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0))
REFRESHES = Counter(
    "gpuplan_refresh_outcomes", "Price refreshes run by this process, by source and outcome "
    "(ok, failed, rejected, skipped).", ["source", "outcome"])
REFRESH_SECONDS = Histogram(
    "gpuplan_refresh_duration_seconds", "Duration of one source's refresh in this process.", ["source"],
    buckets=(0.1, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0))
ALERT_DELIVERIES = Counter(
    "gpuplan_alert_deliveries", "Alert sends by this process, by outcome: delivered, retrying (will be retried) "
    "or failed (given up).", ["outcome"])
SCHEDULER_LEADER = Gauge("gpuplan_scheduler_leader", "1 while this process leads the scheduler, else 0.")
SCHEDULER_JOB_ERRORS = Counter("gpuplan_scheduler_job_errors", "Scheduler jobs that raised, by job id.", ["job"])

UNMATCHED = "unmatched"  # requests no route answers: one label value, so random paths cannot blow up cardinality


def observe_plan(result: Any) -> None:
    """Record the solve time of a plan (a `PlanResult`); called by the route that made it."""
    solver = getattr(result, "solver", None)
    solve_ms = getattr(solver, "solve_ms", None)
    if isinstance(solve_ms, int | float):
        PLAN_SOLVE_SECONDS.observe(solve_ms / 1000)


def observe_refresh(outcome: Any) -> None:
    """Record one `pricing.refresh.RefreshOutcome`."""
    REFRESHES.labels(outcome.source, outcome.outcome).inc()
    if outcome.duration_s:
        REFRESH_SECONDS.labels(outcome.source).observe(outcome.duration_s)


def observe_deliveries(reports: Iterable[Any]) -> None:
    """Record what `deliver_due` did (a list of `DeliveryReport`: ok, status delivered/pending/failed)."""
    for report in reports:
        outcome = "delivered" if report.ok else ("failed" if report.status == "failed" else "retrying")
        ALERT_DELIVERIES.labels(outcome).inc()


class MetricsMiddleware:
    """Times every HTTP request and labels it with the route template (`/v1/plans/{plan_id}`), never the raw
    path, so the number of series stays bounded."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        root = scope.get("root_path", "")

        async def send_and_watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_and_watch)
        except Exception:
            status = 500
            raise
        finally:
            # the router fills scope["route"] for a matched route; a mount (static files) only moves root_path
            template = getattr(scope.get("route"), "path", None)
            if template is None:
                template = scope["root_path"] if scope.get("root_path", "") != root else UNMATCHED
            REQUEST_SECONDS.labels(scope["method"], template, str(status)).observe(time.perf_counter() - started)


class DatabaseCollector(Collector):
    """Gauges read from the database at scrape time. A database that cannot be reached gives
    `gpuplan_database_up 0` (and nothing else from here) instead of a failed scrape."""

    def __init__(self, engine: Engine, sources: Sequence[Source], clock: Callable[[], dt.datetime] | None = None,
                 ) -> None:
        self.engine = engine
        self.sources = sources
        self.clock = clock or (lambda: dt.datetime.now(dt.UTC))

    def describe(self) -> Iterator[Metric]:
        return iter(())  # no collect() at registration: the database may not be migrated yet

    def collect(self) -> Iterator[Metric]:
        try:
            metrics = self._read()
        except Exception as exc:  # a scrape must say "database down", not fail
            log.warning("metrics: database unreachable: %s", type(exc).__name__)
            metrics = []
            up = 0.0
        else:
            up = 1.0
        yield GaugeMetricFamily("gpuplan_database_up", "1 when the database answered this scrape.", value=up)
        yield from metrics

    def _read(self) -> list[Metric]:
        # imported here: service.alerts imports the settings, which must not be needed to import this module
        from service.alerts.tables import AlertEvent

        now = self.clock()
        states = source_states(self.engine, self.sources, now)
        events, snapshots = AlertEvent.__table__, PriceSnapshot.__table__
        with self.engine.connect() as conn:
            by_status: dict[str, int] = dict(
                conn.execute(select(events.c.status, func.count()).group_by(events.c.status)).all())
            snapshot_counts: dict[str, int] = dict(
                conn.execute(select(snapshots.c.source, func.count()).group_by(snapshots.c.source)).all())
        labels = ["source"]
        rows = GaugeMetricFamily("gpuplan_source_rows", "Price rows in force per source (its current snapshot).",
                                 labels=labels)
        stale = GaugeMetricFamily("gpuplan_source_stale", "1 when the source is stale (see GET /v1/sources).",
                                  labels=labels)
        age = GaugeMetricFamily("gpuplan_source_staleness_seconds", "Seconds since the source's last successful "
                                "refresh (absent before the first).", labels=labels)
        failures = GaugeMetricFamily("gpuplan_source_consecutive_failures", "Failed refreshes since the last "
                                     "success.", labels=labels)
        enabled = GaugeMetricFamily("gpuplan_source_enabled", "1 when the source is enabled.", labels=labels)
        stored = CounterMetricFamily("gpuplan_source_snapshots", "Successful refreshes stored per source "
                                     "(price snapshots; all processes together).", labels=labels)
        for state in states:
            rows.add_metric([state.source], state.rows_in_force)
            stale.add_metric([state.source], float(state.stale))
            failures.add_metric([state.source], state.consecutive_failures)
            enabled.add_metric([state.source], float(state.enabled))
            stored.add_metric([state.source], snapshot_counts.get(state.source, 0))
            if state.last_success_at is not None:
                age.add_metric([state.source], (now - state.last_success_at).total_seconds())
        outbox = GaugeMetricFamily("gpuplan_alert_outbox_pending", "Alert events waiting to be delivered.",
                                   value=by_status.get("pending", 0))
        by_state = GaugeMetricFamily("gpuplan_alert_events", "Alert events in the outbox by status.",
                                     labels=["status"])
        for status in sorted({"pending", "delivered", "failed", *by_status}):
            by_state.add_metric([status], by_status.get(status, 0))
        return [rows, stale, age, failures, enabled, stored, outbox, by_state]


def render(*registries: CollectorRegistry) -> bytes:
    """The exposition text of the process-wide registry followed by the given ones."""
    return b"".join(generate_latest(r) for r in (REGISTRY, *registries))


def install(app: FastAPI, engine: Engine, sources: Sequence[Source]) -> None:
    """Time every request and give `/metrics` the database collector of this app (one registry per app, so
    several apps in one process, as in tests, do not collide)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(DatabaseCollector(engine, sources))
    app.state.metrics_registry = registry
    app.add_middleware(MetricsMiddleware)
