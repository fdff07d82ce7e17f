"""Figures over futures: weighted percentiles, conditional value at risk, objective scores and the fan of
cumulative cost. Pure numpy: the totals come from the extensive form (`solvers.uncertainty.extensive`)."""

from __future__ import annotations

import datetime as dt

import numpy as np

from solvers.base.risk import FanPoint, RiskTotals


def quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    """The weighted q-quantile, inverted CDF: the least value whose cumulative weight reaches q."""
    order = np.argsort(values, kind="stable")
    cumulative = np.cumsum(weights[order]) / weights.sum()
    at = int(np.searchsorted(cumulative, q - 1e-12))
    return float(values[order][min(at, len(values) - 1)])


def cvar(values: np.ndarray, weights: np.ndarray, alpha: float) -> float:
    """Mean of the worst `alpha` of the weight (the largest totals; a future split at the boundary), as the
    Rockafellar-Uryasev program measures it: min_eta eta + E[(c - eta)+] / alpha."""
    order = np.argsort(-values, kind="stable")
    w = weights[order] / weights.sum()
    taken = np.minimum(w, np.maximum(alpha - (np.cumsum(w) - w), 0.0))
    return float(np.dot(taken, values[order]) / alpha)


def totals(values: np.ndarray, weights: np.ndarray, alpha: float) -> RiskTotals:
    return RiskTotals(expected_total_usd=round(float(np.dot(values, weights) / weights.sum()), 2),
                      p10_total_usd=round(quantile(values, weights, 0.1), 2),
                      p50_total_usd=round(quantile(values, weights, 0.5), 2),
                      p90_total_usd=round(quantile(values, weights, 0.9), 2),
                      cvar_total_usd=round(cvar(values, weights, alpha), 2))


def score(values: np.ndarray, weights: np.ndarray, objective: str, alpha: float, risk_weight: float,
          best: np.ndarray | None) -> float:
    """The value of totals on the profile's objective (what the extensive form minimised)."""
    expected = float(np.dot(values, weights) / weights.sum())
    if objective == "cvar":
        return expected + risk_weight * cvar(values, weights, alpha)
    if objective == "regret" and best is not None:
        return float((values - best).max())
    return expected


def cumulative(total: float, start: float, resale: float, shares: np.ndarray, later: float = 0.0,
               later_at: int = 0) -> np.ndarray:
    """A future's cumulative cost at each period's end: the start outlay, a later purchase's outlay `later` from
    period `later_at` on (purchases that wait), the running rest spread over the periods by `shares`, the resale
    (of every card, bought at the start or later) credited at the end, so the last point is the future's total."""
    running = total - start - later + resale
    weight = shares / shares.sum() if shares.sum() > 0 else np.full(len(shares), 1.0 / max(len(shares), 1))
    path = start + np.cumsum(running * weight)
    if later and len(path):
        path[later_at:] += later
    if len(path):
        path[-1] -= resale
    return np.asarray(path)


def fan(days: np.ndarray, ends: list[dt.date], plan: np.ndarray, cloud: np.ndarray | None,
        weights: np.ndarray) -> list[FanPoint]:
    """(futures, periods) cumulative paths of the plan and cloud only -> percentiles at every period's end (cloud
    only's null when it cannot serve every future)."""
    points = []

    def at(q: float, p: int) -> float | None:
        return None if cloud is None else round(quantile(cloud[:, p], weights, q), 2)

    for p in range(len(days)):
        points.append(FanPoint(
            day=float(days[p]), date=ends[p].isoformat(),
            plan_p10_usd=round(quantile(plan[:, p], weights, 0.1), 2),
            plan_p50_usd=round(quantile(plan[:, p], weights, 0.5), 2),
            plan_p90_usd=round(quantile(plan[:, p], weights, 0.9), 2),
            cloud_only_p10_usd=at(0.1, p), cloud_only_p50_usd=at(0.5, p), cloud_only_p90_usd=at(0.9, p)))
    return points
