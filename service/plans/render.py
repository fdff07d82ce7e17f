"""Rich tables for a plan, so `gpuplan plan` reads like the API answer without the JSON."""

from __future__ import annotations

import re

from rich.console import Console
from rich.table import Table

from service.plans.render_risk import render_risk
from solvers.base.result import PlanResult
from solvers.base.workload import WorkloadPlan


def _money(value: float | None, currency: str) -> str:
    """An amount in the plan's currency: "$1,234.56" for USD, "1,234.56 EUR" otherwise."""
    if value is None:
        return "-"
    return f"${value:,.2f}" if currency == "USD" else f"{value:,.2f} {currency}"


def _rate(value: float, currency: str) -> str:
    return f"${value:.4f}" if currency == "USD" else f"{value:.4f} {currency}"


_OFFER_PRICE = re.compile(r" at ([0-9.eE+-]+) USD/h$")


def _offer(text: str | None, plan: PlanResult) -> str:
    """A cloud offer as the API names it ("aws/p3.2xlarge (us-east-1, on_demand) at 3.06 USD/h"), its price in the
    plan's currency, as the page writes it: a EUR plan said "1.55 EUR/h for ... at 0.93 USD/h"."""
    if not text:
        return "-"
    found = _OFFER_PRICE.search(text)
    rate = next((r.usd_per_unit for r in (plan.exchange_rates.rates if plan.exchange_rates else [])
                 if r.currency == plan.currency), None)
    if found is None or plan.currency == "USD" or not rate:
        return text
    return text[: found.start()] + f" at {_rate(float(found.group(1)) / rate, plan.currency)}/h"


def render_plan(plan: PlanResult, console: Console) -> None:
    console.print(f"[bold]{plan.recommendation}[/bold]")
    if plan.workload is not None:
        render_workload(plan.workload, console)
    if plan.buy or plan.hosts:
        t = Table(title="Purchases")
        for col in ("item", "GPU", "condition", "count", "unit price", "resale/unit", "source", "as of"):
            t.add_column(col)
        for b in plan.buy:
            t.add_row(
                b.name,
                b.gpu,
                b.condition,
                str(b.count),
                _money(b.unit_price_usd, plan.currency),
                _money(b.resale_usd_per_unit, plan.currency),
                b.source[:60],
                b.price_as_of,
            )
        for h in plan.hosts:
            t.add_row(h.name, "-", "new", str(h.count), _money(h.unit_price_usd, plan.currency), "-", h.source[:60],
                      h.price_as_of)
        console.print(t)
    if plan.cloud:
        t = Table(title="Cloud hours")
        for col in ("provider", "instance", "GPU", "region", "pricing", f"{plan.currency}/h", "hours", "cost"):
            t.add_column(col)
        for c in plan.cloud:
            t.add_row(
                c.provider,
                c.name,
                f"{c.gpu_count} x {c.gpu}",
                c.region,
                c.pricing,
                f"{c.usd_per_hour:.4g}",  # the plan's currency (readout_money converts the USD fields)
                f"{c.hours:,.1f}",
                _money(c.cost_usd, plan.currency),
            )
        console.print(t)
    if plan.commitments:
        t = Table(title="Commitments (reserved / committed instances, whole terms)")
        for col in ("provider", "instance", "GPU", "region", "count", "term", f"{plan.currency}/h", "paid hours",
                    "cost"):
            t.add_column(col)
        for m in plan.commitments:
            t.add_row(m.provider, m.name, f"{m.gpu_count} x {m.gpu}", m.region, str(m.count),
                      f"{m.terms} x {m.term_months} months", f"{m.usd_per_hour:g}", f"{m.paid_hours:,.0f}",
                      _money(m.cost_usd, plan.currency))
        console.print(t)
    t = Table(title="Costs over the horizon")
    t.add_column("")
    t.add_column("plan")
    t.add_column("cloud only")
    t.add_column("buy only")
    alts = plan.alternatives
    for label, field in (
        ("capex", "capex_usd"),
        ("electricity", "electricity_usd"),
        ("cloud", "cloud_usd"),
        *(row for row in (("commitments", "commitments_usd"), ("owned opex", "opex_usd"),
                          ("cloud data", "cloud_data_usd"), ("financing interest", "financing_interest_usd"))
          if getattr(plan.costs, row[1]) or (alts.cloud_only and getattr(alts.cloud_only.costs, row[1]))),
        ("resale credit", "resale_credit_usd"),
        ("total", "total_usd"),
    ):
        t.add_row(
            label,
            _money(getattr(plan.costs, field), plan.currency),
            _money(getattr(alts.cloud_only.costs, field), plan.currency) if alts.cloud_only else "-",
            _money(getattr(alts.buy_only.costs, field), plan.currency) if alts.buy_only else "-",
        )
    if plan.discount_rate:
        present_value = _money(plan.costs.present_value_usd, plan.currency)
        console.print(f"present value at {100 * plan.discount_rate:g}% a year: {present_value}")
    console.print(t)
    be = plan.break_even
    t = Table(title="Break-even")
    t.add_column("measure")
    t.add_column("value")
    t.add_row("buying pays off after (days)", "-" if be.days is None else f"{be.days:,.1f}")
    t.add_row(
        "utilisation threshold", "-" if be.utilisation_threshold is None else f"{100 * be.utilisation_threshold:.2f}%"
    )
    t.add_row(
        "demand scale threshold", "-" if be.demand_scale_threshold is None else f"{be.demand_scale_threshold:.3f}x"
    )
    t.add_row(
        "electricity threshold",
        "-"
        if be.electricity_threshold_usd_per_kwh is None
        else _rate(be.electricity_threshold_usd_per_kwh, plan.currency) + "/kWh",
    )
    t.add_row(
        "cloud price threshold",
        "-"
        if be.cloud_price_threshold_usd_per_hour is None
        else _rate(be.cloud_price_threshold_usd_per_hour, plan.currency)
        + f"/h for {_offer(be.cloud_price_threshold_offer, plan)}",
    )
    if be.simple is not None:
        t.add_row(
            "guide's closed form (days)",
            "-" if be.simple.days is None
            else f"{be.simple.days:,.1f} ({be.simple.owned} vs {_offer(be.simple.cloud, plan)})",
        )
    console.print(t)
    if plan.risk is not None:
        render_risk(plan.risk, plan.currency, console)
    for w in plan.warnings:
        console.print(f"[yellow]warning:[/yellow] {w}")
    console.print(
        f"solver: {plan.solver.backend} {plan.solver.status} in {plan.solver.solve_ms:.1f} ms; "
        f"prices as of: " + ", ".join(f"{k} {v}" for k, v in plan.prices_as_of.items())
    )


def _num(value: float | None, fmt: str = ",.1f") -> str:
    return "-" if value is None else format(value, fmt)


def render_workload(workload: WorkloadPlan, console: Console) -> None:
    """The workload form's table: every GPU type, its job, the widths the plan runs it at, why a type was left out."""
    widths = (f"jobs of {workload.plan_gpus_per_job} GPU(s) in the plan" if workload.plan_gpus_per_job is not None
              else "each GPU type at its own job width in the plan")
    console.print(f"Workload ({workload.kind}): {widths} (widths considered {workload.widths_tried}); work counted "
                  f"in {workload.reference_gpu} GPU-hours (jobs of {workload.reference_gpus_per_job}), "
                  f"{workload.reference_gpu_hours_per_month:,.1f} a month")
    t = Table(title="GPU types considered")
    for col in ("GPU", "GPUs/job", "hours/job", "memory/GPU GB", "sharding", "usable", "GPUs/job in plan",
                "why left out"):
        t.add_column(col)
    for row in workload.gpus:
        planned = ", ".join(f"{w.gpus_per_job} ({w.hours_per_job:,.1f} h)" for w in row.plan_widths) or "-"
        t.add_row(row.gpu + (" *" if row.extrapolated else ""), _num(row.gpus_per_job, "d"),
                  _num(row.hours_per_job), _num(row.memory_per_gpu_gb), row.sharding or "-",
                  "yes" if row.in_plan else "no", planned, row.excluded_reason or "")
    console.print(t)
    console.print("* throughput extrapolated (no measurement of this GPU)")
    for assumption in workload.assumptions:
        console.print(f"assumes: {assumption}")
