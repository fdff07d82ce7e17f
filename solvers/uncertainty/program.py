"""The stochastic program over the futures' models (`Piece`s, or `Split`s with later purchases): solved with each
future's recourse relaxed, the decision priced exactly, the full extensive form when the two are apart; one future
alone; each future's own optimum (regret)."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from solvers.base import uncertainty_defaults as udefaults
from solvers.base.uncertainty import Uncertainty
from solvers.model.arrays import MipSolution, SolveStatus
from solvers.model.solve import solved
from solvers.uncertainty import figures
from solvers.uncertainty.extensive import Piece, Stacked, Stage, solve_extensive
from solvers.uncertainty.recourse import evaluate_fixed

# the most the full extensive form of split futures may take (`with_deferral`): 3 of the analysis's 20 s
# (`uncertainty_defaults.TIME_LIMIT_S`), so a plan whose program with purchases that wait is not proven within
# SAA_REL_GAP by the relaxed forms stays well within the budget (and says its gap)
FULL_SPLIT_S = 3.0


def _score(found: Stacked, option: Uncertainty, weights: np.ndarray, best: np.ndarray | None) -> float:
    """A solution's value on the profile's objective (what the program minimises)."""
    return figures.score(found.totals, weights, option.objective, option.alpha, option.risk_weight, best)


def stochastic(pieces: Sequence[Stage], option: Uncertainty, best: np.ndarray | None, weights: np.ndarray,
                deadline: float, hold_deferred: bool = False,
                relaxed_gaps: tuple[float, ...] = (udefaults.SAA_REL_GAP / 10,),
                full_form_s: float | None = None) -> Stacked:
    """The extensive form with each future's recourse relaxed (a lower bound, its purchase in a tenth of the
    time), that purchase priced exactly in every future; when the two are further apart than SAA_REL_GAP, the
    relaxed form again at the next of `relaxed_gaps`, then the extensive form itself within what is left of the
    time budget (at most `full_form_s`), the best kept. The gap reported is the proven one: (best total found -
    best lower bound) / best total found."""
    def left(share: float) -> float:
        return max((deadline - time.perf_counter()) * share, 0.05)

    def value(found: Stacked) -> float:
        return _score(found, option, weights, best)

    shape = {"alpha": option.alpha, "risk_weight": option.risk_weight, "best": best, "hold_deferred": hold_deferred}
    found: Stacked | None = None
    statuses: list[SolveStatus] = []
    lower = -np.inf
    shown = None

    def consider(solved_form: Stacked, share: float) -> None:
        """A solved form's bound, and its purchase priced exactly when it is new and better than the one kept."""
        nonlocal found, lower
        statuses.append(solved_form.status)
        if not solved_form.status.has_solution:
            return
        lower = max(lower, solved_form.bound)
        if found is None or (solved_form.units, solved_form.hosts) != (found.units, found.hosts):
            other = priced(pieces, solved_form, left(share), hold_deferred)
            if other is not None and (found is None or value(other) < value(found)):
                found = other

    for tried, relaxed_gap in enumerate(relaxed_gaps):
        if tried and (found is None or gap(value(found), lower) <= udefaults.SAA_REL_GAP or left(1.0) <= 1.0):
            break
        relaxed = solve_extensive(pieces, option.objective, relax_recourse=True, rel_gap=relaxed_gap,
                                  time_limit_s=left(0.6), **shape)  # type: ignore[arg-type]
        shown = shown or relaxed
        consider(relaxed, 0.6)
    if found is None or (gap(value(found), lower) > udefaults.SAA_REL_GAP and left(1.0) > 1.0):
        limit = left(0.9) if full_form_s is None else min(left(0.9), full_form_s)
        consider(solve_extensive(pieces, option.objective, rel_gap=udefaults.SAA_REL_GAP, time_limit_s=limit,
                                 **shape), 0.9)  # type: ignore[arg-type]
    if found is None:  # the relaxation infeasible: so is every purchase (it only widens each future's choices)
        return Stacked(SolveStatus.INFEASIBLE if SolveStatus.INFEASIBLE in statuses else SolveStatus.ERROR)
    found.gap = max(gap(value(found), lower), 0.0)
    found.status = SolveStatus.OPTIMAL if found.gap <= udefaults.SAA_REL_GAP else SolveStatus.TIME_LIMITED
    if shown is not None:
        found.columns, found.rows = shown.columns, shown.rows
    return found


def priced(pieces: Sequence[Stage], solved_form: Stacked, time_limit_s: float,
            hold_deferred: bool = False) -> Stacked | None:
    """A solution's purchase priced exactly in every future (`evaluate_fixed`). Why not the solution's own totals:
    within its gap a future's recourse need not be that future's best (under regret only the worst futures count
    at all), so its totals would overstate what the purchase costs."""
    found = evaluate_fixed(pieces, {**solved_form.units, **solved_form.hosts}, time_limit_s, hold_deferred)
    if not found.status.has_solution:
        return None
    found.units, found.hosts = dict(solved_form.units), dict(solved_form.hosts)
    return found


def gap(value: float, lower: float) -> float:
    return (value - lower) / max(abs(value), 1e-9) if np.isfinite(lower) else np.inf


def single(piece: Stage, today: MipSolution | None, time_limit_s: float) -> Stacked:
    """One future: today's solve when it is today's figures (the same model, the same answer), else its model's."""
    if today is not None and today.status.has_solution:
        return Stacked(today.status, dict(today.units), dict(today.hosts), np.array([today.objective]),
                       today.objective, today.gap, today.solve_ms, later=np.zeros((1, len(piece.deferred))))
    if not isinstance(piece, Piece):  # split: its purchase all at month 0, as the deterministic model decides
        return solve_extensive([piece], "expected", time_limit_s=time_limit_s, hold_deferred=True)
    sol = solved(piece.model, time.perf_counter(), time_limit_s)
    return Stacked(sol.status, dict(sol.units), dict(sol.hosts), np.array([sol.objective]), sol.objective, sol.gap,
                   sol.solve_ms)


def own_optima(pieces: Sequence[Stage], deadline: float) -> np.ndarray:
    """Each future's own best total (for regret): its model alone."""
    best = []
    for piece in pieces:
        alone = solve_extensive([piece], "expected", time_limit_s=max(deadline - time.perf_counter(), 0.05) / 4)
        if not alone.status.has_solution:
            raise RuntimeError("a future's own plan was not found within the time limit")
        best.append(float(alone.totals[0]))
    return np.array(best)


def with_deferral(pieces: Sequence[Stage], option: Uncertainty, best: np.ndarray | None, weights: np.ndarray,
                  decided: Stacked, deadline: float) -> Stacked:
    """The program over split futures (`deferral.Split`: purchases also at the later decision months), kept only
    when it beats `decided` (every purchase at month 0, on the profile's objective) by more than the solver's
    tolerance and some future waits; else `decided`. One future: its split model solved alone (no first stage to
    share), so a profile without spread keeps today's plan unless waiting is cheaper."""
    def value(found: Stacked) -> float:
        return _score(found, option, weights, best)

    if len(pieces) == 1:
        found = solve_extensive(pieces, "expected", time_limit_s=max(deadline - time.perf_counter(), 0.05))
    else:  # the relaxed form to half the sample's gap first (a quarter of the time of a tenth of it, and on a
        # 36-month lab the same purchase, measured 2026-11-28), a tenth next when that leaves the purchase more than
        # SAA_REL_GAP from the bound, then the full extensive form of split futures for at most FULL_SPLIT_S (its
        # later purchases integer in every future: a 36-month lab's 100 futures take tens of seconds; a dozen
        # futures of a small profile well under it)
        found = stochastic(pieces, option, best, weights, deadline,
                           relaxed_gaps=(udefaults.SAA_REL_GAP / 2, udefaults.SAA_REL_GAP / 10),
                           full_form_s=FULL_SPLIT_S)
    if not found.status.has_solution or not found.later.size or not found.later.any():
        return decided
    if value(found) >= value(decided) - 1e-6 * abs(value(decided)):
        return decided
    return found


__all__ = ["gap", "own_optima", "priced", "single", "stochastic", "with_deferral"]
