"""How well the throughput model matches measured throughput: the in-sample errors the docs report.

Measured values are comparable only within one results table and benchmark (units and software stacks differ), so
each (table, benchmark) gets its own scale: the geometric mean of measured / predicted over its GPUs. A GPU's
error for a class is exp(mean log residual over its rows) - 1, so a GPU measured in two tables counts once. What
is scored is the planner's own figure (`solvers.base.performance.throughput_score`), its memory term included: a card
runs the batch its memory holds, as the benchmarks do, so a small card's published throughput is what a job on it
gets. The held-out errors (a fit without the rows scored) need the fitting, `bench/performance_fit.py`.

Published per-GPU ratios (`pricing/data/measured_ratios.csv`) need no scale: each used row is a ratio of two
GPUs in one benchmark, and a pair's measured ratio is the geometric mean of its rows (`ratio_errors`).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from pricing.gpus import GpuTable, bundled_gpus
from pricing.measured_ratios import RatioMeasurement, bundled_ratios
from pricing.measurements import Measurement, bundled_measurements
from solvers.base.performance import TRAINING, ratio_row_used, throughput_score

Predictor = Callable[[str, str], float]


@dataclass(frozen=True)
class ClassError:
    workload: str
    median: float  # of |error| over the measured GPUs
    per_gpu: dict[str, float]  # signed relative error, predicted/measured - 1


def _default_predictor(gpus: GpuTable) -> Predictor:
    return lambda gpu, workload: throughput_score(gpus[gpu], workload)


def class_errors(workload: str, predict: Predictor | None = None,
                 measurements: Iterable[Measurement] | None = None) -> ClassError:
    rows = [m for m in (measurements or bundled_measurements()) if m.workload == workload]
    predict = predict or _default_predictor(bundled_gpus())
    log_ratio = {(m.gpu, m.table, m.benchmark): math.log(m.throughput / predict(m.gpu, workload)) for m in rows}
    scale: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (_, table, bench), value in log_ratio.items():
        scale[(table, bench)].append(value)
    residuals: dict[str, list[float]] = defaultdict(list)
    for (gpu, table, bench), value in log_ratio.items():
        residuals[gpu].append(statistics.fmean(scale[(table, bench)]) - value)
    per_gpu = {gpu: math.exp(statistics.fmean(r)) - 1 for gpu, r in residuals.items()}
    return ClassError(workload, statistics.median(abs(e) for e in per_gpu.values()), per_gpu)


def all_class_errors(predict: Predictor | None = None) -> dict[str, ClassError]:
    return {w: class_errors(w, predict) for w in TRAINING}


@dataclass(frozen=True)
class RatioError:
    """The model's ratio of two GPUs against the published per-GPU ratios of the pair (used rows only)."""

    gpu: str
    reference: str
    workload: str
    measured: float  # geometric mean of the rows' per-GPU ratios
    low: float
    high: float
    rows: int
    predicted: float

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1


def used_ratio_rows(workload: str, rows: Iterable[RatioMeasurement] | None = None) -> list[RatioMeasurement]:
    return [m for m in (rows or bundled_ratios()) if m.workload == workload and ratio_row_used(m, llm_only=False)]


def ratio_errors(workload: str, predict: Predictor | None = None,
                 rows: Iterable[RatioMeasurement] | None = None) -> list[RatioError]:
    """One entry per (GPU, reference) pair with used rows of the class, in file order."""
    predict = predict or _default_predictor(bundled_gpus())
    by_pair: dict[tuple[str, str], list[float]] = defaultdict(list)
    for m in used_ratio_rows(workload, rows):
        by_pair[(m.gpu, m.reference)].append(m.ratio)
    return [RatioError(gpu, ref, workload, math.exp(statistics.fmean(math.log(r) for r in ratios)), min(ratios),
                       max(ratios), len(ratios), predict(gpu, workload) / predict(ref, workload))
            for (gpu, ref), ratios in by_pair.items()]
