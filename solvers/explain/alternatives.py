"""The plan's two alternatives, cloud only and buy only, solved and accounted beside the main solve, with the
thresholds' single units and, in the background, the thresholds of the main model's start.

In: the options, blocks, limits and ledger of the plan's core. Out: `Others` (the alternatives' accounts and
notes) and the evaluator the thresholds use; `solvers.base.deferred.Deferred` runs it on a second thread when that
thread is idle."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from solvers.base.notices import Notice, notice
from solvers.base.options import Options, OwnedOption
from solvers.demand.blocks import Block
from solvers.explain.weighing import (
    Search,
    Weighed,
    as_bought,
    best_singles,
    commitment_mixes,
    commitments_only,
    purchases_only,
    single_units,
    solved_units,
    weigh,
)
from solvers.model.arrays import Limits, MipSolution, Model
from solvers.model.build import build
from solvers.model.evaluate import Evaluator
from solvers.model.purchases import Purchase, Scenario
from solvers.model.solve import load, rent_only, solve, solved
from solvers.money.accounting import Accounts, Ledger
from solvers.money.allocation import allocation_of


@dataclass
class Others:
    """The cloud-only and buy-only alternatives, accounted, and why one is missing."""

    cloud_only: Accounts | None = None
    buy_only: Accounts | None = None
    buy_only_solution: MipSolution | None = None
    cloud_only_solution: MipSolution | None = None  # its commitments are a mix the thresholds weigh (issue 16)
    notes: list[Notice] = field(default_factory=list)
    singles: list[Purchase] = field(default_factory=list)  # one unit of the best owned options (thresholds)
    weighed: Weighed | None = None  # the thresholds of the MIP start's purchase, found beside the main solve


Guess = tuple[dict[str, int], dict[str, int]]  # the units and hosts of the main model's MIP start


@dataclass(frozen=True)
class FromMain:
    """What the alternatives take from the plan's main thread once it has built its model: the model (cloud only
    reads its curve), its start's purchase (whose thresholds are searched beside the main run) and the thresholds'
    single units, ranked there before the main run (`ranked_singles`; None: rank them here)."""

    model: Model | None
    guess: Guess | None = None
    singles: list[Purchase] | None = None


MainModel = Future[FromMain]


def ranked_singles(owned: list[OwnedOption], options: Options, limits: Limits, evaluator: Evaluator) -> list[Purchase]:
    """The thresholds' single units, the best few in order of their cost at the profile's demand and rate
    (`weighing.best_singles`). Why the plan's main thread ranks them, before its MIP: the alternatives' thread,
    which needs them after its own MIP, is the longer of the two on the bursty series (its accounts and the
    start's thresholds follow its MIP), so 0.7 ms of its Python moved ahead of the main run ends both about
    together."""
    return best_singles(single_units(owned, options.hosts, limits), evaluator, Scenario(limits.usd_per_kwh))


def _nothing_to_say() -> None:
    return None


def solve_alternatives(owned: list[OwnedOption], options: Options, blocks: list[Block], limits: Limits, ledger: Ledger,
                       main: MainModel, evaluator: Evaluator, search: Search, background: bool,
                       launched: Callable[[], None] = _nothing_to_say) -> tuple[Others, Evaluator]:
    """Buy only (every purchase option, no cloud: a MIP of its own) and cloud only (on-demand, spot and
    commitments, nothing bought), accounted. Without commitments cloud only has no decision left (every job is
    rented as the screening curve prices it), so it is read from the main model when there is one. Also the
    thresholds' single units, in order of their cost, unless the main thread ranked them: none of it depends on
    the main plan.

    In the `background`, beside the main solve, also the thresholds of the main model's MIP start (`guess`): they
    depend on the plan's purchase and commitments only, so when the optimum buys what the start buys (the usual
    case) the plan takes them as found, and the main thread, waiting on nothing, skips their searches after its
    solve (some 3.5 ms on the bursty series, `Weighed.holds_for`). Inline there is no solve to overlap, so no guess.

    `main` is the main model, its start's purchase and (beside the main solve) the ranked single units, which the
    cloud-only read-out and the guess's thresholds need and which the main thread may still be making: the
    buy-only model needs none of it, so it is built and handed to HiGHS first, and `launched` says so (the plan's
    main thread waits for it, then builds its own while this MIP runs; issue 29: the other order left this thread's
    Python after its MIP, the accounts and the guess's thresholds, to run after the main MIP, where nothing hides
    it)."""
    others = Others()
    buy_notes: list[Notice] = []
    purchases = purchases_only(owned)
    if purchases:
        started = time.perf_counter()
        buy_only = build(purchases, [], options.hosts, blocks, limits)
        loaded = load(buy_only)
        launched()
        others.buy_only_solution = solved(buy_only, started, loaded=loaded)
        if others.buy_only_solution.status.has_solution:
            others.buy_only = ledger.account(allocation_of(others.buy_only_solution), detail=False)
        else:
            buy_notes.append(notice("buy_only_infeasible"))
    else:
        launched()
        buy_notes.append(notice("buy_only_none"))
    given = main.result()
    model, guess = given.model, given.guess
    commitments = commitments_only(owned)
    if options.cloud or commitments:
        cloud = (rent_only(model, limits) if not commitments and model is not None
                 else solve(commitments, options.cloud, options.hosts, blocks, limits))
        if cloud.status.has_solution:
            others.cloud_only = ledger.account(allocation_of(cloud), detail=False)
            others.cloud_only_solution = cloud
        else:
            others.notes.append(notice("cloud_only_quota"))
    else:
        others.notes.append(notice("cloud_only_none"))
    others.notes += buy_notes
    others.singles = (given.singles if given.singles is not None
                      else ranked_singles(owned, options, limits, evaluator))
    if background and guess is not None:
        mixes = commitment_mixes(owned, guess[0], solved_units(others.cloud_only_solution))
        others.weighed = weigh(owned, evaluator, limits, search, as_bought(Purchase(*guess), owned),
                                others.buy_only_solution, others.singles, mixes)
    return others, evaluator
