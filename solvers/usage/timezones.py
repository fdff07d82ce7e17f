"""Local wall-clock timestamps (sacct, nvidia-smi) to UTC.

Neither tool writes a zone: sacct prints the cluster's local time, nvidia-smi the host's. The
caller names the zone (`tz`, an IANA name such as "Europe/Berlin"); the default is UTC, which is
right only for machines that run in UTC, so the series' notes say which zone was assumed.

At the autumn change a local hour happens twice; it is read as its first (summer-time) occurrence,
so samples of both land in one UTC hour and are averaged there like any overlap. Local times that
do not exist (the spring gap) are moved forward to the first valid time.
"""

from __future__ import annotations

import zoneinfo

import numpy as np
import pandas as pd

from solvers.usage.binning import FloatArray, IntArray
from solvers.usage.errors import UsageFormatError

UTC = "UTC"


def check_zone(tz: str) -> str:
    try:
        zoneinfo.ZoneInfo(tz)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise UsageFormatError("tz", f"unknown time zone {tz!r} (use an IANA name such as Europe/Berlin)") from None
    return tz


def local_ns_to_unix_seconds(local_ns: IntArray, tz: str) -> FloatArray:
    """Unix seconds (UTC) of naive local times given as nanoseconds since 1970-01-01 on the local clock."""
    if tz == UTC:
        seconds: FloatArray = local_ns / 1e9
        return seconds
    index = pd.DatetimeIndex(local_ns.view("datetime64[ns]"))
    index = index.tz_localize(tz, ambiguous=np.ones(len(index), dtype=bool), nonexistent="shift_forward")
    converted: FloatArray = index.asi8 / 1e9
    return converted


def to_unix_seconds(local: pd.Series, tz: str) -> FloatArray:
    """Unix seconds (UTC) of naive local datetimes; NaT stays NaN."""
    values = local.to_numpy(dtype="datetime64[ns]")
    absent = np.isnat(values)
    seconds = local_ns_to_unix_seconds(np.where(absent, 0, values.view(np.int64)), tz)
    seconds[absent] = np.nan
    return seconds
