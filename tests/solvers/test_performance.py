"""The performance model reproduces the guide's published ratios within 10% (DOMAIN §1)."""

from __future__ import annotations

import pytest

from pricing.gpus import bundled_gpus
from solvers.performance import relative_throughput


@pytest.mark.parametrize(
    ("gpu", "reference", "workload", "published"),
    [
        ("A100 40GB", "V100", "transformer_training", 1.70),
        ("A100 40GB", "V100", "cnn_training", 1.45),
        ("RTX 3090", "RTX 2080 Ti", "transformer_training", 1.5),
        ("RTX 3090", "RTX 2080 Ti", "cnn_training", 1.57),
        ("RTX 4090", "H100 SXM", "inference_8bit", 0.33),
    ],
)
def test_published_ratio_within_ten_percent(gpu: str, reference: str, workload: str, published: float) -> None:
    gpus = bundled_gpus()
    ratio = relative_throughput(gpus[gpu], gpus[reference], workload)
    assert abs(ratio / published - 1) <= 0.10, ratio


def test_rnn_follows_bandwidth_and_fp8_only_helps_8bit() -> None:
    gpus = bundled_gpus()
    rnn = relative_throughput(gpus["A100 40GB"], gpus["V100"], "rnn_training")
    assert rnn == pytest.approx(1555 / 900, rel=0.01)
    i16 = relative_throughput(gpus["RTX 4090"], gpus["RTX 3090"], "inference_16bit")
    i8 = relative_throughput(gpus["RTX 4090"], gpus["RTX 3090"], "inference_8bit")
    assert i8 == pytest.approx(2 * i16)


WORKLOADS = ("transformer_training", "cnn_training", "rnn_training", "inference_16bit", "inference_8bit")


@pytest.mark.parametrize("workload", WORKLOADS)
def test_every_bundled_gpu_has_a_positive_score(workload: str) -> None:
    """New architectures (CDNA2-4, Blackwell workstation cards) must not fall out of the model."""
    gpus = bundled_gpus()
    reference = gpus["RTX 3090"]
    for spec in gpus:
        assert relative_throughput(spec, reference, workload) > 0, (spec.name, workload)


def test_issue_14_gpu_rows_exist_under_their_canonical_names() -> None:
    gpus = bundled_gpus()
    for name in ("RTX PRO 6000", "B300", "GB200", "MI250", "MI300X", "MI325X", "MI355X", "H100 NVL", "GH200",
                 "RTX 4000 Ada", "RTX A4000", "RTX A4500", "RTX 5080"):
        assert name in gpus and gpus[name].source, name
    assert gpus.canonical("RTX PRO 6000 Blackwell Server Edition") == "RTX PRO 6000"
    assert gpus.canonical("AMD Instinct MI300X") == "MI300X"
    assert gpus.canonical("InstinctMI300X") == "MI300X"
    assert gpus.canonical("RTX 6000") == "Quadro RTX 6000"  # the bare old name keeps its meaning
