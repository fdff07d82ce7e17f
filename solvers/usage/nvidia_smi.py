"""nvidia-smi logs: `nvidia-smi --query-gpu=timestamp,index,utilization.gpu --format=csv -l N`.

The header names the queried fields (`timestamp, index, utilization.gpu [%]`), then one line per
GPU per sample, e.g. `2024/05/01 12:00:00.123, 0, 87 %`. Other queried fields may be present;
`uuid` (if queried) identifies GPUs better than `index`, `name` gives the GPU model. `nounits`
output (`87`) is read too; a repeated header line (logs appended by restarts) is skipped.

Readings, each reported in the series' notes:
- timestamps are the host's local time without a zone: pass `tz` (default UTC);
- one file is one host (indices repeat across hosts; import each host's log on its own);
- `[N/A]`, `[Not Supported]` and other bracketed values are missing samples, not zeros;
- how a percentage becomes busy GPUs: see `solvers.usage.busy`; sampling gaps and overlaps: see
  `solvers.usage.binning.sample_load`.

Two readers give the same samples. The exact-layout reader handles the common case (the three
fields of the documented query, nothing else): it turns every separator into a comma so pandas'
C parser reads all eight numbers at once, with no string per sample. Anything it does not
recognise (another layout, a repeated header, an odd value, a bad line) goes to the general
reader, which reads fields as text and names the line and field of the first fault.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from dataclasses import dataclass

import numpy as np
import pandas as pd

from solvers.base.bounds import MAX_DATE, MIN_DATE
from solvers.usage.binning import FloatArray, IntArray, sample_load
from solvers.usage.busy import BUSY_THRESHOLD_PERCENT, busy_fraction, describe
from solvers.usage.errors import UsageFormatError
from solvers.usage.result import UsageSeries
from solvers.usage.span import RANGE_RULE, check_span
from solvers.usage.text import decode, read_table
from solvers.usage.timezones import UTC, check_zone, local_ns_to_unix_seconds

FORMAT = "nvidia-smi"
STANDARD_HEADERS = ("timestamp, index, utilization.gpu [%]", "timestamp, index, utilization.gpu")
MISSING_VALUES = ("[N/A]", "[Not Supported]", "[Unknown Error]", "[Insufficient Permissions]", "[GPU is lost]",
                  "[GPU requires reset]")
_TIME_FORMATS = ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S")
_NS = 1_000_000_000
_TO_COMMAS = bytes.maketrans(b" /:", b",,,")


@dataclass(frozen=True)
class _Samples:
    local_ns: IntArray   # wall-clock time on the host, ns since 1970-01-01 (no zone yet)
    gpu: IntArray        # 0..gpus-1
    gpus: int
    percent: FloatArray  # NaN where the value is missing ([N/A])
    models: tuple[str, ...]
    first_line: int      # for an all-missing log's error


def parse_nvidia_smi(data: str | bytes, tz: str = UTC,
                     busy_threshold: float | None = BUSY_THRESHOLD_PERCENT) -> UsageSeries:
    """Average busy GPUs per UTC hour from an nvidia-smi CSV log; raises UsageFormatError naming line and field."""
    tz = check_zone(tz)
    text = decode(data)
    samples = read_standard_layout(text) or read_any_layout(text)
    missing = np.isnan(samples.percent)
    keep = ~missing
    if not keep.any():
        raise UsageFormatError("utilization.gpu", "every sample is missing ([N/A])", line=samples.first_line)
    seconds = local_ns_to_unix_seconds(samples.local_ns[keep], tz)
    check_span(float(seconds.min()), float(seconds.max()), "timestamp")
    load = sample_load(seconds, samples.gpu[keep], busy_fraction(samples.percent[keep], busy_threshold))
    notes = [f"{int(keep.sum())} samples of {samples.gpus} GPUs", f"times read as {tz}"]
    if missing.any():
        notes.append(f"{int(missing.sum())} samples without a utilisation value ([N/A]) left out")
    if (gaps := int((~load.observed).sum())):
        notes.append(f"{gaps} hours without any sample (gaps, left out of the summary)")
    return UsageSeries(
        start=dt.datetime.fromtimestamp(load.first_hour * 3600, dt.UTC), busy_gpus=load.busy_gpus,
        source_format=FORMAT, observed=load.observed, gpu_count=samples.gpus, host_count=1,
        gpu_models=samples.models, busy_rule=describe(busy_threshold), notes=tuple(notes),
    )


def read_standard_layout(text: str) -> _Samples | None:
    """Samples of a log in exactly the documented three-field layout, or None to leave it to `read_any_layout`."""
    header, _, rest = text.partition("\n")
    if header.strip() not in STANDARD_HEADERS:
        return None
    body = rest.encode()
    if b"[" in body:
        for token in MISSING_VALUES:
            body = body.replace(token.encode(), b"-1")  # a sentinel no real percentage takes
    # `2024/05/01 12:00:00.123, 0, 87 %` -> `2024,05,01,12,00,00.123,,0,,87,`: one pass in C, then numbers
    # only; the fields between real ones must come out empty, so a line of another shape shows as NaN
    body = body.translate(_TO_COMMAS, b"%")
    try:
        table = pd.read_csv(io.BytesIO(body), header=None, names=range(11), quoting=csv.QUOTE_NONE, engine="c",
                            dtype=np.float64, na_filter=True, keep_default_na=False, na_values=[""],
                            index_col=False)
    except (ValueError, pd.errors.ParserError):
        return None
    numbers = table[[0, 1, 2, 3, 4, 5, 7, 9]].to_numpy()
    if table.empty or np.isnan(numbers).any() or not table[[6, 8, 10]].isna().to_numpy().all():
        return None
    if (np.floor(numbers[:, [0, 1, 2, 3, 4, 6]]) != numbers[:, [0, 1, 2, 3, 4, 6]]).any():
        return None
    year, month, day, hour, minute = (numbers[:, k].astype(np.int64) for k in range(5))
    second, index, percent = numbers[:, 5], numbers[:, 6].astype(np.int64), numbers[:, 7]
    months = (year - 1970) * 12 + (month - 1)
    first_day = months.astype("datetime64[M]").astype("datetime64[D]").astype(np.int64)
    month_days = (months + 1).astype("datetime64[M]").astype("datetime64[D]").astype(np.int64) - first_day
    # years outside the bounds go to the general reader, which names the line (year 5000 overflowed the ns clock)
    valid = ((year >= MIN_DATE.year) & (year <= MAX_DATE.year) & (month >= 1) & (month <= 12) & (day >= 1)
             & (day <= month_days) & (hour < 24) & (hour >= 0) & (minute >= 0) & (minute < 60) & (second >= 0)
             & (second < 60) & (index >= 0)
             & ((percent == -1) | ((percent >= 0) & (percent <= 100))))
    if not valid.all():
        return None
    whole = (first_day + day - 1) * 86_400 + hour * 3600 + minute * 60
    local_ns = whole * _NS + np.round(second * _NS).astype(np.int64)
    gpu, gpus = pd.factorize(index)
    return _Samples(local_ns, gpu.astype(np.int64), len(gpus), np.where(percent == -1, np.nan, percent), (), 2)


def read_any_layout(text: str) -> _Samples:
    """Samples of any nvidia-smi CSV layout, reading fields as text; raises UsageFormatError at the first fault."""
    table = read_table(text, ",", strip_spaces=True)
    names = {_bare(c): c for c in table.columns}
    for needed in ("timestamp", "utilization.gpu"):
        if needed not in names:
            raise UsageFormatError(needed, "missing from the header (--query-gpu=timestamp,index,utilization.gpu)",
                                   line=1)
    gpu_column = names.get("uuid") or names.get("gpu_uuid") or names.get("index")
    if gpu_column is None:
        raise UsageFormatError("index", "missing from the header (query index or uuid)", line=1)
    stamp, util = names["timestamp"], names["utilization.gpu"]
    table = table.loc[table[stamp] != "timestamp"]  # header repeated by an appended log
    if table.empty:
        raise UsageFormatError(stamp, "no samples after the header", line=2)
    local_ns = _timestamps(table, stamp).to_numpy(dtype="datetime64[ns]").view(np.int64)  # zone applied later
    percent = _percentages(table, util)
    gpu, gpus = _gpus(table, gpu_column, checked_as_index=gpu_column == names.get("index"))
    models = tuple(sorted(set(table[names["name"]].str.strip()))) if "name" in names else ()
    return _Samples(local_ns, gpu, gpus, percent, models, int(table.index[0]))


def _bare(column: str) -> str:
    """`utilization.gpu [%]` -> `utilization.gpu`: the field name without its unit."""
    return column.split(" [", 1)[0].strip().lower()


def _timestamps(table: pd.DataFrame, column: str) -> pd.Series:
    text = table[column]
    parsed = pd.to_datetime(text, format=_TIME_FORMATS[0], errors="coerce")
    if parsed.isna().any():  # some nvidia-smi builds print whole seconds
        parsed = parsed.fillna(pd.to_datetime(text, format=_TIME_FORMATS[1], errors="coerce"))
    bad = parsed.isna().to_numpy()
    years = parsed.dt.year.to_numpy()
    outside = ~bad & ((years < MIN_DATE.year) | (years > MAX_DATE.year))
    if bad.any() or outside.any():
        at = int(np.argmax(bad | outside))
        year = text.iloc[at].strip()[:4]
        # a year pandas cannot hold (after 2262) parses as nothing: say the bound rather than the shape
        rule = RANGE_RULE if outside[at] or (year.isdigit() and not MIN_DATE.year <= int(year) <= MAX_DATE.year) \
            else "is not a time like 2024/05/01 12:00:00.123"
        raise UsageFormatError(column, f"{text.iloc[at][:40]!r} {rule}", line=int(table.index[at]))
    return parsed


def _percentages(table: pd.DataFrame, column: str) -> FloatArray:
    """Percent per row, NaN where missing; each distinct text is read once (a log has about a hundred)."""
    codes, distinct = pd.factorize(table[column])
    values = np.empty(len(distinct))
    for i, raw in enumerate(distinct):
        value = str(raw).strip()
        if value.startswith("["):
            values[i] = np.nan
            continue
        try:
            values[i] = float(value.removesuffix("%").strip())
        except ValueError:
            values[i] = -1.0
        if not 0 <= values[i] <= 100:
            line = int(table.index[np.argmax(codes == i)])
            raise UsageFormatError(column, f"{value!r} is not a percentage from 0 to 100", line=line)
    result: FloatArray = values[codes]
    return result


def _gpus(table: pd.DataFrame, column: str, checked_as_index: bool) -> tuple[IntArray, int]:
    codes, distinct = pd.factorize(table[column].str.strip())
    if checked_as_index:
        for i, value in enumerate(distinct):
            if not str(value).isdigit():
                raise UsageFormatError(column, f"{value!r} is not a GPU index",
                                       line=int(table.index[np.argmax(codes == i)]))
    return codes.astype(np.int64), len(distinct)
