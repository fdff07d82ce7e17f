"""A plan's risk figures (issue 32) as a CSV a spreadsheet reads: the summary measures of the plan and of cloud
only, then each future's totals with its weight. The line-item CSV (`exports.plan_csv`) stays line items that add
up to the plan's total; the risk figures are figures about the plan, not lines of it, so they are a file of their
own (`GET /v1/plans/{id}/risk.csv`) and a section of the purchase request."""

from __future__ import annotations

import csv
import io
from typing import Any

from solvers.base.risk import Risk

RISK_COLUMNS = ["row", "measure", "plan", "cloud_only", "weight", "unit"]
_TOTALS = (("expected total", "expected_total_usd"), ("P10 total", "p10_total_usd"), ("P50 total", "p50_total_usd"),
           ("P90 total", "p90_total_usd"), ("CVaR total (worst alpha)", "cvar_total_usd"))


def risk_rows(risk: Risk, currency: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []

    def add(measure: str, plan: float | None, cloud_only: float | None = None, weight: float | None = None,
            unit: str = currency) -> None:
        rows.append({"row": len(rows) + 1, "measure": measure, "plan": plan, "cloud_only": cloud_only,
                     "weight": weight, "unit": unit})

    for label, field in _TOTALS:
        add(label, getattr(risk, field), None if risk.cloud_only is None else getattr(risk.cloud_only, field))
    add("probability the plan beats cloud only", risk.probability_beats_cloud_only, unit="share")
    add("probability buying pays off within the horizon", risk.probability_buying_pays_off, unit="share")
    add("today's plan, expected total in the same futures", risk.deterministic_expected_total_usd)
    add("value of the stochastic solution", risk.value_of_stochastic_solution_usd)
    if risk.max_regret_usd is not None:
        add("largest regret", risk.max_regret_usd)
    if risk.deferral_months:
        add("value of letting purchases wait (modelled)", risk.value_of_waiting_usd)
    for m in risk.deferred:
        add(f"probability of buying at month {m.month}", m.probability_buys, unit="share")
        for p in m.purchases:
            add(f"probability of buying {p.name} at month {m.month}", p.probability, unit="share")
            add(f"units of {p.name} bought at month {m.month} (mean over futures)", p.mean_units, unit="units")
    for w in risk.waiting:
        add(f"value of waiting to month {w.month}", w.value_usd)
    add("alpha (share of worst futures in CVaR)", risk.alpha, unit="share")
    cloud_totals: list[float | None] = (list(risk.cloud_only_totals_usd) if risk.cloud_only_totals_usd
                                        else [None] * len(risk.totals_usd))
    for i, (plan, cloud, weight) in enumerate(zip(risk.totals_usd, cloud_totals, risk.weights, strict=True),
                                              start=1):
        add(f"future {i} total", plan, cloud, weight)
    return rows


def risk_csv(risk: Risk, currency: str) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=RISK_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(risk_rows(risk, currency))
    return out.getvalue()
