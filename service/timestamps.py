"""Every timestamp the API shows: ISO 8601 in UTC with a `Z`."""

from __future__ import annotations

import datetime as dt


def iso(moment: dt.datetime) -> str:
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)
    return aware.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_or_none(moment: dt.datetime | None) -> str | None:
    return None if moment is None else iso(moment)
