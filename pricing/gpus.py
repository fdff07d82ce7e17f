"""GPU facts (memory, bandwidth, power, architecture) and the canonical names every price joins on.

Provider feeds spell GPU names in many ways ("NVIDIA GeForce RTX 4090", "RTX4090", "nvidia-l4");
`GpuTable.canonical` maps a spelling to exactly one canonical name or to None, never a guess.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True)
class GpuSpec:
    """One GPU model as its vendor specifies it; the source column says where each figure is from."""

    name: str
    aliases: tuple[str, ...]
    vendor: str
    architecture: str
    chip: str
    segment: str
    form_factor: str
    memory_gb: float
    memory_bandwidth_gbs: float
    tdp_w: float
    fp16_tensor_tflops: float | None
    fp8: bool
    tensor_cores: bool
    launch_date: str
    launch_price_usd: float | None
    source: str
    notes: str


def normalise_gpu_name(text: str) -> str:
    """Collapse case, spaces, dashes and underscores so trivial spelling variants compare equal."""
    return re.sub(r"[\s\-_]+", "", text.strip().lower())


def _optional_float(cell: str) -> float | None:
    cell = cell.strip()
    return float(cell) if cell else None


def _flag(cell: str) -> bool:
    return cell.strip().lower() in {"true", "yes", "1"}


def parse_gpu_rows(rows: Iterator[dict[str, str]]) -> list[GpuSpec]:
    specs: list[GpuSpec] = []
    for row in rows:
        specs.append(
            GpuSpec(
                name=row["name"].strip(),
                aliases=tuple(a.strip() for a in row.get("aliases", "").split("|") if a.strip()),
                vendor=row.get("vendor", "").strip(),
                architecture=row["architecture"].strip(),
                chip=row.get("chip", "").strip(),
                segment=row.get("segment", "").strip(),
                form_factor=row.get("form_factor", "pcie").strip() or "pcie",
                memory_gb=float(row["memory_gb"]),
                memory_bandwidth_gbs=float(row["memory_bandwidth_gbs"]),
                tdp_w=float(row["tdp_w"]),
                fp16_tensor_tflops=_optional_float(row.get("fp16_tensor_tflops", "")),
                fp8=_flag(row.get("fp8", "")),
                tensor_cores=_flag(row.get("tensor_cores", "true")),
                launch_date=row.get("launch_date", "").strip(),
                launch_price_usd=_optional_float(row.get("launch_price_usd", "")),
                source=row.get("source", "").strip(),
                notes=row.get("notes", "").strip(),
            )
        )
    return specs


class GpuTable:
    """The GPU facts with a name index that accepts any known spelling."""

    def __init__(self, specs: list[GpuSpec]) -> None:
        self.specs: dict[str, GpuSpec] = {}
        self._index: dict[str, str] = {}
        for spec in specs:
            if spec.name in self.specs:
                raise ValueError(f"GPU {spec.name!r} is listed twice")
            self.specs[spec.name] = spec
        for spec in specs:
            for spelling in (spec.name, *spec.aliases):
                key = normalise_gpu_name(spelling)
                owner = self._index.get(key)
                if owner is not None and owner != spec.name:
                    raise ValueError(f"alias {spelling!r} names both {owner!r} and {spec.name!r}")
                self._index[key] = spec.name

    def canonical(self, spelling: str) -> str | None:
        """The canonical name for a spelling, or None when the spelling names no known GPU."""
        return self._index.get(normalise_gpu_name(spelling))

    def __getitem__(self, name: str) -> GpuSpec:
        return self.specs[name]

    def __contains__(self, name: object) -> bool:
        return name in self.specs

    def __iter__(self) -> Iterator[GpuSpec]:
        return iter(self.specs.values())

    def __len__(self) -> int:
        return len(self.specs)


@lru_cache(maxsize=1)
def bundled_gpus() -> GpuTable:
    """The GPU facts shipped in `pricing/data/gpus.csv` (read once per process)."""
    text = resources.files("pricing").joinpath("data/gpus.csv").read_text(encoding="utf-8")
    return GpuTable(parse_gpu_rows(csv.DictReader(text.splitlines())))
