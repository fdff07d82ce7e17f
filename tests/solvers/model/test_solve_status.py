"""HiGHS's model statuses mapped to the planner's four (solvers/model/solve.py `map_status`): a limit with a solution
is a
`time_limited` plan (the API says so with its gap), a limit without one is an error, never a silent optimum."""

from __future__ import annotations

import highspy
import pytest

from solvers.model.arrays import SolveStatus
from solvers.model.solve import map_status

S = highspy.HighsModelStatus


@pytest.mark.parametrize(("status", "has_solution", "expected"), [
    (S.kOptimal, True, SolveStatus.OPTIMAL),
    (S.kInfeasible, False, SolveStatus.INFEASIBLE),
    (S.kUnboundedOrInfeasible, False, SolveStatus.INFEASIBLE),
    (S.kTimeLimit, True, SolveStatus.TIME_LIMITED),
    (S.kTimeLimit, False, SolveStatus.ERROR),
    (S.kInterrupt, True, SolveStatus.TIME_LIMITED),
    (S.kIterationLimit, True, SolveStatus.TIME_LIMITED),
    (S.kSolutionLimit, False, SolveStatus.ERROR),
    (S.kUnbounded, False, SolveStatus.ERROR),
    (S.kSolveError, False, SolveStatus.ERROR),
])
def test_every_highs_status_maps_to_one_the_planner_knows(status: highspy.HighsModelStatus, has_solution: bool,
                                                          expected: SolveStatus) -> None:
    mapped = map_status(status, has_solution)
    assert mapped == expected
    assert mapped.has_solution == (expected in (SolveStatus.OPTIMAL, SolveStatus.TIME_LIMITED))
