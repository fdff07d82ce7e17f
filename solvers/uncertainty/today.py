"""What the uncertainty stage is handed: today's plan (the deterministic one at the profile's own figures) as values
of the stages below it, and what it hands back, the same with the stochastic purchase in place of today's.

Why a value of its own rather than the plan's core: the core lives in `solvers.plan`, above this stage, and carries
the explanation stage's deferred alternatives; this stage reads only what it needs from the stages below it
(`solvers.plan.today_of` makes it; `make_plan` puts the decided `main`, `plan` and `owned_main` back into its core).
"""

from __future__ import annotations

from dataclasses import dataclass

from solvers.base.finance import Terms
from solvers.base.options import Options, OwnedOption
from solvers.demand.blocks import Block
from solvers.demand.periods import Period
from solvers.model.arrays import Limits, MipSolution
from solvers.money.accounting import Accounts, Ledger


@dataclass(frozen=True)
class Today:
    """Today's plan: its periods and blocks, limits, money terms, options (all owned ones and those its model
    took), its solution, ledger and accounts."""

    periods: list[Period]
    blocks: list[Block]
    limits: Limits
    terms: Terms
    options: Options
    owned: list[OwnedOption]
    owned_main: list[OwnedOption]
    main: MipSolution
    ledger: Ledger
    plan: Accounts


__all__ = ["Today"]
