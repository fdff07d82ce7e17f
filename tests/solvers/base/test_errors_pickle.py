"""Planner errors cross from the plan worker processes to the request thread by pickle: every field survives."""

from __future__ import annotations

import pickle

from solvers.base.errors import InfeasibleProfile, ProfileError


def test_profile_error_round_trips_with_field_rule_and_message() -> None:
    crossed = pickle.loads(pickle.dumps(ProfileError("gpus", "known_gpu", "no GPU named 'X'")))
    assert isinstance(crossed, ProfileError)
    assert (crossed.field, crossed.rule, crossed.message) == ("gpus", "known_gpu", "no GPU named 'X'")


def test_infeasible_profile_round_trips_with_its_nearest_feasible_value() -> None:
    crossed = pickle.loads(pickle.dumps(InfeasibleProfile("max_capex_usd", "too small", 1234.5)))
    assert isinstance(crossed, InfeasibleProfile)
    assert (crossed.constraint, crossed.message, crossed.nearest_feasible) == ("max_capex_usd", "too small", 1234.5)
