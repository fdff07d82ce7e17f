"""The plan's money over time: commitments, running costs, capex and its financing, resale and cloud data by
period, and the monthly cash-flow table with its present values.

In: an allocation's purchases and commitments, the profile's finance terms and the periods' hours and calendar (from
the ledger, solvers.money.accounting). Out: `Flows` and, from it, the `CashFlowLine` rows and the figures the
cumulative curves are drawn on."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate

import numpy as np
from pydantic import TypeAdapter

from solvers.base.finance import Calendar, Terms, capex_schedule, discount
from solvers.base.options import OwnedOption
from solvers.base.plan_lines import CashFlowLine
from solvers.demand.periods import Period
from solvers.money.rounding import round_floats

CASH_FLOW_LINES = TypeAdapter(list[CashFlowLine])
# the fields of a period's row, in the order `table` lists its figures
_ROW_FIELDS = ("month", "date", "capex_usd", "electricity_usd", "opex_usd", "cloud_usd", "commitments_usd",
               "resale_usd", "net_usd", "net_present_value_usd", "cumulative_usd", "cumulative_present_value_usd",
               "discount_factor")


@dataclass
class Flows:
    """An allocation's cash flows by period (commitments, opex) and the purchase's dated payments."""

    cal: Calendar
    commitments: np.ndarray
    commitments_total: float
    opex: np.ndarray
    opex_total: float
    capex: float
    resale: float
    capex_months: np.ndarray
    capex_flows: np.ndarray  # per dollar of capex
    interest: float
    cloud_data: np.ndarray  # cloud storage and egress per period (options.cloud_data)
    cloud_data_total: float
    fee_months: np.ndarray = field(default_factory=lambda: np.zeros(0))  # commitments' upfront fees: when
    fees: np.ndarray = field(default_factory=lambda: np.zeros(0))  # and how much (all instances of a line)

    def table(self, terms: Terms, periods: list[Period], electricity: list[float], cloud: list[float],
              running: list[float],
              rows_wanted: bool = True) -> tuple[list[CashFlowLine], float, list[float], float, float]:
        """The monthly cash-flow table (its rows only when wanted), the curve's start, per-period and resale figures
        on the basis, and the cumulative present value (its last row's, rounded to the cent)."""
        t_end = self.cal.t_end
        rate = terms.discount_rate
        n = len(t_end)
        at_start = float(self.capex * self.capex_flows[self.capex_months <= 0].sum())
        capex_by_period = by_period(t_end, self.capex_months, self.capex * self.capex_flows)
        fees_at_start = float(self.fees[self.fee_months <= 0].sum())
        commitments = self.commitments + by_period(t_end, self.fee_months, self.fees)
        resale = np.zeros(n)
        if n:
            resale[-1] = -self.resale
        elec, cl = np.array(electricity), np.array(cloud) + self.cloud_data
        net = capex_by_period + elec + self.opex + cl + commitments + resale
        df = discount(rate, t_end)
        net_pv = net * df
        start_net = at_start + fees_at_start
        rows: list[CashFlowLine] = []
        if rows_wanted:
            rows.append(CashFlowLine(month="start", date=periods[0].start.isoformat() if n else "",
                                     capex_usd=round(at_start, 2), electricity_usd=0.0, opex_usd=0.0, cloud_usd=0.0,
                                     commitments_usd=round(fees_at_start, 2), resale_usd=0.0,
                                     net_usd=round(start_net, 2), cumulative_usd=round(start_net, 2),
                                     discount_factor=1.0, net_present_value_usd=round(start_net, 2),
                                     cumulative_present_value_usd=round(start_net, 2)))
        # running sums from the start, one addition a period in order (`accumulate` adds as the loop did)
        totals = list(accumulate(net.tolist()[:len(periods)], initial=start_net))[1:]
        totals_pv = list(accumulate(net_pv.tolist()[:len(periods)], initial=start_net))[1:]
        cumulative_pv = totals_pv[-1] if totals_pv else start_net
        if rows_wanted and n:
            # each figure rounded as `round(float(x), 2)` was, all columns in one batch
            two = round_floats(np.array([capex_by_period, elec, self.opex, cl, commitments, resale, net, net_pv,
                                         totals, totals_pv], dtype=np.float64), 2)
            factors = round_floats(df, 8) if rate else df.tolist()  # (1 + 0)^-t is 1.0 exactly, round(1.0, 8) too
            dates = [period.end.isoformat() for period in periods]
            # one row a period: its label, date, the ten rounded columns and the discount factor
            rows += CASH_FLOW_LINES.validate_python([dict(zip(_ROW_FIELDS, row, strict=False)) for row in zip(
                [period.label for period in periods], dates, *two, factors, strict=True)])
        if terms.plain and not commitments.any() and not self.opex.any() and not self.cloud_data.any() \
                and not fees_at_start:
            return rows, self.capex, running, self.resale, round(cumulative_pv, 2)  # today's curves, to the bit
        basis = df if rate > 0 else np.ones(n)
        per_period = (net - resale) * basis
        resale_basis = self.resale * (float(df[-1]) if rate > 0 and n else 1.0)
        return rows, start_net, [float(v) for v in per_period], resale_basis, round(cumulative_pv, 2)


def flows_of(owned: dict[str, OwnedOption], terms: Terms, hours: np.ndarray, cal: Calendar, capex: float,
             resale: float, purchases: dict[str, int], committed: dict[str, int], uses_cloud: bool) -> Flows:
    n = len(hours)
    commitments = np.zeros(n)
    total_hours = float(hours.sum())
    commitments_total = 0.0
    fee_months: list[float] = []
    fees: list[float] = []
    for k, count in committed.items():
        o = owned[k]
        commitments += count * o.hourly_usd * hours
        tail = max(o.paid_hours - total_hours, 0.0)  # the last term's hours past the horizon, paid at its end
        if n:
            commitments[-1] += count * o.hourly_usd * tail
        commitments_total += count * o.hourly_usd * o.paid_hours
        if o.upfront_usd:  # each term's fee at the term's start, t = j x term months
            fee_months += [float(j * o.term_months) for j in range(o.terms)]
            fees += [count * o.upfront_usd] * o.terms
            commitments_total += count * o.upfront_usd * o.terms
    per_unit_hour = sum(count * owned[k].opex_usd_per_unit_hour for k, count in purchases.items())
    opex = per_unit_hour * hours
    if any(count > 0 for count in purchases.values()):
        opex = opex + terms.fixed_owned_usd_per_month * cal.months
    schedule = capex_schedule(terms.financing, cal.horizon_months)
    interest = capex * (schedule.nominal - 1.0) if terms.financing is not None and capex else 0.0
    cloud_data = (terms.fixed_cloud_usd_per_month * cal.months if uses_cloud
                  else np.zeros(n))
    return Flows(cal, commitments, commitments_total, opex, float(opex.sum()), capex, resale,
                  schedule.months, schedule.flows, interest, cloud_data, float(cloud_data.sum()),
                  np.array(fee_months), np.array(fees))


def by_period(t_end: np.ndarray, months: np.ndarray, amounts: np.ndarray) -> np.ndarray:
    """Dated payments after the start (months from it) summed into the first period that ends at or after each:
    the row whose discount factor is the payment's when periods are calendar months from the start."""
    n = len(t_end)
    later = months > 0
    if not later.any() or not n:
        return np.zeros(n)
    index = np.minimum(np.searchsorted(t_end, months[later] - 1e-9), n - 1)
    out: np.ndarray = np.bincount(index, weights=amounts[later], minlength=n)
    return out
