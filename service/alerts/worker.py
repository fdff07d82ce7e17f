"""The alert worker the scheduler runs: evaluate after refreshes, deliver from the outbox on its own tick."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine

from pricing.catalog import Catalog
from service.alerts.evaluate import EvaluationReport, evaluate_pending
from service.alerts.outbox import Channels, DeliveryReport, RetryPolicy, deliver_due
from service.alerts.plan_watch import plan_summary
from service.alerts.senders import EmailSender, SmtpConfig, WebhookSender
from service.core.clock import utcnow
from service.core.errors import InvalidField, ServiceUnavailable
from service.core.plan_pool import PlanPool
from service.core.settings import Settings
from solvers.base.profile import Profile

log = logging.getLogger(__name__)
DELIVERY_JOB_ID = "alert-delivery"
POOL_CALLER = "scheduler:plan-alerts"  # whose plans the evaluation's re-plans count as in the plan pool


def channels_from(settings: Settings) -> Channels:
    email = None
    if settings.smtp_host:
        password = settings.smtp_password.get_secret_value() if settings.smtp_password else None
        email = EmailSender(SmtpConfig(
            host=settings.smtp_host, port=settings.smtp_port, sender=settings.smtp_sender,
            username=settings.smtp_username, password=password, starttls=settings.smtp_starttls,
            use_ssl=settings.smtp_use_ssl))
    return Channels(WebhookSender(settings.alerts_allowed_networks, settings.alerts_webhook_timeout_s), email)


def policy_from(settings: Settings) -> RetryPolicy:
    return RetryPolicy(give_up_after=dt.timedelta(hours=settings.alerts_retry_hours),
                       disable_after_failed_events=settings.alerts_disable_after_failed_events)


class AlertWorker:
    def __init__(self, engine: Engine, catalog: Callable[[], Catalog], channels: Channels, policy: RetryPolicy,
                 clock: Callable[[], dt.datetime] = utcnow, plan_pool: PlanPool | None = None) -> None:
        """`plan_pool`: where the API process solves plans; the plan-change re-plans after a refresh go there too
        (waiting for a free slot), so a scheduler inside `gpuplan serve` never solves on its own thread while
        requests are answered. Without one (`gpuplan scheduler`, its own process) they run here."""
        self.engine = engine
        self.catalog = catalog
        self.channels = channels
        self.policy = policy
        self.clock = clock
        self.plan_pool = plan_pool

    def replan(self, profile: Profile, catalog: Catalog, today: dt.date) -> dict[str, Any] | None:
        if self.plan_pool is None:
            return plan_summary(profile, catalog, today)
        try:
            return self.plan_pool.plan(POOL_CALLER, plan_summary, profile, catalog, today, wait=True)
        except (InvalidField, ServiceUnavailable) as exc:  # past the time budget, or a worker stopped
            log.warning("alerts: a watched profile was not re-planned this time: %s", exc)
            return None

    def evaluate(self, now: dt.datetime | None = None) -> EvaluationReport:
        report = evaluate_pending(self.engine, self.catalog, now or self.clock(), self.replan)
        if report.snapshots:
            log.info("alerts: %d snapshot(s), %d price change(s), %d event(s), %d profile(s) re-planned in %.2f s",
                     len(report.snapshots), report.price_changes, report.events, report.profiles_replanned,
                     report.total_s)
        return report

    def deliver(self, now: dt.datetime | None = None) -> list[DeliveryReport]:
        reports = deliver_due(self.engine, self.channels, now or self.clock(), self.policy)
        failed = [r for r in reports if not r.ok]
        if reports:
            log.info("alerts: %d sent, %d failed", len(reports) - len(failed), len(failed))
        return reports
