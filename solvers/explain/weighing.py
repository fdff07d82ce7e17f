"""The decision thresholds of a plan's purchase: which purchases to weigh against cloud only (the plan's, the
buy-only one, single units, the plan's at fewer units, each beside each commitment mix) and the search over them.

In: the owned options, an evaluator of fixed purchases (solvers.model.evaluate) and the plan's purchase. Out: a
`Weighed` (the thresholds and the cloud side they weigh against)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from solvers.base.defaults import MAX_DEMAND_SCALE
from solvers.base.demand_forms import UtilisationDemand
from solvers.base.demand_units import always_on
from solvers.base.options import HostOption, Options, OwnedOption
from solvers.base.profile import Profile
from solvers.demand.blocks import Block
from solvers.explain.thresholds import CloudSide, Thresholds, find_thresholds
from solvers.model.arrays import Limits, MipSolution, Model
from solvers.model.evaluate import Evaluator
from solvers.model.purchases import Purchase, Scenario
from solvers.offers.hosting import card_capacity, cheapest_host_mix


def fitting_host(option: OwnedOption, hosts: list[HostOption]) -> HostOption | None:
    """Cheapest host that takes one unit of a bare card option (slots, PSU and the hardware-fit rule)."""
    fits = [hosts[k] for k in sorted(set(option.accepting_hosts))  # in the hosts' order, as they are listed
            if 0 <= k < len(hosts) and card_capacity(hosts[k], option) >= option.gpus_per_unit]
    return min(fits, key=lambda h: (h.host.base_cost_usd, h.host.slots), default=None)


def single_units(owned: list[OwnedOption], hosts: list[HostOption], limits: Limits) -> list[Purchase]:
    singles = []
    for o in owned:
        if o.is_commitment:
            continue
        host = None if o.includes_host else fitting_host(o, hosts)
        if not o.includes_host and host is None:
            continue
        capex = o.unit_price_usd + (host.host.base_cost_usd if host else 0.0)
        if limits.max_capex_usd is not None and capex > limits.max_capex_usd:
            continue
        if limits.max_owned_gpus is not None and o.gpus_per_unit > limits.max_owned_gpus:
            continue
        singles.append(Purchase({o.key: 1}, {host.host.name: 1} if host else {}))
    return singles


def purchases_only(owned: list[OwnedOption]) -> list[OwnedOption]:
    return [o for o in owned if not o.is_commitment]


def commitments_only(owned: list[OwnedOption]) -> list[OwnedOption]:
    return [o for o in owned if o.is_commitment]


def as_bought(purchase: Purchase, owned: list[OwnedOption]) -> Purchase:
    """The purchase without its commitments: what the break-even thresholds weigh against renting."""
    keys = {o.key for o in owned if o.is_commitment}
    return Purchase({k: n for k, n in purchase.units.items() if k not in keys}, purchase.hosts)


def solved_units(sol: MipSolution | None) -> dict[str, int] | None:
    """A solution's units, None when it has none."""
    return sol.units if sol is not None and sol.status.has_solution else None


def commitment_mixes(owned: list[OwnedOption], *solutions: dict[str, int] | None) -> list[Purchase]:
    """The commitments alone of each solution's units (the plan's, cloud only's), the empty mix first, without
    repeats: what the thresholds put beside each purchase and weigh buying against."""
    keys = {o.key for o in owned if o.is_commitment}
    mixes = [Purchase()]
    for units in solutions:
        if units is None:
            continue
        mix = Purchase({k: n for k, n in sorted(units.items()) if k in keys and n > 0})
        if mix.units and mix not in mixes:
            mixes.append(mix)
    return mixes


def _cloud_side(owned: list[OwnedOption], mixes: list[Purchase], evaluator: Evaluator, base: Scenario) -> CloudSide:
    """Cloud only for the thresholds: the fixed commitment mixes, and the three commitments cheapest on their own at
    the profile's figures with a count that may follow the scenario."""
    commits = [o.key for o in owned if o.is_commitment]
    if not commits:
        return CloudSide()
    scaled = sorted(commits, key=lambda k: (evaluator.committed_cloud(k, base), k))[:3]
    return CloudSide(mixes, scaled)


@dataclass(frozen=True)
class Weighed:
    """Decision thresholds and the cloud side they weigh buying against, with the plan purchase and commitment mixes
    they were found for: a function of these alone (and of the alternatives, the same for every purchase)."""

    purchase: Purchase
    mixes: list[Purchase]
    found: Thresholds
    cloud_side: CloudSide
    least_usd_per_kwh: float = 0.0  # the electricity rate of a tariff of 0 (`Search`)

    def holds_for(self, purchase: Purchase, mixes: list[Purchase]) -> bool:
        """Same purchase and mixes, their entries in the same order (the evaluator sums them in that order)."""
        return _entries(self.purchase) == _entries(purchase) and [_entries(m) for m in self.mixes] == [
            _entries(m) for m in mixes]


def _entries(purchase: Purchase) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    return list(purchase.units.items()), list(purchase.hosts.items())


def evaluator_for(profile: Profile, owned: list[OwnedOption], options: Options, blocks: list[Block],
               limits: Limits) -> Evaluator:
    demand = profile.demand
    waits = profile.jobs.patience != "none"
    reading = demand.reading if isinstance(demand, UtilisationDemand) else None
    if reading == "independent" and always_on(profile):
        reading = "at_once"  # a service's replicas are up together (`periods._utilisation_periods`)
    hours_scale = reading == "at_once" and not waits
    independent = None
    if reading == "independent" and not waits:  # a multiple of u: the binomial curve at that utilisation
        assert isinstance(demand, UtilisationDemand)
        independent = (demand.gpus / profile.jobs.gpus_per_job, demand.utilisation)
    return Evaluator(owned, options.cloud, options.hosts, blocks, profile.options.availability, limits.width,
                     limits.integer_instances, hours_scale, limits.weights, independent)


def start_guess(model: Model) -> tuple[dict[str, int], dict[str, int]] | None:
    """The units and hosts of the main model's MIP start, as `read_out` would list them were it the optimum (it is
    on most profiles: 29 of the 36 bench models with a start)."""
    if model.start is None:
        return None
    value = dict(zip(model.start[0].tolist(), np.round(model.start[1]).astype(int).tolist(), strict=True))
    units = {o.key: value[int(model.u[g])] for g, o in enumerate(model.owned) if value.get(int(model.u[g]), 0) > 0}
    hosts = {h.host.name: value[int(model.m[k])] for k, h in enumerate(model.hosts[: len(model.m)])
             if value.get(int(model.m[k]), 0) > 0}
    return units, hosts


@dataclass(frozen=True)
class Search:
    """Where the thresholds' searches look: the demand up to every GPU busy all the time when the demand is GPUs at
    a utilisation (else MAX_DEMAND_SCALE times it), the electricity rate from what a tariff of 0 prices owned
    energy at (the carbon price's adder per kWh, which the threshold is then stated without)."""

    max_demand_scale: float
    least_usd_per_kwh: float = 0.0


def search_range(profile: Profile, carbon_usd_per_kwh: float) -> Search:
    demand = profile.demand
    return Search(1.0 / demand.utilisation if isinstance(demand, UtilisationDemand) else MAX_DEMAND_SCALE,
                  carbon_usd_per_kwh)


@dataclass
class Fewer:
    """The plan's purchase at fewer units, each made when a demand multiple first asks for it (`fewer_units`)."""

    purchase: Purchase
    option: OwnedOption | None
    hosts: list[HostOption]
    host_cost: np.ndarray
    mixes: list[Purchase]
    made: dict[int, list[Purchase]] = field(default_factory=dict)

    @property
    def count(self) -> int:
        """The plan's units of its one option."""
        (_, count), = self.purchase.units.items()
        return count

    def at(self, scale: float) -> list[Purchase]:
        """The purchase at the units the multiple asks for (the plan's count times the multiple, rounded up) and at
        one unit fewer (the count rounded down, when it is not whole), beside each commitment mix; none at or above
        the plan's own count. Why one fewer: slower cards carry a share of a job (issue 29), and below its demand a
        plan may buy fewer than the count times the multiple: at 52% of the finance example's demand the plan buys
        five RTX PRO 6000 and rents the rest, where rounding up weighed only six, and the demand threshold read 0.53
        though the plan still buys four at 40%."""
        if self.option is None:
            return []
        n = max(1, math.ceil(self.count * scale - 1e-9))
        counts = {self._whole_jobs(n), self._whole_jobs(max(1, n - 1))}
        found: list[Purchase] = []
        for count in sorted(counts, reverse=True):
            found += [p for p in self._of(count) if p not in found]
        return found

    def below(self) -> list[Purchase]:
        """The purchase at 1, 2, 4, ... units fewer than the plan's, and at one unit (each beside each commitment
        mix). Why: dearer power or cheaper cloud makes a plan buy fewer of the same before it buys none (the bursty
        series buys three RTX 4090 at $0.15/kWh and two from about $0.30 to $0.33, where the electricity threshold
        read 0.302 weighing three); a few counts, since each is a run of its own on today's curve."""
        if self.option is None:
            return []
        count = self.count
        fewer = sorted({max(1, count - 2 ** k) for k in range(max(1, count.bit_length()))}, reverse=True)
        return [p for n in fewer for p in self._of(n)]

    def _whole_jobs(self, n: int) -> int:
        """n units rounded up to whole jobs of bare cards (machines as they are)."""
        option = self.option
        assert option is not None
        if not option.includes_host and option.width > option.gpus_per_unit:
            per_job = math.ceil(option.width / option.gpus_per_unit)
            return math.ceil(n / per_job) * per_job
        return n

    def _of(self, n: int) -> list[Purchase]:
        """The purchase at n units, in whole jobs of bare cards; none at or above the plan's own count."""
        option = self.option
        assert option is not None
        n = self._whole_jobs(n)
        if n >= self.count:
            return []
        found = self.made.get(n)
        if found is None:
            found = self.made[n] = self._made(option.key, n, option)
        return found

    def _made(self, key: str, n: int, option: OwnedOption) -> list[Purchase]:
        if option.includes_host:
            made = Purchase({key: n})
        else:
            accepting = [k for k in option.accepting_hosts if k < len(self.hosts)]
            # a job's cards sit in one host: a host holds whole jobs of them
            capacity = np.array([card_capacity(self.hosts[k], option) // option.width * option.width
                                 for k in accepting])
            mix = cheapest_host_mix(self.host_cost[accepting], capacity, n * option.gpus_per_unit)
            if mix is None:
                return []
            made = Purchase({key: n}, {self.hosts[accepting[i]].host.name: int(c) for i, c in enumerate(mix) if c})
        return _beside(made, self.mixes)


def _beside(purchase: Purchase, mixes: list[Purchase]) -> list[Purchase]:
    """The purchase beside each commitment mix (alone when there are none to put beside it)."""
    if len(mixes) <= 1:
        return [purchase]
    return [Purchase({**purchase.units, **c.units}, purchase.hosts) for c in mixes]


def fewer_units(purchase: Purchase, owned: list[OwnedOption], hosts: list[HostOption], usd_per_kwh: float,
                 hours: float, mixes: list[Purchase]) -> Fewer:
    """The plan's purchase at the units a demand multiple below one asks for: the bare cards of one option in the
    cheapest whole hosts that hold them (price and idle energy over the horizon), whole machines as they are. Why:
    below the profile's demand a plan that buys buys fewer of the same (the finance example: nine RTX PRO 6000 at
    its utilisation, seven at 70% of it), which is neither its own purchase nor one unit; without them its
    utilisation threshold read 0.59 where the plan stops buying below 0.55. Purchases of several options are
    left as they are."""
    option = None
    if len(purchase.units) == 1:
        (key,) = purchase.units
        option = next((o for o in owned if o.key == key), None)
    cost = np.array([h.host.base_cost_usd + usd_per_kwh * h.idle_kwh_per_hour * hours for h in hosts])
    return Fewer(purchase, option, hosts, cost, mixes)


def weigh(owned: list[OwnedOption], evaluator: Evaluator, limits: Limits, search: Search, plan_purchase: Purchase,
           buy_only_sol: MipSolution | None, singles: list[Purchase], mixes: list[Purchase]) -> Weighed:
    """The decision thresholds of a plan purchase: it, the buy-only purchase and the single units, each alone and
    beside each commitment mix, weighed against cloud only; for the demand threshold also the plan's purchase at
    fewer cards (`fewer_units`)."""
    candidates = [p for p in (plan_purchase, Purchase(buy_only_sol.units, buy_only_sol.hosts) if buy_only_sol
                              and buy_only_sol.status.has_solution else None) if p and not p.empty]
    candidates += singles
    fewer = fewer_units(plan_purchase, owned, list(evaluator.hosts.values()), limits.usd_per_kwh,
                         evaluator.total_hours, mixes)
    if len(mixes) > 1:  # each purchase alone and beside the plan's and cloud only's commitments
        combined = [q for p in candidates for q in _beside(p, mixes)]
        candidates = [p for i, p in enumerate(combined) if p not in combined[:i]]
    cloud_side = _cloud_side(owned, mixes, evaluator, Scenario(limits.usd_per_kwh))
    found = find_thresholds(evaluator, candidates, limits.usd_per_kwh, search.max_demand_scale,
                            not plan_purchase.empty, cloud_side, fewer.at, search.least_usd_per_kwh, fewer.below())
    return Weighed(plan_purchase, mixes, found, cloud_side, search.least_usd_per_kwh)


LOW_DEMAND = 0.05  # the demand multiple at which the thresholds also rank single units (`best_singles`)


def best_singles(singles: list[Purchase], evaluator: Evaluator, base: Scenario) -> list[Purchase]:
    """The four single units cheapest at the profile's demand, then the two cheapest at a twentieth of it. Why the
    second: the demand threshold is searched down to small multiples, where the cheapest unit to hold and run
    wins, not the cheapest per job-hour (a lab's 8 GPUs averaged down to 5% buy one used RTX 2080 Ti, which is not
    among the four best at its own demand; without it the utilisation threshold read 3.7% where the plan flips at
    3.0%; ranked by what they cost to hold alone, 3.06%)."""
    bounds = [evaluator.fixed_cost(p, base) for p in singles]
    best = cheapest_purchases(singles, 4, evaluator, base, bounds)
    rest = [i for i, p in enumerate(singles) if not any(p is b for b in best)]
    low = Scenario(base.usd_per_kwh, demand=base.demand * LOW_DEMAND)
    # what a unit costs to hold is the same at any demand (at the same rate and cloud price)
    held = [bounds[i] for i in rest] if low.cloud_price == base.cloud_price else None
    return best + cheapest_purchases([singles[i] for i in rest], 2, evaluator, low, held)


def cheapest_purchases(purchases: list[Purchase], count: int, evaluator: Evaluator,
                       scenario: Scenario, bounds: list[float] | None = None) -> list[Purchase]:
    """The `count` purchases cheapest in the scenario, in the order `sorted` by cost gives them (ties in the given
    order). Why not sort every one: each is run on the curve, while what it costs to hold (`fixed_cost`) bounds its
    cost from below; taken in that order, the ones left once the bound passes the count-th cost cannot be among
    them (strictly above it, so no tie is missed). `bounds`: those costs to hold, when already known."""
    if bounds is None:
        bounds = [evaluator.fixed_cost(p, scenario) for p in purchases]
    costs: dict[int, float] = {}
    for i in sorted(range(len(purchases)), key=lambda i: bounds[i]):
        if len(costs) >= count and bounds[i] > sorted(costs.values())[count - 1]:
            break
        costs[i] = evaluator.cost(purchases[i], scenario)
    return [purchases[i] for i in sorted(costs, key=lambda i: (costs[i], i))[:count]]
