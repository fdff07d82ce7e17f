"""Relative throughput of GPUs per workload class, following the guide's method.

Among tensor-core GPUs the first estimate of relative speed is the ratio of memory bandwidth
(DOMAIN §1: A100 1,555 GB/s vs V100 900 GB/s = 1.73x). The guide's measured, de-biased ratios
differ from the bandwidth ratio by architecture, so each (workload class, architecture family)
gets a correction factor calibrated on the guide's published figures:

- transformer training, A100 vs V100: measured 1.70x (2020) vs bandwidth 1.73x -> GA100 0.984.
- transformer training, RTX 3090 vs RTX 2080 Ti: 1.5x (2020) vs bandwidth 1.52x -> GA10x 0.987.
- CNN training, A100 vs V100: 1.43x-1.47x, about 1.45x (2020) vs 1.73x -> GA100 0.839.
- CNN training, RTX 3090 vs RTX 2080 Ti: 1.57x (2020) vs 1.52x -> GA10x 1.034.
- RNN training: bandwidth first (2019 ranking), no correction.
- Ada L2 cache (72 MB vs 6 MB Ampere; DOMAIN §1: 1.5-2.0x faster matmuls whose matrices fit):
  1.10 for transformer training and inference, calibrated on the 2023 published RTX 4090 vs
  H100 SXM 8-bit inference ratio of 0.33 (bandwidth alone gives 0.30). Only a minority of a
  model's matrix multiplications fit in L2, hence far below 1.5x.
- 8-bit inference: FP8 tensor cores (Ada, Hopper, Blackwell) load 8-bit inputs at twice the
  rate of 16-bit (2023), factor 2.0; older GPUs run 8-bit inference at 16-bit speed (the guide
  did not model 8-bit for them).
Families without a published measurement inherit from their lineage: Hopper and Blackwell from
GA100 (data-centre), Ada from GA10x, Turing and Volta are the 1.0 baseline; AMD Instinct (CDNA2-4)
inherits from GA100 as well.

A profile's `throughput_overrides` replace the model for the GPUs they name.
"""

from __future__ import annotations

from pricing.gpus import GpuSpec

# Correction factors per workload class and architecture family (see module docstring).
_GA100_TRANSFORMER = 1.70 / (1555 / 900)
_GA10X_TRANSFORMER = 1.5 / (936 / 616)
_GA100_CNN = 1.45 / (1555 / 900)
_GA10X_CNN = 1.57 / (936 / 616)
ADA_L2_FACTOR = 1.10
FP8_FACTOR = 2.0

_FAMILY_FACTORS: dict[str, dict[str, float]] = {
    "transformer_training": {
        "volta": 1.0, "turing": 1.0, "ampere_dc": _GA100_TRANSFORMER, "ampere": _GA10X_TRANSFORMER,
        "ada": _GA10X_TRANSFORMER * ADA_L2_FACTOR, "hopper": _GA100_TRANSFORMER,
        "blackwell": _GA100_TRANSFORMER,
    },
    "cnn_training": {
        "volta": 1.0, "turing": 1.0, "ampere_dc": _GA100_CNN, "ampere": _GA10X_CNN,
        "ada": _GA10X_CNN, "hopper": _GA100_CNN, "blackwell": _GA100_CNN,
    },
    "rnn_training": {
        "volta": 1.0, "turing": 1.0, "ampere_dc": 1.0, "ampere": 1.0, "ada": 1.0, "hopper": 1.0,
        "blackwell": 1.0,
    },
}
# AMD Instinct (CDNA2/3/4) has no published ratio in the guide: like Hopper and Blackwell it inherits the
# HBM data-centre (GA100) factors until the spec-based model replaces this table.
for _factors in _FAMILY_FACTORS.values():
    for _cdna in ("cdna2", "cdna3", "cdna4"):
        _factors[_cdna] = _factors["ampere_dc"]
_FAMILY_FACTORS["inference_16bit"] = dict(_FAMILY_FACTORS["transformer_training"])
_FAMILY_FACTORS["inference_8bit"] = dict(_FAMILY_FACTORS["transformer_training"])


def family(spec: GpuSpec) -> str:
    """Architecture family for the correction table; GA100 (A100) differs from GA10x cards."""
    arch = spec.architecture.lower()
    if arch == "ampere" and spec.chip.upper().startswith("GA100"):
        return "ampere_dc"
    return arch


def throughput_score(spec: GpuSpec, workload: str) -> float:
    """Absolute score (corrected bandwidth); only ratios between scores mean anything."""
    factors = _FAMILY_FACTORS[workload]
    fam = family(spec)
    if fam not in factors:
        raise ValueError(f"no performance model for architecture {spec.architecture!r}")
    score = spec.memory_bandwidth_gbs * factors[fam]
    if workload == "inference_8bit" and spec.fp8:
        score *= FP8_FACTOR
    return score


def relative_throughput(spec: GpuSpec, reference: GpuSpec, workload: str) -> float:
    """Work one GPU-hour of `spec` does, in reference GPU-hours of `reference`."""
    return throughput_score(spec, workload) / throughput_score(reference, workload)
