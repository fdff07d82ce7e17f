"""Published per-GPU throughput ratios between two systems (`pricing/data/measured_ratios.csv`).

Why a second file beside `measured_throughput.csv`: the GPUs it covers (AMD Instinct, H200, B200) were never
run in one results table with the single-GPU benchmarks, and MLPerf rounds rarely hold both GPUs of a
comparison (no H100 LoRA result in v5.0). What is published is a system's throughput against another
system's in the same benchmark, each with its own round and source, so a row is one comparison and the
quantity the model can be held to is the per-GPU ratio. Client cards (RTX 5090) are compared on one machine in
vision benchmarks; `model_kind` says what a row measured, because an LLM fine-tune and a vision model do not speak
for the same things (the workload compiler's LLM training fraction reads only `llm` rows).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

MODEL_KINDS = ("llm", "vision")


@dataclass(frozen=True)
class RatioMeasurement:
    gpu: str
    reference: str
    workload: str  # the class the comparison speaks to (whether it is used depends on the precisions)
    benchmark: str
    model_kind: str  # what was trained or served: `llm` or `vision` (MODEL_KINDS)
    scenario: str
    precision: str  # what `gpu` ran in (fp8, bf16, fp4, ...)
    reference_precision: str
    gpus: int  # accelerators in the measured system
    reference_gpus: int
    value: float  # the system's throughput, in `metric`
    reference_value: float
    metric: str
    date: str
    reference_date: str
    source: str
    reference_source: str

    @property
    def ratio(self) -> float:
        """Per-GPU throughput of `gpu` over `reference`: each system's value divided by its GPU count."""
        return (self.value / self.gpus) / (self.reference_value / self.reference_gpus)


def parse_ratio_rows(rows: list[dict[str, str]]) -> tuple[RatioMeasurement, ...]:
    parsed = []
    for row in rows:
        m = RatioMeasurement(
            gpu=row["gpu"].strip(), reference=row["reference"].strip(), workload=row["workload"].strip(),
            benchmark=row["benchmark"].strip(), model_kind=row["model_kind"].strip().lower(),
            scenario=row["scenario"].strip(),
            precision=row["precision"].strip().lower(), reference_precision=row["reference_precision"].strip().lower(),
            gpus=int(row["gpus"]), reference_gpus=int(row["reference_gpus"]), value=float(row["value"]),
            reference_value=float(row["reference_value"]), metric=row["metric"].strip(), date=row["date"].strip(),
            reference_date=row["reference_date"].strip(), source=row["source"].strip(),
            reference_source=row["reference_source"].strip())
        if m.gpu == m.reference or min(m.gpus, m.reference_gpus) < 1 or min(m.value, m.reference_value) <= 0:
            raise ValueError(f"measured_ratios.csv: bad row {m.gpu!r} vs {m.reference!r}")
        if m.model_kind not in MODEL_KINDS:
            raise ValueError(f"measured_ratios.csv: {m.gpu!r} vs {m.reference!r}: model_kind {m.model_kind!r} is not "
                             f"one of {MODEL_KINDS}")
        if not (m.source and m.reference_source and m.date and m.reference_date):
            raise ValueError(f"measured_ratios.csv: {m.gpu!r} vs {m.reference!r} lacks a source or date")
        parsed.append(m)
    return tuple(parsed)


@lru_cache(maxsize=1)
def bundled_ratios() -> tuple[RatioMeasurement, ...]:
    """The ratio measurements shipped with the package, in file order."""
    text = resources.files("pricing").joinpath("data/measured_ratios.csv").read_text(encoding="utf-8")
    return parse_ratio_rows(list(csv.DictReader(text.splitlines())))
