"""Slurm accounting: `sacct --allocations --parsable2 --format=JobID,Start,End,AllocTRES,State`.

One row per job allocation, `|` between fields, a header line naming the fields (any order, other
fields allowed). GPUs come from AllocTRES (`gres/gpu=2`, with per-type totals such as
`gres/gpu:a100=2` alongside, which are the same GPUs and are not added again) or, on older
clusters, AllocGRES (`gpu:2`, `gpu:a100:2(IDX:0-1)`; the `gres/gpu:N` and `gres/gpu:type:N`
spellings are read too). Jobs without GPUs are read and left out of the load.

Readings, each reported in the series' notes:
- times are the cluster's local time without a zone: pass `tz` (default UTC);
- `End` = `Unknown` (or `None`) means the job was still running when sacct ran: it counts until
  `until`, by default the latest Start or End anywhere in the file (a pure function has no clock);
- `Start` = `Unknown`/`None` means the job never ran (pending, or cancelled while pending): no load;
- step rows (`1234.batch`, `1234.0`), which `--allocations` leaves out, are skipped if present,
  because their GPUs are the allocation's GPUs.
Each allocation then holds its GPUs for all of its run: a GPU allocated is a GPU busy, whatever its
utilisation, because nobody else could use it.
"""

from __future__ import annotations

import datetime as dt
import re

import numpy as np
import pandas as pd

from solvers.base.bounds import MAX_GPUS
from solvers.usage.binning import interval_load
from solvers.usage.errors import UsageFormatError
from solvers.usage.result import UsageSeries
from solvers.usage.span import EARLIEST_S, LATEST_S, RANGE_RULE, check_span, first_out_of_range
from solvers.usage.text import decode, read_table
from solvers.usage.timezones import UTC, check_zone, to_unix_seconds

FORMAT = "slurm"
NOT_A_TIME = frozenset({"Unknown", "None", ""})
_GPU_ENTRY = re.compile(r"(?:gres/)?gpu(?::(?P<type>[^:=]+))?[:=](?P<count>[^:=]+)")
_PARENTHESES = re.compile(r"\([^)]*\)")
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%S"


def parse_sacct(data: str | bytes, tz: str = UTC, until: dt.datetime | None = None) -> UsageSeries:
    """Average GPUs allocated per UTC hour from sacct output; raises UsageFormatError naming line and field."""
    tz = check_zone(tz)
    table = read_table(decode(data), "|", strip_spaces=False)
    columns = _columns(table)
    table = table.loc[~table[columns["JobID"]].str.contains(".", regex=False)]
    if table.empty:
        raise UsageFormatError("JobID", "no job allocations in the file", line=2)

    gpus, models = _gpu_counts(table[columns["tres"]], columns["tres"])
    start = _times(table, columns["Start"], tz)
    end = _times(table, columns["End"], tz)
    started = ~np.isnan(start)
    running = started & np.isnan(end)
    for column, times in ((columns["Start"], start), (columns["End"], end)):
        if (bad := first_out_of_range(times[~np.isnan(times)])) is not None:
            line = int(table.index[~np.isnan(times)][bad])
            raise UsageFormatError(column, f"{table.loc[line, column]!r} {RANGE_RULE}", line=line)
    known = np.concatenate([start[started], end[~np.isnan(end)]])
    if until is not None:
        if until.tzinfo is None:
            raise UsageFormatError("until", "must carry a time zone")
        horizon = until.timestamp()
        if not EARLIEST_S <= horizon < LATEST_S:
            raise UsageFormatError("until", RANGE_RULE)
    else:
        horizon = float(known.max()) if known.size else np.nan
    end = np.where(running, horizon, end)

    backwards = started & (end < start)
    if backwards.any():
        line = int(table.index[np.argmax(backwards)])
        field = "End" if not running[np.argmax(backwards)] else "until"
        raise UsageFormatError(field, "before the job's Start", line=line)

    holds = started & (gpus > 0)
    if not holds.any():
        raise UsageFormatError(columns["tres"], "no job in the file held a GPU", line=int(table.index[0]))
    _check_span(start[holds], end[holds], running[holds], table.index[holds], columns["End"], until is not None)
    load = interval_load(start[holds], end[holds], gpus[holds].astype(np.float64))
    by_width = gpu_hours_by_width(gpus[holds], end[holds] - start[holds])
    notes = [f"{int(holds.sum())} of {len(table)} allocations held GPUs"]
    if (note := width_note(by_width)) is not None:
        notes.append(note)
    if (clipped := int((running & holds).sum())):
        at = dt.datetime.fromtimestamp(horizon, dt.UTC).isoformat().replace("+00:00", "Z")
        notes.append(f"{clipped} running jobs (End Unknown) counted until {at}")
    if (never := int((~started).sum())):
        notes.append(f"{never} allocations never started (Start Unknown/None)")
    if "State" in columns:  # `CANCELLED by 1234` counts as CANCELLED
        states = table.loc[holds, columns["State"]].str.split(" ", n=1).str[0].value_counts()
        notes.append("GPU allocations by state: " + ", ".join(
            f"{k} {v}" for k, v in sorted(states.items(), key=lambda kv: (-kv[1], kv[0]))))
    notes.append(f"times read as {tz}")
    return UsageSeries(
        start=dt.datetime.fromtimestamp(load.first_hour * 3600, dt.UTC), busy_gpus=load.busy_gpus,
        source_format=FORMAT, observed=load.observed, gpu_models=tuple(sorted(models)), jobs=int(holds.sum()),
        instant_peak=float(instant_peak(start[holds], end[holds], gpus[holds])),
        busy_rule="an allocated GPU is busy for the whole allocation", notes=tuple(notes),
        gpu_hours_by_width=by_width,
    )


def _check_span(start: np.ndarray, end: np.ndarray, running: np.ndarray, lines: pd.Index, end_column: str,
                until_given: bool) -> None:
    """The allocations' hours must fit a profile before they are binned; the field at fault is `until` when running
    jobs counted until it make the span, else the End of the allocation that ends last."""
    last = int(np.argmax(end))
    if running[last] and until_given:
        check_span(float(start.min()), float(end[last]), "until")
    else:
        check_span(float(start.min()), float(end[last]), end_column, line=int(lines[last]))


def gpu_hours_by_width(gpus: np.ndarray, seconds: np.ndarray) -> tuple[tuple[int, float], ...]:
    """GPU-hours of the allocations grouped by the GPUs each held (its job width), narrowest first."""
    widths, group = np.unique(gpus.astype(np.int64), return_inverse=True)
    hours = np.bincount(group, weights=gpus * seconds / 3600.0, minlength=len(widths))
    return tuple((int(w), float(h)) for w, h in zip(widths, hours, strict=True))


def width_note(by_width: tuple[tuple[int, float], ...]) -> str | None:
    """What the hourly series leaves out when jobs held several GPUs together: it counts GPUs busy, and a plan on
    it runs jobs of `jobs.gpus_per_job` GPUs (1 unless set), so jobs that need 4 GPUs on one machine would be
    planned as four 1-GPU jobs on any four GPUs."""
    total = sum(h for _, h in by_width)
    wide = sum(h for w, h in by_width if w > 1)
    if total <= 0 or wide <= 0:
        return None
    shares = ", ".join(f"{w} GPU{'s' if w > 1 else ''} {h / total:.0%}" for w, h in by_width)
    return (f"GPU-hours by GPUs per allocation: {shares}; the hourly series counts GPUs, not jobs: set "
            "jobs.gpus_per_job to the GPUs a job needs on one machine")


def instant_peak(start_s: np.ndarray, end_s: np.ndarray, gpus: np.ndarray) -> int:
    """Most GPUs allocated at one moment: a sweep over start (+gpus) and end (-gpus) events.

    At equal times ends go first, so a job starting when another ends does not count both.
    """
    times = np.concatenate([start_s, end_s])
    change = np.concatenate([gpus, -gpus]).astype(np.int64)
    order = np.lexsort((change, times))  # by time, then decreases before increases
    return int(max(0, np.cumsum(change[order]).max()))


def _columns(table: pd.DataFrame) -> dict[str, str]:
    by_name = {c.lower(): c for c in table.columns}
    found = {}
    for name in ("JobID", "Start", "End"):
        if name.lower() not in by_name:
            raise UsageFormatError(name, "missing from the header (sacct --format=JobID,Start,End,AllocTRES,State)",
                                   line=1)
        found[name] = by_name[name.lower()]
    if "state" in by_name:
        found["State"] = by_name["state"]
    tres = by_name.get("alloctres") or by_name.get("allocgres")
    if tres is None:
        raise UsageFormatError("AllocTRES", "missing from the header (AllocTRES or AllocGRES)", line=1)
    found["tres"] = tres
    return found


def _times(table: pd.DataFrame, column: str, tz: str) -> np.ndarray:
    text = table[column]
    absent = text.isin(NOT_A_TIME).to_numpy()
    parsed = pd.to_datetime(text.where(~absent), format=_TIME_FORMAT, errors="coerce")
    bad = parsed.isna().to_numpy() & ~absent
    if bad.any():
        line = int(table.index[np.argmax(bad)])
        raise UsageFormatError(column, f"{text.iloc[np.argmax(bad)]!r} is not a time like 2024-05-01T12:00:00",
                               line=line)
    return to_unix_seconds(parsed, tz)


def _gpu_counts(tres: pd.Series, column: str) -> tuple[np.ndarray, set[str]]:
    """GPUs per row, parsing each distinct TRES string once (a cluster has few distinct ones)."""
    codes, distinct = pd.factorize(tres)
    counts = np.zeros(len(distinct), dtype=np.int64)
    models: set[str] = set()
    for i, value in enumerate(distinct):
        try:
            counts[i], types = gpus_in(str(value))
        except ValueError as exc:
            line = int(tres.index[np.argmax(codes == i)])
            raise UsageFormatError(column, str(exc), line=line) from None
        models |= types
    return counts[codes], models


def gpus_in(tres: str) -> tuple[int, set[str]]:
    """GPU count and GPU types of one AllocTRES or AllocGRES value.

    An untyped total (`gres/gpu=4`) wins over typed entries, which sacct prints as a breakdown of
    the same GPUs; without one, typed entries are added (`gpu:a100:2,gpu:v100:1` is 3).
    """
    total: int | None = None
    typed = 0
    types: set[str] = set()
    for entry in _PARENTHESES.sub("", tres).split(","):
        match = _GPU_ENTRY.fullmatch(entry.strip())
        if not match:
            continue
        count = match["count"]
        if not count.isdigit():
            raise ValueError(f"GPU count {count!r} in {entry.strip()!r} is not a whole number")
        if len(count.lstrip("0")) > 6 or int(count) > MAX_GPUS:  # 10^20 overflowed the int64 column (issue 31)
            raise ValueError(f"GPU count {count[:20]!r} in one allocation is more than {MAX_GPUS:,}")
        if match["type"]:
            typed += int(count)
            types.add(match["type"])
        else:
            total = int(count)
    return (total if total is not None else typed), types
