"""Generic hardware price feed: a CSV or JSON table of new/used GPU hardware prices and vendor quotes.

The columns are documented in pricing/sources/FEED_FORMAT.md. A lab's quote file is all or nothing: one
row with a bad condition, an unparsable number or a non-USD currency fails the whole file with the row and
field named, so a procurement decision is never made on a half-loaded quote. Rows naming a GPU the GPU
table does not know are counted in `unknown_skus` and skipped, never guessed.

`parse_price_table` is shared with `gpuplan import-prices FILE`; `FeedSource` fetches `config.url` (an
http(s) URL, a file:// URL or a local path) on the refresh schedule.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

import requests

from pricing.gpus import GpuTable
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import Source

REQUIRED = ("gpu", "condition")
CONDITIONS = ("new", "used")
TRUE = ("true", "yes", "1")
FALSE = ("false", "no", "0", "")
JSON_TYPES = ("application/json", "text/json")
CSV_TYPES = ("text/csv", "application/csv", "text/comma-separated-values")

Format = Literal["csv", "json"]


class RowError(SourceError):
    """A field of one row that cannot be trusted; the message names the row (1 = first data row)."""

    def __init__(self, row: int, field: str, problem: str) -> None:
        super().__init__(f"row {row}, field {field!r}: {problem}")


def hinted_format(hint: str) -> Format | None:
    """The format a file name (.csv/.json) or a Content-Type names, if it names one."""
    hint = hint.strip().lower()
    media_type = hint.split(";", 1)[0].strip()
    if hint.endswith(".json") or media_type in JSON_TYPES or media_type.endswith("+json"):
        return "json"
    if hint.endswith(".csv") or media_type in CSV_TYPES:
        return "csv"
    return None


def detect_format(hint: str, data: bytes) -> Format:
    """The hinted format; without a usable hint, a body starting with [ or { is JSON, anything else CSV."""
    return hinted_format(hint) or ("json" if data.lstrip()[:1] in (b"[", b"{") else "csv")


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(f"price table is not UTF-8 text ({exc})") from None


def _csv_rows(text: str) -> Iterator[dict[str, Any]]:
    """Rows as {column: cell}. A row with more or fewer cells than the header is an error: that is how a
    file cut short mid-row (or a stray comma in an unquoted name) shows up."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            raise SourceError("price table is empty (no header row)")
        columns = [c.strip().lower() for c in header]
        for number, cells in enumerate((c for c in reader if any(cell.strip() for cell in c)), start=1):
            if len(cells) != len(columns):
                raise SourceError(f"row {number}: {len(cells)} cells but the header has {len(columns)} columns "
                                  "(file cut short or a comma in an unquoted value)")
            yield dict(zip(columns, cells, strict=True))
    except csv.Error as exc:
        raise SourceError(f"price table is not valid CSV ({exc})") from None


def _json_rows(text: str) -> list[dict[str, Any]]:
    try:
        body = json.loads(text)
    except ValueError as exc:
        raise SourceError(f"price table is not valid JSON ({exc})") from None
    rows = body.get("prices") if isinstance(body, dict) else body
    if not isinstance(rows, list):
        raise SourceError('price table JSON must be a list of objects or {"prices": [...]}')
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise SourceError(f"row {number}: not a JSON object")
    return [{str(k).strip().lower(): v for k, v in row.items()} for row in rows]


def _text(row: Mapping[str, Any], field: str) -> str:
    value = row.get(field)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value).strip()


def _number(row: Mapping[str, Any], number: int, field: str) -> float | None:
    """A plain decimal number ("1299.5"); no currency signs or thousands separators, which are ambiguous."""
    value = row.get(field)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise RowError(number, field, f"{value!r} is not a number")
    try:
        parsed = float(value)
    except ValueError:
        raise RowError(number, field, f"{value!r} is not a number") from None
    if not math.isfinite(parsed):
        raise RowError(number, field, f"{value!r} is not a finite number")
    return parsed


def _price(row: Mapping[str, Any], number: int) -> float:
    """unit_price_usd, or price with currency USD. A currency other than USD is an error either way:
    converting would hide an exchange rate nobody chose."""
    currency = _text(row, "currency")
    if currency and currency.upper() != "USD":
        raise RowError(number, "currency", f"{currency!r} is not USD (convert the quote to USD first)")
    usd = _number(row, number, "unit_price_usd")
    if usd is not None:
        return usd
    price = _number(row, number, "price")
    if price is None:
        raise RowError(number, "unit_price_usd", "missing (give unit_price_usd, or price and currency USD)")
    if not currency:
        raise RowError(number, "currency", "missing: a `price` needs `currency` USD")
    return price


def _gpus_per_unit(row: Mapping[str, Any], number: int) -> int:
    count = _number(row, number, "gpus_per_unit")
    if count is None:
        return 1
    if count != int(count) or count < 1:
        raise RowError(number, "gpus_per_unit", f"{row.get('gpus_per_unit')!r} is not a whole number >= 1")
    return int(count)


def _flag(row: Mapping[str, Any], number: int, field: str) -> bool:
    text = _text(row, field).lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise RowError(number, field, f"{row.get(field)!r} is not true/false")


AS_OF_YEARS = (2000, 2100)


def _as_of(row: Mapping[str, Any], number: int, now: dt.datetime) -> dt.datetime:
    """An ISO date means midnight UTC of that day; a date-time without zone is taken as UTC."""
    text = _text(row, "as_of")
    if not text:
        return now
    try:
        stamp = dt.datetime.fromisoformat(text)
    except ValueError:
        raise RowError(number, "as_of", f"{text!r} is not an ISO date (YYYY-MM-DD)") from None
    # checked before any zone arithmetic, which overflows at the calendar's edges (0001-01-01T00:00+14:00);
    # the same range as the API's dates (solvers/bounds.py, which pricing cannot import)
    if not AS_OF_YEARS[0] <= stamp.year <= AS_OF_YEARS[1]:
        raise RowError(number, "as_of", f"{text!r} is not between {AS_OF_YEARS[0]} and {AS_OF_YEARS[1]}")
    return stamp.replace(tzinfo=dt.UTC) if stamp.tzinfo is None else stamp.astimezone(dt.UTC)


def _condition(row: Mapping[str, Any], number: int) -> Literal["new", "used"]:
    text = _text(row, "condition").lower()
    if not text:
        raise RowError(number, "condition", "missing (new or used)")
    if text == "new":
        return "new"
    if text == "used":
        return "used"
    raise RowError(number, "condition", f"{row.get('condition')!r} is not new or used")


def _observation(row: Mapping[str, Any], number: int, gpu: str, *, source: str, now: dt.datetime,
                 default_vendor: str, reference: str) -> PriceObservation:
    condition = _condition(row, number)
    usd = _price(row, number)
    count = _gpus_per_unit(row, number)
    vendor = _text(row, "vendor") or default_vendor
    default_name = f"{gpu} ({condition}, {vendor})" if count == 1 else f"{count}x {gpu} ({condition}, {vendor})"
    return PriceObservation(
        source=source, kind=condition, gpu=gpu, gpu_count=count, name=_text(row, "name") or default_name,
        usd=usd, observed_at=_as_of(row, number, now), provider=vendor,
        includes_host=_flag(row, number, "includes_host"), watts=_number(row, number, "watts"),
        idle_watts=_number(row, number, "idle_watts"), reference=_text(row, "source") or reference,
    )


def parse_price_table(data: bytes, *, filename_or_content_type: str, source: str, gpus: GpuTable,
                      now: dt.datetime, default_vendor: str, reference: str | None = None) -> FetchResult:
    """Every row of a CSV/JSON price table as an observation, or a SourceError naming the first bad row.

    `filename_or_content_type` picks the format (see `detect_format`) and, unless `reference` is given, is
    the reference of rows without a `source` column. Rows are numbered from 1 (the first data row).
    """
    text = _decode(data)
    rows = list(_csv_rows(text)) if detect_format(filename_or_content_type, data) == "csv" else _json_rows(text)
    if not rows:
        raise SourceError("price table has no rows")
    missing = [c for c in REQUIRED if c not in rows[0]]
    if missing:
        raise SourceError(f"price table lacks required column(s) {missing}; columns: {sorted(rows[0])}")
    result = FetchResult(rows_seen=len(rows))
    keys: dict[str, int] = {}
    for number, row in enumerate(rows, start=1):
        spelling = _text(row, "gpu")
        if not spelling:
            raise RowError(number, "gpu", "missing")
        gpu = gpus.canonical(spelling)
        # every field is checked before the GPU is looked up: an error fails the file even on an unknown GPU
        observation = _observation(row, number, gpu or spelling, source=source, now=now,
                                   default_vendor=default_vendor, reference=reference or filename_or_content_type)
        if gpu is None:
            result.unknown_skus[spelling] += 1
            continue
        first = keys.setdefault(observation.key(), number)
        if first != number:
            raise SourceError(f"rows {first} and {number} price the same offer ({observation.name!r}, "
                              f"{observation.provider}); give them different names")
        result.observations.append(observation)
    if not result.observations:
        raise SourceError(f"price table names no known GPU (unknown: {sorted(result.unknown_skus)})")
    return result


def read_feed_file(location: str) -> tuple[bytes, str]:
    """The bytes of a local feed (a path or a file:// URL) and its file name."""
    path = Path(url2pathname(unquote(urlsplit(location).path))) if location.startswith("file:") \
        else Path(location).expanduser()
    try:
        return path.read_bytes(), path.name
    except OSError as exc:
        raise SourceError(f"cannot read price feed file {str(path)!r}: {exc.strerror or exc}") from None


class FeedSource(Source):
    key: ClassVar[str] = "feed"
    kind: ClassVar[Literal["cloud", "hardware"]] = "hardware"
    supersedes: ClassVar[str | None] = None
    default_base_url: ClassVar[str] = ""
    default_interval_hours: ClassVar[float] = 24.0
    credentials: ClassVar[tuple[str, ...]] = ("url",)
    description: ClassVar[str] = (
        "Generic CSV/JSON feed of new/used GPU hardware prices or vendor quotes (columns in "
        "pricing/sources/FEED_FORMAT.md); url = an http(s) URL, a file:// URL or a local path."
    )
    default_vendor: ClassVar[str] = "feed"

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        url = self.config.url
        if not url:
            raise SourceError("feed: no url configured")
        if url.lower().startswith(("http://", "https://")):
            response = http.get(url, headers={"Accept": "text/csv, application/json;q=0.9, */*;q=0.5"})
            response.raise_for_status()
            data = response.content
            content_type = response.headers.get("Content-Type", "")
            # text/plain or application/octet-stream say nothing: then the URL's .csv/.json does
            hint = content_type if hinted_format(content_type) else urlsplit(url).path
        else:
            data, hint = read_feed_file(url)
        return parse_price_table(data, filename_or_content_type=hint, source=self.key, gpus=gpus, now=now,
                                 default_vendor=self.default_vendor, reference=url)
