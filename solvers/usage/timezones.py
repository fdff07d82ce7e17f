"""Local wall-clock timestamps (sacct, nvidia-smi) to UTC.

Neither tool writes a zone: sacct prints the cluster's local time, nvidia-smi the host's. The
caller names the zone (`tz`, an IANA name such as "Europe/Berlin"); the default is UTC, which is
right only for machines that run in UTC, so the CLI says which zone it assumed.

At the autumn change a local hour happens twice; it is read as its first (summer-time) occurrence,
so samples of both land in one UTC hour and are averaged there like any overlap. Local times that
do not exist (the spring gap) are moved forward to the first valid time.
"""

from __future__ import annotations

import zoneinfo

import numpy as np
import pandas as pd

from solvers.usage.binning import FloatArray
from solvers.usage.errors import UsageFormatError

UTC = "UTC"


def check_zone(tz: str) -> str:
    try:
        zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise UsageFormatError("tz", f"unknown time zone {tz!r} (use an IANA name such as Europe/Berlin)") from None
    return tz


def to_unix_seconds(local: pd.Series, tz: str) -> FloatArray:
    """Unix seconds (UTC) of naive local datetimes; NaT stays NaN."""
    index = pd.DatetimeIndex(local)
    if tz != UTC:
        index = index.tz_localize(tz, ambiguous=np.ones(len(index), dtype=bool), nonexistent="shift_forward")
    else:
        index = index.tz_localize(UTC)
    seconds: FloatArray = index.as_unit("ns").asi8.astype(np.float64) / 1e9
    seconds[index.isna()] = np.nan
    return seconds
