"""The performance model reproduces the guide's published ratios within 10% (DOMAIN §1)."""

from __future__ import annotations

import pytest

from pricing.gpus import bundled_gpus
from pricing.measurements import bundled_measurements
from solvers.base.performance import (
    FAMILY_EFFICIENCY,
    PARAMETERS,
    family,
    is_extrapolated,
    memory_slowdown,
    relative_throughput,
    roofline_tflops,
    throughput_score,
)
from solvers.explain.calibration import all_class_errors


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


def test_recurrent_nets_get_their_tensor_core_benefit() -> None:
    """Issue 14: RNNs ran on bandwidth alone; A100's tensor cores must count beyond its 1.73x bandwidth."""
    gpus = bundled_gpus()
    rnn = relative_throughput(gpus["A100 40GB"], gpus["V100"], "rnn_training")
    assert rnn > 1.2 * (1555 / 900)


def test_int8_tensor_cores_speed_up_8bit_inference_on_ampere_and_turing_but_not_volta() -> None:
    gpus = bundled_gpus()
    for name in ("RTX 3090", "RTX 2080 Ti", "A100 40GB", "T4"):
        speedup = throughput_score(gpus[name], "inference_8bit") / throughput_score(gpus[name], "inference_16bit")
        assert speedup > 1.3, name
    volta = throughput_score(gpus["V100"], "inference_8bit") / throughput_score(gpus["V100"], "inference_16bit")
    assert volta == pytest.approx(1.0, rel=0.15)


def test_compute_heavy_cards_are_no_longer_rated_by_bandwidth_alone() -> None:
    """RTX 4090 over RTX 3090 is about 1.1x in bandwidth; measured transformer training is about 1.5-1.8x."""
    gpus = bundled_gpus()
    assert relative_throughput(gpus["RTX 4090"], gpus["RTX 3090"], "transformer_training") > 1.35
    assert relative_throughput(gpus["RTX A6000"], gpus["RTX 3090"], "transformer_training") > 1.0


def test_blackwell_and_amd_have_their_own_family_entries() -> None:
    gpus = bundled_gpus()
    assert {family(gpus[n]) for n in ("B200", "B300", "GB200")} == {"blackwell"}
    assert {family(gpus[n]) for n in ("RTX 5090", "RTX PRO 6000", "RTX 5080")} == {"blackwell_client"}
    assert [family(gpus[n]) for n in ("MI250", "MI300X", "MI355X")] == ["cdna2", "cdna3", "cdna4"]
    for fam in ("blackwell", "blackwell_client", "cdna2", "cdna3", "cdna4"):
        assert all(fam in table for table in FAMILY_EFFICIENCY.values())
    assert relative_throughput(gpus["B200"], gpus["H100 SXM"], "transformer_training") > 1.5


def test_extrapolated_flag_follows_the_measurements() -> None:
    assert not is_extrapolated("RTX 4090", "transformer_training")
    assert not is_extrapolated("V100", "rnn_training")
    assert not is_extrapolated("B200", "cnn_training")  # Lambda's v2 table (2025-12) measured it
    assert is_extrapolated("B200", "inference_16bit")
    assert is_extrapolated("RTX 4090", "inference_16bit")
    assert not is_extrapolated("H100 SXM", "inference_8bit")
    # published per-GPU ratios (measured_ratios.csv): MLPerf LoRA training and Llama-2-70B FP8 inference
    assert not is_extrapolated("MI300X", "transformer_training")
    assert not is_extrapolated("MI325X", "inference_8bit")
    assert is_extrapolated("MI300X", "cnn_training")  # a class without a measurement stays flagged
    assert is_extrapolated("B300", "transformer_training")  # takes the B200's factor, is not measured itself


def test_bundled_model_fits_every_measured_gpu_within_the_issue_30_bound() -> None:
    """In sample (every row fitted), each training class's median |error| is at most 10% and no measured GPU is
    off by more than 25%, across >= 25 GPUs, scored against the published throughput as measured (the held-out
    errors: tests/solvers/base/test_performance_holdout.py)."""
    errors = all_class_errors()
    for workload in ("transformer_training", "cnn_training", "rnn_training"):
        assert errors[workload].median <= 0.10, workload
        assert max(abs(e) for e in errors[workload].per_gpu.values()) <= 0.25, (workload, errors[workload].per_gpu)
        assert len(errors[workload].per_gpu) >= 25, workload


def test_a_small_card_runs_the_batch_its_memory_holds_by_hand() -> None:
    """Transformer training: a card with F GB free for its batch runs at 1 / (1 + K / F) of its speed, F = memory -
    floor (PARAMETERS). The RTX 3080 (10 GB) ran BERT large at batch 4 where an 80 GB card ran 112
    (pytorch-train-bs-fp16.csv); with K = 2.847 GB and a 5.0 GB floor, 10 GB is slowed 1 + 2.847 / 5 = 1.569x and
    80 GB 1 + 2.847 / 75 = 1.038x."""
    p = PARAMETERS["transformer_training"]
    assert (p.memory_knee_gb, p.memory_floor_gb) == (2.847, 5.0)
    assert float(memory_slowdown(10.0, p)) == pytest.approx(1 + 2.847 / 5.0)
    assert float(memory_slowdown(80.0, p)) == pytest.approx(1 + 2.847 / 75.0)
    gpus = bundled_gpus()
    # same chip, compute and bandwidth; only memory differs: Quadro RTX 8000 (48 GB) over Quadro RTX 6000 (24 GB)
    ratio = relative_throughput(gpus["Quadro RTX 8000"], gpus["Quadro RTX 6000"], "transformer_training")
    assert ratio == pytest.approx((1 + 2.847 / 19.0) / (1 + 2.847 / 43.0))


def test_geforce_accumulate_rate_counts_only_as_far_as_measured_by_hand() -> None:
    """An RTX 3090 runs FP16 with FP32 accumulate at 71 TFLOPS against 142 plain FP16 (gpu_compute.csv, gpus.csv);
    the fit says 0.313 of that halving shows: 71 x 2 ** (1 - 0.313) = 114.4 TFLOPS in the transformer roofline.
    An Ampere data-centre card's rate is its spec (A100: 312); a Hopper card's the share its stacks realize (H100
    SXM: 989.4 x 0.465 = 460.1)."""
    gpus = bundled_gpus()
    p = PARAMETERS["transformer_training"]
    assert (p.accumulate_exponent, p.recent_compute_share) == (0.313, 0.465)
    assert roofline_tflops(gpus["RTX 3090"], "transformer_training") == pytest.approx(71 * 2 ** (1 - 0.313))
    assert roofline_tflops(gpus["A100 40GB"], "transformer_training") == 312
    assert roofline_tflops(gpus["H100 SXM"], "transformer_training") == pytest.approx(989.4 * 0.465)
    assert roofline_tflops(gpus["RTX 3090"], "inference_16bit") == 142  # inference runs the plain FP16 rate
    assert roofline_tflops(gpus["H100 SXM"], "inference_16bit") == 989.4


def test_each_results_table_is_one_software_stack() -> None:
    """Lambda's 2021 file joined two containers (compile_results_pytorch_throughput.py: version 0 = NGC
    pytorch:20.01 for Volta/Turing, 1 = 20.10 for Ampere); rows are only comparable within one stack, so they
    are separate tables (the Quadro RTX 8000 ran Transformer-XL base at 9,290 tok/s on 20.01 and 18,223 on
    22.09+: a per-table scale can absorb a stack's speed, a table mixing stacks cannot)."""
    tables: dict[str, set[str]] = {}
    for m in bundled_measurements():
        tables.setdefault(m.table, set()).add(m.gpu)
        assert m.batch > 0
    assert tables["LAMBDA-2021-NGC20.01"] == {"V100 32GB", "Quadro RTX 8000", "Quadro RTX 6000", "Titan RTX",
                                              "RTX 2080 Ti"}
    assert tables["LAMBDA-2021-NGC20.10"] == {"RTX 3070", "RTX 3080", "RTX 3090", "A100 40GB PCIe", "A100 40GB",
                                              "RTX A6000"}
    # PyTorch 1.9.0a0+df837d0 and 1.10.0a0+ecc3718 runs of the same file (2021-06 to 2022-07), and the v2 file
    assert tables["LAMBDA-2022-PT1.9"] == {"A100 80GB PCIe", "A100 80GB", "RTX A5000", "A40", "RTX A4000"}
    assert tables["LAMBDA-2022-PT1.10"] == {"RTX A4500", "Quadro RTX 8000"}
    assert tables["LAMBDA-V2"] == {"H100 PCIe", "H100 SXM", "GH200", "H200", "B200"}
    assert "LAMBDA-2021" not in tables


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


@pytest.mark.parametrize("workload", ["transformer_training", "cnn_training", "inference_16bit", "inference_8bit"])
@pytest.mark.parametrize("reference", ["RTX 3090", "H100 SXM"])
def test_options_throughput_is_the_relative_throughput_to_the_bit(workload: str, reference: str) -> None:
    """`solvers.offers.options.ThroughputModel` computes the reference's score once per plan; each GPU's figure must
    still
    be `relative_throughput` exactly (a plan's options, model and output rest on it)."""
    from solvers.base.profile import Profile
    from solvers.offers.throughput import ThroughputModel

    gpus = bundled_gpus()
    profile = Profile.model_validate({"workload": workload, "horizon_months": 12,
                                      "demand": {"gpus": 1, "utilisation": 0.5, "reference_gpu": reference}})
    model = ThroughputModel(gpus, profile)
    compared = 0
    for spec in gpus:
        try:
            expected = relative_throughput(spec, gpus[reference], workload)
        except ValueError:
            continue
        assert model(spec.name) == (1.0 if spec.name == reference else expected), spec.name
        compared += 1
    assert compared > 20
