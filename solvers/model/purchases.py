"""A purchase held fixed and the scenario it is costed in: what the evaluator (solvers.model.evaluate) takes and
gives, and what the money and the explanations pass around (an allocation's purchase, the thresholds' candidates)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Purchase:
    units: dict[str, int] = field(default_factory=dict)   # owned option key -> units
    hosts: dict[str, int] = field(default_factory=dict)   # host name -> count (two hosts may share a size)

    @property
    def empty(self) -> bool:
        return not any(self.units.values())


@dataclass(frozen=True)
class Scenario:
    """The what-if values the decision thresholds vary: demand and cloud prices as multipliers."""

    usd_per_kwh: float
    demand: float = 1.0
    cloud_price: float = 1.0


@dataclass
class Evaluation:
    cost: float

    @property
    def feasible(self) -> bool:
        return math.isfinite(self.cost)
