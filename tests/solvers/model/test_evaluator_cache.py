"""The thresholds' evaluator keeps a purchase's fixed cost, energy order and operation per purchase and electricity
rate (solvers/model/evaluate.py, `_at_rate`), and each block's active hours and each option's capacity per demand scale
and
count: every cost it answers must be the float the uncached formula gives, in any order of questions, for purchases
with and without commitments, on the nominal and the present-value basis."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest

from pricing.catalog import bundled_catalog
from service.plans.examples import FINANCE_EXAMPLE
from solvers.base.options import unit_cost_of
from solvers.base.profile import Profile
from solvers.explain.weighing import commitment_mixes, evaluator_for, single_units, solved_units
from solvers.model.evaluate import Evaluator, _slots
from solvers.model.layers import screening, slot_grid
from solvers.model.purchases import Purchase, Scenario
from solvers.plan import solve_core
from tests.conftest import TODAY

SERIES: dict[str, Any] = {
    "workload": "transformer_training",
    "min_gpu_memory_gb": 24,
    "demand": {"reference_gpu": "RTX 3090",
               "series": [{"month": f"{2027 + m // 12}-{m % 12 + 1:02d}",
                           "reference_gpu_hours": 1500 + 400 * (m % 5) + (3000 if m % 12 in (2, 10) else 0)}
                          for m in range(36)]},
    "electricity_usd_per_kwh": 0.15,
    "options": {"allow_spot": True},
}
DISCOUNTED = {**SERIES, "options": {"allow_spot": True, "discount_rate": 0.1,
                                     "cloud_data": {"dataset_gb": 500, "storage_usd_per_gb_month": 0.02}}}


def _uncached(ev: Evaluator, purchase: Purchase, scenario: Scenario) -> float:
    """The evaluator's cost as it was computed before the cache, step by step (its `_operation` is shared)."""
    rate, w = scenario.usd_per_kwh, ev.weights
    cost = 0.0
    for key, n in purchase.units.items():
        o = ev.owned[key]
        if o.is_commitment:
            cost += n * unit_cost_of(o, rate, ev.total_hours, w) * scenario.cloud_price
        elif w is None and not o.opex_usd_per_unit_hour:
            cost += n * (o.net_price_usd + o.idle_kwh_per_unit_hour * rate * ev.total_hours)
        else:
            cost += n * unit_cost_of(o, rate, ev.total_hours, w)
    for name, n in purchase.hosts.items():
        h = ev.hosts[name]
        if w is None:
            cost += n * (h.host.base_cost_usd + h.idle_kwh_per_hour * rate * ev.total_hours)
        else:
            cost += n * (h.host.base_cost_usd * w.capex + rate * h.idle_kwh_per_hour * w.hours)
    if w is not None and w.fixed_owned_usd and any(n > 0 and not ev.owned[k].is_commitment
                                                   for k, n in purchase.units.items()):
        cost += w.fixed_owned_usd
    owned = sorted(((ev.owned[k].usd_per_job_hour(rate), k, n) for k, n in purchase.units.items() if n > 0),
                   key=lambda t: (t[0], t[1]))
    operation = _operation(ev, tuple((k, n) for _, k, n in owned), scenario.demand)
    if operation is None:
        return math.inf
    rent, taken_hours, moved_hours, packed, short = operation
    cost += scenario.cloud_price * rent
    for (energy, _, _), taken in zip(owned, taken_hours, strict=True):
        cost += energy * taken
    if packed:
        cost += scenario.cloud_price * packed
    if short or not math.isfinite(cost):
        return math.inf
    if w is not None and w.fixed_cloud_usd and (
            rent > 0 or any(m > 1e-9 for m in moved_hours)
            or any(n > 0 and ev.owned[k].is_commitment for k, n in purchase.units.items())):
        cost += w.fixed_cloud_usd
    return cost


def _operation(ev: Evaluator, units: tuple[tuple[str, int], ...],
               demand: float) -> tuple[float, list[float], list[float], float, bool] | None:
    """The evaluator's operation as it was computed before its per-demand and per-option figures were kept: the
    most owned slots at work that leave no work short (every slot if none does)."""
    slots = {k: _slots(ev.owned[k], n, ev.owned[k].width) for k, n in units}
    cells, peak = ev._cells_at(demand)
    max_slots = min(peak, math.floor(sum(slots.values()) + 1e-9))
    layers = screening(cells, len(ev.blocks), ev._renting_for(peak), 0.0, slot_grid(max_slots), ev._block_weight)
    if not math.isfinite(float(layers.rent[-1])):
        return None
    first = None
    for column in range(len(layers.ks) - 1, -1, -1):
        if not math.isfinite(float(layers.rent[column])):
            break
        found = _at_column(ev, units, slots, cells, layers, column)
        first = first or found
        if not found[-1]:
            return found
    return first


def _at_column(ev: Evaluator, units: tuple[tuple[str, int], ...], slots: dict[str, float], cells: Any, layers: Any,
               column: int) -> tuple[float, list[float], list[float], float, bool]:
    bw = ev._block_weight
    work = layers.owned_hours[:, column]
    active = np.bincount(cells.block, weights=np.where(cells.jobs > 1e-9, cells.hours, 0.0), minlength=len(ev.blocks))
    taken = []
    room = {}
    for key, _ in units:
        o = ev.owned[key]
        take = np.minimum(work, np.minimum(ev._availability(o) * ev._block_hours * slots[key] * o.throughput,
                                           active * slots[key]))
        taken.append(float(take.sum() if bw is None else (take * bw).sum()))
        room[key] = active * slots[key] - take  # what the slots still hold in the hours with jobs
        work = work - take
    moved = []
    packing = np.zeros(len(ev.blocks))
    for key, _ in units:
        o = ev.owned[key]
        maintained = (1 - ev._availability(o)) * ev._block_hours * slots[key] * o.throughput
        if o.throughput < 1.0:  # a slower card's overrun beyond its idle hours (model.overrun_share)
            maintained = maintained + (1 - o.throughput) * ev._block_hours * slots[key]
        take = np.minimum(work, np.minimum(maintained, room[key]))
        moved.append(float(take.sum() if bw is None else (take * bw).sum()))
        packing = packing + take
        work = work - take
    packed = ev.packing_usd(packing, cells, layers, column=column) if packing.max(initial=0.0) > 1e-9 else 0.0
    return (float(layers.rent[column]), taken, moved, packed,
            float(work.max(initial=0.0)) > 1e-6 or not math.isfinite(packed))


@pytest.mark.parametrize("body", [SERIES, DISCOUNTED, FINANCE_EXAMPLE], ids=["nominal", "discounted", "finance"])
def test_the_cached_evaluator_answers_the_uncached_floats(body: dict[str, Any]) -> None:
    core = solve_core(Profile.model_validate(body), bundled_catalog(), TODAY)
    def make() -> Evaluator:
        return evaluator_for(core.profile, core.owned, core.options, core.blocks, core.limits)

    cached, reference = make(), make()
    purchases = [Purchase(core.main.units, core.main.hosts), Purchase()]
    purchases += single_units(core.owned, core.options.hosts, core.limits)
    commits = [Purchase({o.key: n}) for o in core.owned if o.is_commitment for n in (0, 2)][:6]
    purchases += [Purchase({**p.units, **m.units}, p.hosts) for p in purchases[:3]
                  for m in commitment_mixes(core.owned, solved_units(core.main)) + commits]
    assert any(not p.empty for p in purchases)
    rng = random.Random(7)
    rates = [0.0, core.limits.usd_per_kwh, 0.31, 2.5] + [rng.uniform(0.01, 1.0) for _ in range(4)]
    scenarios = [Scenario(r, d, c) for r in rates for d in (1e-9, 0.5, 1.0, 3.0) for c in (0.0, 0.6, 1.0, 4.0)]
    asked = [(p, s) for p in purchases for s in scenarios]
    rng.shuffle(asked)
    answered = 0
    for purchase, scenario in asked + asked[: len(asked) // 2]:  # again: answers from the cache
        got, want = cached.cost(purchase, scenario), _uncached(reference, purchase, scenario)
        assert got == want or (math.isnan(got) and math.isnan(want)), (purchase, scenario, got, want)
        assert cached.fixed_cost(purchase, scenario) == cached.fixed_cost(Purchase(purchase.units, purchase.hosts),
                                                                          scenario)
        answered += math.isfinite(got)
    assert answered > len(asked) // 4  # the comparison ran on real figures, not only on infinities


def test_a_purchase_equal_to_another_is_priced_as_its_own() -> None:
    """Purchases are kept by identity: an equal purchase built anew, or one whose id is reused after the first is
    gone, must not answer another purchase's figures."""
    core = solve_core(Profile.model_validate(SERIES), bundled_catalog(), TODAY)
    ev = evaluator_for(core.profile, core.owned, core.options, core.blocks, core.limits)
    singles = single_units(core.owned, core.options.hosts, core.limits)
    assert len(singles) >= 2
    base = Scenario(core.limits.usd_per_kwh)
    for single in singles:
        assert ev.cost(single, base) == _uncached(ev, single, base)
    costs = {ev.cost(Purchase(dict(s.units), dict(s.hosts)), base) for s in singles}
    assert len(costs) > 1  # different purchases, different costs: no answer was shared
