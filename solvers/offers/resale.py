"""What a purchase sells for at the horizon's end: the fitted resale curve of its card's family (issue 30).

The curve (`pricing.resale_curves`, fitted on used prices across years by `pricing/tools/fit_resale.py`) gives
a card's used value as a share of its launch price at an age since launch. A plan's resale takes the card's age
at the horizon's end:
- anchored on what the card sells for used today when that is known (the row's own price for a used card, else
  the catalog's newest used price of the card): that value moved along the curve from the card's age today to
  its age at the end;
- else on its launch price (`gpus.csv`): the curve's share at the end;
- else (data-centre parts without a launch price or a used price) on `defaults.USED_TO_NEW_RATIO` of the price
  paid, moved along the curve like a used value.
`options.resale_decline_per_year` set by the profile overrides the curve with a flat yearly decline of today's
used value (the model before issue 30). Selling fees come off; resale never exceeds the price paid.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass

from pricing.gpus import GpuSpec
from pricing.resale_curves import curve_for
from solvers.base import defaults
from solvers.base.plan_options import PlanOptions


@dataclass(frozen=True)
class Bought:
    """The fields of a purchase its resale depends on."""

    gpu: str
    condition: str
    gpus_per_unit: int
    includes_host: bool
    unit_price_usd: float


def age_years(spec: GpuSpec, day: dt.date) -> float:
    """The card's age on `day` in years since its launch month (0 when the launch is not known)."""
    if len(spec.launch_date) != 7:
        return 0.0
    launch = dt.date.fromisoformat(f"{spec.launch_date}-01")
    return max(0.0, (day - launch).days / 365.25)


def _used_today(item: Bought, used_value: Mapping[str, float]) -> float | None:
    if item.condition == "used" and item.gpus_per_unit == 1 and not item.includes_host:
        return item.unit_price_usd
    if item.gpu in used_value:
        return float(used_value[item.gpu]) * item.gpus_per_unit
    return None


def resale_usd(item: Bought, spec: GpuSpec, used_value: Mapping[str, float], years: float, start: dt.date,
               opts: PlanOptions) -> float:
    """Expected sale proceeds of one unit at the horizon's end, `years` after `start`."""
    if not opts.resale:
        return 0.0
    used = _used_today(item, used_value)
    if opts.resale_decline_per_year is not None:
        today = used if used is not None else defaults.USED_TO_NEW_RATIO * item.unit_price_usd
        value = today * (1.0 - opts.resale_decline_per_year) ** years
    else:
        curve = curve_for(spec.segment)
        now, end = age_years(spec, start), age_years(spec, start) + years
        moved = curve.share(end) / curve.share(now) if now > 0 else curve.share(end)
        if used is not None:
            value = used * moved
        elif spec.launch_price_usd is not None:
            value = spec.launch_price_usd * item.gpus_per_unit * curve.share(end)
        else:
            value = defaults.USED_TO_NEW_RATIO * item.unit_price_usd * moved
    return float(min(value * (1.0 - opts.resale_fee), item.unit_price_usd))


def equivalent_yearly_decline(segment: str = "consumer") -> float:
    """The fitted curve's decline a year, for figures that need one number (the sensitivity tornado's base)."""
    return curve_for(segment).equivalent_yearly_decline()
