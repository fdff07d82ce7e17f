"""The replay of a plan as a chart (issue 29): the demand and what owned and rented GPUs served over the horizon,
hour by hour up to two weeks and day by day beyond, and the work still queued; the title compares the replay's cost
with the model's, in the plan's currency. Drawn like the other charts (`service.web.chart_draw`), in the reader's
language."""

from __future__ import annotations

import datetime as dt

import numpy as np
from matplotlib.figure import Figure

from service.web.chart_draw import (
    BUY_COLOUR,
    CLOUD_COLOUR,
    MARK_COLOUR,
    date_axis,
    date_num,
    drawing,
    empty,
    svg,
)
from service.web.chart_text import chart_text
from solvers.base.result import PlanResult
from solvers.replan.replay_answer import PlanReplay

HOURLY_UP_TO = 24 * 14  # beyond two weeks, the hours are summed per day


def replay_chart_svg(found: PlanReplay, plan: PlanResult, narrow: bool = False, lang: str | None = None) -> bytes:
    text = chart_text(lang)
    currency = plan.currency
    # the replay is in USD; the plan's own total in its currency gives the rate the plan was converted at
    rate = plan.total_cost_usd / found.model_total_usd if found.model_total_usd else 1.0
    with drawing(text):
        fig = Figure(figsize=(4.6 if narrow else 8, 3.4 if narrow else 3.6), layout="constrained")
        ax = fig.add_subplot()
        hours = found.hours or []
        if not hours:
            empty(ax, text.t("chart.replay.empty"))
            return svg(fig, text.t("chart.replay.document"))
        start = dt.datetime.fromisoformat(hours[0].hour.replace("Z", "+00:00"))
        columns = np.array([[h.demand, h.owned, h.rented, h.queued] for h in hours])
        step = 1.0 / 24
        if len(hours) > HOURLY_UP_TO:  # per day: work summed, the queue at the day's end
            days = len(hours) // 24
            cut = columns[: days * 24].reshape(days, 24, 4)
            columns = np.concatenate([cut[:, :, :3].sum(axis=1), cut[:, -1:, 3]], axis=1)
            step = 1.0
        x = date_num(start) + step * np.arange(len(columns))
        ax.stackplot(x, columns[:, 1], columns[:, 2], colors=[BUY_COLOUR, CLOUD_COLOUR], alpha=0.75, step="post",
                     labels=[text.t("chart.replay.owned"), text.t("chart.replay.rented")])
        ax.step(x, columns[:, 0], where="post", color=MARK_COLOUR, linewidth=0.9, label=text.t("chart.replay.demand"))
        if columns[:, 3].max(initial=0.0) > 1e-6:
            ax.plot(x, columns[:, 3], color="#CC79A7", linewidth=1.0, linestyle="--",
                    label=text.t("chart.replay.queued"))
        ax.set_ylabel(text.t("chart.replay.per_day" if step == 1.0 else "chart.replay.per_hour"))
        date_axis(ax, text)
        ax.set_ylim(bottom=0)
        ax.grid(axis="y", color="#e3e3e3", linewidth=0.8)
        ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), ncols=2 if narrow else 4, fontsize=8, frameon=False)
        model = text.money(found.model_total_usd * rate, currency)
        title = (text.t("chart.replay.title", replay=text.money(found.total_usd * rate, currency), model=model)
                 if found.total_usd is not None else text.t("chart.replay.title_short", model=model))
        fig.suptitle(title, x=0.01, ha="left", fontsize=10, fontweight="bold")
        return svg(fig, text.t("chart.replay.document"))
