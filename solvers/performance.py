"""Relative throughput of GPUs per workload class: a roofline from specs, calibrated on measurements.

Why a roofline: the guide's first estimate (DOMAIN §1, bandwidth ratio) misses GPUs whose compute
differs from their bandwidth (RTX 4090, RTX 6000 Ada, H100) and gives recurrent nets no tensor-core
benefit. Here the time of one unit of a class's work on GPU g is

    t_g = ((I_c / C_g)^k + (1 / B_g)^k)^(1/k) / e_f

- C_g: dense tensor TFLOPS in the precision the class runs in (`pricing/data/gpu_compute.csv`):
  training classes use FP16/BF16 with FP32 accumulate (`train_tflops`: half the FP16-accumulate
  figure on GeForce cards); 16-bit inference uses the FP16 tensor rate; 8-bit inference uses the
  larger of the FP8 and INT8 tensor rates (INT8 tensor cores on Turing and Ampere count, so 8-bit
  inference gets its speed-up there too), with 8-bit weights halving the bytes moved.
- B_g: memory bandwidth in GB/s, times (1 + cache gain of the class) when the GPU has a last-level
  cache of at least 32 MB (Ada/Blackwell L2, GA100/GH100 L2, AMD Infinity Cache; DOMAIN §1: large
  L2 speeds up matrix multiplications whose matrices fit).
- I_c: the class's effective arithmetic intensity (FLOP per byte of DRAM traffic) at which compute
  and bandwidth take equally long; k softens the corner of the roofline (k -> infinity is max()).
- e_f: an efficiency per architecture family (software maturity, clocks under power limits, what
  the spec sheet hides), or per GPU for the ratio-calibrated GPUs below; Turing is the 1.0 reference.

The parameters in `PARAMETERS` are fitted by `bench/fit_performance.py` on the measured throughput in
`pricing/data/measured_throughput.csv` (Lambda Labs' published PyTorch training tables, three software
stacks: NGC 20.01, 20.10 and 22.09+), subject to the guide's published ratios staying within 10% (tests
pin them): A100 vs V100 transformer 1.70x and CNN 1.45x, RTX 3090 vs RTX 2080 Ti transformer 1.5x and
CNN 1.57x; RTX 4090 vs H100 SXM 8-bit inference 0.33x sets the inference classes' Ada efficiency. The
benchmarks' batch-size effect is taken out of the comparison (`solvers.calibration`), not put into these
figures. The fit's errors are in the README's table.

GPUs that no single-GPU table holds (H200, B200, AMD Instinct, RTX 5090) are calibrated on published per-GPU
ratios to a measured GPU (`pricing/data/measured_ratios.csv`: MLPerf Training Llama-2-70B LoRA, MLPerf Inference
Llama-2-70B, MosaicML's MI250 vs A100, timm vision training of the RTX 5090 against an RTX 4090 on one machine):
each gets its own efficiency per class with such a measurement (`RATIO_FITTED_EFFICIENCY`, fitted by the same
script with the roofline above held fixed). Why per GPU and not per family: the roofline, fitted on BERT and
Transformer-XL, is bandwidth-bound on Hopper-class parts and credits the H200 its full 1.43x bandwidth where the
LLM measurement gives 1.16x, and MI325X measures 1.34x MI300X on the same die and peak FLOPS (1000 W vs 750 W
board power; bandwidth explains 1.13x): a family value cannot hold both members. Likewise the RTX 5090: Ada's
values gave it 1.71x an RTX 4090 in training (close to the 1.78x bandwidth ratio), timm measures 1.38x (Swin-B)
and 1.26x (CNNs). A class without a measurement for such a GPU takes its nearest measured class's factor relative
to its lineage (`TRANSFER_FROM`: CNN and RNN take the transformer factor, inference the 8-bit or transformer
one), except that a factor measured on vision training only stays within training (`TRAINING_ONLY_FACTOR`).
Families with no measured member keep their lineage's value (`INHERITS`); unmeasured members of a calibrated
family take the representative's (`REPRESENTATIVE`: B300 and GB200 the B200's, RTX PRO 6000 and RTX 5080 the
RTX 5090's), H100 NVL and GH200 the H200's (`NEAREST_MEASURED`). Every answer for a GPU without a measurement
of that class is flagged by `is_extrapolated`.

A profile's `throughput_overrides` replace the model for the GPUs they name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pricing.compute import ComputeSpec, bundled_compute
from pricing.gpus import GpuSpec
from pricing.measured_ratios import RatioMeasurement, bundled_ratios
from pricing.measurements import bundled_measurements

WORKLOADS = ("transformer_training", "cnn_training", "rnn_training", "inference_16bit", "inference_8bit")
TRAINING = ("transformer_training", "cnn_training", "rnn_training")
LARGE_CACHE_MB = 32.0


@dataclass(frozen=True)
class ClassParameters:
    """The roofline of one workload class (see module docstring)."""

    intensity: float  # FLOP per byte of DRAM traffic where compute time equals memory time
    cache_gain: float  # extra effective bandwidth with a last-level cache of >= 32 MB
    sharpness: float  # k: 1 adds the two times, large k takes the larger one


# Fitted by bench/fit_performance.py (see its output in pricing/data/gpu_compute.SOURCES.md); inference classes
# have no independent measurements: they take the transformer roofline (LLM inference is transformer work).
PARAMETERS: dict[str, ClassParameters] = {
    "transformer_training": ClassParameters(intensity=78.6, cache_gain=0.0, sharpness=3.65),
    "cnn_training": ClassParameters(intensity=62.5, cache_gain=0.0, sharpness=2.50),
    "rnn_training": ClassParameters(intensity=70.3, cache_gain=0.0, sharpness=1.98),
    "inference_16bit": ClassParameters(intensity=78.6, cache_gain=0.0, sharpness=3.65),
    "inference_8bit": ClassParameters(intensity=78.6, cache_gain=0.0, sharpness=3.65),
}

# Fitted per class for the families with measurements (Turing is the 1.0 reference). Inference classes take
# the transformer values except Ada's, the one family an inference measurement speaks for: the guide's RTX 4090
# vs H100 SXM 8-bit ratio (0.33x, DOMAIN section 1) is the spec roofline's 0.301x times ada / hopper, so
# ada = 0.33 / 0.301 x 0.926 = 1.015 (the training value, 1.343, would give 0.44x: the measurement says Ada's
# edge in the training benchmarks does not carry over to 8-bit inference).
_TRANSFORMER_EFFICIENCY = {"turing": 1.0, "volta": 0.947, "ampere": 1.035, "ampere_dc": 0.913, "ada": 1.343,
                           "hopper": 0.926}
_INFERENCE_EFFICIENCY = {**_TRANSFORMER_EFFICIENCY, "ada": 1.015}
FITTED_EFFICIENCY: dict[str, dict[str, float]] = {
    "transformer_training": _TRANSFORMER_EFFICIENCY,
    "cnn_training": {"turing": 1.0, "volta": 1.0, "ampere": 1.085, "ampere_dc": 0.847, "ada": 1.289,
                     "hopper": 0.837},
    "rnn_training": {"turing": 1.0, "volta": 0.794, "ampere": 1.145, "ampere_dc": 0.907, "ada": 1.347,
                     "hopper": 0.814},
    "inference_16bit": _INFERENCE_EFFICIENCY,
    "inference_8bit": _INFERENCE_EFFICIENCY,
}

# Families without measurements take the value of their nearest measured lineage (their own entry,
# so a future measurement replaces it without touching the others). The lineage is also what a ratio-calibrated
# GPU's factor is taken relative to when it moves to a class it was not measured in.
INHERITS = {"blackwell": "hopper", "blackwell_client": "ada", "cdna2": "ampere_dc", "cdna3": "hopper",
            "cdna4": "hopper"}

# Fitted by bench/fit_performance.py on the used rows of pricing/data/measured_ratios.csv (log least squares
# of the per-GPU ratios, the references measured in the single-GPU tables, H100 SXM, A100 80GB and RTX 4090, held at
# their family's value). Predicted against measured: pricing/data/gpu_compute.SOURCES.md.
RATIO_FITTED_EFFICIENCY: dict[str, dict[str, float]] = {
    "transformer_training": {"H200": 0.761, "MI300X": 0.559, "MI325X": 0.666, "B200": 0.939, "MI355X": 1.053,
                             "MI250": 0.462, "RTX 5090": 1.082},
    "cnn_training": {"RTX 5090": 0.955},
    "inference_8bit": {"H200": 0.778, "MI300X": 0.547, "MI325X": 0.591},
}
# GPUs whose transformer factor rests on vision training only (the RTX 5090's: timm Swin-B at batch up to 256,
# `model_kind` `vision` in measured_ratios.csv). It carries over to RNN training but not to the inference classes:
# LLM decode is bandwidth-bound (DOMAIN: tokens/s ~ bandwidth / bytes of weights), where the roofline's bandwidth
# credit stands; the same post's Ollama decode runs (4-bit, credited to no class) give the RTX 5090 1.72x an RTX
# 4090 against a bandwidth ratio of 1.78x, not the 1.38x of vision training.
TRAINING_ONLY_FACTOR = frozenset({"RTX 5090"})
# A class without a ratio measurement for a GPU takes the factor (GPU's efficiency / its lineage's) of the first
# of these classes that has one. CNN and RNN: the transformer factor (software maturity and power-limited
# clocks are the GPU's, not the class's; no AMD or H200/B200 CNN/RNN measurement exists); 16-bit inference:
# the 8-bit one (the same LLM serving stacks), else the transformer one.
TRANSFER_FROM: dict[str, tuple[str, ...]] = {
    "transformer_training": (), "cnn_training": ("transformer_training",), "rnn_training": ("transformer_training",),
    "inference_8bit": ("transformer_training",), "inference_16bit": ("inference_8bit", "transformer_training"),
}
# The measured GPU whose factors the unmeasured members of a ratio-calibrated family take. Client Blackwell: the
# RTX PRO 6000 is the same GB202 die (188 SMs against 170, 96 GB) and the RTX 5080 a smaller GB203; both keep their
# own roofline and take the RTX 5090's factor against Ada, flagged extrapolated.
REPRESENTATIVE = {"blackwell": "B200", "blackwell_client": "RTX 5090", "cdna2": "MI250", "cdna3": "MI300X",
                  "cdna4": "MI355X"}
# Unmeasured GPUs that take a measured sibling's factors instead of their family's: the Hopper parts with more
# bandwidth than the H100 SXM. The roofline credits them that bandwidth in full (H100 NVL 1.16x and GH200 1.19x
# an H100 SXM, although the NVL has 84% of its compute at 400 W); the one measured such part, the H200, gets
# 1.17x where the roofline says 1.43x, so they take its factor (0.82 of Hopper's): H100 NVL 0.95x, GH200 0.98x.
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


def _lineage(fam: str) -> str:
    return fam if fam in FITTED_EFFICIENCY["transformer_training"] else INHERITS[fam]


def _gpu_efficiency(gpu: str, fam: str, workload: str) -> float | None:
    """A ratio-calibrated GPU's efficiency: its own fit, else transferred (TRANSFER_FROM, within training only for
    TRAINING_ONLY_FACTOR); None if neither."""
    own = RATIO_FITTED_EFFICIENCY.get(workload, {})
    if gpu in own:
        return own[gpu]
    if gpu in TRAINING_ONLY_FACTOR and workload not in TRAINING:
        return None
    lineage = _lineage(fam)
    for source in TRANSFER_FROM[workload]:
        if gpu in RATIO_FITTED_EFFICIENCY.get(source, {}):
            factor = RATIO_FITTED_EFFICIENCY[source][gpu] / FITTED_EFFICIENCY[source][lineage]
            return FITTED_EFFICIENCY[workload][lineage] * factor
    return None


def _family_table(workload: str) -> dict[str, float]:
    fitted = FITTED_EFFICIENCY[workload]
    table = {**fitted, **{fam: fitted[parent] for fam, parent in INHERITS.items()}}
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


def effective_bandwidth(spec: GpuSpec, workload: str, params: ClassParameters | None = None) -> float:
    """GB/s the class sees: DRAM bandwidth, more with a large cache, doubled for 8-bit weights."""
    comp = _compute(spec)
    params = params or PARAMETERS[workload]
    bandwidth = spec.memory_bandwidth_gbs
    if comp.l2_mb is not None and comp.l2_mb >= LARGE_CACHE_MB:
        bandwidth *= 1 + params.cache_gain
    if workload == "inference_8bit" and (comp.int8_tops or comp.fp8_tflops):
        bandwidth *= 2  # 8-bit weights and activations: half the bytes per FLOP
    return bandwidth


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
    compute_time = p.intensity / (precision_tflops(spec, workload) * 1000.0)
    memory_time = 1.0 / effective_bandwidth(spec, workload, p)
    k = p.sharpness
    combined: float = (compute_time**k + memory_time**k) ** (1.0 / k)
    return combined / (eff if eff is not None else efficiency(spec, workload))


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
