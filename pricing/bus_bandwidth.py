"""Published nccl-tests bus bandwidths (`pricing/data/nccl_allreduce.csv`, sources in `nccl_allreduce.SOURCES.md`):
the measurements the workload compiler's link fractions are fitted on (solvers/workload/comm.py). Read here, as
every bundled table is, so the planner depends on pricing for data and never reads a file itself."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True)
class MeasuredBusBandwidth:
    """One published nccl-tests bus bandwidth."""

    gpu: str
    gpus: int
    link: str
    collective: str
    busbw_gbs: float
    fit: bool
    date: str
    source: str


@lru_cache(maxsize=1)
def bundled_bus_bandwidths() -> tuple[MeasuredBusBandwidth, ...]:
    """The published bus bandwidths shipped with the package, in file order; a row without a source or date is an
    error."""
    text = resources.files("pricing").joinpath("data/nccl_allreduce.csv").read_text(encoding="utf-8")
    rows = []
    for row in csv.DictReader(text.splitlines()):
        if not row["source"].strip() or not row["date"].strip():
            raise ValueError(f"nccl_allreduce.csv: row {row['gpu']!r} needs a source and a date")
        rows.append(MeasuredBusBandwidth(gpu=row["gpu"].strip(), gpus=int(row["gpus"]), link=row["link"].strip(),
                                         collective=row["collective"].strip(), busbw_gbs=float(row["busbw_gbs"]),
                                         fit=row["fit"].strip() == "yes", date=row["date"].strip(),
                                         source=row["source"].strip()))
    return tuple(rows)
