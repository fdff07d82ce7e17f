"""The workload compiler against hand-derived FLOP, memory and KV-cache figures."""

from __future__ import annotations

import statistics

import pytest
from pydantic import ValidationError

from pricing.gpus import bundled_gpus
from solvers.workload import Workload, estimate
from solvers.workload.compiler import hours_at, scaling, training_flops
from solvers.workload.memory import kv_cache_bytes_per_sequence, shape_of, trainable_params, training_memory

LLAMA2_7B = {"params_b": 6.74, "layers": 32, "hidden": 4096, "heads": 32}


def row(result, gpu):  # type: ignore[no-untyped-def]
    return next(r for r in result.gpus if r.gpu == gpu)


def test_7b_bf16_adam_needs_16_bytes_per_parameter_and_does_not_fit_one_80gb_gpu_unsharded() -> None:
    work = Workload(kind="train", model={"params_b": 7}, tokens=1e9)
    shape = shape_of(work.model)
    states = training_memory(work, shape, "ddp", 1)
    assert states.weights + states.gradients + states.optimizer_states == pytest.approx(112.0)
    assert states.total > 80
    h100 = row(estimate(work, [bundled_gpus()["H100 SXM"]]), "H100 SXM")
    assert h100.fits and h100.gpus_per_job is not None and h100.gpus_per_job >= 2
    assert h100.sharding is not None and h100.sharding.startswith("ZeRO-3")
    assert h100.memory_per_gpu_gb is not None and h100.memory_per_gpu_gb <= 80 * 0.9


def test_zero_stages_shard_what_the_paper_says() -> None:
    work = Workload(kind="train", model={"params_b": 7}, tokens=1e9)
    shape = shape_of(work.model)
    z1, z2, z3 = (training_memory(work, shape, s, 8) for s in ("zero1", "zero2", "zero3"))
    assert (z1.weights, z1.gradients, z1.optimizer_states) == pytest.approx((14.0, 14.0, 84.0 / 8))
    assert (z2.weights, z2.gradients) == pytest.approx((14.0, 14.0 / 8))
    assert z3.weights + z3.gradients + z3.optimizer_states == pytest.approx(112.0 / 8)


def test_training_flops_are_6nd_8nd_with_full_recompute_and_4nd_for_adapters() -> None:
    base = {"model": {"params_b": 1}, "tokens": 50e9}
    train = Workload(kind="train", **base)
    assert training_flops(train, shape_of(train.model)) == pytest.approx(6 * 1e9 * 50e9)
    full = Workload(kind="train", recompute="full", **base)
    assert training_flops(full, shape_of(full.model)) == pytest.approx(8 * 1e9 * 50e9)
    lora = Workload(kind="fine_tune", method="lora", **base)
    assert training_flops(lora, shape_of(lora.model)) == pytest.approx(4 * 1e9 * 50e9)
    assert estimate(train, [bundled_gpus()["A100 80GB"]]).flops == pytest.approx(3e20)


def test_kv_cache_of_llama2_7b_is_half_a_mebibyte_per_token_and_gqa_divides_it() -> None:
    shape = shape_of(Workload(kind="serve", model=LLAMA2_7B, tokens=1e9).model)
    assert kv_cache_bytes_per_sequence(shape, 1) == 2 * 32 * 32 * 128 * 2 == 524_288
    assert kv_cache_bytes_per_sequence(shape, 4096) == pytest.approx(2 * 1024**3)
    gqa = shape_of(Workload(kind="serve", model={**LLAMA2_7B, "params_b": 8.0, "kv_heads": 8}, tokens=1e9).model)
    assert kv_cache_bytes_per_sequence(gqa, 4096) == pytest.approx(kv_cache_bytes_per_sequence(shape, 4096) / 4)


def test_lora_trains_a_small_share_and_keeps_16bit_frozen_weights() -> None:
    work = Workload(kind="fine_tune", method="lora", lora_rank=16, model=LLAMA2_7B, tokens=1e8)
    shape = shape_of(work.model)
    adapters = trainable_params(work, shape)
    assert adapters == 32 * 16 * 18 * 4096  # r * (d_in + d_out) over 4 h x h and 2 h x 4h matrices per layer
    mem = training_memory(work, shape, "ddp", 1)
    assert mem.weights == pytest.approx((6.74e9 * 2 + adapters * 2) / 1e9)
    assert mem.optimizer_states == pytest.approx(adapters * 12 / 1e9)


def test_qlora_fits_a_65b_model_on_one_48gb_gpu_as_the_paper_reports() -> None:
    work = Workload(kind="fine_tune", method="qlora", model={"params_b": 65, "layers": 80, "hidden": 8192},
                    tokens=1e7, sequence_length=512, recompute="full")
    a6000 = row(estimate(work, [bundled_gpus()["RTX A6000"]]), "RTX A6000")
    assert a6000.fits and a6000.gpus_per_job == 1, a6000.excluded_reason
    full = Workload(kind="fine_tune", method="full", model={"params_b": 65, "layers": 80, "hidden": 8192},
                    tokens=1e7, sequence_length=512, recompute="full", max_gpus_per_job=8)
    assert not row(estimate(full, [bundled_gpus()["RTX A6000"]]), "RTX A6000").fits


def test_too_slow_for_the_deadline_and_widening_to_meet_it() -> None:
    gpus = [bundled_gpus()["RTX 3090"]]
    slow = Workload(kind="train", model={"params_b": 1}, tokens=50e9, deadline_hours=1, max_gpus_per_job=8)
    out = row(estimate(slow, gpus), "RTX 3090")
    assert not out.fits and out.excluded_reason is not None and out.excluded_reason.startswith("too slow")
    relaxed = Workload(kind="train", model={"params_b": 1}, tokens=50e9)
    base = row(estimate(relaxed, gpus), "RTX 3090")
    assert base.hours_per_job is not None and base.gpus_per_job is not None
    target = base.hours_per_job / 3
    wide = row(estimate(relaxed.model_copy(update={"deadline_hours": target}), gpus), "RTX 3090")
    assert wide.fits and wide.gpus_per_job is not None and wide.gpus_per_job > base.gpus_per_job
    assert wide.hours_per_job is not None and wide.hours_per_job <= target


def test_serving_does_not_fit_small_cards_and_8bit_halves_weights() -> None:
    gpus = bundled_gpus()
    big = Workload(kind="serve", model={"params_b": 70}, requests_per_second=30)
    assert row(estimate(big, [gpus["RTX 3070"]]), "RTX 3070").excluded_reason.startswith("does not fit")  # type: ignore[union-attr]
    h100_16 = row(estimate(big, [gpus["H100 SXM"]]), "H100 SXM")
    h100_8 = row(estimate(big.model_copy(update={"precision": "int8"}), [gpus["H100 SXM"]]), "H100 SXM")
    assert h100_16.memory and h100_8.memory
    assert h100_8.memory.weights * (h100_8.gpus_per_job or 1) == pytest.approx(
        h100_16.memory.weights * (h100_16.gpus_per_job or 1) / 2)
    assert h100_8.gpu_hours is not None and h100_16.gpu_hours is not None and h100_8.gpu_hours < h100_16.gpu_hours


def test_decode_is_bandwidth_bound_at_batch_one() -> None:
    """One sequence: hours follow weights / (0.7 x bandwidth) per token, so 2x bandwidth ~ half the hours."""
    work = Workload(kind="serve", model=LLAMA2_7B, tokens=1e8, batch_size=1, context_length=1024, output_tokens=512)
    gpus = bundled_gpus()
    out = row(estimate(work, [gpus["A100 80GB"]]), "A100 80GB")
    seconds_per_token = (6.74e9 * 2 + 2 * 32 * 32 * 128 * 2 * 1024) / (2039e9 * 0.7)
    assert out.hours_per_job == pytest.approx(1e8 * seconds_per_token / 3600, rel=0.15)


def test_scaling_follows_the_guide() -> None:
    assert [scaling(n) for n in (1, 2, 3, 4)] == [1.0, 1.9, 2.8, 3.5]
    assert scaling(8) == pytest.approx(8 * 3.5 / 4 * 0.95)


@pytest.mark.parametrize(("payload", "loc", "rule"), [
    ({"kind": "train", "model": {"params_b": 7}}, ("tokens",), "required"),
    ({"kind": "serve", "model": {"params_b": 7}, "tokens": 1, "requests_per_second": 1}, ("requests_per_second",),
     "exactly one"),
    ({"kind": "serve", "model": {"params_b": 7}}, ("requests_per_second",), "exactly one"),
    ({"kind": "train", "model": {"params_b": 7}, "tokens": 1, "method": "lora"}, ("method",), "fine_tune"),
    ({"kind": "train", "model": {"params_b": -1}, "tokens": 1}, ("model", "params_b"), "greater than 0"),
    ({"kind": "fine_tune", "model": {"params_b": 7}, "tokens": 1, "precision": "int4"}, ("precision",), "bf16 or fp16"),
    ({"kind": "serve", "model": {"params_b": 7}, "tokens": 1, "context_length": 100, "output_tokens": 100},
     ("output_tokens",), "smaller than context_length"),
])
def test_bad_input_names_the_field_and_rule(payload: dict[str, object], loc: tuple[str, ...], rule: str) -> None:
    with pytest.raises(ValidationError) as info:
        Workload.model_validate(payload)
    errors = info.value.errors()
    assert [e["loc"] for e in errors] == [loc]
    assert rule in errors[0]["msg"]


def test_every_gpu_gets_a_row_with_an_extrapolated_flag() -> None:
    result = estimate(Workload(kind="fine_tune", method="lora", model={"params_b": 13}, tokens=2e9))
    assert len(result.gpus) == len(bundled_gpus())
    flags = {r.gpu: r.extrapolated for r in result.gpus}
    assert flags["RTX 5090"] and not flags["RTX 4090"] and not flags["MI300X"]  # MI300X: MLPerf LoRA ratios
    assert all(r.fits == (r.excluded_reason is None) for r in result.gpus)


# A 13B model's shape from its parameter count (coefficients.py): hidden = (13e9 x 128 / 12)^(1/3) = 5,176,
# layers = 13e9 / (12 x 5,176^2) = 40. LoRA rank 16 on every linear layer: 40 x 16 x 18 x 5,176 = 59.6M
# trainable parameters: 0.119 GB of 16-bit weights, 0.119 GB of gradients, 0.715 GB of Adam states.
# Activations of one 4,096-token sequence: selective 34 x 4,096 x 5,176 x 40 = 28.8 GB; full recomputation
# (gradient checkpointing) 2 x 4,096 x 5,176 x 40 = 1.70 GB.
LORA_13B = {"kind": "fine_tune", "model": {"params_b": 13}, "tokens": 2e9}
# achieved fractions of a link's one-way bandwidth in published nccl-tests bus bandwidths (nccl_allreduce.csv):
# PCIe, the median of RTX PRO 6000 41.1 and 37.6, RTX 5090 28 and 35 GB/s over 64; an NVLink bridge, H100 PCIe 116 / 300
PCIE_FRACTION = statistics.median([41.1 / 64, 37.6 / 64, 28 / 64, 35 / 64])
BRIDGE_FRACTION = 116 / 300


def test_auto_recomputation_fits_a_13b_lora_on_two_24gb_cards_with_gradient_checkpointing() -> None:
    # RTX 4090: 24 GB x 0.9 = 21.6 GB usable. Selective: 28.8 GB of activations alone: never fits. Full: ZeRO-3,
    # (26 + 0.119 + 0.119 + 0.715) / n + 1.70 <= 21.6 -> n = 2 (15.2 GB). FLOPs (4 + 2) x 13e9 x 2e9 = 1.56e20.
    work = Workload(method="lora", **LORA_13B)  # type: ignore[arg-type]
    result = estimate(work, [bundled_gpus()["RTX 4090"]])
    card = row(result, "RTX 4090")
    assert card.fits and card.gpus_per_job == 2 and card.recompute == "full"
    assert card.memory is not None and card.memory.activations == pytest.approx(1.70, abs=0.01)
    assert card.memory_per_gpu_gb == pytest.approx(15.2, abs=0.05)
    assert card.flops == pytest.approx(6 * 13e9 * 2e9, rel=1e-3)
    assert result.flops == pytest.approx(4 * 13e9 * 2e9, rel=1e-3)  # the job's own FLOPs, no recomputation
    # ZeRO-3 over PCIe 4.0 (the 4090 has no NVLink): every micro-batch of 4,096 tokens all-gathers the 26 GB of frozen
    # 16-bit weights twice and reduce-scatters the adapters' 0.119 GB of gradients, each x (n-1)/n = 1/2, at
    # 64 / 2 x 0.567 = 18.15 GB/s; it hides behind half of the backward pass (4 of the 6 N per token).
    per_gpu = card.achieved_tflops_per_gpu * 1e12
    compute = 6 * 13e9 * 4096 / per_gpu
    communication = (2 * 26e9 + 2 * 59.6e6 / 1e0) / 2 / (32 * PCIE_FRACTION * 1e9)
    exposed = communication - 0.5 * compute * 4 / 6
    assert exposed > 0
    assert card.communication_efficiency == pytest.approx(compute / (compute + exposed), rel=2e-3)
    assert card.hours_per_job == pytest.approx(card.flops / (per_gpu * 1.9) / 3600 * (compute + exposed) / compute,
                                               rel=2e-3)
    assert card.interconnect is not None and card.interconnect.startswith("pcie4")
    assert card.sharding is not None and "gradient checkpointing" in card.sharding
    selective = estimate(Workload(method="lora", recompute="selective", **LORA_13B),  # type: ignore[arg-type]
                         [bundled_gpus()["RTX 4090"]])
    assert not selective.gpus[0].fits and "28.8 GB of it activations" in (selective.gpus[0].excluded_reason or "")


def test_a_13b_qlora_fits_one_24gb_card_as_the_qlora_paper_says() -> None:
    # 4-bit NF4 weights: 13e9 x (0.5 + 0.127 / 8) = 6.71 GB; + adapters 0.95 GB + 1.70 GB activations = 9.4 GB
    work = Workload(method="qlora", **LORA_13B)  # type: ignore[arg-type]
    card = estimate(work, [bundled_gpus()["RTX 4090"]]).gpus[0]
    assert card.fits and card.gpus_per_job == 1 and card.recompute == "full"
    assert card.memory_per_gpu_gb == pytest.approx(9.36, abs=0.05)


def test_auto_recomputation_fits_the_fewest_gpus_and_a_wider_job_takes_the_cheaper_recomputation() -> None:
    # RTX A6000 48 GB, 43.2 usable. Full recomputation fits on 1 GPU (26.95 + 1.70 = 28.7 GB): 6 N D on one GPU.
    # Selective fits from 2 GPUs with ZeRO-3 (13.5 + 28.8 = 42.3 GB): 4 N D. So one GPU per job with gradient
    # checkpointing, and a 2-GPU job of the same type runs selective: 4 N D at 1.9x instead of 6 N D at 1.9x, even
    # though ZeRO-3's all-gathers over the pair's NVLink bridge (112.5 / 2 x 0.387 = 21.75 GB/s) are not all hidden:
    # (2 x 26 + 0.119) GB / 2 / 21.75 GB/s = 1.20 s per micro-batch against half of a 2 N backward, 24% longer.
    work = Workload(method="lora", **LORA_13B)  # type: ignore[arg-type]
    card = estimate(work, [bundled_gpus()["RTX A6000"]]).gpus[0]
    assert card.fits and card.gpus_per_job == 1 and card.recompute == "full"
    assert [(o.recompute, o.min_gpus) for o in card.recompute_options] == [("selective", 2), ("full", 1)]
    assert card.hours_per_job == pytest.approx(hours_at(work, card, 1))
    per_gpu = card.achieved_tflops_per_gpu * 1e12
    assert hours_at(work, card, 1) == pytest.approx(6 * 13e9 * 2e9 / per_gpu / 3600, rel=1e-3)
    compute = 4 * 13e9 * 4096 / per_gpu
    exposed = (2 * 26e9 + 2 * 59.6e6) / 2 / (112.5 / 2 * BRIDGE_FRACTION * 1e9) - 0.5 * compute * 2 / 4
    selective = 4 * 13e9 * 2e9 / (per_gpu * 1.9) / 3600 * (compute + exposed) / compute
    full = 6 * 13e9 * 2e9 / (per_gpu * 1.9) / 3600  # data parallel: only the adapters' gradients, hidden
    assert selective < full
    assert hours_at(work, card, 2) == pytest.approx(selective, rel=2e-3)
    zero3 = estimate(work.model_copy(update={"recompute": "selective"}), [bundled_gpus()["RTX A6000"]]).gpus[0]
    assert zero3.gpus_per_job == 2 and zero3.hours_per_job == pytest.approx(selective, rel=2e-3)


def test_auto_recomputation_keeps_a_job_in_one_server_rather_than_sharding_it_over_five() -> None:
    # LLaMA-7B shape, 112 GB of states. RTX 4090, 21.6 GB usable. Selective: 112 / n + 18.3 GB <= 21.6 -> 34 GPUs
    # (fewer GPU-hours by FLOPs alone: 6 N D x (34 / 25.4) vs 8 N D x (6 / 5.1), but five machines apart; and with
    # ZeRO-3's all-gathers over PCIe 4.0 the 34-GPU job computes 57% of its time, the 6-GPU job 76%: more GPU-hours);
    # full recomputation: 112 / n + 1.07 <= 21.6 -> 6 GPUs in one server. Auto takes the fewest GPUs.
    work = Workload(kind="train", model={"params_b": 7, "layers": 32, "hidden": 4096}, tokens=1e9)
    card = estimate(work, [bundled_gpus()["RTX 4090"]]).gpus[0]
    assert card.gpus_per_job == 6 and card.recompute == "full"
    sharded = estimate(Workload(kind="train", model={"params_b": 7, "layers": 32, "hidden": 4096}, tokens=1e9,
                                recompute="selective"), [bundled_gpus()["RTX 4090"]]).gpus[0]
    assert sharded.gpus_per_job == 34 and sharded.gpu_hours is not None and card.gpu_hours is not None
    flops_only = [r.gpu_hours * r.communication_efficiency for r in (sharded, card)]  # type: ignore[operator]
    assert flops_only[0] < flops_only[1]  # what FLOPs alone would have chosen
    assert sharded.communication_efficiency == pytest.approx(0.574, abs=0.005)
    assert card.communication_efficiency == pytest.approx(0.759, abs=0.005)
    assert sharded.gpu_hours > card.gpu_hours


def test_a_replica_spans_the_gpus_that_serve_the_demand_with_the_fewest_gpu_hours() -> None:
    # 70B in 8 bits on an H100 SXM (72 GB usable): 70 GB of weights + 1.19 GB of KV cache per 4,096-token sequence
    # (71 layers x 8 KV heads x 127.8 x 2 x 2 bytes x 4,096). Prefill at 41% (Hopper's LLM training fraction) of
    # 1,979 INT8 TOPS = 809 per GPU. One GPU holds it with a batch of 1: 256 decode steps reading 71.2 GB at 70% of
    # 3,350 GB/s (7.8 s) + 3,840 prompt tokens x 140 GFLOP (0.66 s): 0.118 req/s, so 5 req/s need 43 replicas,
    # 31,390 GPU-hours a month. Two GPUs hold a batch of 32 (the default cap): a step reads 70 + 32 x 1.19 GB at
    # 4.69 TB/s (23 ms, 1,388 tokens/s), prefill 0.33 s: 1.94 req/s a replica, 3 replicas, 4,380 GPU-hours.
    work = Workload(kind="serve", model={"params_b": 70, "kv_heads": 8}, precision="int8", requests_per_second=5)
    row = estimate(work, [bundled_gpus()["H100 SXM"]]).gpus[0]
    assert row.gpus_per_job == 2 and row.sharding is not None and "batch 32" in row.sharding
    assert row.gpu_hours == pytest.approx(3 * 730 * 2)
    single = estimate(Workload(kind="serve", model={"params_b": 70, "kv_heads": 8}, precision="int8",
                               requests_per_second=5, max_gpus_per_job=1), [bundled_gpus()["H100 SXM"]]).gpus[0]
    assert single.gpus_per_job == 1 and single.gpu_hours == pytest.approx(43 * 730)


def test_a_service_without_kv_heads_says_it_assumed_full_multi_head_attention() -> None:
    # the KV cache of a grouped-query 70B model (8 KV heads) is an eighth of the full multi-head one it defaults to
    from solvers.workload.compiler import assumptions

    unsaid = assumptions(Workload(kind="serve", model={"params_b": 70}, requests_per_second=2))
    assert any("model.kv_heads not given" in a for a in unsaid)
    given = assumptions(Workload(kind="serve", model={"params_b": 70, "kv_heads": 8}, requests_per_second=2))
    assert not any("kv_heads" in a for a in given)
