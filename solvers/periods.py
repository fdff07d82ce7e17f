"""Calendar periods of a plan and the demand in each, in reference GPU-hours.

A month's hours are its calendar hours (February 2027 has 672). Periods are calendar months
clipped to the horizon, so a horizon that starts or ends mid-month has partial first/last periods.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from solvers.errors import ProfileError
from solvers.profile import Profile, SeriesDemand, UtilisationDemand


@dataclass(frozen=True)
class Period:
    label: str          # YYYY-MM
    start: dt.date
    end: dt.date        # exclusive
    demand: float       # reference GPU-hours

    @property
    def days(self) -> int:
        return (self.end - self.start).days

    @property
    def hours(self) -> float:
        return 24.0 * self.days


def add_months(day: dt.date, months: int) -> dt.date:
    """Same day-of-month `months` later, clipped to the month's last day."""
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    last = (dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)).day
    return dt.date(year, month, min(day.day, last))


def first_of_next_month(today: dt.date) -> dt.date:
    return add_months(today.replace(day=1), 1)


def _month_start(label: str) -> dt.date:
    year, month = label.split("-")
    return dt.date(int(year), int(month), 1)


def _calendar_slices(start: dt.date, end: dt.date) -> list[tuple[str, dt.date, dt.date]]:
    slices = []
    cursor = start
    while cursor < end:
        nxt = min(add_months(cursor.replace(day=1), 1), end)
        slices.append((f"{cursor.year:04d}-{cursor.month:02d}", cursor, nxt))
        cursor = nxt
    return slices


def _horizon_end(profile: Profile, start: dt.date) -> dt.date | None:
    if profile.horizon_months is not None:
        return add_months(start, profile.horizon_months)
    if profile.horizon_days is not None:
        return start + dt.timedelta(days=profile.horizon_days)
    return None


def build_periods(profile: Profile, today: dt.date) -> list[Period]:
    """Periods over the horizon with their demand; `today` fixes the default start."""
    demand = profile.demand
    if isinstance(demand, UtilisationDemand):
        start = demand.start or first_of_next_month(today)
        end = _horizon_end(profile, start)
        assert end is not None  # the profile validator requires a horizon with this demand
        rate = demand.gpus * demand.utilisation  # reference GPU-hours per hour
        return [Period(label, a, b, rate * 24.0 * (b - a).days) for label, a, b in _calendar_slices(start, end)]
    return _series_periods(profile, demand)


def _series_periods(profile: Profile, demand: SeriesDemand) -> list[Period]:
    start = _month_start(demand.series[0].month)
    last_end = add_months(_month_start(demand.series[-1].month), 1)
    end = _horizon_end(profile, start) or last_end
    if end < last_end:
        raise ProfileError(
            "demand.series",
            "within_horizon",
            f"series month {demand.series[-1].month} lies beyond the horizon, which ends on "
            f"{end.isoformat()}; lengthen the horizon or shorten the series",
        )
    by_month = {p.month: p.reference_gpu_hours for p in demand.series}
    return [Period(label, a, b, by_month.get(label, 0.0)) for label, a, b in _calendar_slices(start, end)]
