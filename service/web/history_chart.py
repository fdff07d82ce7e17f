"""A GPU's price history as a chart: the cheapest price in force per GPU over time, as steps, for cloud on-demand
and spot (per GPU-hour) and used and new hardware (per GPU).

Separate from the plan charts (`plan_chart.py`): it reads stored price rows (`/v1/prices/history`), not a plan,
and works out what was in force when (`cheapest_over_time`); drawn with the settings of `chart_draw.py`.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from service.web.chart_draw import date_axis, date_num, drawing, empty, money_axis, svg
from service.web.chart_text import chart_text

HISTORY_SERIES: dict[str, str] = {  # series id (its label: catalogue key chart.history.<id>) -> colour
    "cloud-on_demand": "#0072B2",
    "cloud-spot": "#56B4E9",
    "used": "#E69F00",
    "new": "#009E73",
}


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
            empty(fig.add_subplot(), text.t("chart.history.empty", gpu=gpu))
            return svg(fig, document)
        axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
        fig.suptitle(text.t("chart.history.title", gpu=gpu), x=0.01, ha="left", fontweight="bold", fontsize=12)
        end = None if until is None else _utc(pd.Timestamp(until))
        for ax, (title, keys) in zip(axes, panels, strict=True):
            for key in keys:
                label, colour = text.t(f"chart.history.{key}"), HISTORY_SERIES[key]
                steps = series[key]
                xs = [date_num(t.to_pydatetime()) for t in steps.index]
                ys = [float(v) for v in steps.to_numpy()]
                if end is not None and end > steps.index[-1]:
                    xs.append(date_num(end.to_pydatetime()))
                    ys.append(ys[-1])
                (line,) = ax.plot(xs, ys, drawstyle="steps-post", color=colour, linewidth=2, label=label)
                line.set_gid(f"series-{key}")
                ax.plot(xs[: len(steps)], ys[: len(steps)], linestyle="none", marker="o", markersize=4,
                        color=colour)
            ax.set_title(title)
            ax.set_ylim(bottom=0, top=ax.get_ylim()[1] * 1.1)
            money_axis(ax.yaxis, text)
            ax.grid(axis="y", color="#e3e3e3", linewidth=0.8)
            ax.set_axisbelow(True)
            ax.legend(loc="best", ncols=2)
        date_axis(axes[-1], text)
        return svg(fig, document)


def _utc(moment: pd.Timestamp) -> pd.Timestamp:
    return moment.tz_localize("UTC") if moment.tzinfo is None else moment.tz_convert("UTC")
