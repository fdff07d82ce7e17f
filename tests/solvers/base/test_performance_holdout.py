"""Issue 30: the throughput model against published single-GPU training throughput, on data held back from the fit:
median |error| at most 10% for each training class and no GPU off by more than 25%.

Held back how: 5-fold cross-validation over the measured rows (`bench/performance_fit.py`: `folds`,
`kfold_errors`). Every row of `pricing/data/measured_throughput.csv` is predicted by a fit of the whole procedure
(the class numbers and the family efficiencies) on the other four folds, and a GPU's error is exp(mean over its rows
of log(predicted / measured)) - 1, with each table's scale taken from the rows that were fitted. Why k-fold and not
leave one GPU out: the targets are about the figures the planner gives the measured GPUs (all the cards the issue
names are measured now), and k-fold checks each of those figures against measurements it was not set on, for every
GPU including the sole member of a family (the B200); leaving a whole GPU out checks instead how far the family rules
carry to a card nobody measured, which is asserted here in median only (its worst case is a 2-card family, Ada,
predicting one card from the other) and reported in full by `python bench/fit_performance.py --held-out`.

The same targets fail on the model form before issue 30 (no memory term, the GeForce halving in full, one compute
rate for Hopper): fitted by the same procedure, the RTX 3070 is +50% in transformer training and RNN training's
median is 10.8% (gpu_compute.SOURCES.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("scipy")
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "bench"))

import performance_fit as fit

from solvers.base.performance import FITTED_EFFICIENCY, PARAMETERS, TRAINING

MEDIAN = 0.10
WORST = 0.25


@pytest.fixture(scope="module")
def classes() -> dict[str, fit.ClassData]:
    return fit.all_classes()


@pytest.mark.parametrize("workload", TRAINING)
def test_held_out_errors_meet_the_issue_30_targets(classes: dict[str, fit.ClassData], workload: str) -> None:
    errors = fit.kfold_errors(classes[workload])
    assert len(errors) >= 25
    assert fit.median_abs(errors) <= MEDIAN, errors
    assert {g: round(e, 3) for g, e in errors.items() if abs(e) > WORST} == {}


@pytest.mark.parametrize("workload", TRAINING)
def test_a_gpu_left_out_of_the_fit_is_predicted_within_ten_percent_in_median(
        classes: dict[str, fit.ClassData], workload: str) -> None:
    errors = fit.leave_one_gpu_out(classes[workload])
    assert len(errors) >= 24  # every GPU but a family's only member (B200)
    assert fit.median_abs(errors) <= MEDIAN, errors


def test_every_row_is_held_out_once_and_no_gpu_loses_all_its_rows_to_one_fold(
        classes: dict[str, fit.ClassData]) -> None:
    for data in classes.values():
        folds = fit.folds(data)
        assert set(folds.tolist()) == set(range(fit.FOLDS))
        for g in range(len(data.specs.names)):
            mine = folds[data.gpu_of_row == g]
            assert len(set(mine.tolist())) == min(len(mine), fit.FOLDS)


@pytest.mark.parametrize("workload", TRAINING)
def test_the_bundled_parameters_are_the_fit_of_the_bundled_data(classes: dict[str, fit.ClassData],
                                                                workload: str) -> None:
    """solvers/base/performance.py holds what `python bench/fit_performance.py` prints (rounded): a data change without
    a refit fails here."""
    fitted = fit.fit_class(classes[workload])
    bundled = PARAMETERS[workload]
    names = ["intensity", "sharpness", "accumulate_exponent", "memory_knee_gb", "recent_compute_share"]
    if fitted.params.memory_knee_gb > 0.01:  # without a knee the floor moves nothing (CNN: neither is bundled)
        names.append("memory_floor_gb")
    for name in names:
        assert getattr(bundled, name) == pytest.approx(getattr(fitted.params, name), rel=0.01, abs=0.002), name
    for family, value in fitted.efficiency.items():
        assert FITTED_EFFICIENCY[workload][family] == pytest.approx(value, abs=0.001), family
