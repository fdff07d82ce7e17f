"""Charts as SVG for the web page, documents and e-mails: the plan's cumulative cost, plans compared and a GPU's
price history (a plan's sensitivity is `sensitivity_chart.py`, on the drawing settings here).

Drawn with matplotlib's object API (`Figure`, never pyplot), so no display and no global backend are needed and
requests in different threads never share a figure. Text stays text (`svg.fonttype: none`) so the charts are
searchable, selectable and small, and ids are salted with a constant so the same plan gives the same bytes.

Every chart speaks the language its `lang` asks for (English when not given, so API clients see English): its
strings come from the page's catalogues and its numbers, money and dates are written as the locale writes them
(`service/web/chart_text.py`). Chinese text is laid out with a CJK font installed on the server (matplotlib needs
real glyph widths) and named first after DejaVu Sans in the SVG; a browser without that font falls back per glyph
to its own CJK font, so the chart depends on no particular font.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from typing import Annotated, Any, Literal, NamedTuple

import matplotlib as mpl
import matplotlib.dates as mdates
import numpy as np
import pandas as pd
from fastapi import Query
from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import Formatter, FuncFormatter
from matplotlib.typing import LineStyleType, RcKeyType

from service.plans.compare import common_currency
from service.web.chart_fit import renderer_of, wrap
from service.web.chart_text import ChartText, chart_text
from solvers.base.result import PlanResult

_log = logging.getLogger(__name__)

SVG_MEDIA_TYPE = "image/svg+xml"
# how the chart endpoints describe their answer and their one option in OpenAPI
# the body's schema too: without one, a generated client (openapi-python-client) drops the answer and a strict one
# fails on the 200 (issue 33)
SVG_RESPONSE: dict[int | str, dict[str, Any]] = {
    200: {"content": {SVG_MEDIA_TYPE: {"schema": {"type": "string"}}}, "description": "an SVG image"}}
ChartSize = Annotated[Literal["wide", "narrow"], Query(description="`narrow` for a phone-width column")]
ChartLang = Annotated[str | None, Query(max_length=35, pattern=r"^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$", description=(
    "the chart's language: `en` (the default), `fr` or `zh-Hans`: titles, labels, legends and numbers, money and "
    "dates as that locale writes them. Any language tag is read as the page reads `?lang=` (`zh-CN` draws in "
    "Simplified Chinese, `fr-CH` in French); a language the page does not speak draws in English."))]
# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies; line styles differ too
PLAN_COLOUR, CLOUD_COLOUR, BUY_COLOUR, MARK_COLOUR = "#0072B2", "#D55E00", "#009E73", "#4D4D4D"
HISTORY_SERIES: dict[str, str] = {  # series id (its label: catalogue key chart.history.<id>) -> colour
    "cloud-on_demand": "#0072B2",
    "cloud-spot": "#56B4E9",
    "used": "#E69F00",
    "new": "#009E73",
}
_RC: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "gpuplan",
    # text is never TeX: "US$0.06/kWh to US$0.24/kWh" would otherwise be read as math between the dollar signs
    "text.parse_math": False,
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans", "Helvetica", "Arial", "sans-serif"],
    "font.size": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#999999",
    "axes.titlelocation": "left",
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "xtick.color": "#444444",
    "ytick.color": "#444444",
    "legend.frameon": False,
}
_MONEY_AXIS_PT = 60.0  # what the money axis's labels take of a chart's width, left of its title
# rcParams are process-wide and matplotlib's font and text caches are not thread-safe: draw one chart at a time
_LOCK = threading.Lock()
# locales written in Chinese characters, and the families that carry Simplified Chinese glyphs, best first
_CJK_LOCALES = frozenset({"zh-Hans"})
CJK_FAMILIES = ("WenQuanYi Micro Hei", "Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans SC", "Droid Sans Fallback")


# file names of the CJK fonts above, as Debian and other distributions install them
_CJK_FILE_HINTS = ("wqy", "notosanscjk", "sourcehansans", "notosanssc", "droidsansfallback")


def _installed_cjk_families() -> list[str]:
    """The CJK families matplotlib can use. Its font list is cached on disk when first built, so a CJK font
    installed after that (CI installs fonts-wqy-microhei into a machine that may already have drawn a chart) is
    missing from it: the system's font files are then scanned once and the CJK ones added."""
    installed = {entry.name for entry in font_manager.fontManager.ttflist}
    if not any(name in installed for name in CJK_FAMILIES):
        for path in font_manager.findSystemFonts():
            if any(hint in path.lower().replace("-", "").replace("_", "") for hint in _CJK_FILE_HINTS):
                try:
                    font_manager.fontManager.addfont(path)
                except (OSError, RuntimeError, ValueError):  # an unreadable file is skipped, not fatal
                    continue
        installed = {entry.name for entry in font_manager.fontManager.ttflist}
    return [name for name in CJK_FAMILIES if name in installed]


@cache
def _rc(locale: str) -> dict[RcKeyType, Any]:
    """The drawing settings of a locale: for Chinese, the installed CJK families after DejaVu Sans, so matplotlib
    falls back to them glyph by glyph (a generic family resolves to one font and has no fallback)."""
    if locale not in _CJK_LOCALES:
        return _RC
    cjk = _installed_cjk_families()
    if not cjk:
        _log.warning("no CJK font installed (e.g. Debian's fonts-wqy-microhei): Chinese chart text is laid out "
                     "with DejaVu Sans widths and may overlap")
    return {**_RC, "font.family": ["DejaVu Sans", *cjk, "sans-serif"]}


@contextmanager
def drawing(text: ChartText) -> Iterator[None]:
    """Draw one chart at a time with the settings of `text`'s locale."""
    with _LOCK, mpl.rc_context(_rc(text.locale)):
        yield


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
            _empty(ax, text.t("chart.plan.empty"))
            return _svg(fig, document)
        dates = [dt.date.fromisoformat(p.date) for p in points]
        start = dates[0]
        xs_all = [_num(d) for d in dates]
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
        _money_axis(ax.yaxis, text, plan.currency)
        _date_axis(ax, text)
        ax.grid(axis="y", color="#e3e3e3", linewidth=0.8)
        ax.set_axisbelow(True)
        ax.legend(loc="upper left", ncols=3)
        return _svg(fig, document)


def _discounted(plan: PlanResult) -> bool:
    """Whether a plan's curves are present values (its profile discounts), not nominal sums."""
    return plan.break_even.basis == "present_value" and plan.discount_rate > 0


def _mark_break_even(ax: Axes, text: ChartText, start: dt.date, days: float, xs: Sequence[float],
                     plan_usd: Sequence[float]) -> None:
    """A vertical line, a point on the plan's curve and a label with the day and the date."""
    when = start + dt.timedelta(days=days)
    cost = float(np.interp(days, xs, plan_usd))
    ax.axvline(_num(when), color=MARK_COLOUR, linestyle=":", linewidth=1.2, gid="break-even-line")
    ax.plot([_num(when)], [cost], marker="o", markersize=7, color=MARK_COLOUR, gid="break-even-point", linestyle="none")
    right_half = days > 0.6 * (xs[-1] - xs[0]) if len(xs) > 1 else False
    ax.annotate(text.t("chart.plan.break_even", day=text.number(days, 0), date=text.date(when)), xy=(_num(when), cost),
                xytext=(-10 if right_half else 10, 18), textcoords="offset points",
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


def cheapest_over_time(history: pd.DataFrame) -> dict[str, pd.Series]:
    """The cheapest price in force per GPU, as steps over time, for cloud on-demand, cloud spot, used and new.

    A refresh writes a source's whole snapshot, and live rows replace the bundled rows of the same provider and
    pricing (cloud) or vendor and condition (hardware); so each such group's newest batch is what is in force
    until its next batch, and a series is the minimum over its groups at every moment one of them changed.
    Cloud is USD per GPU-hour, hardware USD per GPU.
    """
    if history.empty:
        return {}
    frame = history.copy()
    frame["observed_at"] = pd.to_datetime(frame["observed_at"], utc=True)
    frame["series"] = np.where(frame["kind"] == "cloud", "cloud-" + frame["pricing"].astype(str),
                               frame["kind"].astype(str))
    frame["batch"] = frame["snapshot_id"].astype(object).where(frame["snapshot_id"].notna(), "bundled").astype(str)
    frame["provider"] = frame["provider"].fillna("").astype(str)
    frame["price"] = pd.to_numeric(frame["usd_per_gpu"], errors="coerce")
    frame = frame.dropna(subset=["price"])
    batches = (frame.groupby(["series", "provider", "batch"], dropna=False)
               .agg(at=("observed_at", "max"), price=("price", "min")).reset_index())
    out: dict[str, pd.Series] = {}
    for key in HISTORY_SERIES:
        rows = batches[batches["series"] == key]
        if rows.empty:
            continue
        wide = rows.pivot_table(index="at", columns="provider", values="price", aggfunc="last").sort_index()
        out[key] = wide.ffill().min(axis=1).rename(key)
    return out


def price_history_svg(gpu: str, history: pd.DataFrame, until: dt.datetime | None = None,
                      narrow: bool = False, lang: str | None = None) -> bytes:
    """Cheapest cloud price per GPU-hour (top) and hardware price per GPU (bottom) over time, as steps.

    `until` (e.g. now) extends each step line to that moment: the last price is still in force.
    """
    series = cheapest_over_time(history)
    text = chart_text(lang)
    panels = [(text.t("chart.history.cloud"), [k for k in series if k.startswith("cloud-")]),
              (text.t("chart.history.hardware"), [k for k in series if not k.startswith("cloud-")])]
    panels = [(title, keys) for title, keys in panels if keys]
    document = text.t("chart.history.document", gpu=gpu)
    with drawing(text):
        fig = Figure(figsize=(5.2 if narrow else 8, 2.6 * max(1, len(panels)) + 0.4), layout="constrained")
        if not panels:
            _empty(fig.add_subplot(), text.t("chart.history.empty", gpu=gpu))
            return _svg(fig, document)
        axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
        fig.suptitle(text.t("chart.history.title", gpu=gpu), x=0.01, ha="left", fontweight="bold", fontsize=12)
        end = None if until is None else _utc(pd.Timestamp(until))
        for ax, (title, keys) in zip(axes, panels, strict=True):
            for key in keys:
                label, colour = text.t(f"chart.history.{key}"), HISTORY_SERIES[key]
                steps = series[key]
                xs = [_num(t.to_pydatetime()) for t in steps.index]
                ys = [float(v) for v in steps.to_numpy()]
                if end is not None and end > steps.index[-1]:
                    xs.append(_num(end.to_pydatetime()))
                    ys.append(ys[-1])
                (line,) = ax.plot(xs, ys, drawstyle="steps-post", color=colour, linewidth=2, label=label)
                line.set_gid(f"series-{key}")
                ax.plot(xs[: len(steps)], ys[: len(steps)], linestyle="none", marker="o", markersize=4,
                        color=colour)
            ax.set_title(title)
            ax.set_ylim(bottom=0, top=ax.get_ylim()[1] * 1.1)
            _money_axis(ax.yaxis, text)
            ax.grid(axis="y", color="#e3e3e3", linewidth=0.8)
            ax.set_axisbelow(True)
            ax.legend(loc="best", ncols=2)
        _date_axis(axes[-1], text)
        return _svg(fig, document)


def _utc(moment: pd.Timestamp) -> pd.Timestamp:
    return moment.tz_localize("UTC") if moment.tzinfo is None else moment.tz_convert("UTC")


def _num(moment: dt.date | dt.datetime) -> float:
    """matplotlib's date number (days since its epoch): x values are plain floats with a date axis on top."""
    return float(mdates.date2num(moment))  # type: ignore[no-untyped-call]


class _LocaleDates(Formatter):
    """Date ticks in the reader's language, as concise as matplotlib's ConciseDateFormatter (whose strftime names
    follow the process's C locale, not the request's): the year on the first tick and where a year starts, month
    names between; on shorter axes days, then hours."""

    def __init__(self, text: ChartText) -> None:
        self.text = text

    def __call__(self, x: float, pos: int | None = None) -> str:
        return self.format_ticks([x])[0]

    def format_ticks(self, values: Sequence[float]) -> list[str]:
        moments = [mdates.num2date(v) for v in values]  # type: ignore[no-untyped-call]
        step = (values[-1] - values[0]) / (len(values) - 1) if len(values) > 1 else 365.0  # days between ticks
        text, labels = self.text, []
        for i, when in enumerate(moments):
            if step >= 300:
                labels.append(text.year(when))
            elif step >= 28:
                labels.append(text.month_year(when) if i == 0 or when.month == 1 else text.month(when))
            elif step >= 1:
                labels.append(text.date(when) if i == 0 else text.day_month(when))
            else:
                new_day = i == 0 or when.date() != moments[i - 1].date()
                labels.append(f"{when:%H:%M}\n{text.day_month(when)}" if new_day else f"{when:%H:%M}")
        return labels


def _date_axis(ax: Axes, text: ChartText) -> None:
    locator = mdates.AutoDateLocator(minticks=4, maxticks=9)  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(_LocaleDates(text))


def _empty(ax: Axes, message: str) -> None:
    ax.set_axis_off()
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="#555555")


def _money_axis(axis: Axis, text: ChartText, currency: str = "USD") -> None:
    """One tick format per axis, chosen by its range: $12k, $1,500 or $2.50 in English; 12 k €, 1 500 € or
    2,50 € in French; US$1.2万 (ten-thousands), US$1,500 or US$2.50 in Chinese."""
    top = axis.get_view_interval()[1]
    if top >= 20_000:
        axis.set_major_formatter(FuncFormatter(lambda v, _: text.compact_money(v, currency)))
    else:
        digits = 0 if top >= 10 else 2
        axis.set_major_formatter(FuncFormatter(lambda v, _: text.money_digits(v, currency, digits)))


def _svg(fig: Figure, title: str) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Title": title, "Date": None, "Creator": "gpuplan (matplotlib)"})
    return buffer.getvalue()


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
            xs = [_num(dt.date.fromisoformat(p.date)) for p in points]
            ys = [p.plan_usd * factors[i] for p in points]
            (line,) = ax.plot(xs, ys, label=label, color=colour, linestyle=_COMPARE_STYLES[i % len(_COMPARE_STYLES)],
                              linewidth=2.6 if i == 0 else 2.0)
            line.set_gid(f"series-plan-{i}")
            days = plan.break_even.days
            if days is not None:
                when = dt.date.fromisoformat(points[0].date) + dt.timedelta(days=days)
                cost = float(np.interp(days, [p.day for p in points], ys))
                ax.plot([_num(when)], [cost], marker="o", markersize=7, color=colour, linestyle="none",
                        gid=f"break-even-{i}")
            drawn += 1
        if not drawn:
            _empty(ax, text.t("chart.compare.empty"))
            return _svg(fig, document)
        converted = len({p.currency for p in plans}) > 1
        ax.set_title(text.t("chart.compare.title_converted" if converted else "chart.compare.title", currency=currency))
        ax.set_ylim(bottom=0)
        _money_axis(ax.yaxis, text, currency)
        _date_axis(ax, text)
        ax.grid(axis="y", color="#e3e3e3", linewidth=0.8)
        ax.set_axisbelow(True)
        ax.legend(loc="upper left")
        return _svg(fig, document)
