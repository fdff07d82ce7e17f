"""Every timestamp the API shows: ISO 8601 in UTC with a `Z`."""

from __future__ import annotations

import datetime as dt


def as_utc(moment: dt.datetime) -> dt.datetime:
    """A timestamp in UTC; one without a zone (a query parameter, a hand-made cursor) is taken as UTC."""
    return moment.replace(tzinfo=dt.UTC) if moment.tzinfo is None else moment.astimezone(dt.UTC)


def iso(moment: dt.datetime) -> str:
    return as_utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ")


def iso_or_none(moment: dt.datetime | None) -> str | None:
    return None if moment is None else iso(moment)
