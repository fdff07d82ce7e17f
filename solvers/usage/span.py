"""Where a usage log's times may lie, checked before any of them is expanded into an hourly array.

Why: every parser turns its times into one value per hour from the first to the last, so the span decides the
memory. A 157-byte sacct file with a running job counted `until` 9999-12-31 expanded into 70 million hours
(33 s and 3.55 GB before its 422), and a DCGM sample at -1e12 s into 280 million hours (3 GB, then a 500); a
timestamp NaN or infinite could not become an hour at all, and nvidia-smi's year 5000 overflowed the nanosecond
clock and was read as 2077 (issue 31). A log is refused here, naming the field and where in the file, when a time
lies outside the dates every request may carry (solvers/base/bounds.py) or the log spans more hours than the longest
hourly demand a profile may hold.
"""

from __future__ import annotations

import datetime as dt

import numpy as np

from solvers.base.bounds import MAX_DATE, MIN_DATE
from solvers.base.defaults import MAX_HORIZON_DAYS
from solvers.usage.binning import SECONDS_PER_HOUR, FloatArray
from solvers.usage.errors import UsageFormatError

MAX_HOURS = 24 * MAX_HORIZON_DAYS  # the longest hourly demand a profile takes (ConcurrencyDemand.busy_gpus)
EARLIEST_S = dt.datetime.combine(MIN_DATE, dt.time(), dt.UTC).timestamp()
LATEST_S = dt.datetime.combine(MAX_DATE + dt.timedelta(days=1), dt.time(), dt.UTC).timestamp()
RANGE_RULE = f"must lie between {MIN_DATE.isoformat()} and {MAX_DATE.isoformat()}"


def first_out_of_range(seconds: FloatArray) -> int | None:
    """Index of the first Unix time that is NaN, infinite or outside the bounds, or None when all are within."""
    bad = ~((seconds >= EARLIEST_S) & (seconds < LATEST_S))  # NaN compares False both ways
    return int(np.argmax(bad)) if bad.any() else None


def check_span(first_s: float, last_s: float, field: str, *, line: int | None = None,
               path: str | None = None) -> None:
    """Refuse a log whose times, once binned by hour, would need more than `MAX_HOURS` hours."""
    hours = np.floor(last_s / SECONDS_PER_HOUR) - np.floor(first_s / SECONDS_PER_HOUR) + 1
    if hours > MAX_HOURS:
        raise UsageFormatError(field, f"the log spans {hours:,.0f} hours, more than the {MAX_HOURS:,} hours "
                               f"({MAX_HORIZON_DAYS} days) a profile's hourly demand may hold; cut it to a shorter "
                               "period", line=line, path=path)
