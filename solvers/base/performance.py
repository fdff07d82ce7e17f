"""Relative throughput of GPUs per workload class: a roofline from specs, calibrated on measurements.

Why a roofline: the guide's first estimate (DOMAIN §1, bandwidth ratio) misses GPUs whose compute
differs from their bandwidth (RTX 4090, RTX 6000 Ada, H100) and gives recurrent nets no tensor-core
benefit. Here the time of one unit of a class's work on GPU g is

    t_g = ((I_c / C_g)^k + (1 / B_g)^k)^(1/k) x (1 + K_c / max(M_g - m_c, 0.5)) / e_f

- C_g: dense tensor TFLOPS in the precision the class runs in (`pricing/data/gpu_compute.csv`, `roofline_tflops`).
  Training uses FP16/BF16 with FP32 accumulate (`train_tflops`), with two fitted corrections: on GeForce cards,
  whose FP32-accumulate rate is half their FP16 rate, only part of that halving shows in measured training
  (`accumulate_exponent`: train x 2 ** (1 - exponent)); and Hopper and data-centre Blackwell parts realize only part
  of their spec rate in the measured stacks (`recent_compute_share`: the H200 and GH200, with 43% and 19% more
  bandwidth than the H100 SXM, measure 1.1x and 1.0x it). 16-bit inference uses the FP16 tensor rate; 8-bit
  inference the larger of the FP8 and INT8 tensor rates (INT8 tensor cores on Turing and Ampere count), with 8-bit
  weights halving the bytes moved.
- B_g: memory bandwidth in GB/s.
- I_c: the class's effective arithmetic intensity (FLOP per byte of DRAM traffic) at which compute
  and bandwidth take equally long; k softens the corner of the roofline (k -> infinity is max()).
- The memory term (training): a job runs the batch its memory M_g holds (the benchmarks size it so: BERT large at
  batch 4 on a 10 GB card, 112 on 80 GB), and a small batch does not fill the card: with F = M_g - m_c GB free
  for the batch, it runs at 1 / (1 + K_c / F) of its speed. This is part of the planner's figure, not taken out of
  the comparison: a 10 GB card's published throughput is what a job on it gets.
- e_f: an efficiency per architecture family (software maturity, clocks under power limits, what
  the spec sheet hides), or per GPU for the ratio-calibrated GPUs below; Turing is the 1.0 reference.

The training parameters in `PARAMETERS` and `FITTED_EFFICIENCY` are fitted by `bench/fit_performance.py` on
`pricing/data/measured_throughput.csv` (Lambda Labs' published PyTorch training tables: seven software stacks from
NGC 20.01 to the 2024-2025 v2 runs, 26 GPUs from the RTX 2080 Ti to the B200), with the guide's published ratios
held within 10% (tests pin them: A100 vs V100 transformer 1.70x and CNN 1.45x, RTX 3090 vs RTX 2080 Ti transformer
1.5x and CNN 1.57x). The held-out errors (5-fold cross-validation over the measured rows, and each GPU left out of
its own fit) are in `pricing/data/gpu_compute.SOURCES.md`; `tests/solvers/base/test_performance_holdout.py` holds them
to
issue 30's targets. The inference classes keep the roofline and family values of the fit before issue 30, which the
guide's RTX 4090 vs H100 SXM 8-bit ratio (0.33x) and the MLPerf inference ratios calibrate.

GPUs that no single-GPU table holds (AMD Instinct, RTX 5090) are calibrated on published per-GPU ratios to a measured
GPU (`pricing/data/measured_ratios.csv`: MLPerf Training Llama-2-70B LoRA, MLPerf Inference Llama-2-70B, MosaicML's
MI250 vs A100, timm vision training of the RTX 5090 against an RTX 4090 on one machine): each gets its own efficiency
per class with such a measurement (`RATIO_FITTED_EFFICIENCY`, fitted by the same script with the roofline above and
the single-GPU tables' GPUs held fixed). Why per GPU and not per family: MI325X measures 1.34x MI300X on the same die
and peak FLOPS (1000 W vs 750 W board power; bandwidth explains 1.13x), and the RTX 5090 1.38x an RTX 4090 (Swin-B)
where Ada's values and its bandwidth gave 1.71x: a family value cannot hold both members. The H200 and B200, which
Lambda's v2 table measures, take their family values in training; the LoRA ratios of those two against the H100 SXM
are cross-checks (the B200 measures 1.7x an H100 SXM in BERT and 2.4x in the LoRA fine-tune), and their LLM factors
(`LLM_EFFICIENCY`) are what the inference classes take. A class without a measurement for such a GPU takes its
nearest measured class's factor relative to its lineage (`TRANSFER_FROM`: CNN and RNN take the transformer factor,
inference the 8-bit one or the LLM factor), except that a factor measured on vision training only stays within
training (`TRAINING_ONLY_FACTOR`). Families with no measured member keep their lineage's value (`INHERITS`);
unmeasured members of a calibrated family take the representative's (`REPRESENTATIVE`: RTX PRO 6000 and RTX 5080
the RTX 5090's; B300 and GB200 the Blackwell family's, and in inference the B200's LLM factor), H100 NVL and GH200 the
H200's in inference (`NEAREST_MEASURED`). Every answer for a GPU without a measurement of that class is flagged by
`is_extrapolated`.

A profile's `throughput_overrides` replace the model for the GPUs they name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from pricing.compute import ComputeSpec, bundled_compute
from pricing.gpus import GpuSpec
from pricing.measured_ratios import RatioMeasurement, bundled_ratios
from pricing.measurements import bundled_measurements

WORKLOADS = ("transformer_training", "cnn_training", "rnn_training", "inference_16bit", "inference_8bit")
TRAINING = ("transformer_training", "cnn_training", "rnn_training")
# the formulas below take one GPU (floats) or many at once (arrays, bench/performance_fit.py)
Num = TypeVar("Num", float, npt.NDArray[np.float64])


@dataclass(frozen=True)
class ClassParameters:
    """The roofline of one workload class and the terms around it (see module docstring)."""

    intensity: float  # FLOP per byte of DRAM traffic where compute time equals memory time
    sharpness: float  # k: 1 adds the two times, large k takes the larger one
    # how much of a GeForce card's halved FP16-with-FP32-accumulate rate shows in training: its compute is
    # train_tflops x (fp16 / train_tflops) ** (1 - exponent), so 1 takes the halved rate, 0 the full FP16 rate
    accumulate_exponent: float = 1.0
    memory_knee_gb: float = 0.0  # K: a card with F GB free for the batch runs at 1 / (1 + K / F) of its speed
    memory_floor_gb: float = 0.0  # m0: memory a job holds whatever its batch (weights, optimizer, workspace)
    # share of their spec tensor rate the Hopper and data-centre Blackwell parts realize in the measured training
    # stacks (RECENT_FAMILIES): their spec rate needs their own matrix instructions (wgmma, tcgen05), which the
    # benchmarks' kernels use only in part (the H200 and GH200, with 43% and 19% more bandwidth than the H100 SXM,
    # measure 1.1x and 1.0x it: the H100 SXM is at its compute corner, far below its spec rate)
    recent_compute_share: float = 1.0


# Families whose spec tensor rate the measured stacks realize only in part (`recent_compute_share`): Hopper and
# data-centre Blackwell, measured, and the CDNA3/4 parts calibrated against them (their own efficiencies are fitted
# on the roofline their references run on, so they take the same share: MI300X reached 25-26% of its FP8 peak in
# MLPerf, gpu_compute.SOURCES.md)
RECENT_FAMILIES = frozenset({"hopper", "blackwell", "cdna3", "cdna4"})
# A card is never counted with less than this free for its batch (a card at the floor still runs a batch of one).
MIN_FREE_GB = 0.5

# Fitted by bench/fit_performance.py on pricing/data/measured_throughput.csv (its output and the held-out errors:
# pricing/data/gpu_compute.SOURCES.md). Inference classes have no single-GPU measurements: they keep the transformer
# roofline of the fit before issue 30 (LLM inference is transformer work; that fit, with the guide's RTX 4090 vs H100
# ratio and the MLPerf inference ratios below, is what they are calibrated on), without the training terms.
_INFERENCE = ClassParameters(intensity=78.6, sharpness=3.65)
_TRANSFORMER = ClassParameters(intensity=166.2, sharpness=7.42, accumulate_exponent=0.313, memory_knee_gb=2.847,
                               memory_floor_gb=5.0, recent_compute_share=0.465)
PARAMETERS: dict[str, ClassParameters] = {
    "transformer_training": _TRANSFORMER,
    "cnn_training": ClassParameters(intensity=75.2, sharpness=2.92, accumulate_exponent=1.0,
                                    recent_compute_share=0.176),
    "rnn_training": ClassParameters(intensity=75.0, sharpness=1.45, accumulate_exponent=0.439, memory_knee_gb=11.324,
                                    recent_compute_share=0.324),
    "inference_16bit": _INFERENCE,
    "inference_8bit": _INFERENCE,
}

# Fitted per class for the families with measurements (Turing is the 1.0 reference). The inference classes keep the
# family values of the same earlier fit as their roofline, except Ada's, the one family an inference measurement
# speaks for: the guide's RTX 4090 vs H100 SXM 8-bit ratio (0.33x, DOMAIN section 1) is that roofline's 0.301x times
# ada / hopper, so ada = 0.33 / 0.301 x 0.926 = 1.015.
_TRANSFORMER_EFFICIENCY = {"turing": 1.0, "volta": 1.032, "ampere": 0.953, "ampere_dc": 0.77, "ada": 1.149,
                           "hopper": 0.975, "blackwell": 0.704}
_INFERENCE_EFFICIENCY = {"turing": 1.0, "volta": 0.947, "ampere": 1.035, "ampere_dc": 0.913, "ada": 1.015,
                         "hopper": 0.926}
FITTED_EFFICIENCY: dict[str, dict[str, float]] = {
    "transformer_training": _TRANSFORMER_EFFICIENCY,
    "cnn_training": {"turing": 1.0, "volta": 0.985, "ampere": 1.116, "ampere_dc": 0.827, "ada": 1.276,
                     "hopper": 1.298, "blackwell": 0.647},
    "rnn_training": {"turing": 1.0, "volta": 0.862, "ampere": 1.109, "ampere_dc": 0.878, "ada": 1.263,
                     "hopper": 1.129, "blackwell": 0.885},
    "inference_16bit": _INFERENCE_EFFICIENCY,
    "inference_8bit": _INFERENCE_EFFICIENCY,
}

# The lineage of each family: a family without measurements takes its lineage's value (its own entry, so a
# future measurement replaces it without touching the others); a ratio-calibrated GPU's factor is taken relative
# to it when it moves to a class it was not measured in; and a measured family held out of the fit falls back to
# it (bench/performance_fit.py).
INHERITS = {"blackwell": "hopper", "blackwell_client": "ada", "cdna2": "ampere_dc", "cdna3": "hopper",
            "cdna4": "hopper"}

# Fitted by bench/fit_performance.py on the used rows of pricing/data/measured_ratios.csv (log least squares of
# the per-GPU ratios) for the GPUs no single-GPU table holds, with every GPU that a single-GPU table holds for the
# class held at its family's value (training classes: H100 SXM, H200, B200, A100 80GB, RTX 4090, ...; 8-bit
# inference, which no single-GPU table measures: the H100 SXM, the root of every inference comparison). Where a
# published ratio joins two GPUs of the single-GPU tables (MLPerf LoRA: H200 and B200 against the H100 SXM), the
# tables win and the ratio is a cross-check. Predicted against measured: pricing/data/gpu_compute.SOURCES.md.
RATIO_FITTED_EFFICIENCY: dict[str, dict[str, float]] = {
    "transformer_training": {"MI250": 0.482, "MI300X": 0.641, "MI325X": 0.801, "MI355X": 0.719, "RTX 5090": 0.891},
    "cnn_training": {"RTX 5090": 0.954},
    "inference_8bit": {"H200": 0.778, "MI300X": 0.547, "MI325X": 0.591},
}
# Transformer efficiencies on LLM work (MLPerf Llama-2-70B LoRA, MosaicML MPT), fitted on the `llm` rows with only
# the H100 SXM and A100 80GB held at their family's value: what an inference class takes for a GPU without its own
# inference measurement (TRANSFER_FROM), because LLM serving is LLM work. The class form's training figure of the
# H200 and B200 comes from the single-GPU tables instead (BERT and Transformer-XL, where the B200 measures 1.7x an
# H100 SXM against 2.4x in the LoRA fine-tune).
LLM_EFFICIENCY: dict[str, float] = {"B200": 1.007, "H200": 1.092, "MI250": 0.482, "MI300X": 0.673, "MI325X": 0.898,
                                    "MI355X": 1.028}
# GPUs whose transformer factor rests on vision training only (the RTX 5090's: timm Swin-B at batch up to 256,
# `model_kind` `vision` in measured_ratios.csv). It carries over to RNN training but not to the inference classes:
# LLM decode is bandwidth-bound (DOMAIN: tokens/s ~ bandwidth / bytes of weights), where the roofline's bandwidth
# credit stands; the same post's Ollama decode runs (4-bit, credited to no class) give the RTX 5090 1.72x an RTX
# 4090 against a bandwidth ratio of 1.78x, not the 1.38x of vision training.
TRAINING_ONLY_FACTOR = frozenset({"RTX 5090"})
# A class without a ratio measurement for a GPU takes the factor (GPU's efficiency / its lineage's) of the first
# of these classes that has one. CNN and RNN: the transformer factor (software maturity and power-limited
# clocks are the GPU's, not the class's; no AMD CNN/RNN measurement exists); 16-bit inference: the 8-bit one (the
# same LLM serving stacks), else the LLM factor (LLM_EFFICIENCY).
TRANSFER_FROM: dict[str, tuple[str, ...]] = {
    "transformer_training": (), "cnn_training": ("transformer_training",), "rnn_training": ("transformer_training",),
    "inference_8bit": ("transformer_training",), "inference_16bit": ("inference_8bit", "transformer_training"),
}
# The measured GPU whose factors the unmeasured members of a ratio-calibrated family take. Client Blackwell: the
# RTX PRO 6000 is the same GB202 die (188 SMs against 170, 96 GB) and the RTX 5080 a smaller GB203; both keep their
# own roofline and take the RTX 5090's factor against Ada, flagged extrapolated.
REPRESENTATIVE = {"blackwell": "B200", "blackwell_client": "RTX 5090", "cdna2": "MI250", "cdna3": "MI300X",
                  "cdna4": "MI355X"}
# GPUs that take a measured sibling's factors instead of their family's where they have none of their own: the
# Hopper parts with more bandwidth than the H100 SXM take the H200's MLPerf inference factor. (In training the
# H200 and GH200 are measured and the NVL takes the Hopper family value: the roofline, compute-bound at Hopper's
# realized rate, credits it its 84% of the SXM's compute, 0.87x an H100 SXM.)
NEAREST_MEASURED = {"H100 NVL": "H200", "GH200": "H200"}
# Precisions a published comparison may have run in and still speak for a class; both GPUs in the same one.
# FP8 speaks for the 16-bit training classes only where both GPUs run FP8 at twice their FP16/BF16 dense rate
# (`_fp8_doubles_training_rate`): FP8 then halves both GPUs' compute time and bytes alike, and the roofline gives
# the same ratio at either precision. FP4 speaks for no class (Blackwell's MLPerf inference ran FP4 against
# Hopper's FP8: its 8-bit figure stays extrapolated).
CLASS_PRECISIONS: dict[str, tuple[str, ...]] = {
    "transformer_training": ("bf16", "fp16", "fp8"), "cnn_training": ("bf16", "fp16", "fp8"),
    "rnn_training": ("bf16", "fp16", "fp8"), "inference_16bit": ("bf16", "fp16"), "inference_8bit": ("fp8", "int8"),
}


def _lineage(fam: str, workload: str) -> str:
    """The family whose fitted value of `workload` a family takes: its own where fitted, else its lineage's."""
    while fam not in FITTED_EFFICIENCY[workload]:
        fam = INHERITS[fam]
    return fam


def _gpu_efficiency(gpu: str, fam: str, workload: str) -> float | None:
    """A ratio-calibrated GPU's efficiency: its own fit, else transferred (TRANSFER_FROM; an inference class takes
    the LLM factor, LLM_EFFICIENCY; within training only for TRAINING_ONLY_FACTOR); None if neither."""
    own = RATIO_FITTED_EFFICIENCY.get(workload, {})
    if gpu in own:
        return own[gpu]
    if gpu in TRAINING_ONLY_FACTOR and workload not in TRAINING:
        return None
    for source in TRANSFER_FROM[workload]:
        llm = workload not in TRAINING and source == "transformer_training"
        factors = LLM_EFFICIENCY if llm else RATIO_FITTED_EFFICIENCY.get(source, {})
        if gpu in factors:
            # the factor is against the family the source fit held fixed: the LLM chain's is the GPU's lineage
            # (a B200 against Hopper), a class-form fit's the GPU's own family where fitted
            basis = _lineage(INHERITS.get(fam, fam) if llm else fam, source)
            target = FITTED_EFFICIENCY[workload][_lineage(basis, workload)]
            return target * factors[gpu] / FITTED_EFFICIENCY[source][basis]
    return None


def _family_table(workload: str) -> dict[str, float]:
    fitted = FITTED_EFFICIENCY[workload]
    table = {**{fam: fitted[_lineage(fam, workload)] for fam in INHERITS}, **fitted}
    for fam, gpu in REPRESENTATIVE.items():
        table[fam] = _gpu_efficiency(gpu, fam, workload) or table[fam]
    return table


FAMILY_EFFICIENCY: dict[str, dict[str, float]] = {name: _family_table(name) for name in FITTED_EFFICIENCY}


def family(spec: GpuSpec) -> str:
    """Architecture family: GA100/GH100-class data-centre parts differ from client dies of one generation."""
    arch = spec.architecture.lower()
    if arch == "ampere" and spec.chip.upper().startswith("GA100"):
        return "ampere_dc"
    if arch == "blackwell" and spec.segment != "datacenter":
        return "blackwell_client"
    return arch


def _compute(spec: GpuSpec) -> ComputeSpec:
    found = bundled_compute().get(spec.name)
    if found is not None:
        return found
    # A GPU outside the bundled table (tests, user catalogs): derive from gpus.csv's columns.
    fp16 = spec.fp16_tensor_tflops or 0.0
    return ComputeSpec(spec.name, fp16, 2 * fp16 if spec.fp8 else None, None, None, "pcie", 32.0, "derived")


def precision_tflops(spec: GpuSpec, workload: str) -> float:
    """Dense tensor throughput (TFLOPS or TOPS) in the precision the workload class runs in."""
    comp = _compute(spec)
    if workload in TRAINING:
        rate = comp.train_tflops
    elif workload == "inference_8bit":
        rate = max(comp.fp8_tflops or 0.0, comp.int8_tops or 0.0, spec.fp16_tensor_tflops or 0.0)
    else:
        rate = spec.fp16_tensor_tflops or comp.train_tflops
    if rate <= 0:
        raise ValueError(f"no tensor throughput known for {spec.name!r}")
    return rate


def effective_bandwidth(spec: GpuSpec, workload: str) -> float:
    """GB/s the class sees: DRAM bandwidth, doubled for 8-bit weights."""
    comp = _compute(spec)
    bandwidth = spec.memory_bandwidth_gbs
    if workload == "inference_8bit" and (comp.int8_tops or comp.fp8_tflops):
        bandwidth *= 2  # 8-bit weights and activations: half the bytes per FLOP
    return bandwidth


def accumulate_tflops(train: Num, full: Num, exponent: float) -> Num:
    """Training compute of a card whose FP16-with-FP32-accumulate rate is `train` and plain FP16 rate `full`
    (GeForce: train = full / 2; every other card: train = full, which this returns unchanged)."""
    return train * (full / train) ** (1.0 - exponent)  # type: ignore[no-any-return]


def roofline_time(tflops: Num, bandwidth_gbs: Num, params: ClassParameters) -> Num:
    """Time of one unit of the class's work from compute and bandwidth (only ratios mean anything)."""
    compute = params.intensity / (tflops * 1000.0)
    memory = 1.0 / bandwidth_gbs
    k = params.sharpness
    return (compute**k + memory**k) ** (1.0 / k)  # type: ignore[no-any-return]


def memory_slowdown(memory_gb: Num, params: ClassParameters) -> Num:
    """How much longer a unit of work takes on a card of this memory than on one with room for any batch: a job
    runs the batch its memory holds, and a small batch does not fill the card (module docstring)."""
    free = np.maximum(memory_gb - params.memory_floor_gb, MIN_FREE_GB)
    return 1.0 + params.memory_knee_gb / free  # type: ignore[no-any-return]


def roofline_tflops(spec: GpuSpec, workload: str, params: ClassParameters | None = None) -> float:
    """The compute rate the roofline uses: the class's precision rate, and for training on a card with a halved
    FP32-accumulate rate the share of that halving the measurements show (`accumulate_exponent`), on a Hopper or
    data-centre Blackwell part the share of its spec rate the measured stacks realize (`recent_compute_share`)."""
    rate = precision_tflops(spec, workload)
    if workload not in TRAINING:
        return rate
    p = params or PARAMETERS[workload]
    rate = float(accumulate_tflops(rate, max(spec.fp16_tensor_tflops or 0.0, rate), p.accumulate_exponent))
    return rate * p.recent_compute_share if family(spec) in RECENT_FAMILIES else rate


def efficiency(spec: GpuSpec, workload: str) -> float:
    """The GPU's own ratio-calibrated value where it has one, else its family's (see module docstring)."""
    table = FAMILY_EFFICIENCY[workload]
    fam = family(spec)
    if fam not in table:
        raise ValueError(f"no performance model for architecture {spec.architecture!r}")
    own = _gpu_efficiency(NEAREST_MEASURED.get(spec.name, spec.name), fam, workload)
    return table[fam] if own is None else own


def unit_time(spec: GpuSpec, workload: str, params: ClassParameters | None = None,
              eff: float | None = None) -> float:
    """Seconds-like cost of one unit of the class's work (only ratios between GPUs mean anything)."""
    if workload not in PARAMETERS:
        raise ValueError(f"unknown workload class {workload!r}")
    p = params or PARAMETERS[workload]
    time = roofline_time(roofline_tflops(spec, workload, p), effective_bandwidth(spec, workload), p)
    time *= float(memory_slowdown(spec.memory_gb, p))
    return float(time) / (eff if eff is not None else efficiency(spec, workload))


def throughput_score(spec: GpuSpec, workload: str) -> float:
    """Absolute score (work per unit time); only ratios between scores mean anything."""
    return 1.0 / unit_time(spec, workload)


def relative_throughput(spec: GpuSpec, reference: GpuSpec, workload: str) -> float:
    """Work one GPU-hour of `spec` does, in reference GPU-hours of `reference`."""
    return throughput_score(spec, workload) / throughput_score(reference, workload)


def _fp8_doubles_training_rate(gpu: str) -> bool:
    comp = bundled_compute().get(gpu)
    return comp is not None and comp.fp8_tflops is not None and abs(comp.fp8_tflops / comp.train_tflops - 2) < 0.01


def ratio_row_used(m: RatioMeasurement, *, llm_only: bool = True) -> bool:
    """Whether a published comparison speaks for its class (CLASS_PRECISIONS).

    `llm_only` (the default) keeps the LLM rows: what the workload compiler reads as published LLM training ratios
    (`solvers/workload/mfu.py` calls this without arguments). The class-form model passes False: a vision model's
    training (timm Swin-B, ResNet-50) speaks for the transformer and CNN classes, not for an LLM's fraction of peak.
    """
    if llm_only and m.model_kind != "llm":
        return False
    if m.precision != m.reference_precision or m.precision not in CLASS_PRECISIONS.get(m.workload, ()):
        return False
    if m.workload in TRAINING and m.precision == "fp8":
        return _fp8_doubles_training_rate(m.gpu) and _fp8_doubles_training_rate(m.reference)
    return True


@lru_cache(maxsize=1)
def _measured_pairs() -> frozenset[tuple[str, str]]:
    pairs = {(m.gpu, m.workload) for m in bundled_measurements()}
    # The guide's measured RTX 4090 vs H100 SXM 8-bit inference ratio (DOMAIN §1, 2023).
    pairs |= {("RTX 4090", "inference_8bit"), ("H100 SXM", "inference_8bit")}
    for m in bundled_ratios():
        if ratio_row_used(m, llm_only=False):
            pairs |= {(m.gpu, m.workload), (m.reference, m.workload)}
    return frozenset(pairs)


def is_extrapolated(gpu: str, workload: str) -> bool:
    """True when no bundled measurement of this GPU for this class backs the model's figure."""
    return (gpu, workload) not in _measured_pairs()
