"""Progressive hedging under MPI (mpi-sppy) for scenario sets that outgrow one process: the same futures' models as
the extensive form's (`decide.build_futures`), each turned into a Pyomo model, with the purchase, host and
commitment columns named as the first stage; mpi-sppy's PH spreads the futures over the MPI ranks and drives them
to one first stage. The extensive form (`extensive.solve_extensive`) is the correctness oracle: PH is a heuristic
for integer first stages, so its answer is priced in every future (`recourse.evaluate_fixed`) and compared.

Run with `solvers.replan.hedging_command` (the command plans today's profile first, so it sits above the planner):
    mpiexec -n 3 python -m solvers.replan.hedging_command profile.json [--iterations 50]
Optional: `pip install 'gpuplan[mpi]'` and Debian's openmpi-bin / libopenmpi-dev. Not used by the service.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from solvers.uncertainty.extensive import Piece


def pyomo_model(piece: Piece) -> Any:
    """The future's model (its arrays) as a Pyomo model, its first stage attached as mpi-sppy's root node."""
    import pyomo.environ as pyo
    from mpisppy.utils import sputils

    a = piece.arrays
    m = pyo.ConcreteModel()
    m.cols = pyo.RangeSet(0, a.n_cols - 1)
    m.x = pyo.Var(m.cols)
    for j in range(a.n_cols):
        var = m.x[j]
        var.domain = pyo.Integers if a.integer[j] else pyo.Reals
        var.setlb(None if not math.isfinite(a.lower[j]) else float(a.lower[j]))
        var.setub(None if not math.isfinite(a.upper[j]) else float(a.upper[j]))
    m.rows = pyo.ConstraintList()
    for i in range(a.n_rows):
        start, end = int(a.start[i]), int(a.start[i + 1])
        if start == end:
            continue
        body = pyo.quicksum(float(a.value[k]) * m.x[int(a.index[k])] for k in range(start, end))
        lower = float(a.row_lower[i]) if math.isfinite(a.row_lower[i]) else None
        upper = float(a.row_upper[i]) if math.isfinite(a.row_upper[i]) else None
        m.rows.add(pyo.inequality(lower, body, upper) if lower is not None and upper is not None and lower != upper
                   else (body == lower) if lower is not None and lower == upper
                   else (body >= lower) if lower is not None else (body <= upper))
    first = [int(j) for j in piece.first_stage]
    m.first_cost = pyo.Expression(expr=pyo.quicksum(float(a.cost[j]) * m.x[j] for j in first))
    m.total = pyo.Objective(expr=pyo.quicksum(float(a.cost[j]) * m.x[j] for j in range(a.n_cols) if a.cost[j])
                            + float(piece.model.offset))
    sputils.attach_root_node(m, m.first_cost, [m.x[j] for j in first])
    m._gpuplan_first_costs = [(j, float(a.cost[j])) for j in first]
    m._mpisppy_probability = piece.weight
    return m


def hedge(names: list[str], creator: Callable[[str], Piece], iterations: int = 50,
          rho_share: float = 0.1) -> dict[str, Any]:
    """PH over the futures `names` on the MPI ranks this process runs with (one rank: all futures here); `creator`
    builds a future's model when mpi-sppy asks for it, which it does on the rank that holds that future only.
    Returns, on every rank, the first stage PH converged to (rounded consensus), its iterations and whether it
    converged."""
    from mpisppy.opt.ph import PH

    def rho_setter(model: Any) -> list[tuple[int, float]]:
        """Rho per first-stage column: a share of its cost over the horizon (cost-proportional rho, Watson and
        Woodruff 2011, "Progressive hedging innovations for a class of stochastic mixed-integer resource allocation
        problems"), at least 1."""
        return [(id(model.x[j]), max(rho_share * abs(cost), 1.0)) for j, cost in model._gpuplan_first_costs]

    template: list[Piece] = []

    def scenario(name: str) -> Any:
        made = creator(name)
        template.append(made)
        return pyomo_model(made)

    options = {"solver_name": "appsi_highs", "PHIterLimit": iterations, "defaultPHrho": 1.0, "convthresh": 1e-4,
               "verbose": False, "display_progress": False, "display_timing": False, "asynchronousPH": False,
               "iter0_solver_options": {"threads": 1}, "iterk_solver_options": {"threads": 1},
               # HiGHS solves no quadratic MIP: the proximal term as its outer linearization (mpi-sppy option)
               "linearize_proximal_terms": True, "proximal_linearization_tolerance": 0.1}
    ph = PH(options, names, scenario, rho_setter=rho_setter)
    converged, _, _ = ph.ph_main()
    xbar = _consensus(ph)
    first = dict(zip(template[0].names, (round(v) for v in xbar), strict=True))
    return {"first_stage": {k: n for k, n in first.items() if n}, "iterations": int(ph._PHIter),
            "converged": bool(converged is not None and converged <= options["convthresh"]),
            "convergence": None if converged is None else float(converged)}


def _consensus(ph: Any) -> list[float]:
    """The root node's xbar (the same on every rank), in first-stage column order."""
    for model in ph.local_scenarios.values():
        root = model._mpisppy_node_list[0]
        return [float(model._mpisppy_model.xbars[("ROOT", i)]._value) for i in range(len(root.nonant_vardata_list))]
    return []
