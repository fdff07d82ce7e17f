"""How every chart is drawn: matplotlib's settings, one chart at a time, the fonts of the reader's language, the
date and money axes, the empty chart and the SVG bytes. The chart families (`plan_chart.py`, `history_chart.py`,
`sensitivity_chart.py`, `replay_chart.py`, `service/usage/chart.py`) draw on these, so they look alike.

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
from typing import Any

import matplotlib as mpl
import matplotlib.dates as mdates
from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.ticker import Formatter, FuncFormatter
from matplotlib.typing import RcKeyType

from service.web.chart_text import ChartText

_log = logging.getLogger(__name__)

# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies; line styles differ too
PLAN_COLOUR, CLOUD_COLOUR, BUY_COLOUR, MARK_COLOUR = "#0072B2", "#D55E00", "#009E73", "#4D4D4D"
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



def date_num(moment: dt.date | dt.datetime) -> float:
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


def date_axis(ax: Axes, text: ChartText) -> None:
    """Dated x ticks, four to nine, in the reader's language."""
    locator = mdates.AutoDateLocator(minticks=4, maxticks=9)  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(_LocaleDates(text))


def empty(ax: Axes, message: str) -> None:
    """A chart with nothing to draw: no axes, the message in the middle."""
    ax.set_axis_off()
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="#555555")


def money_axis(axis: Axis, text: ChartText, currency: str = "USD") -> None:
    """One tick format per axis, chosen by its range: $12k, $1,500 or $2.50 in English; 12 k €, 1 500 € or
    2,50 € in French; US$1.2万 (ten-thousands), US$1,500 or US$2.50 in Chinese."""
    top = axis.get_view_interval()[1]
    if top >= 20_000:
        axis.set_major_formatter(FuncFormatter(lambda v, _: text.compact_money(v, currency)))
    else:
        digits = 0 if top >= 10 else 2
        axis.set_major_formatter(FuncFormatter(lambda v, _: text.money_digits(v, currency, digits)))


def svg(fig: Figure, title: str) -> bytes:
    """The figure as SVG bytes, with no date in them: the same chart gives the same bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg", metadata={"Title": title, "Date": None, "Creator": "gpuplan (matplotlib)"})
    return buffer.getvalue()
