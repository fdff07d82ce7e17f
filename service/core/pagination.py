"""Cursor pagination for lists of lab objects: newest first, stable under inserts.

The cursor is the (created_at, id) of the last item returned, so a page never repeats or skips an item when
new ones are created meanwhile (an offset would). It is opaque to clients: base64 of JSON.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
from typing import Annotated, Any, Generic, TypeVar

from fastapi import Query
from pydantic import BaseModel, Field, TypeAdapter
from sqlalchemy import Select, and_, or_

from service.core.errors import InvalidField
from service.core.timestamps import as_utc
from solvers.base.bounds import Timestamp

T = TypeVar("T")
DEFAULT_LIMIT = 50
MAX_LIMIT = 500
Limit = Annotated[int, Query(ge=1, le=MAX_LIMIT, description="items per page")]
# a cursor this API writes is base64 of about 80 bytes; anything much longer is not one of ours
MAX_CURSOR_LENGTH = 256
Cursor = Annotated[str | None, Query(max_length=MAX_CURSOR_LENGTH,
                                     description="`next_cursor` of the previous page; omit for the first page")]
# what a cursor holds, validated as data like a request body: [created_at within the date bounds, id]
_CURSOR = TypeAdapter(tuple[Timestamp, Annotated[str, Field(min_length=1, max_length=64)]])


class Page(BaseModel, Generic[T]):
    items: list[T]
    next_cursor: str | None = Field(description="pass as `cursor` for the next page; null on the last page")


def encode_cursor(created_at: dt.datetime, item_id: str) -> str:
    raw = json.dumps([as_utc(created_at).isoformat(), item_id]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[dt.datetime, str]:
    """The (created_at in UTC, id) a cursor holds. Anything else, however it is built (a timestamp beyond the
    calendar's edge, a nesting 5,000 deep, another type), is refused as a 422 like any invalid input."""
    if len(cursor) > MAX_CURSOR_LENGTH:
        raise InvalidField("cursor", "valid_cursor", "not a cursor this API returned")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        when, item_id = _CURSOR.validate_json(raw)
    except (ValueError, binascii.Error):  # ValidationError is a ValueError
        raise InvalidField("cursor", "valid_cursor", "not a cursor this API returned") from None
    return when, item_id


def newest_first(query: Select[Any], created: Any, ident: Any, cursor: str | None, limit: int) -> Select[Any]:
    """`query` ordered newest first, after `cursor`, one row more than `limit` (to know if a next page exists)."""
    if cursor is not None:
        when, last_id = decode_cursor(cursor)
        query = query.where(or_(created < when, and_(created == when, ident < last_id)))
    return query.order_by(created.desc(), ident.desc()).limit(limit + 1)


def page(items: list[T], rows: list[Any], limit: int) -> Page[T]:
    """The first `limit` items; a cursor when the query found more (`rows` carry created_at and id)."""
    if len(rows) <= limit:
        return Page[T](items=items[:limit], next_cursor=None)
    last = rows[limit - 1]
    return Page[T](items=items[:limit], next_cursor=encode_cursor(last.created_at, last.id))
