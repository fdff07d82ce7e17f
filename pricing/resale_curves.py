"""The fitted resale curves (`pricing/data/resale_curves.csv`, written by `pricing/tools/fit_resale.py`).

A curve says what share of its reference new price a card of a family is worth used at an age since launch:
`level x exp(-decline_rate x age)` after it leaves the shop (1 at age 0, new). The fit's errors are in the table
and in `hardware.SOURCES.md`.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from io import StringIO

DEFAULT_FAMILY = "consumer"  # workstation cards (no used series) and cards of no family take it


@dataclass(frozen=True)
class ResaleCurve:
    family: str
    model: str
    level: float
    decline_rate: float  # per year, continuous
    loo_rmse_log: float

    def share(self, age_years: float) -> float:
        """Value used at `age_years` as a share of the new price at launch (1 at launch, new)."""
        if age_years <= 0:
            return 1.0
        return self.level * math.exp(-self.decline_rate * age_years)

    def equivalent_yearly_decline(self) -> float:
        return 1.0 - math.exp(-self.decline_rate)


def parse_curves(text: str) -> dict[str, ResaleCurve]:
    return {r["family"]: ResaleCurve(r["family"], r["model"], float(r["level"]), float(r["decline_rate"]),
                                     float(r["loo_rmse_log"]))
            for r in csv.DictReader(StringIO(text))}


@lru_cache(maxsize=1)
def bundled_curves() -> dict[str, ResaleCurve]:
    curves = parse_curves(resources.files("pricing").joinpath("data/resale_curves.csv").read_text(encoding="utf-8"))
    if DEFAULT_FAMILY not in curves:
        raise ValueError(f"resale_curves.csv has no {DEFAULT_FAMILY} curve")
    return curves


def curve_for(segment: str, curves: dict[str, ResaleCurve] | None = None) -> ResaleCurve:
    table = bundled_curves() if curves is None else curves
    return table.get(segment, table[DEFAULT_FAMILY])
