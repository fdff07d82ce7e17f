"""Rich tables for an imported usage log, so `gpuplan import-usage` reads like its `--json` without the hours."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from solvers.usage import UsageSeries, UsageSummary

_BARS = " ▁▂▃▄▅▆▇█"


def sparkline(values: tuple[float, ...], top: float) -> str:
    """One character per value, scaled to `top` (the series' peak, so months compare by eye)."""
    if top <= 0:
        return _BARS[0] * len(values)
    return "".join(_BARS[min(len(_BARS) - 1, round(v / top * (len(_BARS) - 1)))] for v in values)


def render_usage(series: UsageSeries, summary: UsageSummary, console: Console) -> None:
    span = f"{series.start:%Y-%m-%d %H:%M} to {series.end:%Y-%m-%d %H:%M} UTC"
    seen = [f"{series.gpu_count} GPUs" if series.gpu_count is not None else "",
            f"{series.host_count} hosts" if series.host_count is not None else "",
            f"{series.jobs} GPU jobs" if series.jobs is not None else "",
            ", ".join(series.gpu_models)]
    console.print(f"[bold]{series.source_format}[/bold]: {summary.hours:,} hours, {span}; "
                  + "; ".join(s for s in seen if s))
    console.print(f"busy: {series.busy_rule}")
    for note in series.notes:
        console.print(f"  - {note}")

    t = Table(title="GPUs busy at once (hourly averages over observed hours)")
    for col in ("observed hours", "GPU-hours", "mean", "p50", "p90", "p99", "peak"):
        t.add_column(col, justify="right")
    t.add_row(f"{summary.observed_hours:,}", f"{summary.gpu_hours:,.1f}",
              *(f"{v:.2f}" for v in (summary.mean, summary.p50, summary.p90, summary.p99, summary.peak)))
    console.print(t)

    trend = summary.trend
    if trend.growth_per_month is not None or trend.slope_gpus_per_month is not None:
        growth = "-" if trend.growth_per_month is None else f"{trend.growth_per_month:+.1%} a month"
        slope = "-" if trend.slope_gpus_per_month is None else f"{trend.slope_gpus_per_month:+.2f} GPUs a month"
        console.print(f"trend over {trend.months} months (least squares): {growth}; {slope}")

    if summary.months:
        m = Table(title="Per month: load-duration curve (busiest hour left, quietest right)")
        for col in ("month", "hours", "GPU-hours", "mean", "peak"):
            m.add_column(col, justify="right")
        m.add_column("load-duration curve")
        for month in summary.months:
            m.add_row(month.month, f"{month.hours:,}", f"{month.gpu_hours:,.1f}", f"{month.mean:.2f}",
                      f"{month.peak:.2f}", sparkline(month.duration_curve, summary.peak))
        console.print(m)
