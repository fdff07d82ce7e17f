"""The `gpuplan` commands that run the service's processes: `serve` (the HTTP API), `migrate` (the database
schema) and `scheduler` (refreshes and alerts without the API).

Registered by service/cli.py, the entry point; they are the operations domain's because they start what its
probes, leader election and scheduler watch.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from service.core.cli_common import console


def serve(host: Annotated[Optional[str], typer.Option(help="address to bind")] = None,  # noqa: UP045
          port: Annotated[Optional[int], typer.Option(help="port")] = None,  # noqa: UP045
          plan_workers: Annotated[Optional[int], typer.Option(  # noqa: UP045
              min=1, help="plan worker processes (default: GPUPLAN_PLAN_WORKERS, else the machine's cores)")] = None,
          inline: Annotated[bool, typer.Option(
              help="solve plans in the request threads (one core) instead of a pool of worker processes")] = False,
          ) -> None:
    """Start the HTTP API (migrates the database first). Plans are solved in a pool of worker processes unless
    `--inline` or GPUPLAN_PLAN_EXECUTOR=inline says otherwise."""
    import uvicorn

    from service.app import create_app
    from service.core.settings import Settings
    from service.core.slow_clients import protocol_with_read_timeout

    settings = Settings()
    if inline:
        settings.plan_executor = "inline"
    elif "plan_executor" not in settings.model_fields_set:
        settings.plan_executor = "process"  # the server uses every core; the library and tests stay inline
    if plan_workers is not None:
        settings.plan_workers = plan_workers
    # create_app set up logging (JSON with request ids, service/core/logs.py): uvicorn must not replace it
    uvicorn.run(create_app(settings), host=host or settings.host, port=port or settings.port,
                log_level=settings.log_level, log_config=None, access_log=False,
                http=protocol_with_read_timeout(settings.read_timeout_s))


def migrate() -> None:
    """Bring the database to the newest schema."""
    from service.core.db import migrate as run
    from service.core.settings import Settings

    settings = Settings()
    run(settings.database_url)
    console.print(f"database at {settings.database_url} is up to date")


def scheduler() -> None:
    """Run price refreshes, alert evaluation and alert delivery without the API (several may run: one leads)."""
    from service.scheduler_process import main

    main()
