"""The plan's `risk` object as a Rich table for `gpuplan plan` (issue 32): the figures a finance office reads."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from solvers.base.risk import Risk


def _money(value: float | None, currency: str) -> str:
    if value is None:
        return "-"
    return f"${value:,.2f}" if currency == "USD" else f"{value:,.2f} {currency}"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def render_risk(risk: Risk, currency: str, console: Console) -> None:
    t = Table(title=f"Across {risk.scenarios} futures (objective {risk.objective})")
    t.add_column("")
    t.add_column("plan")
    t.add_column("cloud only")
    for label, field in (("expected total", "expected_total_usd"), ("P10", "p10_total_usd"),
                         ("P50", "p50_total_usd"), ("P90", "p90_total_usd"),
                         (f"worst {100 * risk.alpha:g}% (CVaR)", "cvar_total_usd")):
        cloud = None if risk.cloud_only is None else getattr(risk.cloud_only, field)
        t.add_row(label, _money(getattr(risk, field), currency), _money(cloud, currency))
    console.print(t)
    t = Table(title="Risk")
    t.add_column("measure")
    t.add_column("value")
    t.add_row("chance the plan beats cloud only", _share(risk.probability_beats_cloud_only))
    t.add_row("chance buying pays off within the horizon", _share(risk.probability_buying_pays_off))
    t.add_row("today's plan in the same futures (expected)", _money(risk.deterministic_expected_total_usd, currency))
    t.add_row("value of the stochastic solution", _money(risk.value_of_stochastic_solution_usd, currency))
    if risk.max_regret_usd is not None:
        t.add_row("largest regret", _money(risk.max_regret_usd, currency))
    if risk.deferral_months:
        t.add_row("value of letting purchases wait (modelled)", _money(risk.value_of_waiting_usd, currency))
    for m in risk.deferred:
        t.add_row(f"futures that buy at month {m.month}", _share(m.probability_buys))
        for p in m.purchases:
            t.add_row(f"  {p.name} at month {m.month}",
                      f"{_share(p.probability)} of futures, {p.mean_units:,.2f} units on average (at most "
                      f"{p.max_units})")
    for w in risk.waiting:
        t.add_row(f"value of waiting to month {w.month}", _money(w.value_usd, currency))
    gap = "" if risk.gap is None else f", gap {100 * risk.gap:.2f}%"
    t.add_row("stochastic program", f"{risk.status}{gap}, {risk.solve_ms:,.0f} ms, {risk.columns:,} columns")
    console.print(t)
