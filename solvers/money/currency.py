"""The one place that knows which plan fields are money, and converts a whole plan from USD to its currency.

Why a registry: the planner works in USD from input to readout (the model's coefficients, thresholds and curves
are all USD), and a plan is converted once at the end. A field another module adds to the plan is converted by
listing it here under its model's class name, with the decimals it keeps (2 for amounts, 6 for rates per hour or
per kWh); nothing else has to change. Fields of models not listed are left as they are (counts, hours, kWh, kg).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel

from pricing.fx import ExchangeRates

AMOUNT, RATE = 2, 6

# model class name -> {money field: decimals kept after conversion}
MONEY_FIELDS: dict[str, dict[str, int]] = {
    "PlanResult": {"total_cost_usd": AMOUNT},
    "BuyLine": {"unit_price_usd": AMOUNT, "resale_usd_per_unit": AMOUNT},
    "HostLine": {"unit_price_usd": AMOUNT},
    "CloudLine": {"usd_per_hour": RATE, "cost_usd": AMOUNT, "carbon_usd_per_hour": RATE},
    "Costs": {"capex_usd": AMOUNT, "electricity_usd": AMOUNT, "cloud_usd": AMOUNT, "resale_credit_usd": AMOUNT,
              "total_usd": AMOUNT, "commitments_usd": AMOUNT, "opex_usd": AMOUNT, "financing_interest_usd": AMOUNT,
              "cloud_data_usd": AMOUNT, "present_value_usd": AMOUNT},
    "PeriodLine": {"electricity_usd": AMOUNT, "cloud_usd": AMOUNT, "commitments_usd": AMOUNT, "opex_usd": AMOUNT},
    # issue 16, finance: reserved instances and the monthly cash-flow table
    "CommitmentLine": {"usd_per_hour": RATE, "cost_usd": AMOUNT, "upfront_usd": AMOUNT, "carbon_usd_per_hour": RATE,
                       "on_demand_usd_per_hour": RATE},
    "CashFlowLine": {"capex_usd": AMOUNT, "electricity_usd": AMOUNT, "opex_usd": AMOUNT, "cloud_usd": AMOUNT,
                     "commitments_usd": AMOUNT, "resale_usd": AMOUNT, "net_usd": AMOUNT, "cumulative_usd": AMOUNT,
                     "net_present_value_usd": AMOUNT, "cumulative_present_value_usd": AMOUNT},
    "Alternative": {"total_cost_usd": AMOUNT},
    "CumulativePoint": {"plan_usd": AMOUNT, "cloud_only_usd": AMOUNT, "buy_only_usd": AMOUNT},
    "SimpleBreakEven": {"upfront_usd": AMOUNT, "owned_usd_per_day": RATE, "cloud_usd_per_day": RATE},
    "BreakEven": {"electricity_threshold_usd_per_kwh": RATE, "cloud_price_threshold_usd_per_hour": RATE},
    "ElectricityUsed": {"price_per_kwh": RATE},
    "CarbonReport": {"carbon_price_per_tonne": AMOUNT, "carbon_cost": AMOUNT, "owned_carbon_cost": AMOUNT},
}

# fields named in USD that stay in USD whatever the plan's currency (they describe the conversion itself)
STAYS_USD = frozenset({"RateUsed.usd_per_unit"})


def convert_model(model: BaseModel, factor: float, fields: Mapping[str, Mapping[str, int]] = MONEY_FIELDS) -> None:
    """Multiply every listed money field of `model` and of the models it holds by `factor`, in place."""
    for name, decimals in fields.get(type(model).__name__, {}).items():
        value = getattr(model, name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            setattr(model, name, round(value * factor, decimals) + 0.0)
    for name in type(model).model_fields:
        _visit(getattr(model, name), factor, fields)


def _visit(value: object, factor: float, fields: Mapping[str, Mapping[str, int]]) -> None:
    if isinstance(value, BaseModel):
        convert_model(value, factor, fields)
    elif isinstance(value, list | tuple):
        for item in value:
            _visit(item, factor, fields)
    elif isinstance(value, dict):
        for item in value.values():
            _visit(item, factor, fields)


def usd_to(rates: ExchangeRates, currency: str) -> float:
    """The factor a USD amount is multiplied by to be in `currency`."""
    return rates.convert(1.0, "USD", currency)


def format_money(amount: float, currency: str) -> str:
    """A whole amount with its currency, e.g. "$1,234" for USD and "1,234 EUR" otherwise (API text stays English)."""
    return f"${amount:,.0f}" if currency == "USD" else f"{amount:,.0f} {currency}"
