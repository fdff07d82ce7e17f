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
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

import requests
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import PydanticCustomError

from pricing.gpus import GpuTable
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.redact import redact
from pricing.sources.base import Source

REQUIRED = ("gpu", "condition")
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


def _csv_rows(text: str) -> list[dict[str, Any]]:
    """Rows as {column: cell}. A row with more or fewer cells than the header is an error: that is how a
    file cut short mid-row (or a stray comma in an unquoted name) shows up. A file cut inside its last value has
    the right number of cells, so its last row must end with a line break, as every row a spreadsheet or `csv`
    writes does: without one, a name or date cut short loaded silently (issue 31)."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    rows: list[dict[str, Any]] = []
    try:
        header = next(reader, None)
        if header is None:
            raise SourceError("price table is empty (no header row)")
        columns = [c.strip().lower() for c in header]
        for number, cells in enumerate((c for c in reader if any(cell.strip() for cell in c)), start=1):
            if len(cells) != len(columns):
                raise SourceError(f"row {number}: {len(cells)} cells but the header has {len(columns)} columns "
                                  "(file cut short or a comma in an unquoted value)")
            rows.append(dict(zip(columns, cells, strict=True)))
    except csv.Error as exc:
        raise SourceError(f"price table is not valid CSV ({exc})") from None
    if rows and not text.rstrip(" \t").endswith(("\n", "\r")):
        raise SourceError(f"row {len(rows)}: the file ends inside this row, with no line break after it (cut "
                          "short?); end every row, the last one too, with a line break")
    return rows


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


def _no_bool(value: Any) -> Any:
    """JSON true/false is not a number (pydantic would read it as 1/0)."""
    if isinstance(value, bool):
        raise ValueError("a true/false value is not a number")
    return value


def _lower(value: Any) -> Any:
    return value.lower() if isinstance(value, str) else value


# the same range as the API's dates (solvers/base/bounds.py, which pricing cannot import); checked before any zone
# arithmetic, which overflows at the calendar's edges (0001-01-01T00:00+14:00 is before year 1 in UTC)
AS_OF_YEARS = (2000, 2100)


def _as_of_in_range(value: dt.datetime | None) -> dt.datetime | None:
    if value is not None and not AS_OF_YEARS[0] <= value.year <= AS_OF_YEARS[1]:
        raise ValueError(f"as_of must be between {AS_OF_YEARS[0]} and {AS_OF_YEARS[1]}")
    return value


# a plain decimal number ("1299.5"): no currency signs or thousands separators, which are ambiguous; finite
Number = Annotated[float, BeforeValidator(_no_bool), Field(allow_inf_nan=False)]


class FeedRow(BaseModel):
    """One row of a price table, validated as pricing/sources/FEED_FORMAT.md describes it.

    Blank cells count as absent (defaults apply). Columns the format does not name are ignored.
    """

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True, coerce_numbers_to_str=True)

    gpu: str = Field(min_length=1)
    condition: Annotated[Literal["new", "used"], BeforeValidator(_lower)]
    currency: str = ""
    unit_price_usd: Number | None = None
    price: Number | None = None
    gpus_per_unit: int = Field(1, ge=1)
    includes_host: bool = False
    watts: Number | None = None
    idle_watts: Number | None = None
    as_of: Annotated[dt.datetime | None, AfterValidator(_as_of_in_range)] = Field(
        None, description="an ISO date is midnight UTC; no zone means UTC")
    name: str = ""
    vendor: str = ""
    source: str = ""

    @model_validator(mode="before")
    @classmethod
    def _blank_is_absent(cls, row: Any) -> Any:
        if isinstance(row, Mapping):
            return {k: v for k, v in row.items() if v is not None and not (isinstance(v, str) and not v.strip())}
        return row

    @model_validator(mode="after")
    def _priced_in_usd(self) -> FeedRow:
        """unit_price_usd, or price with currency USD. A currency other than USD is an error either way:
        converting would hide an exchange rate nobody chose."""
        if self.currency and self.currency.upper() != "USD":
            raise _field_error("currency", f"{self.currency!r} is not USD (convert the quote to USD first)")
        if self.unit_price_usd is None:
            if self.price is None:
                raise _field_error("unit_price_usd", "missing (give unit_price_usd, or price and currency USD)")
            if not self.currency:
                raise _field_error("currency", "missing: a `price` needs `currency` USD")
        return self

    @property
    def usd(self) -> float:
        return self.unit_price_usd if self.unit_price_usd is not None else float(self.price or 0.0)

    def observed_at(self, now: dt.datetime) -> dt.datetime:
        stamp = self.as_of
        if stamp is None:
            return now
        return stamp.replace(tzinfo=dt.UTC) if stamp.tzinfo is None else stamp.astimezone(dt.UTC)


def _field_error(field: str, message: str) -> PydanticCustomError:
    return PydanticCustomError("feed_row", "{message}", {"field": field, "message": message})


def _validated(row: Mapping[str, Any], number: int) -> FeedRow:
    """The row as a FeedRow, or a RowError naming the row and the first field at fault."""
    try:
        return FeedRow.model_validate(row)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else str((first.get("ctx") or {}).get("field", "row"))
        value = row.get(field)
        message = first["msg"] if value is None or first["type"] == "feed_row" else f"{value!r}: {first['msg']}"
        if first["type"] == "missing":
            message = "missing"
        raise RowError(number, field, message) from None


def _observation(row: FeedRow, gpu: str, *, source: str, now: dt.datetime, default_vendor: str,
                 reference: str) -> PriceObservation:
    count, vendor = row.gpus_per_unit, row.vendor or default_vendor
    default_name = (f"{gpu} ({row.condition}, {vendor})" if count == 1
                    else f"{count}x {gpu} ({row.condition}, {vendor})")
    return PriceObservation(
        source=source, kind=row.condition, gpu=gpu, gpu_count=count, name=row.name or default_name, usd=row.usd,
        observed_at=row.observed_at(now), provider=vendor, includes_host=row.includes_host, watts=row.watts,
        idle_watts=row.idle_watts, reference=row.source or reference,
    )


def parse_price_table(data: bytes, *, filename_or_content_type: str, source: str, gpus: GpuTable,
                      now: dt.datetime, default_vendor: str, reference: str | None = None) -> FetchResult:
    """Every row of a CSV/JSON price table as an observation, or a SourceError naming the first bad row.

    `filename_or_content_type` picks the format (see `detect_format`) and, unless `reference` is given, is
    the reference of rows without a `source` column. Rows are numbered from 1 (the first data row).
    """
    text = _decode(data)
    rows = _csv_rows(text) if detect_format(filename_or_content_type, data) == "csv" else _json_rows(text)
    if not rows:
        raise SourceError("price table has no rows")
    missing = [c for c in REQUIRED if c not in rows[0]]
    if missing:
        raise SourceError(f"price table lacks required column(s) {missing}; columns: {sorted(rows[0])}")
    result = FetchResult(rows_seen=len(rows))
    keys: dict[str, int] = {}
    for number, cells in enumerate(rows, start=1):
        # every field is checked before the GPU is looked up: an error fails the file even on an unknown GPU
        row = _validated(cells, number)
        gpu = gpus.canonical(row.gpu)
        observation = _observation(row, gpu or row.gpu, source=source, now=now, default_vendor=default_vendor,
                                   reference=reference or filename_or_content_type)
        if gpu is None:
            result.unknown_skus[row.gpu] += 1
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
        # the rows' default `source`, shown with every price: the URL without its credentials (query, user info,
        # a token in the path)
        return parse_price_table(data, filename_or_content_type=hint, source=self.key, gpus=gpus, now=now,
                                 default_vendor=self.default_vendor, reference=redact(url))
