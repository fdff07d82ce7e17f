"""The `gpuplan` command: serve the API, refresh and import prices, plan from a profile file, list GPUs and
prices, migrate. Every command works on the configured database (GPUPLAN_DATABASE_URL), so a plan made
here uses the same prices as the service.

This module is the entry point (`[project.scripts]`, `python -m service.cli`): it only puts the commands
together. Each domain keeps its own commands in its `cli.py`, beside its HTTP routes, and what they share (the
console, the database, the prices in force) is `service/core/cli_common.py`. Commands are registered in the
order `gpuplan --help` lists them.

Only typer and rich are imported at the top of every command module: `gpuplan --help` (and a typo) must answer
at once, and the planner (highspy), pandas, SQLAlchemy and matplotlib took about 3.5 s to import. Each command
imports what it uses; tests/service/test_cli_imports.py keeps it that way.
"""

from __future__ import annotations

import typer

from service.alerts.cli import alerts
from service.estimates.cli import estimate_command
from service.labs.cli import keys_app, labs_app
from service.operations.cli import migrate, scheduler, serve
from service.plans.cli import plan
from service.prices.catalog.cli import catalog_app, gpus, prices, snapshot_app
from service.prices.sources.cli import import_prices, refresh
from service.usage.cli import import_usage

app = typer.Typer(help="gpuplan: buy GPUs or rent cloud GPU hours?", no_args_is_help=True)
app.command()(serve)
app.command()(plan)
app.command()(gpus)
app.command()(prices)
app.command()(refresh)
app.command("estimate")(estimate_command)
app.command("import-prices")(import_prices)
app.command("import-usage")(import_usage)
app.command()(alerts)
app.add_typer(snapshot_app, name="snapshot")
app.add_typer(catalog_app, name="catalog")
app.command()(migrate)
app.command()(scheduler)
app.add_typer(labs_app, name="labs")
app.add_typer(keys_app, name="keys")


if __name__ == "__main__":  # `python -m service.cli`, where the console script is not on PATH
    app()
