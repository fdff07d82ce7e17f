"""The communication term of multi-GPU training (`solvers/workload/comm.py`) against hand-derived figures.

Bus bandwidths: a link's one-way figure (half gpu_compute.csv's bidirectional GB/s) times the median achieved
fraction of its kind in published nccl-tests results (pricing/data/nccl_allreduce.csv):
NVLink (SXM): median(H100 SXM 370 / 450, A100 80GB 200 / 300) = 0.744 -> H100 SXM 450 x 0.744 = 335 GB/s;
PCIe: median(41.1, 37.6, 28, 35 over 64) = 0.567 -> PCIe 4.0 (RTX 4090) 32 x 0.567 = 18.15 GB/s;
NVLink bridge: H100 PCIe 116 / 300 = 0.387.
"""

from __future__ import annotations

import statistics

import pytest
from pydantic import ValidationError

from pricing.bus_bandwidth import bundled_bus_bandwidths
from pricing.gpus import bundled_gpus
from solvers.workload import Workload, comm, estimate
from solvers.workload.compiler import hours_at, scaling

GPUS = bundled_gpus()
NVLINK = statistics.median([370 / 450, 200 / 300])
PCIE = statistics.median([41.1 / 64, 37.6 / 64, 28 / 64, 35 / 64])
BRIDGE = 116 / 300
H100_BUS = 450 * NVLINK
RTX4090_BUS = 32 * PCIE
LLAMA2_7B = {"params_b": 6.74, "layers": 32, "hidden": 4096, "heads": 32}
LLAMA2_70B = {"params_b": 70, "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8}


def test_fractions_are_the_medians_of_the_published_bus_bandwidths() -> None:
    assert comm.fractions() == pytest.approx({"nvlink": NVLINK, "pcie": PCIE, "nvlink-bridge": BRIDGE})
    assert all(m.source and m.date for m in bundled_bus_bandwidths())
    # NVLink SHARP rows exceed the wire and are not fitted
    assert not any(m.fit for m in bundled_bus_bandwidths() if "NVLS" in m.collective)


def test_links_pairs_of_bridged_cards_use_the_bridge_and_wider_jobs_the_host_pcie() -> None:
    assert comm.link_for("H100 SXM", 8).bus_gbs == pytest.approx(H100_BUS)
    assert comm.link_for("RTX 4090", 8).bus_gbs == pytest.approx(RTX4090_BUS)
    pair, four = comm.link_for("RTX 3090", 2), comm.link_for("RTX 3090", 4)
    assert pair.name == "nvlink3-bridge" and pair.bus_gbs == pytest.approx(112.5 / 2 * BRIDGE)
    assert four.name == "pcie4" and four.via_host and four.bus_gbs == pytest.approx(RTX4090_BUS)
    assert comm.link_for("H100 PCIe", 4).name == "pcie5"
    mi300x = comm.link_for("MI300X", 8)
    assert not mi300x.measured and mi300x.fraction == pytest.approx(NVLINK)  # no rccl-tests figure found


def test_ring_collective_times_follow_nccl_tests_bus_bandwidth_definition() -> None:
    # PERFORMANCE.md: all-reduce busbw = algbw x 2(n-1)/n, all-gather / reduce-scatter busbw = algbw x (n-1)/n
    assert comm.all_reduce_seconds(1e9, 8, 100.0) == pytest.approx(1e9 * 2 * 7 / 8 / 100e9)
    assert comm.gather_seconds(1e9, 8, 100.0) == pytest.approx(1e9 * 7 / 8 / 100e9)
    assert comm.all_reduce_seconds(1e9, 1, 100.0) == 0.0


def test_7b_zero3_on_8_rtx_4090_over_pcie_waits_for_its_all_gathers_and_8_h100_sxm_does_not() -> None:
    """LLaMA-2-7B, full recomputation (8 N per token), ZeRO-3 on 8 GPUs, one 4,096-token micro-batch per GPU.

    Per micro-batch: all-gather the 13.48 GB of 16-bit weights in the forward and again in the backward, reduce-
    scatter 13.48 GB of gradients: 3 x 13.48 GB x 7/8 = 35.4 GB per GPU on the ring. RTX 4090: / 18.15 GB/s = 1.95 s;
    H100 SXM: / 335 GB/s = 0.106 s. Either hides behind half of the backward pass (6 of the 8 N per token).
    """
    work = Workload(kind="train", model=LLAMA2_7B, tokens=1e9, recompute="full", sharding="zero3")
    moved = 3 * 6.74e9 * 2 * 7 / 8
    for gpu, bus in (("RTX 4090", RTX4090_BUS), ("H100 SXM", H100_BUS)):
        row = estimate(work, [GPUS[gpu]]).gpus[0]
        per_gpu = row.achieved_tflops_per_gpu * 1e12
        compute = 8 * 6.74e9 * 4096 / per_gpu
        exposed = max(0.0, moved / (bus * 1e9) - 0.5 * compute * 6 / 8)
        expected = 8 * 6.74e9 * 1e9 / (per_gpu * scaling(8)) / 3600 * (compute + exposed) / compute
        assert hours_at(work, row, 8) == pytest.approx(expected, rel=1e-3), gpu
    rtx = estimate(work, [GPUS["RTX 4090"]]).gpus[0]
    compute = 8 * 6.74e9 * 4096 / (rtx.achieved_tflops_per_gpu * 1e12)
    assert moved / (RTX4090_BUS * 1e9) == pytest.approx(1.95, abs=0.01)
    assert compute / (compute + moved / (RTX4090_BUS * 1e9) - 0.5 * compute * 6 / 8) == pytest.approx(0.739, abs=0.002)
    h100 = estimate(work, [GPUS["H100 SXM"]]).gpus[0]
    assert moved / (H100_BUS * 1e9) == pytest.approx(0.106, abs=0.001)
    assert h100.communication_efficiency == 1.0 and h100.interconnect is not None
    assert h100.interconnect.startswith("nvlink4")


def test_an_nvlink_server_runs_a_70b_tensor_parallel_job_ahead_of_pcie_cards_by_the_derived_factor() -> None:
    """LLaMA-2-70B LoRA, tensor parallel (Megatron-LM with sequence parallelism), 4,096-token micro-batches.

    H100 SXM (72 GB usable): 140 GB of 16-bit weights / 4 + selective activations 34 x 4,096 x 8,192 x 80 / 4 bytes
    = 35 + 22.8 GB: 4 GPUs, 4 N per token. RTX 4090 (21.6 GB usable): 140 / 8 = 17.5 GB leaves no room for selective
    activations (11.4 GB): 8 GPUs with full recomputation, 6 N per token. Per layer and micro-batch 4 all-reduces of
    4,096 x 8,192 x 2 bytes = 67.1 MB (6 with full recomputation), none hidden: H100 320 x 67.1 MB x 2 x 3/4 / 335 GB/s
    = 0.096 s; RTX 4090 480 x 67.1 MB x 2 x 7/8 / 18.15 GB/s = 3.11 s.
    """
    work = Workload(kind="fine_tune", method="lora", model=LLAMA2_70B, tokens=1e8, sharding="tensor",
                    max_gpus_per_job=8)
    h100 = estimate(work, [GPUS["H100 SXM"]]).gpus[0]
    rtx = estimate(work, [GPUS["RTX 4090"]]).gpus[0]
    assert (h100.gpus_per_job, h100.tensor_parallel, h100.recompute) == (4, 4, "selective")
    assert (rtx.gpus_per_job, rtx.tensor_parallel, rtx.recompute) == (8, 8, "full")
    activations = 4096 * 8192 * 2
    hours = []
    for row, t, k, all_reduces, tp_bus in ((h100, 4, 4, 4, H100_BUS), (rtx, 8, 6, 6, RTX4090_BUS)):
        per_gpu = row.achieved_tflops_per_gpu * 1e12
        compute = k * 70e9 * 4096 / t / per_gpu
        tensor = all_reduces * 80 * activations * 2 * (t - 1) / t / (tp_bus * 1e9)
        efficiency = compute / (compute + tensor)
        assert row.communication_efficiency == pytest.approx(efficiency, rel=1e-3)
        gpu_hours = k * 70e9 * 1e8 / (per_gpu * scaling(t)) / 3600 / efficiency * t
        assert row.gpu_hours == pytest.approx(gpu_hours, rel=1e-3)
        hours.append(gpu_hours)
    factor = hours[1] / hours[0]  # RTX 4090 GPU-hours over H100 SXM's
    assert rtx.gpu_hours / h100.gpu_hours == pytest.approx(factor, rel=1e-3)  # type: ignore[operator]
    assert factor == pytest.approx(14.95, abs=0.05)
    # of which the link alone: the H100 computes 88% of its step time, the RTX 4090 46%
    assert h100.communication_efficiency == pytest.approx(0.881, abs=0.002)
    assert rtx.communication_efficiency == pytest.approx(0.457, abs=0.002)
    assert estimate(work, [GPUS["H100 SXM"]]).gpus[0].sharding.startswith("tensor parallel over 4")  # type: ignore[union-attr]


def _change(work: Workload, widest: int) -> float:
    """The largest relative slow-down the link adds to any fitting GPU type at 1..widest GPUs (hours before: the
    FLOPs at the achieved FLOP/s and the guide's speed-up alone)."""
    worst = 1.0
    for row in estimate(work).gpus:
        if not row.fits or row.gpus_per_job is None:
            continue
        for width in range(row.gpus_per_job, widest + 1):
            before = min(o.flops for o in row.recompute_options if o.min_gpus <= width) / (
                row.achieved_tflops_per_gpu * 1e12 * scaling(width)) / 3600
            worst = min(worst, before / hours_at(work, row, width))
    return 1 - worst


def test_small_data_parallel_jobs_change_by_a_few_percent_at_most() -> None:
    one_b = Workload(kind="train", model={"params_b": 1}, tokens=5e10, sharding="ddp", max_gpus_per_job=8)
    assert _change(one_b, 1) == 0.0  # one GPU: nothing to communicate
    assert _change(one_b, 2) < 0.01  # 2 GB of gradients once per 0.5M-token batch hide behind the backward pass
    assert _change(one_b, 4) < 0.035  # worst: H100 NVL over PCIe 5.0
    assert _change(one_b, 8) < 0.075
    lora = Workload(kind="fine_tune", method="lora", model={"params_b": 7}, tokens=1e9, sharding="ddp",
                    max_gpus_per_job=8)
    assert _change(lora, 8) == 0.0  # adapters' gradients only


def test_the_global_batch_sets_how_often_data_parallel_gradients_are_all_reduced() -> None:
    base = {"kind": "train", "model": {"params_b": 1}, "tokens": 5e10, "sharding": "ddp"}
    row = estimate(Workload(**base), [GPUS["RTX 4090"]]).gpus[0]  # type: ignore[arg-type]
    small = Workload(**base, global_batch_tokens=8192)  # type: ignore[arg-type]
    assert hours_at(small, row, 2) > hours_at(Workload(**base), row, 2)  # type: ignore[arg-type]
    with pytest.raises(ValidationError) as info:
        Workload(**base, global_batch_tokens=0)  # type: ignore[arg-type]
    assert [e["loc"] for e in info.value.errors()] == [("global_batch_tokens",)]


def test_wider_than_one_server_keeps_the_cross_server_allowance_on_top_of_the_link() -> None:
    work = Workload(kind="train", model=LLAMA2_7B, tokens=1e9, recompute="full", sharding="zero3")
    row = estimate(work, [GPUS["H100 SXM"]]).gpus[0]
    per_gpu = row.achieved_tflops_per_gpu * 1e12
    # hidden behind the backward pass on NVLink: the guide's 95% per doubling beyond 4 GPUs, as before
    assert hours_at(work, row, 16) == pytest.approx(8 * 6.74e9 * 1e9 / (per_gpu * scaling(16)) / 3600, rel=1e-6)


def test_tensor_parallelism_works_when_only_the_parameter_count_is_given() -> None:
    # the shape guessed from 70B parameters (hidden 9,072) has 72 heads, a multiple of 8, so tensor parallelism can
    # split them over 8 GPUs; round(9,072 / 128) = 71 heads (prime) allowed no split, and every GPU "did not fit"
    work = Workload(kind="fine_tune", method="lora", model={"params_b": 70}, tokens=1e8, sharding="tensor",
                    max_gpus_per_job=8)
    h100 = estimate(work, [GPUS["H100 SXM"]]).gpus[0]
    assert h100.fits and h100.tensor_parallel is not None and h100.tensor_parallel >= 4
    assert h100.sharding is not None and h100.sharding.startswith("tensor parallel over")
