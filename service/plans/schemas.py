"""The plans API's bodies besides the plan itself (`solvers.base.result.PlanResult`, the planner's own contract)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from solvers.base.fields import PlanCurrency
from solvers.base.inputs_used import CarbonReport, ElectricityUsed, ExchangeRatesUsed, PurchaseTax
from solvers.base.plan_lines import CashFlowLine, Costs
from solvers.base.risk import Risk


class PlanListItem(BaseModel):
    id: str
    created_at: str
    status: str
    total_cost_usd: float
    currency: str = "USD"
    recommendation: str
    profile_id: str | None
    profile_version: int | None


class LineItem(BaseModel):
    """One line of a plan as a purchasing system reads it; `line_total` of all lines adds up to the plan's cost."""

    line: int
    item: str
    type: Literal["gpu", "host", "cloud", "commitment", "cloud_data", "electricity", "opex", "financing", "tax",
                  "resale", "carbon", "rounding"]
    gpu: str
    condition: str = Field(description="new, used, cloud, or empty for estimates")
    quantity: float
    unit: str
    unit_price: float = Field(description="what the lab pays per unit: the provider's price (a commitment's "
                              "committed rate), without any carbon price")
    currency: PlanCurrency = "USD"
    vendor_source: str
    price_as_of: str
    line_total: float
    # FinOps FOCUS column names (https://focus.finops.org/, FOCUS 1.0-1.2); x_ marks columns FOCUS has no name for
    ChargeCategory: Literal["Purchase", "Usage", "Tax", "Credit", "Adjustment"]
    ChargeFrequency: Literal["One-Time", "Recurring", "Usage-Based"]
    ChargeDescription: str
    PricingCategory: Literal["Standard", "Dynamic", "Committed", "Other"] | None = Field(
        description="Standard (list or agreed price), Dynamic (spot), Committed (reserved / committed instances); "
        "null for tax (FOCUS requires it), credit and adjustment lines")
    PricingQuantity: float | None = Field(description="null on the tax line (FOCUS requires it)")
    PricingUnit: str | None = Field(description="null on the tax line (FOCUS requires it)")
    ListUnitPrice: float | None = Field(description="the provider's published price, without discounts or any "
                                        "carbon price; for a commitment the on-demand price of the instance it "
                                        "discounts (x_ListPriceOffer); null on the tax line")
    ListCost: float = Field(description="ListUnitPrice x PricingQuantity; the tax line: its BilledCost (FOCUS: never "
                            "null)")
    ContractedUnitPrice: float | None = Field(description="FOCUS: the agreed price excluding commitment discounts, "
                                              "so equal to ListUnitPrice here (no negotiated discounts are known)")
    ContractedCost: float = Field(description="ContractedUnitPrice x PricingQuantity; the tax line: its BilledCost")
    BilledCost: float
    EffectiveCost: float
    PricingCurrency: PlanCurrency
    BillingCurrency: PlanCurrency
    ProviderName: str = Field(description="the cloud provider, or a purchase's seller / price publisher where known")
    RegionId: str
    CommitmentDiscountId: str | None = Field(description="commitment lines: provider/region/instance/term/payment")
    CommitmentDiscountName: str | None
    CommitmentDiscountType: str | None
    CommitmentDiscountCategory: Literal["Usage", "Spend"] | None
    CommitmentDiscountStatus: Literal["Used", "Unused"] | None = Field(
        description="commitment lines: the held hours it worked (Used) or was idle (Unused), each a line of its own")
    x_ExchangeRate: float = Field(description="units of the plan's currency per USD")
    x_ExchangeRatesAsOf: str = Field(description="the ECB date of the rates")
    x_TaxPercent: float
    x_KgCO2e: float | None = Field(description="emissions of the line (cloud lines, commitments, electricity)")
    x_CarbonCost: float | None = Field(description="the carbon price on the line's emissions: not in its "
                                       "BilledCost, summed on the `carbon` line")
    x_CommittedUnitPrice: float | None = Field(description="commitment lines: the committed rate per instance-hour "
                                               "(EffectiveCost / PricingQuantity)")
    x_ListPriceOffer: str | None = Field(description="commitment lines: the on-demand offer (provider name (region)) "
                                         "whose price is ListUnitPrice; empty when none is known (ListUnitPrice is "
                                         "then the committed rate)")


class RequestProfile(BaseModel):
    id: str | None
    version: int | None
    name: str | None


class DecisionThresholds(BaseModel):
    utilisation: float | None
    electricity_usd_per_kwh: float | None
    cloud_price_usd_per_hour: float | None
    cloud_price_reference_offer: str | None


class ConsideredOption(BaseModel):
    option: Literal["this plan", "cloud only", "buy only"]
    total_cost_usd: float
    currency: PlanCurrency = "USD"
    costs: Costs


class DepreciationRow(BaseModel):
    year: int
    opening_book_value_usd: float
    depreciation_usd: float
    closing_book_value_usd: float


class DepreciationSchedule(BaseModel):
    """The purchases' (GPUs and hosts) depreciation, year by year, from the plan's capex."""

    method: Literal["straight_line", "declining_balance"]
    years: int
    rate: float | None = Field(description="declining balance: share of the book value written off a year")
    cost_usd: float
    salvage_usd: float
    schedule: list[DepreciationRow]


class CostBasis(BaseModel):
    """The basis the plan was chosen and its break-even computed on, and the totals on both bases."""

    basis: Literal["nominal", "present_value"]
    discount_rate: float = Field(description="annual, compounded monthly (options.discount_rate)")
    total_nominal: float
    total_present_value: float | None
    cloud_only_nominal: float | None
    cloud_only_present_value: float | None
    saving: float | None = Field(description="cloud only minus this plan on the plan's basis")
    saving_nominal: float | None
    cash_flows: str = Field(description="where the monthly cash-flow table is: the request's `cash_flows`")


class PurchaseRequest(BaseModel):
    """A plan as a purchase request: the lines, why (in sentences), and the alternatives with their costs."""

    title: str
    plan_id: str | None
    created_at: str | None
    currency: PlanCurrency = "USD"
    profile: RequestProfile
    recommendation: str
    justification: str
    break_even_days: float | None
    thresholds: DecisionThresholds
    line_items: list[LineItem]
    total_cost_usd: float
    alternatives: list[ConsideredOption]
    prices_as_of: dict[str, str]
    prices_in_force: dict[str, int] | None
    warnings: list[str]
    exchange_rates: ExchangeRatesUsed | None = None
    electricity: ElectricityUsed | None = None
    carbon: CarbonReport | None = None
    purchase_tax: PurchaseTax | None = None
    depreciation: DepreciationSchedule | None = Field(
        None, description="of the purchases; null when the plan buys nothing")
    basis: CostBasis | None = Field(None, description="the plan's basis (nominal or present value), its discount "
                                    "rate and the totals and saving on both bases")
    cash_flows: list[CashFlowLine] = Field(default_factory=list, description="the plan's monthly cash-flow table, "
                                           "nominal and at present value")
    risk: Risk | None = Field(None, description="the plan's outcome across the futures of its profile's "
                              "uncertainty (null without it): expected total, P10/P50/P90, cloud only, the chance of "
                              "beating it, the value of the stochastic solution and of waiting")
