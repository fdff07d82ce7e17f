"""Fit the throughput model on the bundled measurements and print its values and errors.

Run: `python bench/fit_performance.py` (the values to paste into `solvers/base/performance.py`, the in-sample errors,
the
guide's ratios and the ratio calibration); `--held-out`: the held-out errors (5-fold cross-validation over the
measured rows, which the tests hold to the issue-30 targets, and leave one GPU out). The fitting itself is
`bench/performance_fit.py`.

The ratio calibration (second stage): with the fitted roofline and family values held fixed (the inference classes:
the bundled ones, which this script does not refit), the GPUs measured only as ratios to another GPU
(`pricing/data/measured_ratios.csv`, the rows `solvers.base.performance.ratio_row_used` accepts) get one efficiency per
class, by least squares of the log per-GPU ratios; every GPU a single-GPU table holds for the class is held at its
family's value (8-bit inference, which no table measures: the H100 SXM). A second fit of the `llm` transformer rows
with only the H100 SXM and A100 80GB held gives `LLM_EFFICIENCY`, what the inference classes take for GPUs without
an inference row of their own.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from performance_fit import (
    Fit,
    all_classes,
    errors_of,
    fit_class,
    kfold_errors,
    leave_one_gpu_out,
    lineage_errors,
    median_abs,
)

from pricing.gpus import bundled_gpus
from pricing.measured_ratios import RatioMeasurement
from pricing.measurements import bundled_measurements
from solvers.base.performance import FITTED_EFFICIENCY, PARAMETERS, family, ratio_row_used, unit_time
from solvers.explain.calibration import ratio_errors, used_ratio_rows

RATIO_CLASSES = ("transformer_training", "cnn_training", "inference_8bit")
INFERENCE_ROOTS = ("H100 SXM",)  # the GPU every inference comparison hangs from
LLM_ROOTS = ("H100 SXM", "A100 80GB")  # the single-GPU-table GPUs the LLM rows are measured against


def _worst(errors: dict[str, float], n: int = 6) -> str:
    return ", ".join(f"{g} {e:+.0%}" for g, e in sorted(errors.items(), key=lambda kv: -abs(kv[1]))[:n])


def _bundled(workload: str) -> Fit:
    """A class the fit does not redo (inference: solvers/base/performance.py keeps its roofline and family values)."""
    return Fit(workload, PARAMETERS[workload], dict(FITTED_EFFICIENCY[workload]))


def fit_ratios(rows: list[RatioMeasurement], workload: str, fit: Fit, anchors: set[str]) -> dict[str, float]:
    """Per-GPU efficiencies of the GPUs in `rows` that are not `anchors`: linear least squares in logs, for a row
    log(measured) = log(roofline ratio) + log e_gpu - log e_reference, an anchor's e its family's value in `fit`."""
    gpus = bundled_gpus()
    unknown = sorted({g for m in rows for g in (m.gpu, m.reference) if g not in anchors})
    design = np.zeros((len(rows), len(unknown)))
    target = np.zeros(len(rows))
    for i, m in enumerate(rows):
        roofline = (unit_time(gpus[m.reference], workload, fit.params, 1.0)
                    / unit_time(gpus[m.gpu], workload, fit.params, 1.0))
        target[i] = math.log(m.ratio) - math.log(roofline)
        for gpu, sign in ((m.gpu, 1.0), (m.reference, -1.0)):
            if gpu in anchors:
                target[i] -= sign * math.log(fit.family_value(family(gpus[gpu])))
            else:
                design[i, unknown.index(gpu)] += sign
    solution, *_ = np.linalg.lstsq(design, target, rcond=None)
    return {gpu: math.exp(float(v)) for gpu, v in zip(unknown, solution, strict=True)}


def print_ratio_fit(fits: dict[str, Fit]) -> None:
    gpus = bundled_gpus()
    result = {}
    for workload in RATIO_CLASSES:
        fit = fits.get(workload) or _bundled(workload)
        anchors = {m.gpu for m in bundled_measurements() if m.workload == workload} or set(INFERENCE_ROOTS)
        rows = [m for m in used_ratio_rows(workload) if not (m.gpu in anchors and m.reference in anchors)]
        own = fit_ratios(rows, workload, fit, anchors)
        result[workload] = {g: round(v, 3) for g, v in own.items()}

        def predict(gpu: str, w: str, f: Fit = fit, o: dict[str, float] = own) -> float:
            return 1.0 / unit_time(gpus[gpu], w, f.params, o[gpu] if gpu in o else f.family_value(family(gpus[gpu])))

        for err in ratio_errors(workload, predict):
            check = " (both in the single-GPU tables: a cross-check)" if {err.gpu, err.reference} <= anchors else ""
            print(f"  {workload} {err.gpu} / {err.reference}: measured {err.measured:.3f} "
                  f"({err.low:.3f}-{err.high:.3f}, {err.rows} rows) predicted {err.predicted:.3f} "
                  f"({err.error:+.1%}){check}")
    print("RATIO_FITTED_EFFICIENCY =", result)
    transformer = fits["transformer_training"]
    llm_rows = [m for m in used_ratio_rows("transformer_training") if ratio_row_used(m)]
    llm = fit_ratios(llm_rows, "transformer_training", transformer, set(LLM_ROOTS))
    print("LLM_EFFICIENCY =", {g: round(v, 3) for g, v in llm.items()})


def print_fit() -> dict[str, Fit]:
    fits = {}
    for workload, data in all_classes().items():
        fit = fit_class(data)
        fits[workload] = fit
        p = fit.params
        print(f"{workload}: ClassParameters(intensity={p.intensity:.1f}, sharpness={p.sharpness:.2f}, "
              f"accumulate_exponent={p.accumulate_exponent:.3f}, memory_knee_gb={p.memory_knee_gb:.3f}, "
              f"memory_floor_gb={p.memory_floor_gb:.2f}, recent_compute_share={p.recent_compute_share:.3f})")
        print("  efficiency:", {f: round(v, 3) for f, v in sorted(fit.efficiency.items())})
        errors = errors_of(fit, data)
        print(f"  in-sample median |error| {median_abs(errors):.1%} over {len(errors)} GPUs; worst {_worst(errors)}")
    return fits


def print_held_out() -> None:
    for workload, data in all_classes().items():
        kfold = kfold_errors(data)
        print(f"{workload}: 5-fold median |error| {median_abs(kfold):.1%}, worst {_worst(kfold)}")
        logo = leave_one_gpu_out(data)
        print(f"  leave one GPU out: median {median_abs(logo):.1%}, worst {_worst(logo)}; a family's only member "
              f"(its lineage's value): {_worst(lineage_errors(data))}", flush=True)


def main() -> None:
    if "--held-out" in sys.argv[1:]:
        print_held_out()
        return
    print_ratio_fit(print_fit())


if __name__ == "__main__":
    main()

