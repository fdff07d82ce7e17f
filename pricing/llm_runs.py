"""Published LLM training runs with their measured throughput (`pricing/data/llm_training_runs.csv`).

Why a third measurement file: the single-GPU tables (`measured_throughput.csv`) hold BERT and Transformer-XL at
batch sizes that fit one consumer card, and the ratio file (`measured_ratios.csv`) holds only ratios. What sets
how long an LLM training job takes is the fraction of a GPU's peak tensor throughput a training stack sustains on
large dense transformers; frameworks publish it as tokens per second per GPU for a model of known size (MosaicML
llm-foundry, torchtitan, Megatron-LM). A row is one such run: enough to recompute the fraction the way the
workload compiler counts FLOPs (`solvers.workload.mfu`).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

RECOMPUTE = ("none", "selective", "full")


@dataclass(frozen=True)
class TrainingRun:
    gpu: str
    framework: str
    model: str
    params: float  # parameters of the model (the 6ND N)
    seq_len: int
    gpus: int  # GPUs in the run
    precision: str
    recompute: str  # none | selective | full (activation checkpointing: one more forward pass)
    tokens_per_s_per_gpu: float | None
    achieved_tflops_per_gpu: float | None  # where the source gives a FLOP rate instead of tokens per second
    source_peak_tflops: float | None  # the peak the source divides that rate by
    reported_mfu: float | None  # as the source prints it (its own FLOP count; not used by the fit)
    fit: bool  # whether the calibration uses the row (notes say why not)
    date: str
    source: str
    notes: str


def _optional(cell: str) -> float | None:
    return float(cell) if cell.strip() else None


def parse_runs(rows: list[dict[str, str]]) -> tuple[TrainingRun, ...]:
    """Rows to runs; a row without a source, date or throughput, or with an unknown recomputation, is an error."""
    runs = []
    for row in rows:
        run = TrainingRun(
            gpu=row["gpu"].strip(), framework=row["framework"].strip(), model=row["model"].strip(),
            params=float(row["params"]), seq_len=int(row["seq_len"]), gpus=int(row["gpus"]),
            precision=row["precision"].strip().lower(), recompute=row["recompute"].strip().lower(),
            tokens_per_s_per_gpu=_optional(row["tokens_per_s_per_gpu"]),
            achieved_tflops_per_gpu=_optional(row["achieved_tflops_per_gpu"]),
            source_peak_tflops=_optional(row["source_peak_tflops"]), reported_mfu=_optional(row["reported_mfu"]),
            fit=row["fit"].strip().lower() == "yes", date=row["date"].strip(), source=row["source"].strip(),
            notes=row["notes"].strip())
        where = f"llm_training_runs.csv: {run.gpu} {run.model}"
        if not (run.source and run.date):
            raise ValueError(f"{where} lacks a source or date")
        if run.recompute not in RECOMPUTE:
            raise ValueError(f"{where}: recompute must be one of {', '.join(RECOMPUTE)}")
        rate = run.tokens_per_s_per_gpu is not None and run.tokens_per_s_per_gpu > 0
        flops = (run.achieved_tflops_per_gpu is not None and run.source_peak_tflops is not None
                 and 0 < run.achieved_tflops_per_gpu <= run.source_peak_tflops)
        if rate == flops:
            raise ValueError(f"{where}: give tokens_per_s_per_gpu or achieved_tflops_per_gpu and its peak, "
                             "one of them")
        if run.params <= 0 or run.gpus < 1:
            raise ValueError(f"{where}: params and gpus must be positive")
        runs.append(run)
    return tuple(runs)


@lru_cache(maxsize=1)
def bundled_runs() -> tuple[TrainingRun, ...]:
    """The runs shipped with the package, in file order."""
    text = resources.files("pricing").joinpath("data/llm_training_runs.csv").read_text(encoding="utf-8")
    return parse_runs(list(csv.DictReader(text.splitlines())))
