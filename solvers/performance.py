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
  the spec sheet hides); Turing is the 1.0 reference.

The parameters in `PARAMETERS` are fitted by `bench/fit_performance.py` on the measured throughput in
`pricing/data/measured_throughput.csv` (Lambda Labs' published PyTorch training tables, three software
stacks: NGC 20.01, 20.10 and 22.09+), subject to the guide's published ratios staying within 10% (tests
pin them): A100 vs V100 transformer 1.70x and CNN 1.45x, RTX 3090 vs RTX 2080 Ti transformer 1.5x and
CNN 1.57x; RTX 4090 vs H100 SXM 8-bit inference 0.33x sets the inference classes' Ada efficiency. The
benchmarks' batch-size effect is taken out of the comparison (`solvers.calibration`), not put into these
figures. The fit's errors are in the README's table.

Families without any measurement (Blackwell, AMD CDNA2/3/4, Hopper variants share Hopper's) keep
their own entry in `FAMILY_EFFICIENCY`, set to the nearest measured lineage until measured; every
answer for a GPU without measurements of that class is flagged by `is_extrapolated`.

A profile's `throughput_overrides` replace the model for the GPUs they name.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from pricing.compute import ComputeSpec, bundled_compute
from pricing.gpus import GpuSpec
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
# so a future measurement replaces it without touching the others).
INHERITS = {"blackwell": "hopper", "blackwell_client": "ada", "cdna2": "ampere_dc", "cdna3": "hopper",
            "cdna4": "hopper"}


def _with_inherited(fitted: dict[str, float]) -> dict[str, float]:
    return {**fitted, **{fam: fitted[parent] for fam, parent in INHERITS.items()}}


FAMILY_EFFICIENCY: dict[str, dict[str, float]] = {name: _with_inherited(t) for name, t in FITTED_EFFICIENCY.items()}


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
    table = FAMILY_EFFICIENCY[workload]
    fam = family(spec)
    if fam not in table:
        raise ValueError(f"no performance model for architecture {spec.architecture!r}")
    return table[fam]


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


@lru_cache(maxsize=1)
def _measured_pairs() -> frozenset[tuple[str, str]]:
    pairs = {(m.gpu, m.workload) for m in bundled_measurements()}
    # The guide's measured RTX 4090 vs H100 SXM 8-bit inference ratio (DOMAIN §1, 2023).
    pairs |= {("RTX 4090", "inference_8bit"), ("H100 SXM", "inference_8bit")}
    return frozenset(pairs)


def is_extrapolated(gpu: str, workload: str) -> bool:
    """True when no bundled measurement of this GPU for this class backs the model's figure."""
    return (gpu, workload) not in _measured_pairs()
