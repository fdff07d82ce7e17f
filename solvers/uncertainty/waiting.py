"""The value of waiting: what deciding the purchase at a later month, when more is known, would save.

The planning model decides every purchase at the plan's start (its blocks merge months, so a card cannot arrive
at month 6 within it). Waiting until month W is therefore measured beside it, per future: cloud only for the
months before W (`rent_only` of a model of those months), then that future's own best plan for the months left,
bought at W (a model of those months, its present value discounted by W months). Against the plan decided today in
the same futures, the mean difference is the value of waiting. It is an upper bound of what waiting to W can save
in that it decides knowing the future (perfect information at W), and it understates it in that the card costs
today's price at W and resells at the value the card bought today would have. It is measured on the first
`FUTURES` futures (the start of the Sobol sequence is itself balanced), two at a time, within the plan's time
budget.
"""

from __future__ import annotations

import datetime as dt
import time
from dataclasses import replace

import numpy as np

from solvers.base.deferred import two_at_a_time
from solvers.base.demand_units import add_months
from solvers.base.options import OwnedOption
from solvers.base.risk import Waiting
from solvers.base.uncertainty import Uncertainty
from solvers.demand.blocks import merge_periods, model_weights
from solvers.model.build import build
from solvers.model.solve import rent_only, solved
from solvers.uncertainty.perturb import Inputs
from solvers.uncertainty.sample import Future
from solvers.uncertainty.today import Today

FUTURES = 16


def value_of_waiting(today: Today, option: Uncertainty, drawn: list[Future], inputs: list[Inputs],
                     owned: list[OwnedOption], decided_today: np.ndarray, deadline: float) -> list[Waiting]:
    """Per later decision month within the horizon, the mean of (decided today - waiting) over the first futures;
    months the time budget does not reach are left out."""
    found: list[Waiting] = []
    if not today.periods:
        return found
    start = today.periods[0].start
    for month in option.decision_months:
        if month <= 0:
            continue
        cut = add_months(start, month)
        if cut >= today.periods[-1].end:
            break
        count = min(FUTURES, len(inputs))

        def measured(s: int, cut: dt.date = cut, month: int = month) -> float | bool | None:
            """Future s waiting until the month; False past the deadline (the month is then left out)."""
            if time.perf_counter() > deadline:
                return False
            return _waiting_total(today, inputs[s], owned, cut, month)

        # two futures at a time: their HiGHS runs release the GIL
        totals = two_at_a_time(measured, range(count))
        if any(t is False for t in totals):
            return found
        saved, weight = 0.0, 0.0
        for s, waited in enumerate(totals):
            if waited is None:
                continue
            saved += drawn[s].weight * (float(decided_today[s]) - float(waited))
            weight += drawn[s].weight
        if weight > 0:
            found.append(Waiting(month=month, value_usd=round(saved / weight, 2), futures=count))
    return found


def _waiting_total(today: Today, inp: Inputs, owned: list[OwnedOption], cut: dt.date, month: int) -> float | None:
    """Cloud only before `cut`, the future's best plan from it (discounted by `month` months on a present-value
    basis, monthly as solvers.base.finance compounds); None when either part has no plan."""
    early = [p for p in inp.periods if p.end <= cut]
    late = [p for p in inp.periods if p.start >= cut]
    if not early or not late or len(early) + len(late) != len(inp.periods):
        return None  # a period across the month (days or weeks not aligned): not measured
    terms = today.terms
    total = 0.0
    for part, bought in ((early, False), (late, True)):
        blocks = merge_periods(part)
        limits = replace(today.limits, weights=model_weights(terms, part, blocks))
        options = [o for o in inp.owned if o.key in {k.key for k in owned}] if bought else []
        started = time.perf_counter()
        model = build(options, inp.cloud, today.options.hosts, blocks, limits)
        sol = solved(model, started) if bought else rent_only(model, limits)
        if not sol.status.has_solution:
            return None
        discount = (1.0 + terms.discount_rate / 12.0) ** (-month) if bought and terms.discount_rate > 0 else 1.0
        total += sol.objective * discount
    return total


__all__ = ["value_of_waiting"]
