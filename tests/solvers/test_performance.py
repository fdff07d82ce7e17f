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
