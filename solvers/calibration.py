"""How well the throughput model matches measured throughput: the error the README reports.

Measured values are comparable only within one results table, so each (table, benchmark) gets its own
scale: the geometric mean of measured/predicted over the GPUs used for fitting. A GPU's error for a
class is exp(mean log residual over its benchmarks and tables) - 1, so a GPU measured in two tables
counts once. Held-back GPUs are scored with scales taken from the fitted GPUs only.

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
from solvers.performance import TRAINING, ratio_row_used, throughput_score

# GPUs left out of the fit and scored afterwards (one per family where a family has several,
# chosen before fitting): 6 of the 18 measured GPUs.
HELD_BACK = ("RTX 3080", "A100 80GB PCIe", "Titan RTX", "RTX A6000", "H100 PCIe", "V100 32GB")

Predictor = Callable[[str, str], float]

# The measurement tables (Lambda's deeplearning-benchmark) run each GPU at the largest batch its memory
# holds (pytorch/pytorch-train-bs-fp16.csv: batch sizes grow with memory, e.g. RTX A6000 192 vs RTX 3090
# 96 for BERT base), and a larger batch runs faster per sample. That is the benchmark's doing, not the GPU's
# speed on a fixed job, so the calibration takes it out before scoring; the planner's figures do not include
# it. Two forms, each fitted per class by bench/fit_performance.py (absent where it does not help):
#
# - BATCH_EXPONENT: measured ~ memory_gb ** exponent (RNN: Quadro RTX 8000 and 6000, the same TU102 chip
#   with 48 vs 24 GB, differ by 26% on tacotron2 in the 2021 table).
# - SATURATION_TOKENS: a step has a part whose time does not grow with the batch (the optimizer's pass over
#   every weight, kernel launches, GPUs not filled by small matrices), worth T0 tokens of work, so a step of
#   b samples of L tokens runs at b*L / (b*L + T0) of the large-batch rate. Used for transformers, where the
#   batch is known per row (`Measurement.batch`) and the tokens per sample per benchmark (SAMPLE_TOKENS):
#   the RTX 3080 ran BERT large at batch 4 and Transformer-XL base at 4 x 192 tokens.
BATCH_EXPONENT: dict[str, float] = {"rnn_training": 0.253}
SATURATION_TOKENS: dict[str, float] = {"transformer_training": 537.0}

# Tokens per sample of the transformer benchmarks: BERT SQuAD fine-tuning at max_seq_length=384
# (NVIDIA/DeepLearningExamples PyTorch/LanguageModeling/BERT/scripts/run_squad.sh@0663b67c); Transformer-XL
# tgt_len 192 (base) and 256 (large) (lambdal/deeplearning-benchmark pytorch/scripts/config_v1/
# config_pytorch_24GB.sh@18893649, the same in every memory template).
SAMPLE_TOKENS: dict[str, int] = {"bert_base_squad": 384, "bert_large_squad": 384, "transformerxlbase": 192,
                                 "transformerxllarge": 256}


def benchmark_effect(m: Measurement, batch_exponent: float, saturation_tokens: float, memory_gb: float) -> float:
    """log of the factor by which the benchmark's batch rule moves a row's throughput (see above)."""
    effect = batch_exponent * math.log(memory_gb)
    if saturation_tokens > 0:
        tokens = m.batch * SAMPLE_TOKENS[m.benchmark]
        effect += math.log(tokens / (tokens + saturation_tokens))
    return effect


@dataclass(frozen=True)
class ClassError:
    workload: str
    fitted_median: float
    held_back_median: float
    per_gpu: dict[str, float]  # signed relative error, predicted/measured - 1


def _default_predictor(gpus: GpuTable) -> Predictor:
    return lambda gpu, workload: throughput_score(gpus[gpu], workload)


def class_errors(workload: str, predict: Predictor | None = None,
                 measurements: Iterable[Measurement] | None = None,
                 held_back: tuple[str, ...] = HELD_BACK, batch_exponent: float | None = None,
                 saturation_tokens: float | None = None) -> ClassError:
    """`batch_exponent`, `saturation_tokens`: the benchmark tables' batch-size effect (see BATCH_EXPONENT and
    SATURATION_TOKENS); None takes the fitted value of the class."""
    rows = [m for m in (measurements or bundled_measurements()) if m.workload == workload]
    gpus = bundled_gpus()
    predict = predict or _default_predictor(gpus)
    beta = BATCH_EXPONENT.get(workload, 0.0) if batch_exponent is None else batch_exponent
    t0 = SATURATION_TOKENS.get(workload, 0.0) if saturation_tokens is None else saturation_tokens
    log_ratio = {(m.gpu, m.table, m.benchmark): math.log(m.throughput / predict(m.gpu, workload))
                 - benchmark_effect(m, beta, t0, gpus[m.gpu].memory_gb) for m in rows}
    scale: dict[tuple[str, str], list[float]] = defaultdict(list)
    for (gpu, table, bench), value in log_ratio.items():
        if gpu not in held_back:
            scale[(table, bench)].append(value)
    residuals: dict[str, list[float]] = defaultdict(list)
    for (gpu, table, bench), value in log_ratio.items():
        if scale[(table, bench)]:
            residuals[gpu].append(statistics.fmean(scale[(table, bench)]) - value)
    per_gpu = {gpu: math.exp(statistics.fmean(r)) - 1 for gpu, r in residuals.items()}
    fitted = [abs(e) for g, e in per_gpu.items() if g not in held_back]
    held = [abs(e) for g, e in per_gpu.items() if g in held_back]
    return ClassError(workload, statistics.median(fitted), statistics.median(held) if held else math.nan, per_gpu)


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
