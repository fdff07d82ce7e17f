"""`gpuplan scheduler`: refresh ticks, alert evaluation and alert delivery in a process of their own.

Run one or more next to API replicas that have `GPUPLAN_SCHEDULER=false`: they elect a leader
(service.operations.leader) and only the leader works; the others take over within `GPUPLAN_LEADER_CHECK_S` when it
dies. With `GPUPLAN_SCHEDULER_METRICS_PORT` the process serves Prometheus metrics (any path answers, so
`/metrics` also does as a liveness probe), including `gpuplan_scheduler_leader`.
"""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType

from prometheus_client import start_http_server
from sqlalchemy import Engine

from pricing.catalog import bundled_catalog
from pricing.freshness import active_sources
from pricing.live import LiveCatalog
from pricing.sources import build_sources
from service.alerts.worker import DELIVERY_JOB_ID, AlertWorker, channels_from, policy_from
from service.core.db import make_engine
from service.core.logs import configure_logging
from service.core.settings import Settings
from service.operations import readiness
from service.operations.leader import leader_lock
from service.operations.scheduler import RefreshScheduler

log = logging.getLogger(__name__)


def wait_for_schema(engine: Engine, interval_s: float, stop: threading.Event) -> bool:
    """Block until the database is reachable and migrated (a migration Job may still run); False if stopped."""
    while not stop.is_set():
        state = readiness.check(engine)
        if state.ready:
            return True
        log.info("scheduler waiting: %s", state.reason())
        stop.wait(interval_s)
    return False


def build(settings: Settings, engine: Engine) -> tuple[RefreshScheduler, AlertWorker]:
    """The same refresher and alert worker the API wires up in-process (service/app.py)."""
    base = bundled_catalog()
    sources = build_sources(settings.sources)
    alerts = AlertWorker(engine, LiveCatalog(engine, base, active_sources(sources)), channels_from(settings),
                         policy_from(settings))
    return RefreshScheduler(engine, sources, base.gpus, after_refresh=alerts.evaluate), alerts


def run(settings: Settings, stop: threading.Event) -> None:
    """Lead or stand by until `stop` is set, then release the lock so a standby takes over at once."""
    readiness.migrate_on_start(settings.database_url, settings.migrate_on_start)
    engine = make_engine(settings.database_url)
    if settings.scheduler_metrics_port:
        start_http_server(settings.scheduler_metrics_port, addr=settings.host)
        log.info("scheduler metrics on http://%s:%d/metrics", settings.host, settings.scheduler_metrics_port)
    if not wait_for_schema(engine, settings.leader_check_s, stop):
        return
    refresher, alerts = build(settings, engine)
    refresher.start(settings.scheduler_tick_s, settings.scheduler_first_tick_s,
                    jobs=[(DELIVERY_JOB_ID, alerts.deliver, settings.alerts_tick_s)],
                    leader=leader_lock(engine), leader_check_s=settings.leader_check_s)
    log.info("scheduler started: tick %gs, alert delivery %gs, leader check %gs", settings.scheduler_tick_s,
             settings.alerts_tick_s, settings.leader_check_s)
    try:
        stop.wait()
    finally:
        refresher.shutdown()
        engine.dispose()
        log.info("scheduler stopped")


def main(settings: Settings | None = None) -> None:
    """Entry point of `gpuplan scheduler`: SIGTERM (docker stop, Kubernetes) and Ctrl-C stop it cleanly."""
    settings = settings or Settings()
    configure_logging(settings.log_level, settings.log_format)
    stop = threading.Event()

    def _stop(signum: int, _frame: FrameType | None) -> None:
        log.info("scheduler: %s received, stopping", signal.Signals(signum).name)
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    run(settings, stop)
