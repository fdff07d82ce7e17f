"""Independent measured training throughput (`pricing/data/measured_throughput.csv`).

Each row is one benchmark on one GPU in one published results table; values are only comparable
within a table (same software stack, same batch-size rules), so consumers normalise per table. A row
also carries the batch size the benchmark ran at on that GPU (Lambda sizes the batch to the card's
memory), so the calibration can take the batch's effect out of the comparison.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True)
class Measurement:
    gpu: str
    workload: str
    benchmark: str
    throughput: float
    table: str
    source: str
    batch: int  # samples per step on this GPU (the table's batch-size file or config template)


@lru_cache(maxsize=1)
def bundled_measurements() -> tuple[Measurement, ...]:
    """The measurements shipped with the package, in file order."""
    text = resources.files("pricing").joinpath("data/measured_throughput.csv").read_text(encoding="utf-8")
    return tuple(
        Measurement(
            gpu=row["gpu"].strip(),
            workload=row["workload"].strip(),
            benchmark=row["benchmark"].strip(),
            throughput=float(row["throughput"]),
            table=row["table"].strip(),
            source=row["source"].strip(),
            batch=int(row["batch"]),
        )
        for row in csv.DictReader(text.splitlines())
    )
