"""A plan's sensitivity as a tornado chart, wide for a desktop column and narrow for a phone (issue 33).

Each input is a row: its name and range written above its bar (not as axis labels beside it, which took half a
phone's width and were overlapped by the bars' end labels), a bar from the total at one end of the range to the
total at the other, each end labelled with its total and the input's value there. The x range is set after the
labels are measured, so every label lies inside the canvas and clear of its neighbours; tests/e2e/test_page_fits.py
measures the drawn chart at 390 px (text size, overlaps, inside the image).

The narrow chart is drawn for a phone's column (about 330 px): a canvas of 3.6 in (345 px at the browser's 96 px per
inch) is shown at 0.95 of its size, so 9 pt text stays about 11 px on the screen; long texts are wrapped.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.backend_bases import RendererBase
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.ticker import FuncFormatter, MaxNLocator
from matplotlib.transforms import blended_transform_factory

from service.web.chart_draw import MARK_COLOUR, PLAN_COLOUR, drawing, empty, svg
from service.web.chart_fit import extent_pt, renderer_of, wrap
from service.web.chart_text import ChartText, chart_text
from solvers.base.result import PlanResult
from solvers.replan.sensitivity import Sensitivity, SensitivityRow

DECISION_CHANGES_COLOUR = "#CC79A7"


@dataclass(frozen=True)
class _Layout:
    """Sizes of one form of the chart (inches, points): what the rows need beyond these is measured."""

    width: float          # the canvas
    row: float            # one input at least: its name and range above a bar, the bar, its end labels
    bar: float            # a bar's thickness
    text_pt: float        # names, end labels and ticks
    title_pt: float
    ticks: int            # at most this many x ticks
    label_share: float    # an end label is wrapped to this share of the plot's width (the narrow chart's two lines)


WIDE = _Layout(width=8.0, row=0.62, bar=0.17, text_pt=9.0, title_pt=10.5, ticks=6, label_share=1.0)
NARROW = _Layout(width=3.6, row=0.7, bar=0.17, text_pt=9.0, title_pt=9.5, ticks=3, label_share=0.3)
_SIDE_IN, _BOTTOM_IN, _GAP_IN, _LABEL_GAP_PT = 0.08, 0.36, 0.05, 4.0  # margins; room between texts; label to bar


@dataclass
class _EndLabel:
    """An end label and the side of its anchor it extends to (left: it ends where its bar starts)."""

    artist: Text
    left: bool


def sensitivity_chart_svg(found: Sensitivity, plan: PlanResult | None = None, lang: str | None = None,
                          narrow: bool = False) -> bytes:
    """A tornado: per input, a bar from the total at the low end to the total at the high end, the plan's total
    as a vertical line; a bar whose decision differs from the plan's is coloured and hatched, and says so.

    `plan` (the plan the sensitivity is of) gives the currency the totals are in and the rate that puts the
    electricity range, which the rows give in USD, in that currency as the page's table does. `narrow` draws for
    a phone-width column."""
    rows = [r for r in found.rows if r.low_total_usd is not None or r.high_total_usd is not None]
    text = chart_text(lang)
    currency = plan.currency if plan else "USD"
    layout = NARROW if narrow else WIDE
    document = text.t("chart.sens.document")
    with drawing(text):
        if not rows:
            fig = Figure(figsize=(layout.width, 1.6), layout="constrained")
            empty(fig.add_subplot(), text.t("chart.sens.empty"))
            return svg(fig, document)
        fig = Figure(figsize=(layout.width, 4.0))
        renderer = renderer_of(fig)
        usable_pt = (layout.width - 2 * _SIDE_IN) * 72
        ax = fig.add_axes((_SIDE_IN / layout.width, 0.1, 1 - 2 * _SIDE_IN / layout.width, 0.8))
        title = fig.text(_SIDE_IN / layout.width, 1.0, "", ha="left", va="top", fontsize=layout.title_pt,
                         fontweight="bold")
        title.set_text(wrap(text.t("chart.sens.title", total=text.money(found.base_total_usd, currency)),
                             title, renderer, usable_pt, between_characters=True))
        headings, labels = _texts(ax, text, rows, plan, layout, renderer, usable_pt)
        # every row as tall as its tallest texts need: a label beside its bar, the heading above both
        half = max(layout.bar, *(extent_pt(lab.artist, renderer)[1] / 72 for lab in labels)) / 2
        heading_in = max(extent_pt(heading, renderer)[1] / 72 for heading in headings)
        above = half + _GAP_IN  # from a bar's middle to its heading
        row_in = max(layout.row, above + heading_in + _GAP_IN + half + _GAP_IN)
        bottom_u, top_u = -(half + _GAP_IN) / row_in, len(rows) - 1 + (above + heading_in + _GAP_IN) / row_in
        axes_in = (top_u - bottom_u) * row_in
        height = extent_pt(title, renderer)[1] / 72 + 0.16 + axes_in + _BOTTOM_IN
        fig.set_size_inches(layout.width, height)
        title.set_y(1 - 0.06 / height)
        ax.set_position((_SIDE_IN / layout.width, _BOTTOM_IN / height, 1 - 2 * _SIDE_IN / layout.width,
                         axes_in / height))
        ax.set_ylim(bottom_u, top_u)
        for y, (row, heading) in enumerate(zip(rows, headings, strict=True)):
            heading.set_y(len(rows) - 1 - y + above / row_in)
            _bar(ax, row, len(rows) - 1 - y, layout.bar / row_in, found)
        lo, hi = _fit_x(ax, labels, rows, found, renderer)
        ax.axvline(found.base_total_usd, color=MARK_COLOUR, linestyle=":", linewidth=1.2, gid="base-line")
        compact = narrow and hi >= 20_000
        written = FuncFormatter(lambda v, _: text.compact_money(v, currency) if compact else text.money(v, currency))
        ax.xaxis.set_major_formatter(written)
        ax.tick_params(axis="x", labelsize=layout.text_pt)
        ax.set_xticks(_ticks(ax, lo, hi, layout, written, renderer))
        ax.set_yticks([])
        ax.spines["left"].set_visible(False)
        ax.grid(axis="x", color="#e3e3e3", linewidth=0.8)
        ax.set_axisbelow(True)
        return svg(fig, document)


def _texts(ax: Axes, text: ChartText, rows: list[SensitivityRow], plan: PlanResult | None, layout: _Layout,
           renderer: RendererBase, usable_pt: float) -> tuple[list[Text], list[_EndLabel]]:
    """Each input's name and range (placed above its bar once the rows are measured), and a label at each end of
    its bar: the total and the input's value there, or one label when both ends cost the same. The largest swing
    is on top."""
    names = blended_transform_factory(ax.transAxes, ax.transData)
    currency = plan.currency if plan else "USD"
    headings: list[Text] = []
    labels: list[_EndLabel] = []
    for y, row in zip(range(len(rows) - 1, -1, -1), rows, strict=True):
        # on white: the plan's total and the grid pass behind the name, not through it
        heading = ax.text(0, y, "", transform=names, ha="left", va="bottom", fontsize=layout.text_pt,
                          color="#222222", linespacing=1.35,
                          bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0})
        heading.set_text("\n".join([
            wrap(_input_name(text, row), heading, renderer, usable_pt),
            wrap(text.t("chart.sens.range", low=_input_value(text, row, row.low_value, plan),
                         high=_input_value(text, row, row.high_value, plan)), heading, renderer, usable_pt)]))
        headings.append(heading)
        ends = [v for v in (row.low_total_usd, row.high_total_usd) if v is not None]
        same = row.low_total_usd == row.high_total_usd
        for value, end in ((row.low_total_usd, row.low_value), (row.high_total_usd, row.high_value)):
            if value is None:
                continue
            on_left = value == min(ends) and not same and min(ends) != max(ends)
            said = (text.t("chart.sens.both_ends", total=text.money(value, currency)) if same
                    else text.t("chart.sens.at", total=text.money(value, currency),
                                value=_input_value(text, row, end, plan)))
            label = ax.annotate("", xy=(value, y), xytext=(-_LABEL_GAP_PT if on_left else _LABEL_GAP_PT, 0),
                                textcoords="offset points", ha="right" if on_left else "left", va="center",
                                fontsize=layout.text_pt, color="#333333", linespacing=1.35, annotation_clip=False)
            label.set_text(wrap(said, label, renderer, usable_pt * layout.label_share))
            labels.append(_EndLabel(label, on_left))
            if same:
                break
    return headings, labels


def _bar(ax: Axes, row: SensitivityRow, y: float, thickness: float, found: Sensitivity) -> None:
    ends = [v for v in (row.low_total_usd, row.high_total_usd) if v is not None]
    left, right = min(ends), max(ends)
    changes = row.decision_changes
    ax.barh(y, max(right - left, found.base_total_usd * 0.002), left=left, height=thickness,
            color=DECISION_CHANGES_COLOUR if changes else PLAN_COLOUR, hatch="//" if changes else None,
            edgecolor="white", gid=f"bar-{row.input}")


def _fit_x(ax: Axes, labels: list[_EndLabel], rows: list[SensitivityRow], found: Sensitivity,
           renderer: RendererBase) -> tuple[float, float]:
    """The x range that holds every bar and, beside its end, every label, inside the plot: the widest label on
    each side decides how much room that side needs, in points, and the bars get what is left. Returns the
    range of the bars themselves."""
    totals = [v for r in rows for v in (r.low_total_usd, r.high_total_usd) if v is not None]
    lo, hi = min(totals), max(totals)
    if hi - lo < max(0.02 * hi, 1.0):  # nothing moves much: a band around the plan's total
        middle = (lo + hi) / 2 or found.base_total_usd
        lo, hi = middle - max(0.05 * middle, 1.0), middle + max(0.05 * middle, 1.0)
    width_pt = ax.get_window_extent(renderer).width * 72 / ax.figure.dpi
    need_left = max((extent_pt(lab.artist, renderer)[0] for lab in labels if lab.left), default=0.0)
    need_right = max((extent_pt(lab.artist, renderer)[0] for lab in labels if not lab.left), default=0.0)
    need_left, need_right = need_left + _LABEL_GAP_PT + 4, need_right + _LABEL_GAP_PT + 4
    bars_pt = max(width_pt - need_left - need_right, 0.2 * width_pt)
    per_pt = (hi - lo) / bars_pt
    ax.set_xlim(lo - need_left * per_pt, hi + need_right * per_pt)
    return lo, hi


def _ticks(ax: Axes, lo: float, hi: float, layout: _Layout, written: FuncFormatter,
           renderer: RendererBase) -> list[float]:
    """Round x ticks under the bars only (the room for labels beside them stays unmarked), none below zero, and
    as many as fit side by side: fewer where the locale's money is long (1 000 000 $US)."""
    probe = ax.text(0, 0, "", fontsize=layout.text_pt, transform=None)
    per_pt = (ax.get_xlim()[1] - ax.get_xlim()[0]) / (ax.get_window_extent(renderer).width * 72 / ax.figure.dpi)
    chosen: list[float] = []
    for bins in range(layout.ticks, 0, -1):
        chosen = [v for v in MaxNLocator(nbins=bins, min_n_ticks=1).tick_values(lo, hi) if max(lo, 0.0) <= v <= hi]
        widths = []
        for value in chosen:
            probe.set_text(written(value, None))
            widths.append(extent_pt(probe, renderer)[0])
        gaps = [(b - a) / per_pt for a, b in itertools.pairwise(chosen)]
        if all(gap >= (w1 + w2) / 2 + 8 for gap, (w1, w2) in zip(gaps, itertools.pairwise(widths), strict=True)):
            break
    probe.remove()
    return chosen


def _input_name(text: ChartText, row: SensitivityRow) -> str:
    """The input's name as the page's table names it; the API's English label for an input the catalogue lacks."""
    return text.strings.get(f"sens.{row.input}", row.label)


def _input_value(text: ChartText, row: SensitivityRow, value: float, plan: PlanResult | None) -> str:
    """One end of an input's range as the page's table writes it: 0.5×, a rate per kWh in the plan's currency,
    36 months, 10.0% a year."""
    if row.unit == "USD/kWh":
        per_unit = _usd_per_unit(plan)
        return text.t("wi.per_kwh", price=text.rate_money(value / per_unit, plan.currency) if plan and per_unit
                      else text.rate_money(value, "USD"))
    if row.unit == "months":
        return text.t("r.n_months", n=text.number(value, 0))
    if row.unit == "per year":
        return text.percent(value)
    return f"{text.number(value, 2)}×"


def _usd_per_unit(plan: PlanResult | None) -> float | None:
    """USD per unit of the plan's currency at the rates the plan was made with (1 for a plan in USD)."""
    if plan is None or plan.currency == "USD":
        return 1.0
    rates = plan.exchange_rates.rates if plan.exchange_rates else []
    return next((r.usd_per_unit for r in rates if r.currency == plan.currency), None)
