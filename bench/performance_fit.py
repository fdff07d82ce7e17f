"""Fit the throughput model's class parameters on the single-GPU tables, and score GPUs held out of the fit.

Why here and not in solvers/: fitting needs scipy (the `bench` extra) and runs offline; the planner reads the
values `bench/fit_performance.py` prints, pasted into `solvers/base/performance.py`. The held-out test
(`tests/solvers/base/test_performance_holdout.py`) imports this module, so the test and the bench run one procedure.

What is fitted, per training class, on `pricing/data/measured_throughput.csv`: the six numbers of
`solvers.base.performance.ClassParameters` (roofline intensity and sharpness, the GeForce accumulate exponent, the
memory knee and floor, the share of their spec rate Hopper and Blackwell realize) and one efficiency per measured
architecture family (Turing is the 1.0 reference). The
prediction for a row is the planner's own figure (`solvers.base.performance.roofline_time`, `memory_slowdown`,
`accumulate_tflops`, the family efficiency) times one scale per results table and benchmark (values are
comparable only within a table and benchmark: their units and software stacks differ). A GPU's error is
exp(mean over its rows of log(predicted / measured)) - 1, so a GPU measured in two tables counts once.

The loss is over rows, not GPUs: a GPU measured in two tables must match both (the H100 SXM was 17% fast in one and
7% slow in the other when only their average was fitted), each GPU's rows weighted together as much as another's.

How: variable projection. The family efficiencies enter linearly in logs, so for given class numbers they are
solved exactly by linear least squares (with a small ridge toward 1.0); scipy's `least_squares` moves the six class
numbers, from four starting intensities (the loss has a bandwidth-only local minimum) and two starting shares,
keeping the best. The guide's published ratios (DOMAIN.md section 1) are soft terms in the linear solve and a steep
penalty outside +-7% in the outer one; the recurrent-net floor (issue 14) is a steep penalty too.

Held-out errors (`held_out_errors`): leave one GPU out. Each measured GPU is predicted by a fit without any of
its rows (its tables' scales then come from the other GPUs), for every GPU whose architecture family keeps
another measured member; holding out a family's only member would test the rule for a family nobody measured
(its lineage's value, `solvers.base.performance.INHERITS`), which `lineage_errors` reports apart.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import least_squares

from pricing.compute import bundled_compute
from pricing.gpus import bundled_gpus
from pricing.measurements import Measurement, bundled_measurements
from solvers.base.performance import (
    INHERITS,
    RECENT_FAMILIES,
    TRAINING,
    ClassParameters,
    accumulate_tflops,
    family,
    memory_slowdown,
    roofline_time,
)

Array = npt.NDArray[np.float64]
REFERENCE_FAMILY = "turing"  # efficiency 1.0 by definition
# (gpu, reference, class, published ratio): DOMAIN.md section 1
PUBLISHED = [
    ("A100 40GB", "V100", "transformer_training", 1.70),
    ("A100 40GB", "V100", "cnn_training", 1.45),
    ("RTX 3090", "RTX 2080 Ti", "transformer_training", 1.5),
    ("RTX 3090", "RTX 2080 Ti", "cnn_training", 1.57),
]
# (gpu, reference, class, lowest ratio): issue 14's rule that recurrent nets get a tensor-core benefit, i.e. A100
# over V100 beyond 1.2x their bandwidth ratio (1555 / 900 GB/s); tests/solvers/base/test_performance.py
FLOORS = [("A100 40GB", "V100", "rnn_training", 1.2 * 1555 / 900)]
STARTING_INTENSITIES = (10.0, 40.0, 150.0, 600.0)
# outer bounds: log intensity, log(sharpness - 1), accumulate exponent, log memory knee (GB), memory floor (GB;
# below the least memory of a catalogue card, 6 GB, so no card's batch room is taken as nothing), log of the share
# of their spec rate Hopper and Blackwell realize (at most all of it)
LOWER = np.array([math.log(5.0), -4.0, 0.0, -8.0, 0.0, math.log(0.05)])
UPPER = np.array([math.log(3000.0), 3.0, 1.0, 3.0, 5.0, 0.0])
STARTING_SHARES = (1.0, 0.4)
RIDGE = 0.03  # residual weight of each log efficiency: a weak pull toward 1.0 for a family of few rows
SOFT = math.sqrt(0.05)  # weight of a published ratio's miss inside the linear solve
FOLDS = 5  # k of the k-fold cross-validation
STEEP = math.sqrt(50.0)  # weight of a miss beyond +-7% (a published ratio) or below a floor


def class_parameters(theta: Array) -> ClassParameters:
    return ClassParameters(intensity=math.exp(theta[0]), sharpness=1.0 + math.exp(theta[1]),
                           accumulate_exponent=float(theta[2]), memory_knee_gb=math.exp(theta[3]),
                           memory_floor_gb=float(theta[4]), recent_compute_share=math.exp(theta[5]))


@dataclass(frozen=True)
class Specs:
    """The spec columns the model reads, for a list of GPUs."""

    names: tuple[str, ...]
    train: Array
    full: Array
    bandwidth: Array
    memory: Array
    recent: npt.NDArray[np.bool_]  # a Hopper or data-centre Blackwell part (RECENT_FAMILIES)
    families: tuple[str, ...]

    @classmethod
    def of(cls, names: Iterable[str]) -> Specs:
        gpus, compute = bundled_gpus(), bundled_compute()
        names = tuple(names)
        train = np.array([compute[n].train_tflops for n in names])
        full = np.array([max(gpus[n].fp16_tensor_tflops or 0.0, compute[n].train_tflops) for n in names])
        families = tuple(family(gpus[n]) for n in names)
        return cls(names, train, full, np.array([gpus[n].memory_bandwidth_gbs for n in names]),
                   np.array([gpus[n].memory_gb for n in names]), np.array([f in RECENT_FAMILIES for f in families]),
                   families)

    def log_base(self, params: ClassParameters) -> Array:
        """log of the planner's score before the family efficiency."""
        tflops = accumulate_tflops(self.train, self.full, params.accumulate_exponent)
        tflops = tflops * np.where(self.recent, params.recent_compute_share, 1.0)
        return -np.log(roofline_time(tflops, self.bandwidth, params) * memory_slowdown(self.memory, params))


@dataclass(frozen=True)
class ClassData:
    """One class's measured rows, as arrays."""

    workload: str
    specs: Specs
    gpu_of_row: npt.NDArray[np.int64]
    group_of_row: npt.NDArray[np.int64]  # (table, benchmark)
    log_value: Array

    @classmethod
    def of(cls, workload: str, measurements: Iterable[Measurement] | None = None) -> ClassData:
        rows = [m for m in (measurements or bundled_measurements()) if m.workload == workload]
        names = sorted({m.gpu for m in rows})
        groups = sorted({(m.table, m.benchmark) for m in rows})
        return cls(workload, Specs.of(names), np.array([names.index(m.gpu) for m in rows]),
                   np.array([groups.index((m.table, m.benchmark)) for m in rows]),
                   np.log(np.array([m.throughput for m in rows])))


@dataclass(frozen=True)
class Fit:
    workload: str
    params: ClassParameters
    efficiency: dict[str, float]  # per fitted family, the reference family at 1.0

    def family_value(self, fam: str) -> float:
        """A family's efficiency; one the fit did not see takes its lineage's (INHERITS), else the reference's."""
        while fam not in self.efficiency and fam in INHERITS:
            fam = INHERITS[fam]
        return self.efficiency.get(fam, 1.0)

    def log_scores(self, specs: Specs) -> Array:
        return specs.log_base(self.params) + np.log([self.family_value(f) for f in specs.families])


def row_log_errors(data: ClassData, log_score: Array, train_rows: npt.NDArray[np.bool_]) -> Array:
    """Per row, log(predicted / measured), its table-benchmark scaled on the `train_rows` (NaN where the group has
    no training row)."""
    residual = data.log_value - log_score[data.gpu_of_row]
    groups = int(data.group_of_row.max()) + 1
    total = np.bincount(data.group_of_row[train_rows], residual[train_rows], minlength=groups)
    count = np.bincount(data.group_of_row[train_rows], minlength=groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)[data.group_of_row] - residual


def gpu_means(data: ClassData, per_row: Array, rows: npt.NDArray[np.bool_]) -> Array:
    """Per GPU (in `data.specs.names` order), the mean of `per_row` over its `rows` that have a value; NaN if none."""
    use = rows & np.isfinite(per_row)
    n = len(data.specs.names)
    total = np.bincount(data.gpu_of_row[use], per_row[use], minlength=n)
    count = np.bincount(data.gpu_of_row[use], minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def fit_class(data: ClassData, train_rows: npt.NDArray[np.bool_] | None = None) -> Fit:
    """The class's parameters and family efficiencies, fitted on the `train_rows` (default all)."""
    if train_rows is None:
        train_rows = np.ones(len(data.log_value), dtype=bool)
    train = sorted({int(g) for g in data.gpu_of_row[train_rows]})
    families = sorted({data.specs.families[i] for i in train} - {REFERENCE_FAMILY})
    checks = [(g, r, v, False) for g, r, w, v in PUBLISHED if w == data.workload]
    checks += [(g, r, v, True) for g, r, w, v in FLOORS if w == data.workload]
    check_specs = Specs.of([n for g, r, _, _ in checks for n in (g, r)])
    weight = 1.0 / math.sqrt(len(train))

    def family_column(fams: tuple[str, ...]) -> Array:
        """Which fitted family's efficiency each GPU takes (one-hot rows; none for the reference family)."""
        out = np.zeros((len(fams), len(families)))
        for i, fam in enumerate(fams):
            while fam not in families and fam in INHERITS:
                fam = INHERITS[fam]
            if fam in families:
                out[i, families.index(fam)] = 1.0
        return out

    gpu_family = family_column(data.specs.families)
    check_family = family_column(check_specs.families)
    ratios = [k for k, check in enumerate(checks) if not check[3]]

    # every row's error counts, each GPU's rows together as much as another GPU's (a GPU measured in two tables is
    # held to both, not to their average)
    rows_of_gpu = np.bincount(data.gpu_of_row[train_rows], minlength=len(data.specs.names))
    row_weight = weight / np.sqrt(np.maximum(rows_of_gpu[data.gpu_of_row[train_rows]], 1))

    def errors(log_score: Array) -> Array:
        return np.nan_to_num(row_log_errors(data, log_score, train_rows)[train_rows]) * row_weight

    # The GPU errors are affine in the log scores, so the efficiencies' columns do not depend on the class numbers:
    # the linear system, and its pseudo-inverse, are built once per fit.
    no_base = np.zeros(len(data.specs.names))
    origin = errors(no_base)
    design = np.column_stack([errors(gpu_family[:, j]) - origin for j in range(len(families))] or
                             [np.zeros((len(train), 0))])
    soft = np.array([SOFT * (check_family[2 * k] - check_family[2 * k + 1]) for k in ratios]).reshape(
        len(ratios), len(families))
    system = np.vstack([design, soft, RIDGE * np.eye(len(families))])
    inverse = np.linalg.pinv(system)

    def solve(theta: Array) -> tuple[Array, Array]:
        """The log efficiencies for these class numbers (linear least squares) and the residuals they leave."""
        params = class_parameters(theta)
        zero = errors(data.specs.log_base(params))
        check_base = check_specs.log_base(params)
        target = np.concatenate([-zero, [SOFT * (math.log(checks[k][2]) - check_base[2 * k] + check_base[2 * k + 1])
                                         for k in ratios], np.zeros(len(families))])
        log_eff = inverse @ target
        misses = []
        for k, (_, _, value, floor) in enumerate(checks):
            miss = (check_base[2 * k] - check_base[2 * k + 1]
                    + (check_family[2 * k] - check_family[2 * k + 1]) @ log_eff - math.log(value))
            misses.append(STEEP * (max(0.0, -miss) if floor else max(0.0, abs(miss) - math.log(1.07))))
        return log_eff, np.concatenate([system @ log_eff - target, misses])

    best = None
    for intensity, share in itertools.product(STARTING_INTENSITIES, STARTING_SHARES):
        start = np.clip(np.array([math.log(intensity), math.log(1.5), 0.5, 0.0, 2.0, math.log(share)]), LOWER, UPPER)
        result = least_squares(lambda t: solve(t)[1], start, bounds=(LOWER, UPPER), method="trf", max_nfev=2000)
        if best is None or result.cost < best.cost:
            best = result
    assert best is not None
    log_eff, _ = solve(best.x)
    efficiency = {REFERENCE_FAMILY: 1.0, **{f: math.exp(v) for f, v in zip(families, log_eff, strict=True)}}
    return Fit(data.workload, class_parameters(best.x), efficiency)


def held_out(fit: Fit, data: ClassData, train_rows: npt.NDArray[np.bool_]) -> Array:
    """Per row, log(predicted / measured) of a fit on `train_rows`, scales from those rows."""
    return row_log_errors(data, fit.log_scores(data.specs), train_rows)


def errors_of(fit: Fit, data: ClassData) -> dict[str, float]:
    """In-sample signed relative error per GPU (predicted / measured - 1), scales from every row."""
    every = np.ones(len(data.log_value), dtype=bool)
    means = gpu_means(data, held_out(fit, data, every), every)
    return {n: math.expm1(e) for n, e in zip(data.specs.names, means, strict=True) if np.isfinite(e)}


def sole_members(data: ClassData) -> set[str]:
    """GPUs that are the only measured member of their architecture family in the class."""
    count: dict[str, int] = {}
    for fam in data.specs.families:
        count[fam] = count.get(fam, 0) + 1
    return {n for n, f in zip(data.specs.names, data.specs.families, strict=True) if count[f] == 1}


def folds(data: ClassData, k: int = FOLDS) -> npt.NDArray[np.int64]:
    """The fold of each row: a GPU's rows (in table and benchmark order) are dealt out over the folds, starting
    at a fold that moves one on per GPU, so each fold holds about a k-th of every GPU's rows and no GPU loses all
    of its rows to one fold when it has two or more."""
    fold = np.zeros(len(data.log_value), dtype=np.int64)
    for g in range(len(data.specs.names)):
        rows = np.flatnonzero(data.gpu_of_row == g)
        rows = rows[np.lexsort((data.group_of_row[rows],))]
        fold[rows] = (np.arange(len(rows)) + g) % k
    return fold


def kfold_errors(data: ClassData, k: int = FOLDS) -> dict[str, float]:
    """k-fold cross-validation over the measured rows: every row predicted by a fit on the other folds; a GPU's
    error is exp(mean over its rows of the held-out log errors) - 1."""
    fold = folds(data, k)
    per_row = np.full(len(data.log_value), np.nan)
    for j in range(k):
        train_rows = fold != j
        per_row[~train_rows] = held_out(fit_class(data, train_rows), data, train_rows)[~train_rows]
    means = gpu_means(data, per_row, np.ones(len(per_row), dtype=bool))
    return {n: math.expm1(e) for n, e in zip(data.specs.names, means, strict=True) if np.isfinite(e)}


def _leave_out(data: ClassData, gpu: str) -> float:
    g = data.specs.names.index(gpu)
    train_rows = data.gpu_of_row != g
    means = gpu_means(data, held_out(fit_class(data, train_rows), data, train_rows), ~train_rows)
    return math.expm1(means[g])


def leave_one_gpu_out(data: ClassData) -> dict[str, float]:
    """Each GPU whose family keeps another measured member, predicted by a fit without any of its rows."""
    return {g: _leave_out(data, g) for g in data.specs.names if g not in sole_members(data)}


def lineage_errors(data: ClassData) -> dict[str, float]:
    """The sole members held out too: what their family's lineage value (INHERITS) would have given them."""
    return {g: _leave_out(data, g) for g in sorted(sole_members(data))}


def median_abs(errors: dict[str, float]) -> float:
    return statistics.median(abs(e) for e in errors.values())


def all_classes() -> dict[str, ClassData]:
    return {w: ClassData.of(w) for w in TRAINING}
