"""Charts as SVG for the web page, documents and e-mails: the plan's cumulative cost and a GPU's price history.

Drawn with matplotlib's object API (`Figure`, never pyplot), so no display and no global backend are needed and
requests in different threads never share a figure. Text stays text (`svg.fonttype: none`) so the charts are
searchable, selectable and small, and ids are salted with a constant so the same plan gives the same bytes.
"""

from __future__ import annotations

import datetime as dt
import io
import threading
from collections.abc import Sequence
from typing import Annotated, Any, Literal, NamedTuple

import matplotlib as mpl
import matplotlib.dates as mdates
import numpy as np
import pandas as pd
from fastapi import Query
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter
from matplotlib.typing import LineStyleType, RcKeyType

from service.plans.compare import common_currency
from solvers.result import PlanResult
from solvers.sensitivity import Sensitivity

SVG_MEDIA_TYPE = "image/svg+xml"
# how the chart endpoints describe their answer and their one option in OpenAPI
SVG_RESPONSE: dict[int | str, dict[str, Any]] = {200: {"content": {SVG_MEDIA_TYPE: {}}, "description": "an SVG image"}}
ChartSize = Annotated[Literal["wide", "narrow"], Query(description="`narrow` for a phone-width column")]
# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies; line styles differ too
PLAN_COLOUR, CLOUD_COLOUR, BUY_COLOUR, MARK_COLOUR = "#0072B2", "#D55E00", "#009E73", "#4D4D4D"
HISTORY_SERIES: dict[str, tuple[str, str]] = {  # series id -> (label, colour)
    "cloud-on_demand": ("Cloud on-demand", "#0072B2"),
    "cloud-spot": ("Cloud spot", "#56B4E9"),
    "used": ("Used", "#E69F00"),
    "new": ("New", "#009E73"),
}
_RC: dict[RcKeyType, Any] = {
    "svg.fonttype": "none",
    "svg.hashsalt": "gpuplan",
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
# rcParams are process-wide and matplotlib's font and text caches are not thread-safe: draw one chart at a time
_LOCK = threading.Lock()


class _Series(NamedTuple):
    gid: str
    label: str
    values: list[float | None]
    colour: str
    style: LineStyleType
    width: float


def plan_chart_svg(plan: PlanResult, narrow: bool = False) -> bytes:
    """Cumulative cost of the plan, cloud only and buy only over the horizon, with the break-even day marked.

    `narrow` draws for a phone-width column: the same text on a smaller canvas, so it stays legible when scaled.
    """
    points = plan.break_even.cumulative
    with _LOCK, mpl.rc_context(_RC):
        fig = Figure(figsize=(5.2, 4.4) if narrow else (8, 4.2), layout="constrained")
        ax = fig.add_subplot()
        if not points:
            _empty(ax, "no cumulative costs in this plan")
            return _svg(fig, "Cumulative cost")
        dates = [dt.date.fromisoformat(p.date) for p in points]
        start = dates[0]
        xs_all = [_num(d) for d in dates]
        # the plan first and widest: where an alternative is the plan, its dashes show on top of the plan's line
        series = [
            _Series("series-plan", "Plan", [p.plan_usd for p in points], PLAN_COLOUR, "-", 3.2),
            _Series("series-cloud-only", "Cloud only", [p.cloud_only_usd for p in points], CLOUD_COLOUR,
                    (0, (6, 3)), 1.8),
            _Series("series-buy-only", "Buy only", [p.buy_only_usd for p in points], BUY_COLOUR, (0, (2, 2)), 1.8),
        ]
        for one in series:
            xs = [x for x, v in zip(xs_all, one.values, strict=True) if v is not None]
            ys = [v for v in one.values if v is not None]
            if xs:
                (line,) = ax.plot(xs, ys, label=one.label, color=one.colour, linestyle=one.style, linewidth=one.width)
                line.set_gid(one.gid)
        days = plan.break_even.days
        if days is not None:
            _mark_break_even(ax, start, days, [p.day for p in points], [p.plan_usd for p in points])
        _end_labels(ax, xs_all[-1], [(last, one.colour) for one in series if (last := one.values[-1]) is not None],
                    plan.currency)
        ax.set_title(f"Cumulative cost over {plan.horizon.get('periods', len(dates) - 1)} months, {plan.currency}")
        ax.set_ylim(bottom=0)
        _money_axis(ax, plan.currency)
        _date_axis(ax)
        ax.grid(axis="y", color="#e3e3e3", linewidth=0.8)
        ax.set_axisbelow(True)
        ax.legend(loc="upper left", ncols=3)
        return _svg(fig, f"gpuplan: cumulative cost, plan {plan.id or ''}".strip())


def _mark_break_even(ax: Axes, start: dt.date, days: float, xs: Sequence[float], plan_usd: Sequence[float]) -> None:
    """A vertical line, a point on the plan's curve and a label with the day and the date."""
    when = start + dt.timedelta(days=days)
    cost = float(np.interp(days, xs, plan_usd))
    ax.axvline(_num(when), color=MARK_COLOUR, linestyle=":", linewidth=1.2, gid="break-even-line")
    ax.plot([_num(when)], [cost], marker="o", markersize=7, color=MARK_COLOUR, gid="break-even-point", linestyle="none")
    right_half = days > 0.6 * (xs[-1] - xs[0]) if len(xs) > 1 else False
    ax.annotate(f"Break-even: day {days:,.0f}\n{when.isoformat()}", xy=(_num(when), cost),
                xytext=(-10 if right_half else 10, 18), textcoords="offset points",
                ha="right" if right_half else "left", va="bottom", color="#222222", gid="break-even-label",
                bbox={"boxstyle": "round,pad=0.3", "facecolor": "white", "edgecolor": "#bbbbbb"})


def _end_labels(ax: Axes, end: float, values: list[tuple[float, str]], currency: str) -> None:
    """Each series' total at the right edge; a label too close to one already placed is left out."""
    top = max((v for v, _ in values), default=0.0) or 1.0
    placed: list[float] = []
    for value, colour in sorted(values, key=lambda vc: vc[1] != PLAN_COLOUR):  # the plan's own total first
        if any(abs(value - other) < 0.05 * top for other in placed):
            continue
        placed.append(value)
        ax.annotate(_usd(value, currency), xy=(end, value), xytext=(4, 0), textcoords="offset points",
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
                      narrow: bool = False) -> bytes:
    """Cheapest cloud price per GPU-hour (top) and hardware price per GPU (bottom) over time, as steps.

    `until` (e.g. now) extends each step line to that moment: the last price is still in force.
    """
    series = cheapest_over_time(history)
    panels = [("Cloud, USD per GPU-hour (cheapest)", [k for k in series if k.startswith("cloud-")]),
              ("Hardware, USD per GPU (cheapest)", [k for k in series if not k.startswith("cloud-")])]
    panels = [(title, keys) for title, keys in panels if keys]
    with _LOCK, mpl.rc_context(_RC):
        fig = Figure(figsize=(5.2 if narrow else 8, 2.6 * max(1, len(panels)) + 0.4), layout="constrained")
        if not panels:
            _empty(fig.add_subplot(), f"no prices recorded for {gpu}")
            return _svg(fig, f"gpuplan: price history of {gpu}")
        axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
        fig.suptitle(f"{gpu}: price history", x=0.01, ha="left", fontweight="bold", fontsize=12)
        end = None if until is None else _utc(pd.Timestamp(until))
        for ax, (title, keys) in zip(axes, panels, strict=True):
            for key in keys:
                label, colour = HISTORY_SERIES[key]
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
            _money_axis(ax)
            ax.grid(axis="y", color="#e3e3e3", linewidth=0.8)
            ax.set_axisbelow(True)
            ax.legend(loc="best", ncols=2)
        _date_axis(axes[-1])
        return _svg(fig, f"gpuplan: price history of {gpu}")


def _utc(moment: pd.Timestamp) -> pd.Timestamp:
    return moment.tz_localize("UTC") if moment.tzinfo is None else moment.tz_convert("UTC")


def _num(moment: dt.date | dt.datetime) -> float:
    """matplotlib's date number (days since its epoch): x values are plain floats with a date axis on top."""
    return float(mdates.date2num(moment))  # type: ignore[no-untyped-call]


def _date_axis(ax: Axes) -> None:
    locator = mdates.AutoDateLocator(minticks=4, maxticks=9)  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]


def _empty(ax: Axes, message: str) -> None:
    ax.set_axis_off()
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="#555555")


# how a chart writes each plan currency before an amount (the charts are English, as the API is)
_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "CN¥", "INR": "₹", "CHF": "CHF ", "CAD": "CA$",
            "AUD": "A$"}


def _usd(value: float, currency: str = "USD") -> str:
    """An amount in `currency` (the plan's; the name is the API's `*_usd`): whole units from 100 up, else cents."""
    symbol = _SYMBOLS.get(currency, f"{currency} ")
    return f"{symbol}{value:,.0f}" if abs(value) >= 100 else f"{symbol}{value:,.2f}"


def _money_axis(ax: Axes, currency: str = "USD") -> None:
    """One tick format per axis, chosen by its range: $12k, $1,500 or $2.50 (or €..., in the plan's currency)."""
    symbol = _SYMBOLS.get(currency, f"{currency} ")
    top = ax.get_ylim()[1]
    if top >= 20_000:
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{symbol}{v / 1000:,.0f}k"))
    elif top >= 10:
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{symbol}{v:,.0f}"))
    else:
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{symbol}{v:,.2f}"))


def _svg(fig: Figure, title: str) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Title": title, "Date": None, "Creator": "gpuplan (matplotlib)"})
    return buffer.getvalue()


# Okabe-Ito colours (safe for the common colour-vision deficiencies), one per compared plan
COMPARE_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
_COMPARE_STYLES: tuple[LineStyleType, ...] = ("-", (0, (6, 3)), (0, (2, 2)), "-.", (0, (8, 2, 2, 2)), ":")


def comparison_chart_svg(plans: Sequence[PlanResult], labels: Sequence[str]) -> bytes:
    """Each plan's cumulative cost on one axis (colour and dash per plan), its break-even day marked with a point.

    Every plan is drawn against its own dates, so plans made on different days sit where they fall in time; plans
    in different currencies are drawn in one (service/plans/compare.py `common_currency`), as the title says.
    """
    currency, factors = common_currency(plans)
    with _LOCK, mpl.rc_context(_RC):
        fig = Figure(figsize=(8, 4.2), layout="constrained")
        ax = fig.add_subplot()
        drawn = 0
        for i, (plan, label) in enumerate(zip(plans, labels, strict=True)):
            points = plan.break_even.cumulative
            if not points:
                continue
            colour = COMPARE_COLOURS[i % len(COMPARE_COLOURS)]
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
            _empty(ax, "no cumulative costs in these plans")
            return _svg(fig, "Cumulative cost")
        note = (" (converted at each plan's ECB rates)" if len({p.currency for p in plans}) > 1
                else " (points: break-even against cloud only)")
        ax.set_title(f"Cumulative cost of each plan, {currency}{note}")
        ax.set_ylim(bottom=0)
        _money_axis(ax, currency)
        _date_axis(ax)
        ax.grid(axis="y", color="#e3e3e3", linewidth=0.8)
        ax.set_axisbelow(True)
        ax.legend(loc="upper left")
        return _svg(fig, "gpuplan: cumulative cost of compared plans")


DECISION_CHANGES_COLOUR = "#CC79A7"


def sensitivity_chart_svg(found: Sensitivity, currency: str = "USD") -> bytes:
    """A tornado: per input, a bar from the total at the low end to the total at the high end, the plan's total
    as a vertical line; a bar whose decision differs from the plan's is coloured and hatched, and says so."""
    rows = [r for r in found.rows if r.low_total_usd is not None or r.high_total_usd is not None]
    with _LOCK, mpl.rc_context(_RC):
        fig = Figure(figsize=(8, 1.2 + 0.62 * max(1, len(rows))), layout="constrained")
        ax = fig.add_subplot()
        if not rows:
            _empty(ax, "no input moved the plan")
            return _svg(fig, "Sensitivity")
        ys = list(range(len(rows)))[::-1]  # the largest swing on top
        for y, row in zip(ys, rows, strict=True):
            ends = [v for v in (row.low_total_usd, row.high_total_usd) if v is not None]
            left, right = min(ends), max(ends)
            changes = row.decision_changes
            ax.barh(y, max(right - left, found.base_total_usd * 0.002), left=left, height=0.55,
                    color=DECISION_CHANGES_COLOUR if changes else PLAN_COLOUR, hatch="//" if changes else None,
                    edgecolor="white", gid=f"bar-{row.input}")
            same = row.low_total_usd == row.high_total_usd
            for value, end in ((row.low_total_usd, row.low_value), (row.high_total_usd, row.high_value)):
                if same and value is not None:  # both ends cost the same: one label
                    ax.annotate(f"{_usd(value, currency)} at both ends", xy=(value, y), xytext=(6, 0),
                                textcoords="offset points", ha="left", va="center", fontsize=8, color="#333333")
                    break
                if value is not None:
                    ax.annotate(f"{_usd(value, currency)} @ {end:g}", xy=(value, y),
                                xytext=(4 if value == right else -4, 0), textcoords="offset points",
                                ha="left" if value == right else "right", va="center", fontsize=8, color="#333333")
        labels = [f"{r.label}\n{r.low_value:g} to {r.high_value:g} {r.unit}" for r in rows]
        ax.set_yticks(ys, labels)
        ax.axvline(found.base_total_usd, color=MARK_COLOUR, linestyle=":", linewidth=1.2, gid="base-line")
        ax.set_title(f"Total cost when one input moves (plan: {_usd(found.base_total_usd, currency)}; "
                     f"hatched: the decision changes)", fontsize=10)
        lo = min(min(v for v in (r.low_total_usd, r.high_total_usd) if v is not None) for r in rows)
        hi = max(max(v for v in (r.low_total_usd, r.high_total_usd) if v is not None) for r in rows)
        pad = 0.25 * max(hi - lo, 0.05 * hi, 1.0)
        ax.set_xlim(max(0.0, lo - pad), hi + pad)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: _usd(v, currency)))
        ax.grid(axis="x", color="#e3e3e3", linewidth=0.8)
        ax.set_axisbelow(True)
        return _svg(fig, "gpuplan: sensitivity of the plan's total cost")
