"""Usage logs (Slurm accounting, nvidia-smi, DCGM through Prometheus) -> GPUs busy per UTC hour.

Pure functions of the text or bytes they are given: no file, network or clock. Every format
becomes one `UsageSeries`; `summarise` gives its peak, percentiles, monthly load-duration curves
and trend. A file that cannot be read raises `UsageFormatError` naming the line (or JSON path)
and the field, and nothing partial is returned.
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from solvers.usage.busy import BUSY_THRESHOLD_PERCENT
from solvers.usage.errors import UsageFormatError
from solvers.usage.nvidia_smi import parse_nvidia_smi
from solvers.usage.prometheus import parse_prometheus
from solvers.usage.result import MonthlyLoad, Trend, UsageSeries, UsageSummary, summarise
from solvers.usage.slurm import parse_sacct
from solvers.usage.text import decode
from solvers.usage.timezones import UTC

Format = Literal["auto", "slurm", "nvidia-smi", "prometheus"]
FORMATS: tuple[str, ...] = ("slurm", "nvidia-smi", "prometheus")

__all__ = [
    "BUSY_THRESHOLD_PERCENT", "FORMATS", "Format", "MonthlyLoad", "Trend", "UsageFormatError", "UsageSeries",
    "UsageSummary", "detect_format", "parse_nvidia_smi", "parse_prometheus", "parse_sacct", "parse_usage", "summarise",
]


def detect_format(text: str) -> str:
    """Which of the three formats a log is, from its first non-blank line."""
    head = text.lstrip()
    if head.startswith(("{", "[")):
        return "prometheus"
    first = head.split("\n", 1)[0].lower()
    if "timestamp" in first and "utilization.gpu" in first:
        return "nvidia-smi"
    if "|" in first and "jobid" in first:
        return "slurm"
    raise UsageFormatError(
        "format", "not sacct --parsable2 (header with JobID|...), an nvidia-smi CSV (header timestamp, index, "
                  "utilization.gpu [%]) or a Prometheus query_range JSON", line=1)


def parse_usage(data: str | bytes, format: Format = "auto", tz: str = UTC,
                busy_threshold: float | None = BUSY_THRESHOLD_PERCENT,
                until: dt.datetime | None = None) -> UsageSeries:
    """Any supported log -> UsageSeries. `tz` is the zone of sacct and nvidia-smi times (default UTC);
    `busy_threshold` applies to utilisation samples (see solvers.usage.busy); `until` ends running Slurm jobs."""
    text = decode(data)
    chosen = detect_format(text) if format == "auto" else format
    if chosen == "slurm":
        return parse_sacct(text, tz=tz, until=until)
    if chosen == "nvidia-smi":
        return parse_nvidia_smi(text, tz=tz, busy_threshold=busy_threshold)
    if chosen == "prometheus":
        return parse_prometheus(text, busy_threshold=busy_threshold)
    raise UsageFormatError("format", f"{chosen!r} is not one of auto, {', '.join(FORMATS)}")
