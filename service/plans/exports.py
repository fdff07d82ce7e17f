"""Plans as documents a purchasing system ingests: CSV line items and a purchase request with its reasons.

The line items add up to the plan's total cost to the cent: purchases, hosts, cloud hours, reserved /
committed instances, owned opex, financing interest, the expected electricity and (negative) the expected
resale credit; a `rounding` line takes the cents that
rounding each line on its own leaves over, so the column sums exactly.

Money is in the plan's currency. After the original columns come columns named as in the FinOps FOCUS
specification (https://focus.finops.org/, FOCUS 1.0-1.2 column library) where it has a name: ChargeCategory
(Purchase, Usage, Tax, Credit, Adjustment), ChargeDescription, PricingQuantity, PricingUnit, ListUnitPrice,
ContractedUnitPrice, BilledCost, EffectiveCost (no amortisation here, so equal to BilledCost), PricingCurrency,
BillingCurrency, ProviderName, RegionId; and custom columns with FOCUS's `x_` prefix for what it has no name for:
x_ExchangeRate (plan currency per USD), x_ExchangeRatesAsOf (the ECB date), x_TaxPercent, x_KgCO2e.
With purchase taxes, purchases are listed at their net price and the taxes on one `tax` line (ChargeCategory Tax).
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any, Literal

from service.core.spreadsheet import neutralise_row
from solvers.currency import format_money
from solvers.finance import declining_balance, straight_line
from solvers.result import PlanResult

CSV_COLUMNS = ["line", "item", "type", "gpu", "condition", "quantity", "unit", "unit_price", "currency",
               "vendor_source", "price_as_of", "line_total"]
FOCUS_COLUMNS = ["ChargeCategory", "ChargeDescription", "PricingQuantity", "PricingUnit", "ListUnitPrice",
                 "ContractedUnitPrice", "BilledCost", "EffectiveCost", "PricingCurrency", "BillingCurrency",
                 "ProviderName", "RegionId", "x_ExchangeRate", "x_ExchangeRatesAsOf", "x_TaxPercent", "x_KgCO2e"]
CHARGE_CATEGORY = {"gpu": "Purchase", "host": "Purchase", "cloud": "Usage", "electricity": "Usage", "tax": "Tax",
                   "resale": "Credit", "rounding": "Adjustment",
                   # issue 16's finance lines: a commitment's fee is a (recurring) purchase in FOCUS; running costs
                   # and cloud data are usage; financing interest has no FOCUS category of its own
                   "commitment": "Purchase", "opex": "Usage", "cloud_data": "Usage", "financing": "Adjustment"}


def _cents(value: float) -> float:
    return round(value + 0.0, 2)


def _tax_percent(plan: PlanResult) -> float:
    tax = plan.purchase_tax
    return 0.0 if tax is None else tax.vat_percent + tax.import_duty_percent


def line_items(plan: PlanResult) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    currency = plan.currency
    rates = plan.exchange_rates
    per_usd = next((r.usd_per_unit for r in rates.rates if r.currency == currency), 1.0) if rates else 1.0
    tax_percent = _tax_percent(plan)
    net = 1.0 / (1.0 + tax_percent / 100.0)  # purchases are listed net, their taxes on a line of their own

    def add(item: str, kind: str, gpu: str, condition: str, quantity: float, unit: str, unit_price: float,
            vendor_source: str, as_of: str, total: float, provider: str = "", region: str = "",
            kg: float | None = None) -> None:
        line_total = _cents(total)
        items.append({"line": len(items) + 1, "item": item, "type": kind, "gpu": gpu, "condition": condition,
                      "quantity": quantity, "unit": unit, "unit_price": round(unit_price, 6), "currency": currency,
                      "vendor_source": vendor_source, "price_as_of": as_of, "line_total": line_total,
                      "ChargeCategory": CHARGE_CATEGORY[kind], "ChargeDescription": item,
                      "PricingQuantity": quantity, "PricingUnit": unit, "ListUnitPrice": round(unit_price, 6),
                      "ContractedUnitPrice": round(unit_price, 6), "BilledCost": line_total,
                      "EffectiveCost": line_total, "PricingCurrency": currency, "BillingCurrency": currency,
                      "ProviderName": provider, "RegionId": region,
                      "x_ExchangeRate": round(1.0 / per_usd, 8), "x_ExchangeRatesAsOf": rates.as_of if rates else "",
                      "x_TaxPercent": tax_percent if kind in ("gpu", "host", "tax") else 0.0,
                      "x_KgCO2e": None if kg is None else round(kg, 3)})

    taxed = 0.0
    for b in plan.buy:
        price = b.unit_price_usd * net
        taxed += b.count * (b.unit_price_usd - price)
        add(b.name, "gpu", b.gpu, b.condition, b.count, f"unit of {b.gpus_per_unit} GPU(s)", price,
            b.source, b.price_as_of, b.count * price, provider=b.source)
    for h in plan.hosts:
        price = h.unit_price_usd * net
        taxed += h.count * (h.unit_price_usd - price)
        add(h.name, "host", "", "new", h.count, f"host with {h.slots} GPU slot(s)", price, h.source,
            h.price_as_of, h.count * price, provider=h.source)
    if tax_percent and taxed:
        add(f"VAT and import duty on the purchases ({tax_percent:g}%)", "tax", "", "", 1, "estimate", taxed,
            "profile options vat_percent, import_duty_percent", "", taxed)
    for c in plan.cloud:
        add(f"{c.provider} {c.name} ({c.region}, {c.pricing.replace('_', '-')})", "cloud", c.gpu, "cloud", c.hours,
            "instance-hour", c.usd_per_hour, f"{c.provider}: {c.source}", c.price_as_of, c.cost_usd,
            provider=c.provider, region=c.region, kg=c.kg_co2e)
    for m in plan.commitments:
        add(f"{m.provider} {m.name} ({m.region}, {m.term_months}-month commitment x {m.terms})", "commitment", m.gpu,
            "cloud", m.count * m.paid_hours, "instance-hour committed", m.usd_per_hour, f"{m.provider}: {m.source}",
            m.price_as_of, m.cost_usd, provider=m.provider, region=m.region)
    costs = plan.costs
    if costs.opex_usd:
        add("Expected running costs of the owned hardware beyond power (colocation, maintenance, staff, storage)",
            "opex", "", "", 1, "estimate", costs.opex_usd, "profile options.opex", "", costs.opex_usd)
    if costs.cloud_data_usd:
        add("Cloud storage and egress while the plan uses the cloud", "cloud_data", "", "cloud", 1, "estimate",
            costs.cloud_data_usd, "profile options.cloud_data", "", costs.cloud_data_usd)
    if costs.financing_interest_usd:
        add("Interest on the financed purchases", "financing", "", "", 1, "estimate", costs.financing_interest_usd,
            "profile options.financing", "", costs.financing_interest_usd)
    if costs.electricity_usd:
        add("Expected electricity for the owned GPUs and hosts", "electricity", "", "", 1, "estimate",
            costs.electricity_usd, "profile electricity rate", "", costs.electricity_usd,
            region=(plan.electricity.location or "") if plan.electricity else "",
            kg=plan.carbon.owned_kg_co2e if plan.carbon else None)
    if costs.resale_credit_usd:
        add("Expected resale of the owned GPUs at the horizon's end", "resale", "", "used", 1, "estimate",
            -costs.resale_credit_usd, "used market value, depreciated", "", -costs.resale_credit_usd)
    left = _cents(plan.total_cost_usd - math.fsum(i["line_total"] for i in items))
    if left:
        add("Rounding to cents", "rounding", "", "", 1, "adjustment", left, "", "", left)
    return items


def plan_csv(plan: PlanResult) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS + FOCUS_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(neutralise_row(item) for item in line_items(plan))  # names come from feeds and requests
    return out.getvalue()


def justification(plan: PlanResult, horizon: str) -> str:
    """The break-even numbers in sentences a budget holder reads, money in the plan's currency."""
    be, alts = plan.break_even, plan.alternatives

    def _money(value: float) -> str:
        return format_money(value, plan.currency)

    cloud_only = alts.cloud_only.total_cost_usd if alts.cloud_only else None
    parts = []
    if plan.buy:
        bought = ", ".join(f"{b.count} x {b.name}" for b in plan.buy)
        text = f"Buying {bought} for {_money(plan.costs.capex_usd)}"
        if cloud_only is not None:
            text += (f" costs {_money(plan.total_cost_usd)} over {horizon} in all, against "
                     f"{_money(cloud_only)} for renting cloud GPUs only: a saving of "
                     f"{_money(cloud_only - plan.total_cost_usd)}")
        if be.days is not None:
            text += f"; it pays for itself after {math.ceil(be.days)} days"
        parts.append(text + ".")
        limits = []
        if be.utilisation_threshold is not None:
            limits.append(f"utilisation stays above {100 * be.utilisation_threshold:.1f}%")
        if be.electricity_threshold_usd_per_kwh is not None:
            limits.append(f"electricity stays below {_rate(be.electricity_threshold_usd_per_kwh, plan.currency)}/kWh")
        if be.cloud_price_threshold_usd_per_hour is not None:
            limits.append(f"the reference cloud price stays above "
                          f"{_rate(be.cloud_price_threshold_usd_per_hour, plan.currency)}/h")
        if limits:
            parts.append("Buying remains the cheaper choice while " + ", ".join(limits) + ".")
    else:
        parts.append(f"No purchase is proposed: renting cloud GPUs is the cheapest way to meet the demand over "
                     f"{horizon} ({_money(plan.total_cost_usd)}).")
        if be.utilisation_threshold is not None:
            parts.append(f"Buying would pay from {100 * be.utilisation_threshold:.1f}% utilisation.")
    if alts.buy_only is not None and plan.buy:
        parts.append(f"Buying enough GPUs to need no cloud at all would cost {_money(alts.buy_only.total_cost_usd)}.")
    return " ".join(parts)


def _rate(value: float, currency: str) -> str:
    return f"${value:.2f}" if currency == "USD" else f"{value:.2f} {currency}"


DepreciationMethod = Literal["straight_line", "declining_balance"]
# IRS Publication 946 (How to Depreciate Property), MACRS GDS: computers are 5-year property.
DEFAULT_DEPRECIATION_YEARS = 5


def depreciation(plan: PlanResult, method: DepreciationMethod = "straight_line",
                 years: int = DEFAULT_DEPRECIATION_YEARS, rate: float | None = None,
                 salvage_usd: float = 0.0) -> dict[str, Any] | None:
    """The purchases' book value year by year (solvers.finance); None when nothing is bought."""
    cost = plan.costs.capex_usd
    if cost <= 0:
        return None
    salvage = min(salvage_usd, cost)
    rows = (straight_line(cost, years, salvage) if method == "straight_line"
            else declining_balance(cost, years, rate, salvage))
    return {"method": method, "years": years,
            "rate": None if method == "straight_line" else (2.0 / years if rate is None else rate),
            "cost_usd": round(cost, 2), "salvage_usd": round(salvage, 2),
            "schedule": [{"year": r.year, "opening_book_value_usd": round(r.opening_book_value, 2),
                          "depreciation_usd": round(r.depreciation, 2),
                          "closing_book_value_usd": round(r.closing_book_value, 2)} for r in rows]}


def purchase_request(plan: PlanResult, profile_name: str | None,
                     schedule: dict[str, Any] | None = None) -> dict[str, Any]:
    horizon_days = int(plan.horizon.get("days", 0))
    horizon = f"{horizon_days} days ({plan.horizon.get('start')} to {plan.horizon.get('end')})"
    alternatives = [{"option": "this plan", "total_cost_usd": plan.total_cost_usd, "currency": plan.currency,
                     "costs": plan.costs.model_dump()}]
    for label, alt in (("cloud only", plan.alternatives.cloud_only), ("buy only", plan.alternatives.buy_only)):
        if alt is not None:
            alternatives.append({"option": label, "total_cost_usd": alt.total_cost_usd, "currency": plan.currency,
                                 "costs": alt.costs.model_dump()})
    return {
        "title": f"GPU purchase request: {profile_name or 'workload plan'}",
        "plan_id": plan.id, "created_at": plan.created_at, "currency": plan.currency,
        "profile": {"id": plan.profile_id, "version": plan.profile_version, "name": profile_name},
        "recommendation": plan.recommendation,
        "justification": justification(plan, horizon),
        "break_even_days": plan.break_even.days,
        "thresholds": {
            "utilisation": plan.break_even.utilisation_threshold,
            "electricity_usd_per_kwh": plan.break_even.electricity_threshold_usd_per_kwh,
            "cloud_price_usd_per_hour": plan.break_even.cloud_price_threshold_usd_per_hour,
            "cloud_price_reference_offer": plan.break_even.cloud_price_threshold_offer,
        },
        "line_items": line_items(plan),
        "total_cost_usd": plan.total_cost_usd,
        "alternatives": alternatives,
        "prices_as_of": plan.prices_as_of,
        "prices_in_force": plan.prices_in_force,
        "warnings": plan.warnings,
        "exchange_rates": plan.exchange_rates, "electricity": plan.electricity, "carbon": plan.carbon,
        "purchase_tax": plan.purchase_tax,
        "depreciation": schedule if schedule is not None else depreciation(plan),
    }
