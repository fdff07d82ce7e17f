"""The monthly load-duration curves of an imported usage log as SVG: what owned GPUs would serve (the flat base)
and what renting would cover (the peaks) is read off one picture, the screening-curve view of DOMAIN's demand."""

from __future__ import annotations

import datetime as dt

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from service.web.chart_draw import drawing, empty, svg
from service.web.chart_text import chart_text
from solvers.usage import UsageSummary

# Okabe-Ito blue for the busiest month; the others grey, so a dozen months stay readable
PEAK_COLOUR, OTHER_COLOUR = "#0072B2", "#9A9A9A"


def usage_chart_svg(summary: UsageSummary, narrow: bool = False, lang: str | None = None) -> bytes:
    """One load-duration curve per calendar month (x: share of the month's observed hours, y: GPUs busy at once).

    The month with the highest peak is drawn in colour and named; every curve carries `gid` usage-YYYY-MM. Text
    and numbers in `lang` (service/web/chart_draw.py).
    """
    text = chart_text(lang)
    document = text.t("chart.usage.document")
    with drawing(text):
        fig = Figure(figsize=(5.2, 4.4) if narrow else (8, 4.2), layout="constrained")
        ax = fig.add_subplot()
        if not summary.months:
            empty(ax, text.t("chart.usage.empty"))
            return svg(fig, document)
        busiest = max(summary.months, key=lambda m: m.peak)
        named = text.t("chart.usage.busiest", month=text.month_year(dt.date.fromisoformat(f"{busiest.month}-01")))
        for month in summary.months:
            share = np.linspace(0.0, 100.0, len(month.duration_curve))
            top = month is busiest
            (line,) = ax.plot(share, month.duration_curve, color=PEAK_COLOUR if top else OTHER_COLOUR,
                              linewidth=2.4 if top else 1.0, zorder=3 if top else 2,
                              label=named if top else None)
            line.set_gid(f"usage-{month.month}")
        ax.set_title(text.t("chart.usage.title", n=text.number(len(summary.months), 0)))
        ax.set_xlabel(text.t("chart.usage.x"))
        ax.set_ylabel(text.t("chart.usage.y"))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: text.number(v, 0)))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: text.number(v, 2)))
        ax.set_xlim(0, 100)
        ax.set_ylim(bottom=0)
        ax.grid(axis="y", color="#e3e3e3", linewidth=0.8)
        ax.set_axisbelow(True)
        ax.legend(loc="upper right")
        return svg(fig, document)
