"""Plans under uncertainty (issue 32): how long a 36-month lab's plan takes for 100 and 200 futures, against its
bare HiGHS solves, and how much memory it takes.

The profile is examples/lab-uncertainty.json (8 GPUs of transformer work at 60%, 36 months, the option's defaults)
with `uncertainty.scenarios` set per case. Per case, in a fresh process (so its peak resident memory is its own):
- plan: `make_plan` end to end (today's plan, the futures' models, the stochastic program, pricing the purchase in
  every future, cloud only, the value of waiting, the accounts), median of `--repeat` runs after one warm-up;
- bare HiGHS: `Highs.run` alone of the two extensive forms over the same futures' models, each median of as many
  runs: the relaxed one the plan solves (each future's recourse continuous, the purchase integer) and the full
  extensive form (every future's integers kept, to the same 1% gap), which is the "one MIP" the plan's relaxed
  bound stands in for;
- with purchases that may wait (`uncertainty.decision_months`, solvers/uncertainty/deferral.py) the plan solves a
  second program after the first, over each future's model split at the first later month: the bare HiGHS
  figures are of the first (every purchase at month 0), the plan's time holds both;
- peak memory: the process's peak resident set (`resource.getrusage`, which counts HiGHS's C++ allocations too,
  unlike tracemalloc) after the runs, and the Python heap's peak of one plan (tracemalloc).
Ratios are of medians taken in the same run. Targets (issue 32): 100 futures under 2 s and within 3x of the bare
HiGHS solve, 200 futures under 5 s, memory under 500 MB.

Run: python bench/uncertainty.py [--scenarios 100 200] [--repeat 5]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import highspy

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "lab-uncertainty.json"
TODAY = dt.date(2026, 11, 1)


def _highs_run_ms(pieces: list[Any], relax: bool) -> float:
    """`Highs.run` alone of the extensive form over `pieces` (its building and reading left out)."""
    from solvers.base.uncertainty_defaults import SAA_REL_GAP
    from solvers.uncertainty import extensive

    timed: list[float] = []
    original = highspy.Highs.run

    def run(self: highspy.Highs) -> Any:
        started = time.perf_counter()
        try:
            return original(self)
        finally:
            timed.append(1000.0 * (time.perf_counter() - started))

    highspy.Highs.run = run  # type: ignore[method-assign]
    try:
        extensive.solve_extensive(pieces, "expected", relax_recourse=relax,
                                  rel_gap=SAA_REL_GAP / 10 if relax else SAA_REL_GAP, time_limit_s=60.0)
    finally:
        highspy.Highs.run = original  # type: ignore[method-assign]
    return timed[-1]


def case(scenarios: int, repeat: int) -> dict[str, Any]:
    from pricing.catalog import bundled_catalog
    from solvers.base.profile import Profile
    from solvers.offers.place_inputs import prepare
    from solvers.plan import _solve_prepared, make_plan, today_of
    from solvers.uncertainty.decide import build_futures

    catalog = bundled_catalog()
    body = json.loads(EXAMPLE.read_text())
    body["uncertainty"]["scenarios"] = scenarios
    profile = Profile.model_validate(body)
    make_plan(profile, catalog, TODAY)  # warm-up: imports, caches
    plan_ms, risk = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        plan = make_plan(profile, catalog, TODAY)
        plan_ms.append(1000.0 * (time.perf_counter() - started))
        risk = plan.risk
    assert risk is not None
    prep = prepare(profile, catalog)
    core = _solve_prepared(prep.profile, prep.catalog, TODAY, True)
    futures = build_futures(today_of(core), profile.uncertainty)  # type: ignore[arg-type]
    relaxed_ms = statistics.median(_highs_run_ms(futures.pieces, True) for _ in range(repeat))
    full_ms = statistics.median(_highs_run_ms(futures.pieces, False) for _ in range(max(1, repeat // 2)))
    tracemalloc.start()
    make_plan(profile, catalog, TODAY)
    _, heap_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    median = statistics.median(plan_ms)
    return {"scenarios": scenarios, "plan_ms_median": round(median, 1), "plan_ms": [round(v, 1) for v in plan_ms],
            "highs_relaxed_ms_median": round(relaxed_ms, 1), "highs_full_ms_median": round(full_ms, 1),
            "plan_over_relaxed": round(median / relaxed_ms, 2), "plan_over_full": round(median / full_ms, 2),
            "risk_solve_ms": risk.solve_ms, "gap": risk.gap, "status": risk.status, "columns": risk.columns,
            "deferral_months": getattr(risk, "deferral_months", []),
            "value_of_waiting_usd": risk.value_of_waiting_usd,
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1),
            "python_heap_peak_mb": round(heap_peak / 2**20, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, nargs="+", default=[100, 200])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--case", type=int, help=argparse.SUPPRESS)  # one case, in this process
    args = parser.parse_args()
    if args.case is not None:
        print(json.dumps(case(args.case, args.repeat)))
        return
    for scenarios in args.scenarios:
        done = subprocess.run([sys.executable, __file__, "--case", str(scenarios), "--repeat", str(args.repeat)],
                              capture_output=True, text=True, check=True)
        found = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{scenarios} futures: plan median {found['plan_ms_median']:.0f} ms (runs {found['plan_ms']}); "
              f"bare HiGHS relaxed {found['highs_relaxed_ms_median']:.0f} ms, full extensive form "
              f"{found['highs_full_ms_median']:.0f} ms; plan / relaxed {found['plan_over_relaxed']}x, plan / full "
              f"{found['plan_over_full']}x; gap {100 * (found['gap'] or 0):.2f}% ({found['status']}), "
              f"{found['columns']:,} columns; peak RSS {found['peak_rss_mb']} MB, Python heap peak "
              f"{found['python_heap_peak_mb']} MB; purchases may wait for month(s) {found['deferral_months']}, "
              f"value of waiting {found['value_of_waiting_usd']}")


if __name__ == "__main__":
    main()
