"""The RTX 5090 (client Blackwell) is calibrated on a published same-machine timm training table against the RTX 4090
(`pricing/data/measured_ratios.csv`, model_kind `vision`), not rated on Ada's efficiencies and its bandwidth."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

import pytest

from pricing.gpus import bundled_gpus
from pricing.measured_ratios import bundled_ratios
from solvers.base.performance import (
    FAMILY_EFFICIENCY,
    TRAINING,
    TRAINING_ONLY_FACTOR,
    efficiency,
    is_extrapolated,
    ratio_row_used,
    relative_throughput,
    roofline_tflops,
    unit_time,
)
from solvers.workload import mfu

# The brief's bound: the calibrated ratio reproduces the measured one within 10% (test_ratio_calibration holds the
# fitted pairs to 5%; the cross-check against the RTX 3090 below is not fitted, so it gets this wider bound).
WITHIN = 0.10
MEASURED_CLASSES = ("transformer_training", "cnn_training")


def rows(workload: str) -> list[float]:
    return [m.ratio for m in bundled_ratios() if m.gpu == "RTX 5090" and m.reference == "RTX 4090"
            and m.workload == workload and ratio_row_used(m, llm_only=False)]


def geometric_mean(values: list[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


@pytest.mark.parametrize(("workload", "count"), [("transformer_training", 1), ("cnn_training", 3)])
def test_the_5090_over_the_4090_follows_the_published_table(workload: str, count: int) -> None:
    """Swin-B 822.3 / 597.1 samples/s = 1.377; VGG-16, ResNet-50, EfficientNetV2-B0 1.386, 1.194, 1.220 (geometric
    mean 1.264): well under the 1.71x Ada's efficiencies and the 1.78x bandwidth ratio gave."""
    gpus = bundled_gpus()
    measured = rows(workload)
    assert len(measured) == count
    model = relative_throughput(gpus["RTX 5090"], gpus["RTX 4090"], workload)
    assert abs(model / geometric_mean(measured) - 1) <= WITHIN
    assert model < 0.85 * gpus["RTX 5090"].memory_bandwidth_gbs / gpus["RTX 4090"].memory_bandwidth_gbs


# The same post's RTX 3090 column (FP16 train, samples/s; also in the rows' notes), by benchmark.
RTX_3090 = {"timm_swin_base_patch4_window7_224": 337.0, "timm_vgg16": 438.2, "timm_resnet50": 888.7,
            "timm_tf_efficientnetv2_b0": 1818.3}


@pytest.mark.parametrize("workload", MEASURED_CLASSES)
def test_the_5090_over_the_3090_is_within_ten_percent_of_the_same_table(workload: str) -> None:
    """Not fitted: the model's RTX 4090 / RTX 3090 comes from the Lambda fit (CNN 1.50x where this table says
    1.65x), so the CNN check (model 1.89x, table 2.09x) sits near its bound."""
    gpus = bundled_gpus()
    table = [m for m in bundled_ratios() if m.gpu == "RTX 5090" and m.workload == workload]
    assert {m.benchmark for m in table} <= set(RTX_3090) and table
    measured = geometric_mean([m.value / RTX_3090[m.benchmark] for m in table])
    model = relative_throughput(gpus["RTX 5090"], gpus["RTX 3090"], workload)
    assert abs(model / measured - 1) <= WITHIN, (model, measured)


def test_measured_classes_are_no_longer_extrapolated_and_the_others_still_are() -> None:
    for workload in MEASURED_CLASSES:
        assert not is_extrapolated("RTX 5090", workload)
    for workload in ("rnn_training", "inference_16bit", "inference_8bit"):
        assert is_extrapolated("RTX 5090", workload)
    for sibling in ("RTX PRO 6000", "RTX 5080"):  # take the RTX 5090's factor, are not measured themselves
        assert all(is_extrapolated(sibling, w) for w in (*TRAINING, "inference_8bit"))


def test_vision_rows_do_not_feed_the_compilers_llm_fraction() -> None:
    """The workload compiler reads published LLM training ratios (mfu.py calls ratio_row_used without arguments):
    a Swin-B table says nothing about an LLM's fraction of peak, so the RTX 5090 keeps Ada's, flagged."""
    swin = next(m for m in bundled_ratios() if m.gpu == "RTX 5090" and m.workload == "transformer_training")
    assert swin.model_kind == "vision" and ratio_row_used(swin, llm_only=False) and not ratio_row_used(swin)
    assert ratio_row_used(replace(swin, model_kind="llm"))
    assert mfu.fraction(bundled_gpus()["RTX 5090"]).basis == "lineage"


def test_the_vision_factor_stays_in_training() -> None:
    """RNN training takes the transformer factor against Ada (0.891 / 1.149); the inference classes keep Ada's value
    and the roofline's bandwidth credit (decode is bandwidth-bound)."""
    gpus = bundled_gpus()
    spec = gpus["RTX 5090"]
    factor = efficiency(spec, "transformer_training") / FAMILY_EFFICIENCY["transformer_training"]["ada"]
    assert factor == pytest.approx(0.891 / 1.149, rel=1e-3)
    assert efficiency(spec, "rnn_training") == pytest.approx(FAMILY_EFFICIENCY["rnn_training"]["ada"] * factor)
    for workload in ("inference_16bit", "inference_8bit"):
        assert efficiency(spec, workload) == FAMILY_EFFICIENCY[workload]["ada"] == efficiency(gpus["RTX 4090"],
                                                                                             workload)
        roofline = unit_time(gpus["RTX 4090"], workload, eff=1.0) / unit_time(spec, workload, eff=1.0)
        assert relative_throughput(spec, gpus["RTX 4090"], workload) == pytest.approx(roofline)
    assert {m.gpu for m in bundled_ratios() if m.model_kind == "vision"} == TRAINING_ONLY_FACTOR


def test_client_blackwell_siblings_take_the_5090s_factor_on_their_own_roofline() -> None:
    """RTX PRO 6000 (same GB202, 188 SMs) and RTX 5080: the 5090's efficiency, not Ada's, in the measured classes."""
    gpus = bundled_gpus()
    for workload in MEASURED_CLASSES:
        eff = efficiency(gpus["RTX 5090"], workload)
        assert efficiency(gpus["RTX PRO 6000"], workload) == efficiency(gpus["RTX 5080"], workload) == eff
        assert eff < FAMILY_EFFICIENCY[workload]["ada"]
    # The same memory bandwidth; the PRO 6000's full-rate accumulate (500 TFLOPS against the 5090's 209.5 x
    # 2 ** (1 - 0.313) = 337.6) and its 96 GB (batch room 91 GB against 27) count on the 5090's factor.
    w = "transformer_training"
    pro = relative_throughput(gpus["RTX PRO 6000"], gpus["RTX 5090"], w)
    roofline = unit_time(gpus["RTX 5090"], w, eff=1.0) / unit_time(gpus["RTX PRO 6000"], w, eff=1.0)
    assert pro == pytest.approx(roofline)
    assert roofline_tflops(gpus["RTX 5090"], w) == pytest.approx(209.5 * 2 ** (1 - 0.313))
    assert 1.0 < pro < 500 / 337.6 * (1 + 2.847 / 27) / (1 + 2.847 / 91)
