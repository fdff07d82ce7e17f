"""The electricity and cloud-price thresholds read off the candidates' cost lines instead of searched for.

Why it is exact: with a purchase fixed, the evaluator's operation (rent, owned work per option, packed hours) depends
on the demand scale and the options' energy order only, and the energy order is the same at every positive
electricity rate (each option's energy per job-hour is the rate times a figure of its own). So at the profile's
demand a candidate's cost is a line in the rate (net prices, idle and working energy times the rate) and a line in
the cloud price (rent and packed hours, and commitments, times it); so is each fixed commitment mix of cloud only,
and a commitment whose count follows the scenario is a line in the cloud price whenever the profile has no fixed
monthly cloud cost. The margin buying saves (`thresholds._margin`) can only change sign where some cloud-side
line meets some candidate's line, so the first flip is the first of those meeting points at which the lines say
the test holds. Two evaluations per candidate draw its line (the screening curve at the profile's demand, which the
plan has already run), in place of a search that asks every candidate at some ten rates.

Where a line could bend (a commitment count that follows a scenario with a fixed cloud cost, a candidate that can
do the work at one end only, cloud only infinite), the answer is not trusted on the lines' word: every answer is
checked on the evaluator itself (the test true there and false one tolerance below, what the search's bracket
guarantees), and `thresholds` searches as before when the check fails (`tests/solvers/explain/test_cost_lines.py`
counts how often on the bench profiles: never)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

TIE = 1e-6  # the margin's tolerance on cloud only's cost, relative above 1 USD (`thresholds._margin`)


@dataclass(frozen=True)
class Lines:
    """Costs that are lines in one parameter x: intercept + slope x, one per candidate (or cloud-side option)."""

    intercept: np.ndarray
    slope: np.ndarray


def lines_through(x0: float, costs0: Sequence[float], x1: float, costs1: Sequence[float]) -> Lines | None:
    """The lines through each cost at x0 and x1, leaving out those infinite at both (they never set a minimum);
    None when a cost is finite at one end only (no line) or none is left."""
    c0, c1 = np.asarray(costs0, dtype=float), np.asarray(costs1, dtype=float)
    finite0, finite1 = np.isfinite(c0), np.isfinite(c1)
    if (finite0 != finite1).any() or not finite0.any():
        return None
    c0, c1 = c0[finite0], c1[finite0]
    slope = (c1 - c0) / (x1 - x0)
    return Lines(c0 - slope * x0, slope)


def first_flip(cloud: Lines, bought: Lines, lo: float, hi: float, closed: bool, tolerance: float) -> float | None:
    """The smallest x in [lo, hi] at which the test holds on the lines (`closed`: the margin at most 0, where buying
    stops paying; else above 0, where it pays), as the search states it: lo when it holds there, else a point where
    a cloud-side line less its tie tolerance meets a candidate's line (the only places the margin can change sign),
    nudged up by half the tolerance so that the margin has left zero; None when it holds nowhere on the range.
    The tolerance is taken relative (cloud only at 1 USD or more): below, the answer fails its check on the
    evaluator and the search runs."""
    keep = 1.0 - TIE
    a = cloud.intercept[:, None] * keep - bought.intercept[None, :]
    b = cloud.slope[:, None] * keep - bought.slope[None, :]
    meet = np.divide(-a, b, out=np.full(a.shape, np.nan), where=b != 0).ravel()
    inside = np.sort(meet[(meet > lo) & (meet <= hi)])
    points = np.empty(len(inside) + 1)
    points[0] = lo
    points[1:] = np.minimum(inside + 0.5 * tolerance * np.maximum(1.0, inside), hi)
    cloud_only = (cloud.intercept[None, :] + points[:, None] * cloud.slope[None, :]).min(axis=1)
    margin = cloud_only * keep - (bought.intercept[None, :] + points[:, None] * bought.slope[None, :]).min(axis=1)
    holds = np.isfinite(margin) & ((margin <= 0) if closed else (margin > 0))
    first = int(holds.argmax())
    return float(points[first]) if holds[first] else None
