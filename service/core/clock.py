"""The service's clock, in one place so every timestamp it writes is timezone-aware UTC."""

from __future__ import annotations

import datetime as dt


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)
