"""The one place that says how far a date or a number in a request may go.

Why bounds on input that is formally valid: a plan for the year 9999 overflows the calendar when its horizon is
added, 1e308 GPU-hours become infinity in the solver's arithmetic, a 400-digit integer does not fit a C double,
and 1e-320 (a subnormal) turns a division into infinity. Each of these passed the schema and failed deep inside
the planner with a 500. The limits below are far beyond any real workload, so no real request meets them, and
they are checked where the request is read, so the answer is a 422 naming the field and the rule.

Every model of the service (the plan request, saved profiles, alert conditions, query parameters, cursors) takes
its dates and numbers from here, so the limits stay the same everywhere.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

# plans are made for the present and the near future; the oldest price the project knows is from the 2010s and
# the longest horizon is ten years, so 2000..2100 leaves room on both sides without reaching the calendar's edge
MIN_DATE = dt.date(2000, 1, 1)
MAX_DATE = dt.date(2100, 12, 31)
MIN_MONTH, MAX_MONTH = f"{MIN_DATE:%Y-%m}", f"{MAX_DATE:%Y-%m}"
_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")

# numbers: a lab buys at most tens of thousands of GPUs; a month has 744 hours
MAX_GPUS = 100_000
MAX_COUNT = 1_000_000  # quotas, instances, anything counted that is not GPUs
MAX_GPU_HOURS_PER_MONTH = 1e9  # about 1.3 million GPUs busy around the clock
MAX_USD = 1e10  # above the price of any cluster ever sold
MAX_USD_PER_HOUR = 1e6
# the smallest positive share (utilisation, availability, throughput ratio) a planner should see: below it the
# arithmetic of hours per unit goes to infinity long before the answer means anything
MIN_FRACTION = 1e-6
MIN_AVAILABILITY = 0.01  # an owned GPU usable less than 1% of hours is not a purchase option
# a price is 0 (free) or at least a millionth of a dollar: a subnormal price (1e-320) turned price ratios infinite
MIN_USD = 1e-6
# an interest rate is 0 or at least a millionth a year: below about 1e-15 a monthly rate added to 1 is 1 again, and
# the annuity formula divided by zero (issue 31)
MIN_RATE = 1e-6
# names, labels and identifiers a request brings (quote names, providers, regions, GPU spellings): a person types
# them, and the plan repeats them in its lines, so a 4 MB name became a 488 MB answer (issue 31)
MAX_NAME_CHARS = 200


def _date_in_range(value: dt.date) -> dt.date:
    if not MIN_DATE <= value <= MAX_DATE:
        raise PydanticCustomError("date_range", "date must be between {low} and {high}",
                                  {"low": MIN_DATE.isoformat(), "high": MAX_DATE.isoformat()})
    return value


def _month_in_range(value: str) -> str:
    if not _MONTH.match(value):
        raise PydanticCustomError("month_format", "month must be YYYY-MM")
    if not MIN_MONTH <= value <= MAX_MONTH:
        raise PydanticCustomError("date_range", "month must be between {low} and {high}",
                                  {"low": MIN_MONTH, "high": MAX_MONTH})
    return value


def _timestamp_in_range(value: dt.datetime) -> dt.datetime:
    """Checked on the wall-clock date before any zone arithmetic: 0001-01-01T00:00+14:00 in UTC is before year 1,
    which Python cannot represent (the conversion itself overflowed). A value without a zone is UTC."""
    if not MIN_DATE <= value.date() <= MAX_DATE:
        raise PydanticCustomError("date_range", "timestamp must be between {low} and {high}",
                                  {"low": MIN_DATE.isoformat(), "high": MAX_DATE.isoformat()})
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def _not_tiny(value: float) -> float:
    if 0 < abs(value) < MIN_USD:
        raise PydanticCustomError("too_small", "a price is 0 or at least {low} USD", {"low": f"{MIN_USD:g}"})
    return value


def _rate_not_tiny(value: float) -> float:
    if 0 < value < MIN_RATE:
        raise PydanticCustomError("too_small", "a rate is 0 or at least {low}", {"low": f"{MIN_RATE:g}"})
    return value


PlanDate = Annotated[dt.date, AfterValidator(_date_in_range)]
Month = Annotated[str, AfterValidator(_month_in_range), Field(description=f"YYYY-MM, {MIN_MONTH} to {MAX_MONTH}")]
Timestamp = Annotated[dt.datetime, AfterValidator(_timestamp_in_range)]
"""An ISO 8601 moment between the bounds, returned in UTC (a value without a zone is taken as UTC)."""

GpuCount = Annotated[int, Field(ge=0, le=MAX_GPUS)]
Count = Annotated[int, Field(ge=1, le=MAX_COUNT)]
def at_least(low: float) -> AfterValidator:
    """The smallest positive value that means anything, checked after `gt=0`: a 0 is still answered with the rule
    `greater_than` (as before the bounds), a subnormal with `greater_than_equal`."""

    def check(value: float) -> float:
        if value < low:
            raise PydanticCustomError("greater_than_equal", "Input should be greater than or equal to {ge}",
                                      {"ge": low})
        return value

    return AfterValidator(check)


Gpus = Annotated[float, Field(gt=0, le=MAX_GPUS, allow_inf_nan=False), at_least(MIN_FRACTION)]
Fraction = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False), at_least(MIN_FRACTION)]
Availability = Annotated[float, Field(gt=0, le=1, allow_inf_nan=False), at_least(MIN_AVAILABILITY)]
Ratio = Annotated[float, Field(gt=0, le=1000, allow_inf_nan=False), at_least(MIN_FRACTION)]
GpuHours = Annotated[float, Field(ge=0, le=MAX_GPU_HOURS_PER_MONTH, allow_inf_nan=False)]
Money = Annotated[float, Field(ge=0, le=MAX_USD, allow_inf_nan=False), AfterValidator(_not_tiny)]
HourlyRate = Annotated[float, Field(gt=0, le=MAX_USD_PER_HOUR, allow_inf_nan=False), at_least(MIN_USD)]
AnnualRate = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False), AfterValidator(_rate_not_tiny)]
Name = Annotated[str, Field(min_length=1, max_length=MAX_NAME_CHARS)]
"""A name or label a person types: a quote's name, a provider, a region, a GPU spelling, a source."""
OptionalName = Annotated[str, Field(max_length=MAX_NAME_CHARS)]
"""A label that may be empty or has a default (`region`, `source`)."""
