"""The profile's `uncertainty` option: which inputs are uncertain, by how much, and what the plan minimises.

Every default is the documented figure of `solvers/base/uncertainty_defaults.py` (with its source). Null (the profile
leaves `uncertainty` out) keeps today's plan for one future, unchanged.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from solvers.base import uncertainty_defaults as defaults

Multiplier = Annotated[float, Field(gt=0, le=100, allow_inf_nan=False)]
Spread = Annotated[float, Field(ge=0, lt=1, allow_inf_nan=False)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class DemandUncertainty(_Strict):
    """How far the lab's work may be from the profile's demand."""

    scale: tuple[Multiplier, Multiplier] | None = Field(
        None, description="[low, high]: the demand is the profile's times a factor drawn log-uniformly between low "
        "and high (e.g. [0.5, 2] for 'within a factor of two'); give this or sigma")
    sigma: float | None = Field(
        None, ge=0, le=2, allow_inf_nan=False, description="lognormal sigma of the demand factor (median 1: the "
        "profile's demand); default 0.5 when scale is not given, a planning assumption (no published forecast error "
        "of a research lab's compute demand; 0.5 puts 90% of futures between 0.44x and 2.3x)")
    growth_per_year: float = Field(
        defaults.DEMAND_GROWTH_PER_YEAR, ge=-0.9, le=10, allow_inf_nan=False,
        description="expected growth of the demand per year (0.3: 30% more work each year), applied in yearly "
        "steps from the plan's start; default 0 (the profile's demand stays as given)")
    growth_spread: Spread = Field(
        0.0, description="the growth per year is drawn uniformly within growth_per_year +- this (0.2: +-20 "
        "percentage points); default 0")

    @model_validator(mode="after")
    def _one_form(self) -> DemandUncertainty:
        if self.scale is not None and self.sigma is not None:
            raise PydanticCustomError("one_of", "give demand.scale or demand.sigma, not both")
        if self.scale is not None and self.scale[0] > self.scale[1]:
            raise PydanticCustomError("low_not_above_high", "demand.scale is [low, high] with low <= high")
        return self

    @property
    def lognormal_sigma(self) -> float:
        """The sigma in force when the demand is lognormal (scale not given)."""
        return defaults.DEMAND_SIGMA if self.sigma is None else self.sigma


class CloudPriceTrend(_Strict):
    """How cloud prices move over the horizon (the catalog's prices today are the start of every path)."""

    per_year: float = Field(
        defaults.CLOUD_PRICE_PER_YEAR, ge=-0.9, le=1, allow_inf_nan=False,
        description="expected change of cloud prices per year (-0.25: a quarter cheaper each year); default "
        f"{defaults.CLOUD_PRICE_PER_YEAR}, from the 2.46-year doubling of GPU FLOP/s per dollar (Epoch AI, "
        "Hobbhahn and Besiroglu 2022)")
    spread: Spread = Field(
        defaults.CLOUD_PRICE_SPREAD, description="the change per year is drawn uniformly within per_year +- this; "
        f"default {defaults.CLOUD_PRICE_SPREAD} (a planning assumption)")


class ElectricitySpread(_Strict):
    """The electricity rate of each future: the profile's times a factor drawn uniformly in [1 - spread, 1 + spread]."""

    spread: Spread = Field(defaults.ELECTRICITY_SPREAD, description="half-width of the factor's range; default "
                           f"{defaults.ELECTRICITY_SPREAD} (US industrial prices moved some 15% in a year, 2021-2022, "
                           "EIA)")


class ResaleSpread(_Strict):
    """The resale value of each future: the plan's times a factor drawn uniformly in [1 - spread, 1 + spread]."""

    spread: Spread = Field(defaults.RESALE_SPREAD, description="half-width of the factor's range; default "
                           f"{defaults.RESALE_SPREAD} (a planning assumption)")


class Uncertainty(_Strict):
    """Plan for many futures at once: what to buy and commit to now, the rest decided in each future."""

    demand: DemandUncertainty = Field(default_factory=DemandUncertainty,
                                      description="how far the work may be from the profile's demand")
    cloud_price_trend: CloudPriceTrend = Field(default_factory=CloudPriceTrend,
                                               description="how cloud prices move per year")
    electricity: ElectricitySpread = Field(default_factory=ElectricitySpread,
                                           description="how far the electricity rate may move")
    resale: ResaleSpread = Field(default_factory=ResaleSpread, description="how far the resale value may move")
    scenarios: int = Field(defaults.SCENARIOS, ge=2, le=defaults.MAX_SCENARIOS,
                           description=f"futures sampled (scrambled Sobol points), 2 to {defaults.MAX_SCENARIOS}; "
                           f"default {defaults.SCENARIOS}")
    seed: int = Field(0, ge=0, le=2**32 - 1, description="seed of the scrambling: the same seed, the same futures")
    objective: Literal["expected", "cvar", "regret"] = Field(
        "expected", description="expected: least expected cost; cvar: expected cost + risk_weight x the mean of "
        "the worst alpha of futures (conditional value at risk); regret: least maximum regret against each "
        "future's own best plan")
    risk_weight: float = Field(1.0, ge=0, le=100, allow_inf_nan=False,
                               description="weight of the conditional value at risk (objective cvar)")
    alpha: float = Field(defaults.CVAR_ALPHA, gt=0, le=0.5, allow_inf_nan=False,
                         description="share of worst futures the conditional value at risk averages; default 0.1")
    decision_months: list[Annotated[int, Field(ge=0, le=120)]] = Field(
        default_factory=lambda: [0, 6, 12], max_length=6,
        description="months at which a purchase may be decided: month 0's purchase is the same in every future; "
        "at the first later month within the horizon (where the plan's periods start) each future may buy more, "
        "knowing itself (risk.deferred, risk.value_of_waiting_usd); for every later month risk.waiting measures "
        "waiting until then with cloud only before it. [0]: every purchase at month 0")

    @field_validator("decision_months")
    @classmethod
    def _decision_months(cls, months: list[int]) -> list[int]:
        if months != sorted(set(months)):
            raise PydanticCustomError("increasing", "decision_months must be increasing without repeats")
        if months and months[0] != 0:
            raise PydanticCustomError("starts_at_0", "decision_months must start at 0 (today's decision)")
        return months
