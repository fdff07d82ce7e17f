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
from functools import cached_property
from itertools import accumulate, islice

import numpy as np
from pydantic import TypeAdapter

from solvers.base.break_even_result import CumulativePoint
from solvers.demand.periods import Period
from solvers.money.rounding import rounded

_POINTS = TypeAdapter(list[CumulativePoint])
DAY_DECIMALS = 6  # a crossing day to a millionth of a day (0.0864 s)


@dataclass(frozen=True)
class Curve:
    values: list[float]   # at each point of the shared day grid
    resale: float         # credit on the last day

    @cached_property
    def array(self) -> np.ndarray:
        """The values as doubles, made once for the curve's crossings and its chart figures."""
        return np.array(self.values, dtype=np.float64)


def curve(capex: float, running: list[float], resale: float) -> Curve:
    """The cumulative cost: capex, then each period's running cost added on in turn (`accumulate` adds the same
    running total and cost, in the same order, as a loop of `values[-1] + cost`)."""
    return Curve(list(accumulate(running, initial=capex)), resale)


_DAY = dt.timedelta(days=1)
_MONTH_ENDS: dict[dt.date, str] = {}  # a period's exclusive end -> its last day, ISO (`day_grid`)
_MONTH_ENDS_MAX = 4096


def day_grid(periods: list[Period]) -> tuple[list[float], list[str]]:
    """The chart's day grid: day 0 and each period's end, in days since the start, and the dates of its points (a
    period's last day). Why the cache of the dates: a plan's periods end on the same month ends as the plans
    before it, and a date's `isoformat` and the day before it cost some 0.7 us each (36 months: 36 -> 20 us)."""
    start = periods[0].start
    ends = [p.end for p in periods]
    origin = start.toordinal()
    days = [0.0, *[float(end.toordinal() - origin) for end in ends]]
    known = _MONTH_ENDS
    dates = [known.get(end) or _last_day(end) for end in ends]
    return days, [start.isoformat(), *dates]


def _last_day(end: dt.date) -> str:
    if len(_MONTH_ENDS) >= _MONTH_ENDS_MAX:
        _MONTH_ENDS.clear()
    text = _MONTH_ENDS[end] = (end - _DAY).isoformat()
    return text


def crossing(days: list[float], a: Curve, b: Curve) -> float | None:
    """The day from which a - b keeps the opposite sign to its sign at day 0 (the resale counted on the last day),
    to `DAY_DECIMALS`; None if it ends on the side it began. Why the lasting crossing, not the first: a purchase
    whose work ends early and whose machines keep paying fixed monthly costs gets ahead of cloud only within weeks,
    falls behind again, and is ahead at the end only by its resale; it pays off when it is sold, not on day 65."""
    day = _crossing(days, a, b)
    return None if day is None else round(day, DAY_DECIMALS)


def _crossing(days: list[float], a: Curve, b: Curve) -> float | None:
    """Where the difference first and last leaves 1e-9 is read off the curves' arrays (`Curve.array`: the same
    doubles, so the same differences and comparisons, in a few numpy calls rather than a loop of numpy scalars);
    the day itself from the values as they are, so its figure and type (a numpy scalar's rounding differs from a
    float's) are the ones the loop gave."""
    av, bv = a.values, b.values
    if len(av) != len(bv):
        raise ValueError("curves on different day grids")
    diffs = a.array - b.array
    away = np.abs(diffs) > 1e-9
    first = int(away.argmax())
    if not away[first]:
        return None
    sign = 1.0 if diffs[first] > 0 else -1.0
    final = sign * ((av[-1] - a.resale) - (bv[-1] - b.resale))
    if final > 1e-9:
        return None
    # the last point on the side it began (sign x d > 1e-9: sign is +-1, so the product is exact)
    side = (diffs > 1e-9 if sign > 0 else diffs < -1e-9)[::-1]
    last = len(av) - 1 - int(side.argmax())  # side[first] holds, so some point does
    if last == len(av) - 1:  # it crosses only with the resale
        return days[-1]
    d0, d1 = sign * (av[last] - bv[last]), sign * (av[last + 1] - bv[last + 1])
    return days[last] + (days[last + 1] - days[last]) * d0 / (d0 - d1)


def cumulative_points(days: list[float], dates: list[str], plan: Curve, cloud_only: Curve | None,
                      buy_only: Curve | None) -> list[CumulativePoint]:
    """The chart's points: each curve at every day of the grid, and after the resale when there is one. Each
    figure is `round(value, 2)` (a curve's values minus nothing, or minus its resale on the last day), rounded in
    one batch per curve (`rounding.rounded`: the same digits; `round` of a numpy scalar costs some 4 us, and a
    plan has a hundred of them here)."""
    n = len(days)

    def column(c: Curve | None) -> list[float | None]:
        return [None] * n if c is None else _rounded_values(c)

    plan_r, cloud_r, buy_r = column(plan), column(cloud_only), column(buy_only)
    rows = [{"date": date, "day": day, "plan_usd": p or 0.0, "cloud_only_usd": c, "buy_only_usd": b,
             "event": "month_end"} for date, day, p, c, b in zip(dates, days, plan_r, cloud_r, buy_r, strict=True)]
    if rows:
        rows[0]["event"] = "start"
    points = _POINTS.validate_python(rows)  # one pydantic-core call for the list: half the cost of one per point
    curves = (plan, cloud_only, buy_only)
    if any(c is not None and c.resale > 0 for c in curves):
        last = n - 1
        present = [c for c in curves if c is not None]
        # a few figures: `rounded` takes each one's `round` digits (its numpy scalars in one `np.round`)
        resold = iter(rounded([c.values[last] - c.resale for c in present], 2))
        plan_x, cloud_x, buy_x = (None if c is None else next(resold) for c in curves)
        points.append(CumulativePoint(date=dates[last], day=days[last], plan_usd=plan_x or 0.0,
                                      cloud_only_usd=cloud_x, buy_only_usd=buy_x, event="resale"))
    return points


def _rounded_values(c: Curve) -> list[float | None]:
    """`rounded(c.values, 2)`, faster for a curve as `curve` makes it from the accounts: a Python float (the
    capital) then numpy scalars (their running costs added on). `rounded` gives a numpy scalar `np.round`'s digits
    and a float or int `round`'s, so here the array's `np.round` and the first value's `round`; any other mix of
    kinds goes through `rounded` itself."""
    values = c.values
    head = values[0] if values else None
    if (type(head) is float or type(head) is int) and set(map(type, islice(values, 1, None))) == _NUMPY_FLOAT:
        out: list[float | None] = c.array.round(2).tolist()  # what `np.round(array, 2)` calls
        out[0] = round(head, 2)
        return out
    return list(rounded(values, 2))


_NUMPY_FLOAT: set[type] = {np.float64}
