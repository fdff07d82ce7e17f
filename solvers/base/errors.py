"""Errors the planner raises for input it cannot plan; the service turns them into 422 answers."""

from __future__ import annotations


class ProfileError(ValueError):
    """A profile field is wrong in a way only the catalog can tell (unknown GPU, unknown provider)."""

    def __init__(self, field: str, rule: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.rule = rule
        self.message = message

    def __reduce__(self) -> tuple[type[ProfileError], tuple[str, str, str]]:
        """Picklable with every argument: plans are solved in worker processes and their errors cross back."""
        return type(self), (self.field, self.rule, self.message)


class InfeasibleProfile(ValueError):
    """No plan meets the profile: names the constraint and, where one exists, the nearest feasible value."""

    def __init__(self, constraint: str, message: str, nearest_feasible: float | str | None = None) -> None:
        super().__init__(message)
        self.constraint = constraint
        self.message = message
        self.nearest_feasible = nearest_feasible

    def __reduce__(self) -> tuple[type[InfeasibleProfile], tuple[str, str, float | str | None]]:
        """Picklable with every argument (see ProfileError.__reduce__)."""
        return type(self), (self.constraint, self.message, self.nearest_feasible)


class SolverFailure(RuntimeError):
    """HiGHS returned neither a solution nor a proof of infeasibility (today's plan, or the stochastic program of a
    plan under uncertainty): a 500 the service names, never a plan."""
