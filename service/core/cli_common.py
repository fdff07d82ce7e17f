"""What every `gpuplan` command shares: the console it prints on, the refusal (exit 2), the configured database
migrated to the newest schema, and the prices in force as the service sees them.

Separate from the commands (each domain's `cli.py`, registered by service/cli.py) so they all open the database and
read prices the same way; only typer and rich are imported at the top, so `gpuplan --help` stays quick.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

import typer
from rich.console import Console

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from pricing.catalog import Catalog
    from pricing.sources.base import Source
    from service.core.settings import Settings

# piped output (logs, cron mail, tests) gets wide tables instead of Rich's 80-column default
console = Console(width=None if sys.stdout.isatty() else 160)


def open_engine(settings: Settings | None = None) -> Engine:
    """The configured database, migrated to the newest schema (as the service does on start). Not pooled: a command
    is one short run, and a pool would keep its connections open after it, in a process that goes on (a test's
    CliRunner, on a shared PostgreSQL server), until the engine is collected."""
    from service.core.db import make_engine
    from service.core.db import migrate as run
    from service.core.settings import Settings

    settings = settings or Settings()
    run(settings.database_url)
    return make_engine(settings.database_url, pooled=False)


def catalog_in_force(engine: Engine, sources: list[Source]) -> Catalog:
    """The prices in force, exactly as the service sees them: bundled snapshot overlaid with live snapshots."""
    from pricing.catalog import bundled_catalog
    from pricing.freshness import active_sources
    from pricing.live import LiveCatalog

    return LiveCatalog(engine, bundled_catalog(), active_sources(sources))()


def fail(message: str) -> NoReturn:
    """Print the refusal and exit 2 (a usage error: nothing was done)."""
    console.print(f"[red]error:[/red] {message}")
    raise typer.Exit(2)
