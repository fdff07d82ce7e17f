"""`gpuplan alerts`: one evaluation of the stored price changes and one delivery round, for set-ups where no
service runs the scheduler (cron).

Registered by service/cli.py, the entry point; the alerts domain's command, beside its HTTP routes.
"""

from __future__ import annotations

from typing import Annotated

import typer

from service.core.cli_common import console, fail, open_engine


def alerts(deliver: Annotated[bool, typer.Option(help="also send what is due from the outbox")] = True) -> None:
    """Evaluate stored price changes against the alert subscriptions and send due alerts (for set-ups where no
    service runs the scheduler, e.g. cron: `gpuplan refresh; gpuplan alerts`)."""
    from pricing.catalog import bundled_catalog
    from pricing.freshness import active_sources
    from pricing.live import LiveCatalog
    from pricing.sources import build_sources
    from service.alerts.worker import AlertWorker, channels_from, policy_from
    from service.core.settings import Settings

    settings = Settings()
    engine = open_engine(settings)
    sources = build_sources(settings.sources)
    worker = AlertWorker(engine, LiveCatalog(engine, bundled_catalog(), active_sources(sources)),
                         channels_from(settings), policy_from(settings))
    report = worker.evaluate()
    if report.skipped:
        fail(report.skipped)
    console.print(f"evaluated {len(report.snapshots)} price snapshot(s): {report.price_changes} price change(s), "
                  f"{report.events} alert event(s); {report.profiles_replanned} saved profile(s) re-planned")
    if deliver:
        sent = worker.deliver()
        failed = [r for r in sent if not r.ok]
        console.print(f"sent {len(sent) - len(failed)} alert(s)" + (f", {len(failed)} failed (retried later): "
                      + "; ".join(f"{r.event_id}: {r.error or r.status_code}" for r in failed[:5]) if failed else ""))
