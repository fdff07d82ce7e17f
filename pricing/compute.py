"""Per-precision compute, cache and interconnect facts per GPU (`pricing/data/gpu_compute.csv`).

Kept apart from `gpus.csv` so the price-facing GPU table keeps its columns; rows are keyed by the
canonical GPU name and every row names the rule or document each figure comes from
(`gpu_compute.SOURCES.md`).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True)
class ComputeSpec:
    """Dense (no sparsity) tensor throughput per precision plus the memory-side facts of one GPU."""

    name: str
    train_tflops: float
    fp8_tflops: float | None
    int8_tops: float | None
    l2_mb: float | None
    interconnect: str
    interconnect_gbs: float
    source: str


def _optional(cell: str) -> float | None:
    cell = cell.strip()
    return float(cell) if cell else None


def parse_compute_rows(rows: list[dict[str, str]]) -> dict[str, ComputeSpec]:
    specs: dict[str, ComputeSpec] = {}
    for row in rows:
        name = row["name"].strip()
        if name in specs:
            raise ValueError(f"GPU {name!r} is listed twice in gpu_compute.csv")
        specs[name] = ComputeSpec(
            name=name,
            train_tflops=float(row["train_tflops"]),
            fp8_tflops=_optional(row["fp8_tflops"]),
            int8_tops=_optional(row["int8_tops"]),
            l2_mb=_optional(row["l2_mb"]),
            interconnect=row["interconnect"].strip(),
            interconnect_gbs=float(row["interconnect_gbs"]),
            source=row["source"].strip(),
        )
    return specs


@lru_cache(maxsize=1)
def bundled_compute() -> dict[str, ComputeSpec]:
    """The compute facts shipped in `pricing/data/gpu_compute.csv`, by canonical GPU name."""
    text = resources.files("pricing").joinpath("data/gpu_compute.csv").read_text(encoding="utf-8")
    return parse_compute_rows(list(csv.DictReader(text.splitlines())))
