"""The plan's one-paragraph recommendation: what to buy and rent, what it costs against cloud only, and when
buying pays back, in the plan's currency.

In: the plan's and cloud only's accounts and the break-even. Out: the sentence the plan leads with."""

from __future__ import annotations

import math
import re
from functools import lru_cache

from solvers.base.break_even_result import BreakEven
from solvers.base.profile import Profile
from solvers.money.accounting import Accounts
from solvers.money.currency import format_money


def _horizon_text(profile: Profile, horizon_days: int, periods: int) -> str:
    if profile.horizon_months is not None:
        return f"{profile.horizon_months} months"
    if profile.horizon_days is None:
        return f"{periods} months"  # a series without a horizon spans whole months
    return f"{horizon_days} days"


def _jobs_of(width: int | None) -> str:
    """The job width of a plan line, said where each GPU type runs its own (the workload form)."""
    return "" if width is None else f", jobs of {width} GPU{'s' if width > 1 else ''}"


@lru_cache(maxsize=4096)  # pure; a plan names its offers in its warnings and its recommendation
def offer_name(provider: str, name: str) -> str:
    """A cloud offer as the sentence names it: its provider, then its name, unless the name begins with the provider
    already (114 of the bundled offers do: "fal-ai fal-ai-b200-1x" said it twice). The page names offers the same
    way (static/plan-text.js `offerName`)."""
    p, n = provider.lower(), name.lower()
    if p and (n == p or n.startswith((p + "-", p + " ", p + "_"))):
        return name
    return f"{provider} {name}"


@lru_cache(maxsize=4096)  # pure
def names_condition(name: str, condition: str) -> bool:
    """Whether a product's name already says its condition in its closing parentheses ("RTX 3090 (used, eBay)"):
    the sentence then says it once, not "(used, eBay) (used)". The page reads names the same way
    (static/plan-text.js `namesCondition`)."""
    found = re.fullmatch(r"(.*) \(([^()]*)\)", name)
    return found is not None and condition in found.group(2).split(", ")


def recommend(plan: Accounts, cloud_only: Accounts | None, be: BreakEven, horizon_days: int,
                    profile: Profile, currency: str = "USD", factor: float = 1.0, *, jobs: bool = False,
                    later: tuple[int, float, list[str]] | None = None) -> str:
    """The plan in one sentence. `later` (a plan under uncertainty whose futures buy at a later month: the month,
    the share of the futures and what they buy): said after month 0's decision, which the lines describe."""
    parts = []
    if plan.buy:
        parts.append("Buy " + ", ".join(f"{b.count} x {b.name}{_jobs_of(b.gpus_per_job)}"
                                        if names_condition(b.name, b.condition)
                                        else f"{b.count} x {b.name} ({b.condition}{_jobs_of(b.gpus_per_job)})"
                                        for b in plan.buy))
        if plan.hosts:
            parts[-1] += " in " + ", ".join(f"{h.count} x {h.name}" for h in plan.hosts)
    if plan.commitments:
        reserve = ", ".join(f"{c.count} x {offer_name(c.provider, c.name)} for {c.term_months} months"
                            f"{_jobs_of(c.gpus_per_job)}"
                            for c in plan.commitments)
        parts.append(("reserve " if parts else "Reserve ") + reserve)
    if plan.cloud:
        rent = ", ".join(f"{c.hours:,.0f} h of {offer_name(c.provider, c.name)} ({c.region}, "
                         f"{c.pricing.replace('_', '-')}"
                         f"{_jobs_of(c.gpus_per_job)})" for c in plan.cloud[:3])
        parts.append(("and rent " if parts else "Rent ") + rent)
    sentence = " ".join(parts)
    horizon = _horizon_text(profile, horizon_days, len(plan.periods))
    if cloud_only is not None and plan.buy:
        rate = profile.options.discount_rate
        saving = cloud_only.costs.total_usd - plan.costs.total_usd
        worth = ""
        if rate > 0:  # on the basis the plan was chosen on (issue 16)
            saving = (cloud_only.costs.present_value_usd or 0.0) - (plan.costs.present_value_usd or 0.0)
            worth = f" in present value at {100 * rate:g}% a year"
        sentence += f"; saves {format_money(saving * factor, currency)}{worth} over {horizon} versus cloud only"
        if cloud_only.commitments:
            sentence += " (which would reserve instances too)"
        if be.days is not None:
            sentence += f"; buying pays off after {math.ceil(be.days)} days"
    elif not plan.buy:
        sentence += f"; buying {'now ' if later else ''}does not pay over {horizon}"
        if jobs and be.demand_scale_threshold is not None:
            sentence += f" (it would from {be.demand_scale_threshold:.2f} times this work a month)"
        elif be.utilisation_threshold is not None and not jobs:
            sentence += f" (it would from {100 * be.utilisation_threshold:.1f}% utilisation)"
    if later is not None:
        month, share, names = later
        sentence += (f"; {100 * share:.0f}% of the profile's futures also buy at month {month} ({', '.join(names)}), "
                     "renting until then")
    return sentence + "."
