"""nvidia-smi logs: `nvidia-smi --query-gpu=timestamp,index,utilization.gpu --format=csv -l N`.

The header names the queried fields (`timestamp, index, utilization.gpu [%]`), then one line per
GPU per sample, e.g. `2024/05/01 12:00:00.123, 0, 87 %`. Other queried fields may be present;
`uuid` (if queried) identifies GPUs better than `index`, `name` gives the GPU model. `nounits`
output (`87`) is read too; a repeated header line (logs appended by restarts) is skipped.

Readings, each reported in the series' notes:
- timestamps are the host's local time without a zone: pass `tz` (default UTC);
- one file is one host (indices repeat across hosts; concatenate per-host series instead);
- `[N/A]`, `[Not Supported]` and other bracketed values are missing samples, not zeros;
- how a percentage becomes busy GPUs: see `solvers.usage.busy`; sampling gaps and overlaps: see
  `solvers.usage.binning.sample_load`.
"""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd

from solvers.usage.binning import sample_load
from solvers.usage.busy import BUSY_THRESHOLD_PERCENT, busy_fraction, describe
from solvers.usage.errors import UsageFormatError
from solvers.usage.result import UsageSeries
from solvers.usage.text import decode, read_table
from solvers.usage.timezones import UTC, check_zone, to_unix_seconds

FORMAT = "nvidia-smi"
_TIME_FORMATS = ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S")


def parse_nvidia_smi(data: str | bytes, tz: str = UTC,
                     busy_threshold: float | None = BUSY_THRESHOLD_PERCENT) -> UsageSeries:
    """Average busy GPUs per UTC hour from an nvidia-smi CSV log; raises UsageFormatError naming line and field."""
    tz = check_zone(tz)
    table = read_table(decode(data), ",", strip_spaces=True)
    names = {_bare(c): c for c in table.columns}
    for needed in ("timestamp", "utilization.gpu"):
        if needed not in names:
            raise UsageFormatError(needed, "missing from the header (--query-gpu=timestamp,index,utilization.gpu)",
                                   line=1)
    gpu_column = names.get("uuid") or names.get("gpu_uuid") or names.get("index")
    if gpu_column is None:
        raise UsageFormatError("index", "missing from the header (query index or uuid)", line=1)
    stamp, util = names["timestamp"], names["utilization.gpu"]
    table = table.loc[table[stamp].str.strip() != "timestamp"]  # header repeated by an appended log
    if table.empty:
        raise UsageFormatError(stamp, "no samples after the header", line=2)

    seconds = to_unix_seconds(_timestamps(table, stamp), tz)
    percent, missing = _percentages(table, util)
    if gpu_column == names.get("index"):
        _check_indices(table, gpu_column)
    gpu_ids, gpus = pd.factorize(table[gpu_column].str.strip())
    keep = ~missing
    if not keep.any():
        raise UsageFormatError(util, "every sample is missing ([N/A])", line=int(table.index[0]))
    load = sample_load(seconds[keep], gpu_ids[keep].astype(np.int64), busy_fraction(percent[keep], busy_threshold))
    models = tuple(sorted(set(table[names["name"]].str.strip()))) if "name" in names else ()
    notes = [f"{int(keep.sum())} samples of {len(gpus)} GPUs", f"times read as {tz}"]
    if missing.any():
        notes.append(f"{int(missing.sum())} samples without a utilisation value ([N/A]) left out")
    if (gaps := int((~load.observed).sum())):
        notes.append(f"{gaps} hours without any sample (gaps, left out of the summary)")
    return UsageSeries(
        start=dt.datetime.fromtimestamp(load.first_hour * 3600, dt.UTC), busy_gpus=load.busy_gpus,
        source_format=FORMAT, observed=load.observed, gpu_count=len(gpus), host_count=1, gpu_models=models,
        busy_rule=describe(busy_threshold), notes=tuple(notes),
    )


def _bare(column: str) -> str:
    """`utilization.gpu [%]` -> `utilization.gpu`: the field name without its unit."""
    return column.split(" [", 1)[0].strip().lower()


def _timestamps(table: pd.DataFrame, column: str) -> pd.Series:
    text = table[column].str.strip()
    parsed = pd.to_datetime(text, format=_TIME_FORMATS[0], errors="coerce")
    if parsed.isna().any():  # some nvidia-smi builds print whole seconds
        parsed = parsed.fillna(pd.to_datetime(text, format=_TIME_FORMATS[1], errors="coerce"))
    bad = parsed.isna().to_numpy()
    if bad.any():
        at = int(np.argmax(bad))
        raise UsageFormatError(column, f"{text.iloc[at]!r} is not a time like 2024/05/01 12:00:00.123",
                               line=int(table.index[at]))
    return parsed


def _percentages(table: pd.DataFrame, column: str) -> tuple[np.ndarray, np.ndarray]:
    text = table[column].str.strip()
    missing = text.str.startswith("[").to_numpy()
    number = pd.to_numeric(text.str.removesuffix("%").str.strip().where(~missing), errors="coerce").to_numpy(
        dtype=np.float64)
    bad = (np.isnan(number) & ~missing) | (number < 0) | (number > 100)
    if bad.any():
        at = int(np.argmax(bad))
        raise UsageFormatError(column, f"{text.iloc[at]!r} is not a percentage from 0 to 100",
                               line=int(table.index[at]))
    return number, missing


def _check_indices(table: pd.DataFrame, column: str) -> None:
    ok = table[column].str.strip().str.isdigit().to_numpy()
    if not ok.all():
        at = int(np.argmax(~ok))
        raise UsageFormatError(column, f"{table[column].iloc[at].strip()!r} is not a GPU index",
                               line=int(table.index[at]))
