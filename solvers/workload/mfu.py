"""Achieved fraction of peak tensor throughput in LLM training, per GPU family, from published runs.

Why not the throughput model's transformer ratio (`solvers/base/performance.py`): that roofline is fitted on BERT and
Transformer-XL at batch sizes one consumer card holds, where memory bandwidth dominates; scaled from one A100
figure it put an H100 SXM at 25% of its peak and an RTX 3090 at 87%, where published LLM training runs give
36-46% and (on Ampere) 50-64%. Large-model training is compute-bound: its time is FLOPs / (fraction x peak).

The fraction of a run is the FLOP rate the compiler would count for it over the GPU's dense 16-bit tensor peak
with FP32 accumulate (`precision_tflops(spec, "transformer_training")`):

    fraction = k x N x (tokens per second per GPU) / peak,   k = 6, or 8 with full activation recomputation

(the compiler's FLOP count: `coefficients.TRAIN_FLOPS_PER_PARAM_TOKEN`, `RECOMPUTE_FLOPS_PER_PARAM_TOKEN`;
attention FLOPs are left out on both sides, so a run's figure can sit below the MFU its source prints). A source
that gives a FLOP rate instead (Megatron-LM v1) divides it by the peak it names.

Where the fraction comes from, per GPU (`Fraction.basis`):
- `runs`: the family's median over the fitted runs of `pricing/data/llm_training_runs.csv` (A100 and H100 from
  llm-foundry and torchtitan, V100 from Megatron-LM, RTX 4090 from a GPT-2 speedrun); the GPU has runs itself.
- `ratio`: a GPU without runs but with published per-GPU ratios in LLM training (`measured_ratios.csv`: MLPerf
  Llama-2-70B LoRA, MosaicML MI250 vs A100): the median over its rows of
  ratio x fraction(reference) x peak(reference) / peak(GPU).
- `family`: the family's fraction (runs of another member); `sibling`: a measured sibling's (`NEAREST_MEASURED`,
  the REPRESENTATIVE of a ratio-calibrated family); `lineage`: a family without any run takes its nearest
  measured lineage's (`LINEAGE`). These three are extrapolated.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from pricing.gpus import GpuSpec, bundled_gpus
from pricing.llm_runs import TrainingRun, bundled_runs
from pricing.measured_ratios import bundled_ratios
from solvers.base.performance import NEAREST_MEASURED, REPRESENTATIVE, family, precision_tflops, ratio_row_used
from solvers.workload import coefficients as c

# Families without a published LLM training run take a measured lineage's fraction (extrapolated): Turing's tensor
# cores descend from Volta's, client Ampere shares the GA100's tensor-core design at a lower rate, and client
# Blackwell (RTX 5090, RTX PRO 6000) has no published LLM training run yet (what was searched: the README).
LINEAGE = {"turing": "volta", "ampere": "ampere_dc", "blackwell_client": "ada"}
CLASS = "transformer_training"


@dataclass(frozen=True)
class Fraction:
    """A GPU's achieved fraction of peak in LLM training and where it comes from."""

    gpu: str
    value: float
    basis: str  # runs | ratio | family | sibling | lineage
    detail: str

    @property
    def extrapolated(self) -> bool:
        """True when no published LLM training measurement of this GPU backs the figure."""
        return self.basis not in ("runs", "ratio")


def peak_tflops(spec: GpuSpec) -> float:
    """Dense 16-bit tensor TFLOPS with FP32 accumulate: what mixed-precision training runs at."""
    return precision_tflops(spec, CLASS)


def run_fraction(run: TrainingRun, spec: GpuSpec) -> float:
    """The fraction of peak one published run sustained, counted as the compiler counts FLOPs."""
    if run.tokens_per_s_per_gpu is None:
        assert run.achieved_tflops_per_gpu is not None and run.source_peak_tflops is not None
        return run.achieved_tflops_per_gpu / run.source_peak_tflops
    k = c.TRAIN_FLOPS_PER_PARAM_TOKEN + (c.RECOMPUTE_FLOPS_PER_PARAM_TOKEN if run.recompute == "full" else 0.0)
    return k * run.params * run.tokens_per_s_per_gpu / (peak_tflops(spec) * 1e12)


def fitted_runs() -> list[tuple[TrainingRun, float]]:
    """Every fitted run of a bundled GPU with its fraction."""
    specs = bundled_gpus()
    return [(r, run_fraction(r, specs[r.gpu])) for r in bundled_runs() if r.fit and r.gpu in specs]


def _family_runs() -> dict[str, list[float]]:
    specs = bundled_gpus()
    out: dict[str, list[float]] = {}
    for run, value in fitted_runs():
        out.setdefault(family(specs[run.gpu]), []).append(value)
    return out


def _ratio_fractions(known: dict[str, float]) -> dict[str, float]:
    """Fractions of GPUs with LLM-training ratio rows, resolved outward from the GPUs with runs."""
    specs = bundled_gpus()
    rows = [m for m in bundled_ratios() if m.workload == CLASS and ratio_row_used(m)
            and m.gpu in specs and m.reference in specs]
    found: dict[str, float] = {}
    while True:
        resolved = {**known, **found}
        new: dict[str, list[float]] = {}
        for m in rows:
            if m.gpu not in resolved and m.reference in resolved:
                value = m.ratio * resolved[m.reference] * peak_tflops(specs[m.reference]) / peak_tflops(specs[m.gpu])
                new.setdefault(m.gpu, []).append(value)
        if not new:
            return found
        found.update({gpu: statistics.median(values) for gpu, values in new.items()})


@lru_cache(maxsize=1)
def _tables() -> tuple[dict[str, float], dict[str, float], frozenset[str]]:
    """(family fraction from runs, per-GPU fraction from ratios, GPUs with runs)."""
    families = {fam: statistics.median(values) for fam, values in _family_runs().items()}
    specs = bundled_gpus()
    with_runs = frozenset(r.gpu for r, _ in fitted_runs())
    known = {gpu: families[family(specs[gpu])] for gpu in with_runs}
    return families, _ratio_fractions(known), with_runs


def fraction(spec: GpuSpec) -> Fraction:
    """The GPU's achieved fraction of peak in LLM training (see the module docstring for the order)."""
    families, ratios, with_runs = _tables()
    fam = family(spec)
    if spec.name in with_runs:
        return Fraction(spec.name, families[fam], "runs", f"median of the {fam} family's published runs")
    if spec.name in ratios:
        return Fraction(spec.name, ratios[spec.name], "ratio", "published per-GPU ratios in LLM training")
    sibling = NEAREST_MEASURED.get(spec.name) or REPRESENTATIVE.get(fam)
    if sibling is not None and sibling in ratios:
        return Fraction(spec.name, ratios[sibling], "sibling", f"{sibling}'s (measured sibling)")
    if fam in families:
        return Fraction(spec.name, families[fam], "family", f"the {fam} family's published runs")
    parent = LINEAGE.get(fam)
    if parent is None or parent not in families:
        raise ValueError(f"no LLM training fraction for architecture {spec.architecture!r}")
    return Fraction(spec.name, families[parent], "lineage", f"the {parent} family's (no {fam} run published)")


def training_tflops(spec: GpuSpec) -> float:
    """Sustained TFLOPS of one GPU in 16-bit LLM training: fraction x dense BF16/FP16 peak (FP32 accumulate)."""
    return fraction(spec).value * peak_tflops(spec)


def prefill_tflops(spec: GpuSpec, eight_bit: bool) -> float:
    """Sustained TFLOPS of prefill: the same dense matrix products as training, at the training fraction, at the
    16-bit peak with FP32 accumulate (what PyTorch and serving stacks accumulate in) or the 8-bit peak."""
    peak = precision_tflops(spec, "inference_8bit") if eight_bit else peak_tflops(spec)
    return fraction(spec).value * peak


def table(gpus: Iterable[GpuSpec] | None = None) -> list[Fraction]:
    """Every GPU's fraction (for the README table and the tests)."""
    return [fraction(s) for s in (gpus if gpus is not None else bundled_gpus())]
