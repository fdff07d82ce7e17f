"""The progressive hedging command (issue 32): plans the profile as today's plan is planned, then runs mpi-sppy's
progressive hedging over its futures (`solvers.uncertainty.hedging`) on the MPI ranks it was started on. It plans
first, so it sits above the planner, here; the hedging itself stays in the uncertainty stage.

Run (every rank builds the same futures from the same profile and seed; rank 0 prints the answer as JSON):
    mpiexec -n 3 python -m solvers.replan.hedging_command profile.json [--iterations 50]
Optional: `pip install 'gpuplan[mpi]'` and Debian's openmpi-bin / libopenmpi-dev. Not used by the service.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

from pricing.catalog import bundled_catalog
from solvers.base.profile import Profile
from solvers.plan import solve_core, today_of
from solvers.uncertainty.decide import build_futures, piece
from solvers.uncertainty.hedging import hedge


def main(argv: list[str] | None = None) -> None:
    from mpi4py import MPI

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("profile", type=Path)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--today", default="2026-11-01")
    args = parser.parse_args(argv)
    profile = Profile.model_validate_json(args.profile.read_text())
    if profile.uncertainty is None:
        sys.exit("the profile has no uncertainty")
    core = solve_core(profile, bundled_catalog(), dt.date.fromisoformat(args.today))
    option = core.profile.uncertainty  # the prepared profile's: money in USD, as the futures are priced
    if option is None:
        sys.exit("the profile has no uncertainty")
    today = today_of(core)
    # every rank draws the same futures and their inputs (a few ms each); a future's model is built only on the
    # rank that holds it
    futures = build_futures(today, option, models=False)
    names = [f"future{s}" for s in range(len(futures.inputs))]
    answer = hedge(names, lambda name: piece(today, futures, int(name.removeprefix("future"))), args.iterations)
    if MPI.COMM_WORLD.Get_rank() == 0:
        print(json.dumps({**answer, "ranks": MPI.COMM_WORLD.Get_size()}))


if __name__ == "__main__":
    main()
