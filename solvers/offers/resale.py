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

from pricing.gpus import GpuSpec
from pricing.resale_curves import curve_for
from solvers.base import defaults
from solvers.base.plan_options import PlanOptions


def age_years(spec: GpuSpec, day: dt.date) -> float:
    """The card's age on `day` in years since its launch month (0 when the launch is not known)."""
    if len(spec.launch_date) != 7:
        return 0.0
    launch = dt.date.fromisoformat(f"{spec.launch_date}-01")
    return max(0.0, (day - launch).days / 365.25)


class Resale:
    """Sale proceeds at one plan's horizon end, `years` after `start`: what depends on the card alone (its curve's
    share at the end, and the move from its age today to then) found once per GPU type, not once per quote. Why:
    200 quotes name a handful of GPU types, and these figures (two dates, two exponentials) were a tenth of the
    offers stage (issue 31). Each figure is the same float as computed per quote."""

    def __init__(self, used_value: Mapping[str, float], years: float, start: dt.date, opts: PlanOptions) -> None:
        self._used_value = used_value
        self._years = years
        self._start = start
        self._opts = opts
        self._aging: dict[str, tuple[GpuSpec, float, float]] = {}  # gpu -> (spec, moved, share at the end)

    def _aged(self, spec: GpuSpec) -> tuple[float, float]:
        found = self._aging.get(spec.name)
        if found is not None and found[0] is spec:
            return found[1], found[2]
        curve = curve_for(spec.segment)
        now = age_years(spec, self._start)
        at_end = curve.share(now + self._years)
        moved = at_end / curve.share(now) if now > 0 else at_end
        self._aging[spec.name] = (spec, moved, at_end)
        return moved, at_end

    def of(self, spec: GpuSpec, condition: str, gpus_per_unit: int, includes_host: bool,
           unit_price_usd: float) -> float:
        """Expected sale proceeds of one unit of `spec` bought in this condition and shape at this price."""
        opts = self._opts
        if not opts.resale:
            return 0.0
        used: float | None
        if condition == "used" and gpus_per_unit == 1 and not includes_host:
            used = unit_price_usd
        elif spec.name in self._used_value:
            used = float(self._used_value[spec.name]) * gpus_per_unit
        else:
            used = None
        if opts.resale_decline_per_year is not None:
            today = used if used is not None else defaults.USED_TO_NEW_RATIO * unit_price_usd
            value = today * (1.0 - opts.resale_decline_per_year) ** self._years
        else:
            moved, at_end = self._aged(spec)
            if used is not None:
                value = used * moved
            elif spec.launch_price_usd is not None:
                value = spec.launch_price_usd * gpus_per_unit * at_end
            else:
                value = defaults.USED_TO_NEW_RATIO * unit_price_usd * moved
        return float(min(value * (1.0 - opts.resale_fee), unit_price_usd))


def equivalent_yearly_decline(segment: str = "consumer") -> float:
    """The fitted curve's decline a year, for figures that need one number (the sensitivity tornado's base)."""
    return curve_for(segment).equivalent_yearly_decline()
