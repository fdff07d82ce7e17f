"""Money over time as a finance office counts it: present value, loan payments and depreciation (issue 16).

Conventions (README, "Finance"), chosen so that every figure can be checked by hand:
- `discount_rate` is an annual nominal rate compounded monthly: a cash flow t months after the plan's start is
  worth (1 + r/12)^-t today (t in calendar months, a part-month counted by its share of that month's days).
  The same monthly convention is the one loans quote (APR / 12), so financing at the discount rate is
  present-value neutral.
- Purchases are paid at the plan's start (t = 0); a period's running costs (electricity, opex, cloud,
  commitments paid hourly) at the period's end; a commitment's upfront fee at each term's start (t = k x term
  months); the resale at the horizon's end.
- A loan of P at annual rate a over n months pays the annuity P i / (1 - (1 + i)^-n) at the end of each month,
  i = a / 12 (the level-payment formula of an amortised loan, e.g. "Amortization calculator", Wikipedia; P / n
  when i = 0). A loan that outlasts the horizon is settled at the horizon's end: the outstanding balance is
  paid then, so the horizon's totals hold every dollar the purchase costs.
- Depreciation (purchase request): straight line (cost - salvage) / N a year; declining balance at a rate
  (default 2 / N, double-declining), never below salvage, the last year writing the book value down to salvage.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


def months_between(start: dt.date, day: dt.date) -> float:
    """Calendar months from `start` to `day`: whole months, then the rest as a share of the month it falls in."""
    whole = (day.year - start.year) * 12 + (day.month - start.month)
    anchor = _add_months(start, whole)
    if anchor > day:
        whole -= 1
        anchor = _add_months(start, whole)
    nxt = _add_months(start, whole + 1)
    return whole + (day - anchor).days / max((nxt - anchor).days, 1)


def months_to(start: dt.date, days: Sequence[dt.date]) -> np.ndarray:
    """`months_between(start, d)` for many dates (vectorised over calendar months with numpy)."""
    if not len(days):
        return np.zeros(0)
    d = _days(days)
    s = np.datetime64(start, "D")
    month = d.astype("datetime64[M]")
    whole = (month - s.astype("datetime64[M]")).astype(np.int64)
    day_of = (d - month.astype("datetime64[D]")).astype(np.int64)
    offset = (s - s.astype("datetime64[M]")).astype(np.int64)  # the start's day in its month, from 0
    whole = whole - (day_of < offset)
    anchor_month = s.astype("datetime64[M]") + whole
    next_month = anchor_month + 1
    anchor = _clip_day(anchor_month, offset)
    nxt = _clip_day(next_month, offset)
    out: np.ndarray = whole + (d - anchor).astype(np.int64) / np.maximum((nxt - anchor).astype(np.int64), 1)
    return out


_EPOCH = dt.date(1970, 1, 1).toordinal()


def _days(days: Sequence[dt.date]) -> np.ndarray:
    """The dates as datetime64[D]: plain dates through their ordinals (days since 1970-01-01, exact integers), some
    ten times faster than numpy's conversion of date objects (a plan converts its periods' starts and ends)."""
    if all(type(day) is dt.date for day in days):
        return (np.array([day.toordinal() for day in days], dtype=np.int64) - _EPOCH).astype("datetime64[D]")
    return np.array(days, dtype="datetime64[D]")


def _clip_day(month: np.ndarray, offset: np.int64) -> np.ndarray:
    first = month.astype("datetime64[D]")
    last = (month + 1).astype("datetime64[D]") - 1
    out: np.ndarray = np.minimum(first + offset, last)
    return out


def _add_months(day: dt.date, months: int) -> dt.date:
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    last = (dt.date(year + (month == 12), month % 12 + 1, 1) - dt.timedelta(days=1)).day
    return dt.date(year, month, min(day.day, last))


# Providers price a term at 730 hours a month (8,760 a year): AWS's effective hourly price of a reservation is its
# hourly part + upfront fee / (730 x term months), Azure's reservation total / (730 x term months)
# (pricing/sources/aws.py, azure.py). An upfront fee recovered from an effective price uses the same hours.
PROVIDER_HOURS_PER_MONTH = 730.0


def upfront_fee(usd_per_hour: float, term_months: int, payment: str, upfront_usd: float | None) -> float:
    """The fee per instance paid at each term's start: the whole term (usd_per_hour x 730 h x months) when all
    upfront, the quoted fee when partial upfront, else 0 (a catalog partial-upfront row carries only its effective
    price, so its fee is unknown and it is counted hourly)."""
    if payment == "all_upfront":
        return usd_per_hour * PROVIDER_HOURS_PER_MONTH * term_months
    if payment == "partial_upfront" and upfront_usd is not None and math.isfinite(upfront_usd):
        return float(upfront_usd)
    return 0.0


def hourly_part(usd_per_hour: float, term_months: int, payment: str, upfront: float) -> float:
    """What is paid per instance-hour as the hours pass once the upfront fee is taken out of the effective price."""
    if payment == "all_upfront":
        return 0.0
    if not upfront:
        return usd_per_hour
    return max(usd_per_hour - upfront / (PROVIDER_HOURS_PER_MONTH * term_months), 0.0)


def term_starts_factor(annual_rate: float, term_months: int, terms: int) -> float:
    """Present value of one dollar paid at the start of each of `terms` back-to-back terms (t = k x term_months)."""
    return float(discount(annual_rate, np.arange(terms, dtype=float) * term_months).sum())


def discount(annual_rate: float, months: float | np.ndarray) -> np.ndarray:
    """(1 + r/12)^-t: what a dollar t months from the start is worth today."""
    out: np.ndarray = np.power(1.0 + annual_rate / 12.0, -np.asarray(months, dtype=float))
    return out


def annuity_payment(principal: float, annual_rate: float, months: int) -> float:
    """Level monthly payment of a loan: P i / (1 - (1 + i)^-n), i = annual_rate / 12; P / n without interest."""
    if months <= 0:
        return principal
    i = annual_rate / 12.0
    if i == 0:
        return principal / months
    return principal * i / (1.0 - (1.0 + i) ** -months)


def balance_after(principal: float, annual_rate: float, months: int, paid: int) -> float:
    """Outstanding balance after `paid` payments: P (1+i)^k - pmt ((1+i)^k - 1) / i."""
    i = annual_rate / 12.0
    pmt = annuity_payment(principal, annual_rate, months)
    if i == 0:
        return max(principal - pmt * paid, 0.0)
    growth = (1.0 + i) ** paid
    return max(principal * growth - pmt * (growth - 1.0) / i, 0.0)


@dataclass(frozen=True)
class Financing:
    """A purchase paid over time: `down_payment` (share of the price) now, the rest as a loan."""

    annual_rate: float
    term_months: int
    down_payment: float = 0.0


@dataclass(frozen=True)
class CapexSchedule:
    """What one dollar of purchase price costs, as dated flows (months from the start, dollars)."""

    months: np.ndarray
    flows: np.ndarray

    @property
    def nominal(self) -> float:
        return float(self.flows.sum())

    def present_value(self, annual_rate: float) -> float:
        return float(np.dot(self.flows, discount(annual_rate, self.months)))


def capex_schedule(financing: Financing | None, horizon_months: float) -> CapexSchedule:
    """Dated flows of one dollar of purchase price: cash at t = 0, or down payment + monthly annuity (+ the
    balance at the horizon's end when the loan outlasts it)."""
    if financing is None:
        return CapexSchedule(np.zeros(1), np.ones(1))
    loan = 1.0 - financing.down_payment
    n = financing.term_months
    pmt = annuity_payment(loan, financing.annual_rate, n)
    paid = min(n, math.floor(horizon_months + 1e-9))
    months = [0.0] + [float(k) for k in range(1, paid + 1)]
    flows = [financing.down_payment] + [pmt] * paid
    if paid < n:  # settled at the horizon's end: the balance, with the interest of the part-month
        left = balance_after(loan, financing.annual_rate, n, paid)
        left *= (1.0 + financing.annual_rate / 12.0) ** (horizon_months - paid)
        months.append(horizon_months)
        flows.append(left)
    return CapexSchedule(np.array(months), np.array(flows))


@dataclass(frozen=True)
class DepreciationYear:
    year: int
    opening_book_value: float
    depreciation: float
    closing_book_value: float


def straight_line(cost: float, years: int, salvage: float = 0.0) -> list[DepreciationYear]:
    """(cost - salvage) / years each year."""
    per_year = (cost - salvage) / years
    rows, book = [], cost
    for y in range(1, years + 1):
        dep = per_year if y < years else book - salvage
        rows.append(DepreciationYear(y, book, dep, book - dep))
        book -= dep
    return rows


def declining_balance(cost: float, years: int, rate: float | None = None,
                      salvage: float = 0.0) -> list[DepreciationYear]:
    """Book value x rate each year (default rate 2 / years: double-declining), never below salvage; the last
    year writes the rest down to salvage."""
    rho = 2.0 / years if rate is None else rate
    rows, book = [], cost
    for y in range(1, years + 1):
        dep = book - salvage if y == years else min(book * rho, book - salvage)
        rows.append(DepreciationYear(y, book, dep, book - dep))
        book -= dep
    return rows


@dataclass(frozen=True)
class Weights:
    """What the model multiplies its costs by to price them on the profile's basis (present value at the discount
    rate; nominal when the rate is 0). Costs are linear in hours within a block, so a block's running costs take the
    hour-weighted mean discount factor of its periods: blocks stay an exact reduction."""

    block: np.ndarray          # per block: sum of df_p h_p / sum of h_p over its periods
    hours: float               # discounted hours of the horizon, sum of df_p h_p (the total hours when nominal)
    end: float                 # discount factor at the horizon's end (resale, a commitment's last term)
    capex: float               # cost of one dollar of purchase price (financing, discounting)
    fixed_owned_usd: float = 0.0  # OwnedOpex paid every month whenever anything is owned, over the horizon
    fixed_cloud_usd: float = 0.0  # CloudData paid every month whenever the cloud is used, over the horizon
    discount_rate: float = 0.0  # what a commitment's upfront fees at its terms' starts are discounted at

    @property
    def nominal(self) -> bool:
        return self.end == 1.0 and self.capex == 1.0


@dataclass(frozen=True)
class Terms:
    """The profile's money options the accounts need: discount rate, financing, fixed monthly opex."""

    discount_rate: float = 0.0
    financing: Financing | None = None
    fixed_owned_usd_per_month: float = 0.0
    fixed_cloud_usd_per_month: float = 0.0

    @property
    def plain(self) -> bool:
        """Today's behaviour: undiscounted, cash purchases, no fixed monthly costs."""
        return (self.discount_rate == 0 and self.financing is None and self.fixed_owned_usd_per_month == 0
                and self.fixed_cloud_usd_per_month == 0)


@dataclass(frozen=True)
class Calendar:
    """Months from the plan's start to each period's start and end, and the horizon in months."""

    start: dt.date
    t_start: np.ndarray
    t_end: np.ndarray

    @property
    def horizon_months(self) -> float:
        return float(self.t_end[-1]) if len(self.t_end) else 0.0

    @property
    def months(self) -> np.ndarray:
        out: np.ndarray = self.t_end - self.t_start
        return out


def calendar(starts: Sequence[dt.date], ends: Sequence[dt.date], origin: dt.date | None = None) -> Calendar:
    """Periods' starts and ends in months from `origin` (the first start unless given: a later part of a plan's
    horizon is counted from the plan's start)."""
    start = starts[0] if origin is None else origin
    return Calendar(start, months_to(start, starts), months_to(start, ends))


def weights_for(terms: Terms, cal: Calendar, period_hours: np.ndarray, block_of: np.ndarray,
                n_blocks: int) -> Weights | None:
    """The model's cost multipliers for these terms; None when they are today's (nominal, cash)."""
    if terms.plain:
        return None
    df = discount(terms.discount_rate, cal.t_end)
    weighted = df * period_hours
    active = block_of >= 0
    block_hours = np.bincount(block_of[active], weights=period_hours[active], minlength=n_blocks)
    block_pv = np.bincount(block_of[active], weights=weighted[active], minlength=n_blocks)
    block = np.divide(block_pv, block_hours, out=np.ones(n_blocks), where=block_hours > 0)
    capex = capex_schedule(terms.financing, cal.horizon_months).present_value(terms.discount_rate)
    month_weight = float(np.dot(df, cal.months))
    return Weights(block, float(weighted.sum()), float(discount(terms.discount_rate, cal.horizon_months)), capex,
                   terms.fixed_owned_usd_per_month * month_weight, terms.fixed_cloud_usd_per_month * month_weight,
                   terms.discount_rate)
