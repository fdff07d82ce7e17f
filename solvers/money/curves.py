"""Cumulative cost over the horizon and the days on which two cost curves cross.

Capital is spent on day 0, running costs (electricity, cloud) accrue evenly within each period,
and the resale credit arrives on the horizon's last day. Curves are piecewise linear in days, so
crossings are exact: the guide's worked example crosses on day 292.96. A crossing day is given to `DAY_DECIMALS`
decimals: the last bits of the unrounded day depend on the LU path of the solver (an exact reformulation of the
model, or another HiGHS version, moves them), and a millionth of a day (0.09 s) is far below anything a user acts
on, so answers do not wobble with solver paths (docs/ARCHITECTURE.md, "Where a plan's time goes").
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from pydantic import TypeAdapter

from solvers.base.break_even_result import CumulativePoint
from solvers.demand.periods import Period
from solvers.money.accounting import rounded

_POINTS = TypeAdapter(list[CumulativePoint])
DAY_DECIMALS = 6  # a crossing day to a millionth of a day (0.0864 s)


@dataclass(frozen=True)
class Curve:
    values: list[float]   # at each point of the shared day grid
    resale: float         # credit on the last day


def curve(capex: float, running: list[float], resale: float) -> Curve:
    values = [capex]
    for cost in running:
        values.append(values[-1] + cost)
    return Curve(values, resale)


def day_grid(periods: list[Period]) -> tuple[list[float], list[str]]:
    start = periods[0].start
    days = [0.0] + [float((p.end - start).days) for p in periods]
    dates = [start.isoformat()] + [(p.end - dt.timedelta(days=1)).isoformat() for p in periods]
    return days, dates


def crossing(days: list[float], a: Curve, b: Curve) -> float | None:
    """The day from which a - b keeps the opposite sign to its sign at day 0 (the resale counted on the last day),
    to `DAY_DECIMALS`; None if it ends on the side it began. Why the lasting crossing, not the first: a purchase
    whose work ends early and whose machines keep paying fixed monthly costs gets ahead of cloud only within weeks,
    falls behind again, and is ahead at the end only by its resale; it pays off when it is sold, not on day 65."""
    day = _crossing(days, a, b)
    return None if day is None else round(day, DAY_DECIMALS)


def _crossing(days: list[float], a: Curve, b: Curve) -> float | None:
    diffs = [x - y for x, y in zip(a.values, b.values, strict=True)]
    initial = next((d for d in diffs if abs(d) > 1e-9), 0.0)
    if initial == 0.0:
        return None
    sign = 1.0 if initial > 0 else -1.0
    final = sign * ((a.values[-1] - a.resale) - (b.values[-1] - b.resale))
    if final > 1e-9:
        return None
    last = max(i for i, d in enumerate(diffs) if sign * d > 1e-9)  # the last point on the side it began
    if last == len(diffs) - 1:  # it crosses only with the resale
        return days[-1]
    d0, d1 = sign * diffs[last], sign * diffs[last + 1]
    return days[last] + (days[last + 1] - days[last]) * d0 / (d0 - d1)


def cumulative_points(days: list[float], dates: list[str], plan: Curve, cloud_only: Curve | None,
                      buy_only: Curve | None) -> list[CumulativePoint]:
    """The chart's points: each curve at every day of the grid, and after the resale when there is one. Each
    figure is `round(value, 2)` (a curve's values minus nothing, or minus its resale on the last day), rounded in
    one batch per curve (`accounting.rounded`: the same digits; `round` of a numpy scalar costs some 4 us, and a
    plan has a hundred of them here)."""
    def column(c: Curve | None) -> list[float | None]:
        return [None] * len(days) if c is None else list(rounded(c.values, 2))

    plan_r, cloud_r, buy_r = column(plan), column(cloud_only), column(buy_only)
    points = _POINTS.validate_python([  # one pydantic-core call for the list: half the cost of one call per point
        {"date": dates[i], "day": days[i], "plan_usd": plan_r[i] or 0.0, "cloud_only_usd": cloud_r[i],
         "buy_only_usd": buy_r[i], "event": "start" if i == 0 else "month_end"}
        for i in range(len(days))
    ])
    if any(c is not None and c.resale > 0 for c in (plan, cloud_only, buy_only)):
        last = len(days) - 1

        def after_resale(c: Curve | None) -> float | None:
            return None if c is None else rounded([c.values[last] - c.resale], 2)[0]

        points.append(CumulativePoint(date=dates[last], day=days[last], plan_usd=after_resale(plan) or 0.0,
                                      cloud_only_usd=after_resale(cloud_only), buy_only_usd=after_resale(buy_only),
                                      event="resale"))
    return points
