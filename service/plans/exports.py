"""Plans as documents a purchasing system ingests: CSV line items and a purchase request with its reasons.

The line items add up to the plan's total cost to the cent: purchases, hosts, cloud hours, reserved /
committed instances, owned opex, financing interest, the expected electricity and (negative) the expected
resale credit; a `rounding` line takes the cents that
rounding each line on its own leaves over, so the column sums exactly.

Money is in the plan's currency. After the original columns come columns named as in the FinOps FOCUS
specification (https://focus.finops.org/, FOCUS 1.0-1.2 column library, read in the FOCUS_Spec repository's
specification/columns/*.md) where it has a name: ChargeCategory (Purchase, Usage, Tax, Credit, Adjustment),
ChargeFrequency (One-Time, Recurring, Usage-Based), ChargeDescription, PricingCategory (Standard, Dynamic for spot,
Committed for reserved / committed instances; null for tax, credit and adjustment lines, as the spec allows or
requires), PricingQuantity, PricingUnit, ListUnitPrice, ListCost, ContractedUnitPrice, ContractedCost, BilledCost,
EffectiveCost (no amortisation here, so equal to BilledCost), PricingCurrency, BillingCurrency, ProviderName,
RegionId, CommitmentDiscountId, CommitmentDiscountName, CommitmentDiscountType, CommitmentDiscountCategory,
CommitmentDiscountStatus; and custom columns with FOCUS's `x_` prefix for what it has no name for: x_ExchangeRate
(plan currency per USD), x_ExchangeRatesAsOf (the ECB date), x_TaxPercent, x_KgCO2e, x_CarbonCost (the carbon price
on the line's emissions, not in its BilledCost), x_CommittedUnitPrice and x_ListPriceOffer (the on-demand offer a
commitment's ListUnitPrice is the price of). tests/service/plans/test_focus_validator.py checks these columns with
the FinOps Foundation's validator.

Unit prices are the provider's: a carbon price (options.carbon_price_per_tonne) is never folded into ListUnitPrice
or a line's cost; it is one line of its own (type `carbon`, ChargeCategory Adjustment: an internal price, no
provider bills it), and each cloud, commitment and electricity line shows its share in x_CarbonCost.

A reserved / committed instance is a Usage line of the held hours it worked (CommitmentDiscountStatus Used) and
one of those it was held but idle (Unused), which FOCUS requires apart (PricingCategory Committed, ChargeFrequency
Recurring: paid whether used or not; the hours worked are the periods' `commitments[i]` cloud hours). FOCUS defines
ListUnitPrice as the provider's price "exclusive of any discounts" and ContractedUnitPrice as the agreed price
"inclusive of negotiated discounts ... while excluding negotiated commitment discounts": both are therefore the
on-demand price of the instance the commitment discounts (`CommitmentLine.on_demand_usd_per_hour`: matched by
provider, GPU and GPU count, not by name; the committed rate when none is known, x_ListPriceOffer then empty), and
the committed rate shows in BilledCost / EffectiveCost and x_CommittedUnitPrice, so ListCost - EffectiveCost is the
commitment's saving. Putting the committed rate in ContractedUnitPrice would make a FOCUS tool report the
commitment discount as a negotiated one. ProviderName of a purchase is the seller or price publisher the catalog
names (`BuyLine.vendor`); a profile quote's own `source` when it gave one; empty when not known (hosts: a parts list
of several sellers).
With purchase taxes, purchases are listed at their net price and the taxes on one `tax` line (ChargeCategory Tax):
no unit price and no PricingQuantity or PricingUnit (FOCUS: null for Tax), and ListCost and ContractedCost equal to
its BilledCost (FOCUS: a tax's are computed from the charges it is on, whose list and contracted prices are the
prices paid).
"""

from __future__ import annotations

import csv
import io
import math
from typing import Any, Literal

from service.core.spreadsheet import neutralise_row
from solvers.base.finance import declining_balance, straight_line
from solvers.base.plan_lines import Costs
from solvers.base.result import PlanResult
from solvers.money.currency import format_money

CSV_COLUMNS = ["line", "item", "type", "gpu", "condition", "quantity", "unit", "unit_price", "currency",
               "vendor_source", "price_as_of", "line_total"]
FOCUS_COLUMNS = ["ChargeCategory", "ChargeFrequency", "ChargeDescription", "PricingCategory", "PricingQuantity",
                 "PricingUnit", "ListUnitPrice", "ListCost", "ContractedUnitPrice", "ContractedCost", "BilledCost",
                 "EffectiveCost", "PricingCurrency", "BillingCurrency", "ProviderName", "RegionId",
                 "CommitmentDiscountId", "CommitmentDiscountName", "CommitmentDiscountType",
                 "CommitmentDiscountCategory", "CommitmentDiscountStatus", "x_ExchangeRate", "x_ExchangeRatesAsOf",
                 "x_TaxPercent", "x_KgCO2e", "x_CarbonCost", "x_CommittedUnitPrice", "x_ListPriceOffer"]
CHARGE_CATEGORY = {"gpu": "Purchase", "host": "Purchase", "cloud": "Usage", "electricity": "Usage", "tax": "Tax",
                   "resale": "Credit", "rounding": "Adjustment",
                   # issue 16's finance lines: a commitment is the usage of every held hour at the committed rate;
                   # running costs and cloud data are usage; financing interest and the internal carbon price have
                   # no FOCUS category of their own
                   "commitment": "Usage", "opex": "Usage", "cloud_data": "Usage", "financing": "Adjustment",
                   "carbon": "Adjustment"}
CHARGE_FREQUENCY = {"gpu": "One-Time", "host": "One-Time", "tax": "One-Time", "cloud": "Usage-Based",
                    "electricity": "Usage-Based", "commitment": "Recurring", "opex": "Recurring",
                    "cloud_data": "Recurring", "financing": "Recurring", "resale": "One-Time",
                    "rounding": "One-Time", "carbon": "Usage-Based"}
# FOCUS PricingCategory: MUST be set for Usage and Purchase, MUST be null for Tax, MAY be null otherwise
PRICING_CATEGORY = {"gpu": "Standard", "host": "Standard", "electricity": "Standard", "opex": "Standard",
                    "cloud_data": "Standard", "commitment": "Committed"}


_IDLE_HOURS = 0.005  # hours below this are the periods' rounding (3 decimals), not a part of a commitment


def _cents(value: float) -> float:
    return round(value + 0.0, 2)


def _tax_percent(plan: PlanResult) -> float:
    tax = plan.purchase_tax
    return 0.0 if tax is None else tax.vat_percent + tax.import_duty_percent


def _purchase_provider(vendor: str | None, source: str) -> str:
    """The seller where known; a profile quote's own source unless it is the default 'request'; else empty."""
    if vendor:
        return vendor
    return "" if source == "request" else source


def line_items(plan: PlanResult) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    currency = plan.currency
    rates = plan.exchange_rates
    per_usd = next((r.usd_per_unit for r in rates.rates if r.currency == currency), 1.0) if rates else 1.0
    tax_percent = _tax_percent(plan)
    net = 1.0 / (1.0 + tax_percent / 100.0)  # purchases are listed net, their taxes on a line of their own

    def add(item: str, kind: str, gpu: str, condition: str, quantity: float, unit: str, unit_price: float | None,
            vendor_source: str, as_of: str, total: float, provider: str = "", region: str = "",
            kg: float | None = None, list_price: float | None = None, carbon: float | None = None,
            pricing: str | None = None, commitment: dict[str, str] | None = None,
            committed_price: float | None = None) -> None:
        line_total = _cents(total)
        price = None if unit_price is None else round(unit_price, 6)
        listed = price if list_price is None else round(list_price, 6)
        commit = commitment or {}
        tax = kind == "tax"
        list_cost = line_total if tax else None if listed is None else _cents(listed * quantity)
        items.append({"line": len(items) + 1, "item": item, "type": kind, "gpu": gpu, "condition": condition,
                      "quantity": quantity, "unit": unit, "unit_price": price, "currency": currency,
                      "vendor_source": vendor_source, "price_as_of": as_of, "line_total": line_total,
                      "ChargeCategory": CHARGE_CATEGORY[kind], "ChargeFrequency": CHARGE_FREQUENCY[kind],
                      "ChargeDescription": item, "PricingCategory": pricing or PRICING_CATEGORY.get(kind),
                      "PricingQuantity": None if tax else quantity, "PricingUnit": None if tax else unit,
                      "ListUnitPrice": None if tax else listed, "ListCost": list_cost,
                      "ContractedUnitPrice": None if tax else listed, "ContractedCost": list_cost,
                      "BilledCost": line_total, "EffectiveCost": line_total, "PricingCurrency": currency,
                      "BillingCurrency": currency, "ProviderName": provider, "RegionId": region,
                      "CommitmentDiscountId": commit.get("id"), "CommitmentDiscountName": commit.get("name"),
                      "CommitmentDiscountType": commit.get("type"),
                      "CommitmentDiscountCategory": commit.get("category"),
                      "CommitmentDiscountStatus": commit.get("status"),
                      "x_ExchangeRate": round(1.0 / per_usd, 8), "x_ExchangeRatesAsOf": rates.as_of if rates else "",
                      "x_TaxPercent": tax_percent if kind in ("gpu", "host", "tax") else 0.0,
                      "x_KgCO2e": None if kg is None else round(kg, 3),
                      "x_CarbonCost": None if carbon is None else _cents(carbon),
                      "x_CommittedUnitPrice": None if committed_price is None else round(committed_price, 6),
                      "x_ListPriceOffer": commit.get("list_offer")})

    taxed = 0.0
    for b in plan.buy:
        price = b.unit_price_usd * net
        taxed += b.count * (b.unit_price_usd - price)
        add(b.name, "gpu", b.gpu, b.condition, b.count, f"unit of {b.gpus_per_unit} GPU(s)", price,
            b.source, b.price_as_of, b.count * price, provider=_purchase_provider(b.vendor, b.source))
    for h in plan.hosts:
        price = h.unit_price_usd * net
        taxed += h.count * (h.unit_price_usd - price)
        add(h.name, "host", "", "new", h.count, f"host with {h.slots} GPU slot(s)", price, h.source,
            h.price_as_of, h.count * price)
    if tax_percent and taxed:
        add(f"VAT and import duty on the purchases ({tax_percent:g}%)", "tax", "", "", 1, "estimate", taxed,
            "profile options vat_percent, import_duty_percent", "", taxed)
    carbon_total = 0.0
    for c in plan.cloud:
        price = c.usd_per_hour - c.carbon_usd_per_hour  # the provider's price
        carbon = c.carbon_usd_per_hour * c.hours
        carbon_total += carbon
        add(f"{c.provider} {c.name} ({c.region}, {c.pricing.replace('_', '-')})", "cloud", c.gpu, "cloud", c.hours,
            "instance-hour", price, f"{c.provider}: {c.source}", c.price_as_of, c.cost_usd - carbon,
            provider=c.provider, region=c.region, kg=c.kg_co2e, carbon=carbon if c.carbon_usd_per_hour else None,
            pricing="Dynamic" if c.pricing == "spot" else "Standard")
    for m, used in zip(plan.commitments, committed_hours_used(plan), strict=True):
        held = m.count * m.paid_hours
        committed = m.usd_per_hour - m.carbon_usd_per_hour  # the provider's effective committed rate
        term = f"{m.term_months}-month commitment x {m.terms}"
        used = held if held - used <= _IDLE_HOURS else 0.0 if used <= _IDLE_HOURS else used
        for status, hours in (("Used", used), ("Unused", held - used)):
            if hours <= 0:
                continue  # no row for a part that is not there (a commitment worked or idle throughout)
            share = hours / held if held else 0.0
            carbon = m.carbon_usd_per_hour * hours
            carbon_total += carbon
            idle = ", held but not used" if status == "Unused" else ""
            add(f"{m.provider} {m.name} ({m.region}, {term}{idle})", "commitment", m.gpu, "cloud", round(hours, 3),
                "instance-hour committed", committed, f"{m.provider}: {m.source}", m.price_as_of,
                (m.cost_usd - m.carbon_usd_per_hour * held) * share, provider=m.provider, region=m.region,
                kg=None if m.kg_co2e is None else m.kg_co2e * share, carbon=carbon if m.carbon_usd_per_hour else None,
                list_price=m.on_demand_usd_per_hour if m.on_demand_usd_per_hour is not None else committed,
                committed_price=committed,
                commitment={"id": f"{m.provider}/{m.region}/{m.name}/{m.term_months}m/{m.payment}",
                            "name": f"{m.count} x {m.name}, {m.term_months}-month term, {m.payment.replace('_', ' ')}",
                            "type": "Reserved / committed instance", "category": "Usage", "status": status,
                            "list_offer": m.on_demand_offer or ""})
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
    owned_carbon = (plan.carbon.owned_carbon_cost or 0.0) if plan.carbon else 0.0
    carbon_total += owned_carbon
    if costs.electricity_usd:
        power = costs.electricity_usd - owned_carbon
        add("Expected electricity for the owned GPUs and hosts", "electricity", "", "", 1, "estimate",
            power, "profile electricity rate", "", power,
            region=(plan.electricity.location or "") if plan.electricity else "",
            kg=plan.carbon.owned_kg_co2e if plan.carbon else None, carbon=owned_carbon or None)
    if costs.resale_credit_usd:
        add("Expected resale of the owned GPUs at the horizon's end", "resale", "", "used", 1, "estimate",
            -costs.resale_credit_usd, "used market value, depreciated", "", -costs.resale_credit_usd)
    report = plan.carbon
    if report is not None and report.carbon_price_per_tonne and carbon_total:
        tonnes = carbon_total / report.carbon_price_per_tonne
        add(f"Internal carbon price on the plan's emissions ({report.carbon_price_per_tonne:g} {currency} per tonne "
            f"CO2e; not billed by any provider)", "carbon", "", "", round(tonnes, 6), "tonne CO2e",
            report.carbon_price_per_tonne, "profile options.carbon_price_per_tonne", "", carbon_total)
    left = _cents(plan.total_cost_usd - math.fsum(i["line_total"] for i in items))
    if left:
        add("Rounding to cents", "rounding", "", "", 1, "adjustment", left, "", "", left)
    return items


def committed_hours_used(plan: PlanResult) -> list[float]:
    """Instance-hours each commitment line worked: the periods' `commitments[i]` cloud hours
    (solvers/money/accounting.py
    names each line by its place), at most the hours the line holds."""
    worked = [0.0] * len(plan.commitments)
    for period in plan.periods:
        for i in range(len(worked)):
            worked[i] += period.cloud_hours.get(f"commitments[{i}]", 0.0)
    return [min(m.count * m.paid_hours, hours) if m.count * m.paid_hours else 0.0
            for m, hours in zip(plan.commitments, worked, strict=True)]


def plan_csv(plan: PlanResult) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS + FOCUS_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(neutralise_row(item) for item in line_items(plan))  # names come from feeds and requests
    return out.getvalue()


def _on_basis(costs: Costs, nominal: float, present: bool) -> float:
    """A total on the plan's basis: its present value when the plan was chosen on present values."""
    if present and costs.present_value_usd is not None:
        return costs.present_value_usd
    return nominal


def cost_basis(plan: PlanResult) -> dict[str, Any]:
    """The basis the plan and its thresholds use, its discount rate, and the totals and saving on both bases."""
    present = plan.break_even.basis == "present_value"
    cloud = plan.alternatives.cloud_only
    return {
        "basis": plan.break_even.basis, "discount_rate": plan.discount_rate,
        "total_nominal": plan.total_cost_usd, "total_present_value": plan.costs.present_value_usd,
        "cloud_only_nominal": cloud.total_cost_usd if cloud else None,
        "cloud_only_present_value": cloud.costs.present_value_usd if cloud else None,
        "saving": None if cloud is None else round(
            _on_basis(cloud.costs, cloud.total_cost_usd, present)
            - _on_basis(plan.costs, plan.total_cost_usd, present), 2),
        "saving_nominal": None if cloud is None else round(cloud.total_cost_usd - plan.total_cost_usd, 2),
        "cash_flows": "cash_flows: the monthly cash-flow table, nominal and at present value",
    }


def justification(plan: PlanResult, horizon: str) -> str:
    """The break-even numbers in sentences a budget holder reads, money in the plan's currency, on the basis the
    plan was chosen on: present values at the profile's discount rate when it is above 0 (the same basis as the
    break-even day and the thresholds), nominal sums otherwise; a present-value request also quotes the nominal
    totals and points to the cash-flow table."""
    be, alts = plan.break_even, plan.alternatives
    present = be.basis == "present_value"

    def _money(value: float) -> str:
        return format_money(value, plan.currency)

    total = _on_basis(plan.costs, plan.total_cost_usd, present)
    cloud_only = (_on_basis(alts.cloud_only.costs, alts.cloud_only.total_cost_usd, present)
                  if alts.cloud_only else None)
    in_all = "at present value" if present else "in all"
    parts = []
    if present:
        parts.append(f"Amounts are present values at a {100 * plan.discount_rate:g}% annual discount rate "
                     f"(compounded monthly), the basis this plan, its break-even day and its thresholds use.")
    if plan.buy:
        bought = ", ".join(f"{b.count} x {b.name}" for b in plan.buy)
        text = f"Buying {bought} for {_money(plan.costs.capex_usd)}"
        if cloud_only is not None:
            text += (f" costs {_money(total)} over {horizon} {in_all}, against "
                     f"{_money(cloud_only)} for renting cloud GPUs only: a saving of "
                     f"{_money(cloud_only - total)}")
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
                     f"{horizon} ({_money(total)}{' at present value' if present else ''}).")
        if be.utilisation_threshold is not None:
            parts.append(f"Buying would pay from {100 * be.utilisation_threshold:.1f}% utilisation.")
    if alts.buy_only is not None and plan.buy:
        buy_only = _on_basis(alts.buy_only.costs, alts.buy_only.total_cost_usd, present)
        parts.append(f"Buying enough GPUs to need no cloud at all would cost {_money(buy_only)}"
                     f"{' at present value' if present else ''}.")
    if present:
        nominal = f"In nominal terms (undiscounted) the plan costs {_money(plan.total_cost_usd)}"
        if alts.cloud_only is not None:
            nominal += (f" against {_money(alts.cloud_only.total_cost_usd)} for cloud only (a saving of "
                        f"{_money(alts.cloud_only.total_cost_usd - plan.total_cost_usd)})")
        parts.append(nominal + "; the monthly cash flows are in the cash-flow table (cash_flows).")
    return " ".join(parts)


def _rate(value: float, currency: str) -> str:
    return f"${value:.2f}" if currency == "USD" else f"{value:.2f} {currency}"


DepreciationMethod = Literal["straight_line", "declining_balance"]
# IRS Publication 946 (How to Depreciate Property), MACRS GDS: computers are 5-year property.
DEFAULT_DEPRECIATION_YEARS = 5


def depreciation(plan: PlanResult, method: DepreciationMethod = "straight_line",
                 years: int = DEFAULT_DEPRECIATION_YEARS, rate: float | None = None,
                 salvage_usd: float = 0.0) -> dict[str, Any] | None:
    """The purchases' book value year by year (solvers.base.finance); None when nothing is bought."""
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
        "basis": cost_basis(plan), "cash_flows": plan.cash_flows, "risk": plan.risk,
    }
