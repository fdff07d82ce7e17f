"""Decision thresholds: the utilisation, electricity rate and cloud price at which buy vs rent flips.

"Buying pays" means some purchase beats cloud only: g(theta) = min over candidate purchases P of
cost(P, theta) - cloud_only(theta) < 0. Candidates are the plan's purchase, the buy-only
purchase and single units of the best owned options, each alone and beside the commitments of the
plan and of the cloud-only alternative. Cloud only is the cheapest way to do the work without buying
(`CloudSide`): on-demand and spot hours, and when the profile allows commitments, the reserved
instances of the cloud-only alternative or of the plan, or n instances of one commitment with n
following the scenario. Costs are on the plan's basis (solvers/model/evaluate.py). For a fixed P and a
fixed commitment count, g is monotone in each parameter (more demand or dearer cloud never makes
owning worse; dearer power never makes it better), so a bracketing search finds the flip point (`_first_true`).
At today's demand the costs are lines in the electricity rate and in the cloud price, so those two thresholds are
read off the candidates' cost lines (`cost_lines`; each answer checked on the evaluator, the search when the check
fails); the demand threshold, a screening curve per multiple, is searched.
The minimum over candidates need not be monotone in demand (whole jobs, cards slower than the reference that
carry a level's hours at one demand and not at the next: the finance example buys at 0.62-0.66 of its demand,
nothing at 0.67-0.69, and from 0.70); the search then reports one flip, not always the nearest. Other
parameters stay as in the profile; the cloud price multiplies on-demand, spot and commitment prices.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from solvers.explain.cost_lines import TIE, first_flip, lines_through
from solvers.model.evaluate import Evaluator
from solvers.model.purchases import Purchase, Scenario

MAX_USD_PER_KWH = 100.0
MAX_CLOUD_FACTOR = 100.0
_TOLERANCE = 1e-6  # the searches' last bracket, relative above 1
# the ITP method's truncation (its paper's 0.2 / the first bracket) and the steps it may take beyond bisection's
_ITP_KAPPA, _ITP_SLACK = 0.2, 3
_NOTHING = Purchase()  # cloud only
Test = Callable[[float], tuple[bool, float]]  # at a parameter: whether the test holds, and its margin in USD


@dataclass(frozen=True)
class CloudSide:
    """What buying is weighed against: fixed mixes of commitments without purchases (the empty one is on-demand
    and spot only), and commitment options whose count may follow the scenario (`Evaluator.committed_cloud`)."""

    fixed: list[Purchase] = field(default_factory=lambda: [Purchase()])
    scaled: list[str] = field(default_factory=list)

    def cost(self, evaluator: Evaluator, scenario: Scenario) -> float:
        return min(self.costs(evaluator, scenario))

    def costs(self, evaluator: Evaluator, scenario: Scenario) -> list[float]:
        """Each way of doing the work without buying, in order: the fixed mixes, then the scaled commitments."""
        return evaluator.costs(self.fixed, scenario) + [evaluator.committed_cloud(key, scenario) for key in self.scaled]


@dataclass(frozen=True)
class Thresholds:
    demand_scale: float | None
    electricity_usd_per_kwh: float | None
    cloud_price_factor: float | None


def _first_true(test: Test, lo: float, hi: float) -> float | None:
    """Smallest x in [lo, hi] with test(x)[0] true, to within 1e-6 x max(1, x), for a test monotone false->true;
    None if it is false at hi. (Where the test is not monotone, a point with the test false just below it and true
    at it, as bisection's answer is.) test(x)[1] says how far x is from the flip: a margin in USD, at most 0 where
    the test is false and at least 0 where it is true. It steers the steps by the ITP method (Oliveira and
    Takahashi, "An Enhancement of the Bisection Method Average Performance Preserving Minmax Optimality", ACM TOMS
    47(1), 2021): the regula falsi point, nudged towards the midpoint, and projected into the interval around the
    midpoint that keeps the bracket within what bisection has after `_ITP_SLACK` steps fewer, so the search never
    takes more than bisection's steps plus the slack, whatever the margin; with the Illinois weighting on the
    falsi point (Dowell and Jarratt, BIT 11, 1971: an end kept twice in a row has its margin halved), which gets
    the far end off a margin flat on one side of the flip. Why: a margin in one parameter is piecewise linear
    between jumps (rent and energy scale with the work between whole jobs), so regula falsi lands near the flip in
    a few steps where bisection takes twenty, and each step of the demand search runs the candidates on a curve of
    its own (on the 25 profiles of bench/same_output.py: 524 steps in all where bisection took 1,371, at most 14 in
    one search; both ends are asked first, as before)."""
    true_hi, f_hi = test(hi)
    if not true_hi:
        return None
    true_lo, f_lo = test(lo)
    if true_lo:
        return lo
    width = hi - lo
    kappa = _ITP_KAPPA / width
    most = math.ceil(math.log2(max(width / _TOLERANCE, 1.0))) + _ITP_SLACK  # a cap: the projection ends it sooner
    kept = 0  # +1: the last step moved hi, -1: it moved lo
    for step in range(most + 1):
        if hi - lo <= _TOLERANCE * max(1.0, hi):
            break
        mid = 0.5 * (lo + hi)
        x = mid
        if math.isfinite(f_lo) and math.isfinite(f_hi) and f_hi > f_lo:
            falsi = (lo * f_hi - hi * f_lo) / (f_hi - f_lo)
            toward_mid = 1.0 if mid >= falsi else -1.0
            nudge = kappa * (hi - lo) ** 2
            nudged = falsi + toward_mid * nudge if nudge <= abs(mid - falsi) else mid
            # after this step the bracket is at most bisection's after step + 1 - _ITP_SLACK steps
            radius = max(width * 2.0 ** (_ITP_SLACK - step - 1) - 0.5 * (hi - lo), 0.0)
            x = nudged if abs(nudged - mid) <= radius else mid - toward_mid * radius
            if not lo < x < hi:
                x = mid
        true_x, f_x = test(x)
        if true_x:
            if kept == 1:
                f_lo *= 0.5
            hi, f_hi, kept = x, f_x, 1
        else:
            if kept == -1:
                f_hi *= 0.5
            lo, f_lo, kept = x, f_x, -1
    return hi


def _margin(evaluator: Evaluator, candidates: list[Purchase], scenario: Scenario,
            cloud_side: CloudSide | None = None) -> float:
    """What buying saves over cloud only, less a tie's tolerance: positive exactly when the cheapest candidate beats
    cloud only. Where none does, a candidate whose cost to hold alone already reaches the bar is not run (each run
    is a curve of its own), so a negative margin is that of the bound: never below the true one, the same sign."""
    cloud_only = (evaluator.cost(_NOTHING, scenario) if cloud_side is None
                  else cloud_side.cost(evaluator, scenario))
    if not math.isfinite(cloud_only):
        return math.inf if any(math.isfinite(evaluator.cost(p, scenario)) for p in candidates) else -math.inf
    bar = cloud_only - TIE * max(1.0, abs(cloud_only))
    return bar - evaluator.least_cost(candidates, scenario, bar)


@dataclass(frozen=True)
class _Lines:
    """What drawing the margin's lines in one parameter takes: the evaluator, the candidates, cloud only, the
    scenario at a value of the parameter, two values to draw the lines through, and the test's side (`cost_lines`)."""

    evaluator: Evaluator
    among: list[Purchase]
    cloud_side: CloudSide | None
    scenario: Callable[[float], Scenario]
    probes: tuple[float, float]
    closed: bool  # the test holds at a margin at most 0 (buying stops paying), else above 0
    # the costs drawn per scenario, shared by lines through the same candidates and cloud side (the electricity
    # lines' first probe, the profile's rate, is the cloud-price lines' first, the listed prices)
    drawn: dict[Scenario, tuple[list[float], list[float]]] = field(default_factory=dict)

    def flip(self, lo: float, hi: float) -> float | None:
        """The first x in [lo, hi] where the test holds on the lines, or None; raises `_Bent` when the costs are
        no lines (a candidate that can do the work at one probe only)."""
        (x0, x1), evaluator = self.probes, self.evaluator
        drawn = []
        for x in (x0, x1):
            scenario = self.scenario(x)
            found = self.drawn.get(scenario)
            if found is None:
                cloud = ([evaluator.cost(_NOTHING, scenario)] if self.cloud_side is None
                         else self.cloud_side.costs(evaluator, scenario))
                found = self.drawn[scenario] = (evaluator.costs(self.among, scenario), cloud)
            drawn.append(found)
        bought = lines_through(x0, drawn[0][0], x1, drawn[1][0])
        cloud_only = lines_through(x0, drawn[0][1], x1, drawn[1][1])
        if bought is None or cloud_only is None:
            raise _Bent
        return first_flip(cloud_only, bought, lo, hi, self.closed, _TOLERANCE)


class _Bent(Exception):
    """The costs are not lines in the parameter: search instead."""


def _flip_on_lines(test: Test, lo: float, hi: float, lines: _Lines) -> float | None:
    """`_first_true(test, lo, hi)` read off the candidates' cost lines (`cost_lines`), the answer checked on the
    test itself (true there, false one tolerance below it, what the search's last bracket guarantees); the search
    when the check fails. The ends are asked first, as the search asks them."""
    if not test(hi)[0]:
        return None
    if test(lo)[0]:
        return lo
    try:
        x = lines.flip(lo, hi)
    except _Bent:
        x = None
    if x is not None and x > lo and test(x)[0] and not test(max(lo, x - _TOLERANCE * max(1.0, x)))[0]:
        return x
    return _first_true(test, lo, hi)


def find_thresholds(evaluator: Evaluator, candidates: list[Purchase], usd_per_kwh: float,
                    max_demand_scale: float, plan_buys: bool, cloud_side: CloudSide | None = None,
                    smaller: Callable[[float], list[Purchase]] | None = None,
                    least_usd_per_kwh: float = 0.0, fewer: list[Purchase] | None = None) -> Thresholds:
    """`smaller(scale)`: purchases the demand threshold weighs too at a demand multiple, after the candidates (the
    plan's at about as many fewer cards as the multiple asks). `least_usd_per_kwh`: the lowest rate the electricity
    threshold is searched from, what a tariff of 0 prices owned energy at (a carbon price's adder). `fewer`:
    purchases the electricity and cloud-price thresholds weigh too, after the candidates (the plan's at fewer
    units)."""
    committed = cloud_side is not None and (cloud_side.scaled or any(not p.empty for p in cloud_side.fixed))
    if not candidates or not (evaluator.cloud or committed):
        return Thresholds(None, None, None)

    def pays(scenario: Scenario, among: list[Purchase] = candidates) -> tuple[bool, float]:
        margin = _margin(evaluator, among, scenario, cloud_side)
        return margin > 0, margin

    at_prices = candidates + (fewer or [])

    def stops(scenario: Scenario) -> tuple[bool, float]:
        margin = _margin(evaluator, at_prices, scenario, cloud_side)
        return margin <= 0, -margin

    asked: dict[float, tuple[bool, float]] = {}

    def pays_at(scale: float) -> tuple[bool, float]:
        """Kept per multiple: the search below today's demand asks 1.0 again after the test that chose it."""
        found = asked.get(scale)
        if found is None:
            found = asked[scale] = pays(Scenario(usd_per_kwh, demand=scale),
                                        candidates + (smaller(scale) if smaller else []))
        return found

    # a plan that buys pays at today's demand, so its threshold is searched below it: the search needs buying to
    # pay at every scale above the threshold, which whole replicas of an always-on service break (one owned card
    # carries its replica's load, the next replica is rented, a larger machine pays again), and a curve at up to
    # a thousand times the demand is the dearest to evaluate
    if plan_buys and pays_at(1.0)[0]:
        demand = _first_true(pays_at, 1e-9, 1.0)
    else:
        demand = _first_true(pays_at, 1e-9, max_demand_scale)
        if plan_buys and demand is not None and demand > 1.0:
            demand = _first_true(pays_at, 1e-9, 1.0)
    # the electricity and cloud-price thresholds from the candidates' cost lines at today's demand
    rate = usd_per_kwh if usd_per_kwh > 0 else 1.0  # any positive rates draw the lines (not 0: `cost_lines`)
    by_rate = _Lines(evaluator, at_prices, cloud_side, Scenario, (rate, 2.0 * rate), True)
    among = at_prices if plan_buys else candidates
    by_price = _Lines(evaluator, among, cloud_side, lambda f: Scenario(usd_per_kwh, cloud_price=f), (1.0, 0.5), False,
                      by_rate.drawn if among is at_prices else {})
    if plan_buys:
        # above this rate buying stops paying
        electricity = _flip_on_lines(lambda r: stops(Scenario(r)), usd_per_kwh, MAX_USD_PER_KWH + least_usd_per_kwh,
                                     by_rate)
        # below this cloud-price multiple renting wins
        cloud = _flip_on_lines(lambda f: pays(Scenario(usd_per_kwh, cloud_price=f), at_prices), 0.0, 1.0, by_price)
    else:
        electricity = None
        if pays(Scenario(least_usd_per_kwh))[0]:
            electricity = _flip_on_lines(lambda r: stops(Scenario(r)), least_usd_per_kwh, usd_per_kwh, by_rate)
        cloud = _flip_on_lines(lambda f: pays(Scenario(usd_per_kwh, cloud_price=f)), 1.0, MAX_CLOUD_FACTOR, by_price)
    return Thresholds(demand, electricity, cloud)
