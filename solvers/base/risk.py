"""The plan's `risk` object: what a finance office reads about a plan made for many futures (null without the
profile's `uncertainty`). Money is in the plan's currency, as every money figure of the plan."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class RiskTotals(BaseModel):
    """A total over the horizon across the futures."""

    expected_total_usd: float = Field(description="the mean over the futures (each future's weight)")
    p10_total_usd: float = Field(description="10th percentile: one future in ten costs less")
    p50_total_usd: float = Field(description="the median future's total")
    p90_total_usd: float = Field(description="90th percentile: one future in ten costs more")
    cvar_total_usd: float = Field(description="the mean of the worst alpha of futures (conditional value at risk)")


class FanPoint(BaseModel):
    """Cumulative cost at a period's end, as percentiles over the futures."""

    day: float = Field(description="days after the plan's start")
    date: str = Field(description="the period's end (ISO date)")
    plan_p10_usd: float = Field(description="10th percentile of the plan's cumulative cost")
    plan_p50_usd: float = Field(description="median of the plan's cumulative cost")
    plan_p90_usd: float = Field(description="90th percentile of the plan's cumulative cost")
    cloud_only_p10_usd: float | None = Field(description="10th percentile of cloud only's cumulative cost (null "
                                             "when cloud only cannot serve every future)")
    cloud_only_p50_usd: float | None = Field(description="median of cloud only's cumulative cost")
    cloud_only_p90_usd: float | None = Field(description="90th percentile of cloud only's cumulative cost")


class Waiting(BaseModel):
    """What deciding the purchase at a later month would be worth."""

    month: int = Field(description="the decision month (from uncertainty.decision_months)")
    value_usd: float = Field(
        description="expected total of this plan (with its purchases at later months when deferral_months has "
        "them) minus that of waiting wholly: cloud only until this month, then each future's own best purchase for "
        "the months left (decided knowing that future: an upper bound of what waiting can save; the card's "
        "purchase price and resale are today's, which understates it)")
    futures: int = Field(description="futures it was measured on (the first of the plan's futures)")


class LaterPurchase(BaseModel):
    """One option (or host machine) the futures buy at a later decision month."""

    kind: Literal["purchase", "host"] = Field(description="purchase: an owned option's units; host: host machines "
                                              "for bare cards")
    option: str = Field(description="the owned option's key (kind purchase) or the host machine's name (kind host)")
    name: str = Field(description="what is bought, as the plan's lines name it")
    probability: float = Field(description="share of futures that buy it at this month (each future's weight)")
    mean_units: float = Field(description="units bought at this month, the mean over every future (0 where a "
                              "future does not buy it)")
    max_units: int = Field(description="the most units a future buys at this month")


class DeferredMonth(BaseModel):
    """What the futures buy at one later decision month (each decides at that month knowing its own future)."""

    month: int = Field(description="the decision month (from uncertainty.decision_months)")
    probability_buys: float = Field(description="share of futures that buy GPUs (cards or whole machines) at this "
                                    "month; a host machine bought alone for cards already owned is not counted")
    purchases: list[LaterPurchase] = Field(description="per option or host bought at this month by some future")


class Risk(BaseModel):
    """The plan's outcome over the futures of the profile's `uncertainty`, against cloud only in the same futures."""

    scenarios: int = Field(description="futures sampled (uncertainty.scenarios)")
    distinct_scenarios: int = Field(description="futures left after merging identical ones (1 when every spread "
                                    "is 0: today's plan)")
    objective: Literal["expected", "cvar", "regret"] = Field(description="what the plan minimised")
    alpha: float = Field(description="the share of worst futures the cvar figures average")
    expected_total_usd: float = Field(description="the plan's expected total over the horizon")
    p10_total_usd: float = Field(description="10th percentile of the plan's total")
    p50_total_usd: float = Field(description="median of the plan's total")
    p90_total_usd: float = Field(description="90th percentile of the plan's total")
    cvar_total_usd: float = Field(description="mean of the plan's worst alpha of totals")
    cloud_only: RiskTotals | None = Field(
        description="cloud only (nothing bought; commitments chosen for the same futures) in the same futures; null "
        "when it cannot serve every future (cloud not allowed, or quotas)")
    probability_beats_cloud_only: float | None = Field(
        description="share of futures in which the plan costs less than cloud only (null without cloud only)")
    probability_buying_pays_off: float | None = Field(
        description="share of futures in which the plan's purchase costs less over the horizon than the same plan "
        "without it (its commitments kept, the rest rented); null when the plan buys nothing")
    deterministic_expected_total_usd: float | None = Field(
        description="the expected total of today's plan (made for the profile's figures alone) in the same futures; "
        "null when its purchase cannot serve every future (cloud not allowed and more work than it holds)")
    value_of_stochastic_solution_usd: float | None = Field(
        description="today's plan minus the plan decided wholly at month 0 for every future, on the profile's "
        "objective over the same futures (expected total, expected + weight x cvar, or the maximum regret): what "
        "planning for one future loses; what letting purchases wait adds beyond it is value_of_waiting_usd")
    max_regret_usd: float | None = Field(
        None, description="the plan's largest regret against a future's own best plan (objective regret; with "
        "deferral_months, a future's own best may buy at the later month too)")
    value_of_waiting_usd: float | None = Field(
        description="the expected saving from letting purchases wait. With deferral_months: the expected total of "
        "the best plan decided wholly at month 0 minus this plan's (month 0's purchase, then each future's own "
        "purchases at the later month, decided knowing that future: an upper bound of what waiting is worth), "
        "0 when no future waits (negative only under objective cvar or regret, which may pay expected cost for "
        "less risk). Without: waiting[0].value_usd (negative: deciding today is worth more). Null "
        "when no later month is within the horizon or the time budget did not reach it")
    waiting: list[Waiting] = Field(description="per later decision month, what waiting is worth")
    deferral_months: list[int] = Field(
        [], description="the later decision months the stochastic program models, at which each future may buy "
        "more knowing itself: the first month after 0 of uncertainty.decision_months within the horizon where the "
        "plan's periods start; empty when there is none")
    deferred: list[DeferredMonth] = Field(
        [], description="per modelled later decision month, what the futures buy then (empty without deferral)")
    totals_usd: list[float] = Field(description="the plan's total in each future (for a histogram)")
    cloud_only_totals_usd: list[float] = Field(description="cloud only's total in each future (empty without "
                                               "cloud only)")
    weights: list[float] = Field(description="each future's probability (equal, summed where futures merged)")
    fan: list[FanPoint] = Field(description="cumulative cost over time, percentiles over the futures")
    status: Literal["optimal", "time_limited"] = Field(
        description="optimal, or time_limited: the stochastic program stopped at its time limit, gap says how far")
    gap: float | None = Field(description="relative optimality gap of the stochastic program")
    solve_ms: float = Field(description="time of the whole analysis, ms")
    columns: int = Field(description="columns of the extensive form")
    rows: int = Field(description="rows of the extensive form")
    note: str = Field(description="what the futures move and how, in English")


MONEY_LISTS = ("totals_usd", "cloud_only_totals_usd")
MONEY_FIELDS = ("expected_total_usd", "p10_total_usd", "p50_total_usd", "p90_total_usd", "cvar_total_usd",
                "deterministic_expected_total_usd", "value_of_stochastic_solution_usd", "max_regret_usd",
                "value_of_waiting_usd")


def converted(risk: Risk, factor: float) -> Risk:
    """The risk object with its money times `factor` (USD to the plan's currency), to the cent."""
    if factor == 1.0:
        return risk
    update: dict[str, object] = {}
    for name in MONEY_FIELDS:
        value = getattr(risk, name)
        if value is not None:
            update[name] = round(value * factor, 2)
    for name in MONEY_LISTS:
        update[name] = [round(v * factor, 2) for v in getattr(risk, name)]
    if risk.cloud_only is not None:
        update["cloud_only"] = RiskTotals(**{k: round(v * factor, 2) for k, v in risk.cloud_only.model_dump().items()})
    update["waiting"] = [w.model_copy(update={"value_usd": round(w.value_usd * factor, 2)}) for w in risk.waiting]
    update["fan"] = [FanPoint(**{k: (round(v * factor, 2) if k.endswith("_usd") and v is not None else v)
                                 for k, v in p.model_dump().items()}) for p in risk.fan]
    return risk.model_copy(update=update)
