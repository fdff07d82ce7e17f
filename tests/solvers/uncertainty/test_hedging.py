"""Progressive hedging under MPI (mpi-sppy) against the extensive form, its oracle (issue 32): on 2 and 3 ranks the
first stage PH converges to is the extensive form's, and priced in every future it costs what the extensive form's
optimum does. Skipped without mpiexec and the `mpi` extra, unless GPUPLAN_MPI=1 (CI), where that is a failure."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pricing.catalog import Catalog
from solvers.base.profile import Profile
from solvers.plan import solve_core, today_of
from solvers.uncertainty.decide import build_futures
from solvers.uncertainty.extensive import solve_extensive
from solvers.uncertainty.recourse import evaluate_fixed
from tests.solvers.uncertainty.conftest import TODAY, lab


def _available() -> bool:
    try:
        import mpi4py  # noqa: F401
        import mpisppy  # noqa: F401
        import pyomo  # noqa: F401
    except ImportError:
        return False
    return shutil.which("mpiexec") is not None


pytestmark = pytest.mark.skipif(not _available() and os.environ.get("GPUPLAN_MPI") != "1",
                                reason="mpiexec or the mpi extra (mpi-sppy, mpi4py, pyomo) is not installed")

QUOTES = [{"name": "Desk 1x4090", "gpu": "RTX 4090", "gpus_per_unit": 1, "unit_price_usd": 2900, "watts": 600,
           "includes_host": True},
          {"name": "Desk 2x4090", "gpu": "RTX 4090", "gpus_per_unit": 2, "unit_price_usd": 5200, "watts": 1100,
           "includes_host": True}]


def _profile() -> dict[str, Any]:
    option = {"scenarios": 6, "seed": 3, "demand": {"scale": [0.5, 2.0]}}
    return lab(option, gpus=4, utilisation=0.8, months=24, prices={"owned": QUOTES})


@pytest.mark.parametrize("ranks", [2, 3])
def test_progressive_hedging_finds_the_extensive_forms_purchase(catalog: Catalog, tmp_path: Path,
                                                                ranks: int) -> None:
    profile = _profile()
    path = tmp_path / "profile.json"
    path.write_text(json.dumps(profile))
    env = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1", "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    done = subprocess.run(["mpiexec", "-n", str(ranks), sys.executable, "-m", "solvers.replan.hedging_command",
                           str(path), "--today", TODAY.isoformat(), "--iterations", "60"],
                          capture_output=True, text=True, timeout=300, env=env, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    hedged = json.loads(done.stdout.strip().splitlines()[-1])
    assert hedged["ranks"] == ranks and hedged["converged"], hedged
    core = solve_core(Profile.model_validate(profile), catalog, TODAY)
    assert core.profile.uncertainty is not None
    futures = build_futures(today_of(core), core.profile.uncertainty)
    oracle = solve_extensive(futures.pieces, "expected")
    assert oracle.units, "a case where buying is worth it: the check would be empty otherwise"
    priced = evaluate_fixed(futures.pieces, hedged["first_stage"])
    assert priced.objective == pytest.approx(oracle.objective, rel=1e-6)
    assert hedged["first_stage"] == {**oracle.units, **oracle.hosts}
