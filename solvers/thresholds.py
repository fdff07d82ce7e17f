"""Decision thresholds: the utilisation, electricity rate and cloud price at which buy vs rent flips.

"Buying pays" means some purchase beats cloud only: g(theta) = min over candidate purchases P of
cost(P, theta) - cloud_only(theta) < 0. Candidates are the plan's purchase, the buy-only
purchase and single units of the best owned options, each alone and beside the commitments of the
plan and of the cloud-only alternative. Cloud only is the cheapest way to do the work without buying
(`CloudSide`): on-demand and spot hours, and when the profile allows commitments, the reserved
instances of the cloud-only alternative or of the plan, or n instances of one commitment with n
following the scenario. Costs are on the plan's basis (solvers/evaluate.py). For a fixed P and a
fixed commitment count, g is monotone in each parameter (more demand or dearer cloud never makes
owning worse; dearer power never makes it better), so bisection finds the flip point. Other
parameters stay as in the profile; the cloud price multiplies on-demand, spot and commitment prices.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from solvers.evaluate import Evaluator, Purchase, Scenario

MAX_USD_PER_KWH = 100.0
MAX_CLOUD_FACTOR = 100.0
MAX_DEMAND_SCALE = 1000.0
_ITERATIONS = 48
_NOTHING = Purchase()  # cloud only


@dataclass(frozen=True)
class CloudSide:
    """What buying is weighed against: fixed mixes of commitments without purchases (the empty one is on-demand
    and spot only), and commitment options whose count may follow the scenario (`Evaluator.committed_cloud`)."""

    fixed: list[Purchase] = field(default_factory=lambda: [Purchase()])
    scaled: list[str] = field(default_factory=list)

    def cost(self, evaluator: Evaluator, scenario: Scenario) -> float:
        best = min(evaluator.cost(p, scenario) for p in self.fixed)
        for key in self.scaled:
            best = min(best, evaluator.committed_cloud(key, scenario))
        return best


@dataclass(frozen=True)
class Thresholds:
    demand_scale: float | None
    electricity_usd_per_kwh: float | None
    cloud_price_factor: float | None


def _first_true(pred: Callable[[float], bool], lo: float, hi: float) -> float | None:
    """Smallest x in [lo, hi] with pred(x) true, for pred monotone false->true; None if pred(hi) is false."""
    if not pred(hi):
        return None
    if pred(lo):
        return lo
    for _ in range(_ITERATIONS):
        mid = 0.5 * (lo + hi)
        if pred(mid):
            hi = mid
        else:
            lo = mid
        if hi - lo <= 1e-6 * max(1.0, hi):
            break
    return hi


def _buying_pays(evaluator: Evaluator, candidates: list[Purchase], scenario: Scenario,
                 cloud_side: CloudSide | None = None) -> bool:
    """Whether the cheapest candidate beats cloud-only; stops at the first candidate that does (a bisection
    asks this some hundred times a plan, and the answer, not the minimum, is all it needs)."""
    cloud_only = (evaluator.cost(_NOTHING, scenario) if cloud_side is None
                  else cloud_side.cost(evaluator, scenario))
    if not math.isfinite(cloud_only):
        return any(math.isfinite(evaluator.cost(p, scenario)) for p in candidates)
    bar = cloud_only - 1e-6 * max(1.0, abs(cloud_only))
    return any(evaluator.costs_less(p, scenario, bar) for p in candidates)


def find_thresholds(evaluator: Evaluator, candidates: list[Purchase], usd_per_kwh: float,
                    max_demand_scale: float, plan_buys: bool, cloud_side: CloudSide | None = None,
                    smaller: Callable[[float], list[Purchase]] | None = None,
                    least_usd_per_kwh: float = 0.0) -> Thresholds:
    """`smaller(scale)`: purchases the demand threshold weighs too at a demand multiple, after the candidates (the
    plan's at about as many fewer cards as the multiple asks). `least_usd_per_kwh`: the lowest rate the electricity
    threshold is searched from, what a tariff of 0 prices owned energy at (a carbon price's adder)."""
    committed = cloud_side is not None and (cloud_side.scaled or any(not p.empty for p in cloud_side.fixed))
    if not candidates or not (evaluator.cloud or committed):
        return Thresholds(None, None, None)

    def pays(scenario: Scenario, among: list[Purchase] = candidates) -> bool:
        return _buying_pays(evaluator, among, scenario, cloud_side)

    def pays_at(scale: float) -> bool:
        return pays(Scenario(usd_per_kwh, demand=scale), candidates + (smaller(scale) if smaller else []))

    # a plan that buys pays at today's demand, so its threshold is searched below it: the bisection needs buying to
    # pay at every scale above the threshold, which whole replicas of an always-on service break (one owned card
    # carries its replica's load, the next replica is rented, a larger machine pays again), and a curve at up to
    # a thousand times the demand is the dearest to evaluate
    if plan_buys and pays_at(1.0):
        demand = _first_true(pays_at, 1e-9, 1.0)
    else:
        demand = _first_true(pays_at, 1e-9, max_demand_scale)
        if plan_buys and demand is not None and demand > 1.0:
            demand = _first_true(pays_at, 1e-9, 1.0)
    if plan_buys:
        # above this rate buying stops paying
        electricity = _first_true(lambda r: not pays(Scenario(r)), usd_per_kwh, MAX_USD_PER_KWH + least_usd_per_kwh)
        # below this cloud-price multiple renting wins
        cloud = _first_true(lambda f: pays(Scenario(usd_per_kwh, cloud_price=f)), 0.0, 1.0)
    else:
        electricity = None
        if pays(Scenario(least_usd_per_kwh)):
            electricity = _first_true(lambda r: not pays(Scenario(r)), least_usd_per_kwh, usd_per_kwh)
        cloud = _first_true(lambda f: pays(Scenario(usd_per_kwh, cloud_price=f)), 1.0, MAX_CLOUD_FACTOR)
    return Thresholds(demand, electricity, cloud)
