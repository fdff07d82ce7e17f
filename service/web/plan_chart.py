"""A plan's cumulative cost as a chart, and plans compared on one: the plan, cloud only and buy only over the
horizon with the break-even day marked; for several plans, each plan's curve in one currency.

Separate from the price history (`history_chart.py`): these draw a plan's own curves (`break_even.cumulative`),
on its basis (present values when it discounts); drawn with the settings of `chart_draw.py`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.typing import LineStyleType

from service.plans.compare import common_currency
from service.web.chart_draw import (
    BUY_COLOUR,
    CLOUD_COLOUR,
    MARK_COLOUR,
    PLAN_COLOUR,
    date_axis,
    date_num,
    drawing,
    empty,
    money_axis,
    svg,
)
from service.web.chart_fit import renderer_of, wrap
from service.web.chart_text import ChartText, chart_text
from solvers.base.result import PlanResult

_MONEY_AXIS_PT = 60.0  # what the money axis's labels take of a chart's width, left of its title


class _Series(NamedTuple):
    gid: str
    label: str
    values: list[float | None]
    colour: str
    style: LineStyleType
    width: float


def plan_chart_svg(plan: PlanResult, narrow: bool = False, lang: str | None = None) -> bytes:
    """Cumulative cost of the plan, cloud only and buy only over the horizon, with the break-even day marked.

    `narrow` draws for a phone-width column: the same text on a smaller canvas, so it stays legible when scaled.
    """
    points = plan.break_even.cumulative
    text = chart_text(lang)
    document = text.t("chart.plan.document", id=plan.id or "").strip()
    with drawing(text):
        fig = Figure(figsize=(5.2, 4.4) if narrow else (8, 4.2), layout="constrained")
        ax = fig.add_subplot()
        if not points:
            empty(ax, text.t("chart.plan.empty"))
            return svg(fig, document)
        dates = [dt.date.fromisoformat(p.date) for p in points]
        start = dates[0]
        xs_all = [date_num(d) for d in dates]
        # the plan first and widest: where an alternative is the plan, its dashes show on top of the plan's line
        series = [
            _Series("series-plan", text.t("r.plan"), [p.plan_usd for p in points], PLAN_COLOUR, "-", 3.2),
            _Series("series-cloud-only", text.t("r.cloud_only"), [p.cloud_only_usd for p in points], CLOUD_COLOUR,
                    (0, (6, 3)), 1.8),
            _Series("series-buy-only", text.t("r.buy_only"), [p.buy_only_usd for p in points], BUY_COLOUR,
                    (0, (2, 2)), 1.8),
        ]
        for one in series:
            xs = [x for x, v in zip(xs_all, one.values, strict=True) if v is not None]
            ys = [v for v in one.values if v is not None]
            if xs:
                (line,) = ax.plot(xs, ys, label=one.label, color=one.colour, linestyle=one.style, linewidth=one.width)
                line.set_gid(one.gid)
        days = plan.break_even.days
        if days is not None:
            _mark_break_even(ax, text, start, days, [p.day for p in points], [p.plan_usd for p in points])
        _end_labels(ax, text, xs_all[-1],
                    [(last, one.colour) for one in series if (last := one.values[-1]) is not None], plan.currency)
        months = int(plan.horizon.get("periods", len(dates) - 1))
        # the curves are on the plan's basis: present values when it discounts, and the title says so (wrapped
        # to the canvas beside the money axis: a phone's chart is narrower than the French title)
        title = ax.set_title("")
        title.set_text(wrap(text.t("chart.plan.title_pv", n=text.number(months, 0), currency=plan.currency,
                                   rate=text.percent(plan.discount_rate)) if _discounted(plan)
                            else text.t("chart.plan.title", n=text.number(months, 0), currency=plan.currency),
                            title, renderer_of(fig), fig.get_figwidth() * 72 - _MONEY_AXIS_PT, True))
        ax.set_ylim(bottom=0)
        money_axis(ax.yaxis, text, plan.currency)
        date_axis(ax, text)
        ax.grid(axis="y", color="#e3e3e3", linewidth=0.8)
        ax.set_axisbelow(True)
        ax.legend(loc="upper left", ncols=3)
        return svg(fig, document)


def _discounted(plan: PlanResult) -> bool:
    """Whether a plan's curves are present values (its profile discounts), not nominal sums."""
    return plan.break_even.basis == "present_value" and plan.discount_rate > 0


def _mark_break_even(ax: Axes, text: ChartText, start: dt.date, days: float, xs: Sequence[float],
                     plan_usd: Sequence[float]) -> None:
    """A vertical line, a point on the plan's curve and a label with the day and the date."""
    when = start + dt.timedelta(days=days)
    cost = float(np.interp(days, xs, plan_usd))
    ax.axvline(date_num(when), color=MARK_COLOUR, linestyle=":", linewidth=1.2, gid="break-even-line")
    ax.plot([date_num(when)], [cost], marker="o", markersize=7, color=MARK_COLOUR, gid="break-even-point",
            linestyle="none")
    right_half = days > 0.6 * (xs[-1] - xs[0]) if len(xs) > 1 else False
    ax.annotate(text.t("chart.plan.break_even", day=text.number(days, 0), date=text.date(when)),
                xy=(date_num(when), cost), xytext=(-10 if right_half else 10, 18), textcoords="offset points",
                ha="right" if right_half else "left", va="bottom", color="#222222", gid="break-even-label",
                bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "#bbbbbb"})


def _end_labels(ax: Axes, text: ChartText, end: float, values: list[tuple[float, str]], currency: str) -> None:
    """Each series' total at the right edge; a label too close to one already placed is left out."""
    top = max((v for v, _ in values), default=0.0) or 1.0
    placed: list[float] = []
    for value, colour in sorted(values, key=lambda vc: vc[1] != PLAN_COLOUR):  # the plan's own total first
        if any(abs(value - other) < 0.05 * top for other in placed):
            continue
        placed.append(value)
        ax.annotate(text.money(value, currency), xy=(end, value), xytext=(4, 0), textcoords="offset points",
                    va="center", ha="left", color=colour, fontweight="bold", annotation_clip=False)


# Okabe-Ito colours (safe for the common colour-vision deficiencies), one per compared plan
COMPARE_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
_COMPARE_STYLES: tuple[LineStyleType, ...] = ("-", (0, (6, 3)), (0, (2, 2)), "-.", (0, (8, 2, 2, 2)), ":")


def comparison_chart_svg(plans: Sequence[PlanResult], labels: Sequence[str] | None = None,
                         lang: str | None = None) -> bytes:
    """Each plan's cumulative cost on one axis (colour and dash per plan), its break-even day marked with a point.

    Every plan is drawn against its own dates, so plans made on different days sit where they fall in time; plans
    in different currencies are drawn in one (service/plans/compare.py `common_currency`), as the title says.
    Lines are named by `labels`, else as the compare page names the plans (Plan 1, Plan 2, ...).
    """
    currency, factors = common_currency(plans)
    text = chart_text(lang)
    labels = labels or [text.t("c.plan_n", n=text.number(i + 1, 0)) for i in range(len(plans))]
    document = text.t("chart.compare.document")
    with drawing(text):
        fig = Figure(figsize=(8, 4.2), layout="constrained")
        ax = fig.add_subplot()
        drawn = 0
        for i, (plan, label) in enumerate(zip(plans, labels, strict=True)):
            points = plan.break_even.cumulative
            if not points:
                continue
            colour = COMPARE_COLOURS[i % len(COMPARE_COLOURS)]
            if _discounted(plan):  # its curve is of present values: the legend says so beside its name
                label = text.t("chart.compare.pv", label=label, rate=text.percent(plan.discount_rate))
            xs = [date_num(dt.date.fromisoformat(p.date)) for p in points]
            ys = [p.plan_usd * factors[i] for p in points]
            (line,) = ax.plot(xs, ys, label=label, color=colour, linestyle=_COMPARE_STYLES[i % len(_COMPARE_STYLES)],
                              linewidth=2.6 if i == 0 else 2.0)
            line.set_gid(f"series-plan-{i}")
            days = plan.break_even.days
            if days is not None:
                when = dt.date.fromisoformat(points[0].date) + dt.timedelta(days=days)
                cost = float(np.interp(days, [p.day for p in points], ys))
                ax.plot([date_num(when)], [cost], marker="o", markersize=7, color=colour, linestyle="none",
                        gid=f"break-even-{i}")
            drawn += 1
        if not drawn:
            empty(ax, text.t("chart.compare.empty"))
            return svg(fig, document)
        converted = len({p.currency for p in plans}) > 1
        ax.set_title(text.t("chart.compare.title_converted" if converted else "chart.compare.title", currency=currency))
        ax.set_ylim(bottom=0)
        money_axis(ax.yaxis, text, currency)
        date_axis(ax, text)
        ax.grid(axis="y", color="#e3e3e3", linewidth=0.8)
        ax.set_axisbelow(True)
        ax.legend(loc="upper left")
        return svg(fig, document)
