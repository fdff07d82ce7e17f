"""`gpuplan import-usage`: a usage log read into GPUs busy per hour and printed (`render.py`) or given as
JSON; nothing is stored.

Registered by service/cli.py, the entry point; the usage domain's command, beside its HTTP routes.
"""

from __future__ import annotations

import datetime as dt
import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Optional

import typer

from service.core.cli_common import console, fail


class UsageLogFormat(StrEnum):
    auto = "auto"
    slurm = "slurm"
    nvidia_smi = "nvidia-smi"
    prometheus = "prometheus"


def import_usage(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="sacct, nvidia-smi or Prometheus log")],
    log_format: Annotated[UsageLogFormat, typer.Option("--format", help="log format")] = UsageLogFormat.auto,
    tz: Annotated[str, typer.Option(help="time zone of sacct and nvidia-smi timestamps (IANA name)")] = "UTC",
    busy_threshold: Annotated[float, typer.Option(
        help="utilisation % at or above which a GPU sample counts as busy (nvidia-smi, DCGM)")] = 5.0,
    fractional: Annotated[bool, typer.Option(
        help="count a GPU sample by its utilisation fraction instead of the threshold")] = False,
    until: Annotated[Optional[dt.datetime], typer.Option(  # noqa: UP045
        help="end of still-running Slurm jobs, UTC (default: the latest time in the file)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the hourly series and the summary as JSON")] = False,
) -> None:
    """Read a usage log into GPUs busy per hour; print peak, percentiles, monthly load-duration curves and trend.
    Nothing is stored."""
    from service.usage.render import render_usage
    from solvers.usage import UsageFormatError, parse_usage, summarise

    if not fractional and not 0 <= busy_threshold <= 100:
        fail(f"--busy-threshold: {busy_threshold:g} is not a percentage from 0 to 100")
    try:
        series = parse_usage(file.read_bytes(), format=log_format.value, tz=tz,
                             busy_threshold=None if fractional else busy_threshold,
                             until=None if until is None else until.replace(tzinfo=dt.UTC))
    except UsageFormatError as exc:
        fail(f"{file}: {exc}")
    summary = summarise(series)
    if as_json:
        typer.echo(json.dumps({"series": series.to_dict(), "summary": summary.to_dict()}, indent=2))
    else:
        render_usage(series, summary, console)
