"""A serving replica split over GPUs pays its tensor-parallel all-reduces (`solvers/workload/serving.py`), checked
against figures derived by hand from the documented coefficients.

All-reduce latency (coefficients.ALL_REDUCE_LATENCY_US, least squares of time = a + b (GPUs - 1)):
- peer to peer: (1, 10.14), (3, 23.30), (7, 24.20): mean x 11/3, mean y 19.2133; Sxx 18.6667, Sxy 38.0933 ->
  b = 2.040714 us, a = 19.2133 - 2.040714 x 11/3 = 11.730714 us; 4 GPUs: 11.730714 + 3 b = 17.852857 us;
- host memory: (1, 12.25), (7, 42.14): b = 29.89 / 6 = 4.981667 us, a = 7.268333 us; 4 GPUs: 22.213333 us.
Bus bandwidths (tests/solvers/workload/test_workload_comm.py): RTX 4090 PCIe 4.0 32 x 0.5671875 = 18.15 GB/s, H100 SXM
NVLink
450 x 0.744 = 335 GB/s.

The replica: Llama-2-70B's shape (80 layers, hidden 8192, 8 KV heads of 128) in int8 on 4 x RTX 4090 (24 GB, 90%
usable: 86.4 GB): 70 GB of weights, 1,342,177,280 bytes of KV cache per 4,096-token sequence, so a batch of
floor(16.4e9 / 1.342e9) = 12. Decode step: (70e9 + 12 x 1.342e9) / (4 x 1,008 GB/s x 0.7) = 30.508 ms (compute,
2 x 70e9 x 12 / (4 x 329.66 TFLOPS) = 1.27 ms, is below it). Each step all-reduces 12 x 8,192 x 2 bytes twice per
layer: 160 x (22.213 us + 196,608 x 2 x 3/4 / 18.15 GB/s) = 6.154 ms. A 3,840-token prompt: 2 x 70e9 x 3,840 /
(4 x 329.66e12) = 0.4077 s of compute and 160 x (22.213 us + 62.9 MB x 3/2 / 18.15 GB/s) = 0.8355 s of all-reduces.
"""

from __future__ import annotations

import dataclasses

import pytest

from pricing.gpus import bundled_gpus
from solvers.workload import Workload, comm, estimate, serving
from solvers.workload import coefficients as c
from solvers.workload.compiler import achieved_tflops
from solvers.workload.memory import shape_of

GPUS = bundled_gpus()
LLAMA2_70B = {"params_b": 70, "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8}
SERVE_70B = {"kind": "serve", "model": LLAMA2_70B, "precision": "int8", "requests_per_second": 5}
WORK = Workload.model_validate(SERVE_70B)
SHAPE = shape_of(WORK.model)
RTX4090 = GPUS["RTX 4090"]
RTX4090_TFLOPS = achieved_tflops(RTX4090, "inference_8bit")  # 329.66: Ada's LLM fraction x 660 INT8 TOPS (mfu.py)
HOST_4 = 7.268333 + 3 * 4.981667  # us, 4 GPUs through host memory
P2P_4 = 11.730714 + 3 * 2.040714  # us, 4 GPUs peer to peer
BATCH = 12
DECODE = (70e9 + BATCH * 1_342_177_280) / (4 * 1008e9 * 0.7)
PREFILL = 2 * 70e9 * 3840 / (4 * RTX4090_TFLOPS * 1e12)


def _all_reduces(latency_us: float, tokens: float, bus_gbs: float) -> float:
    """160 ring all-reduces (2 per layer) of tokens x 8,192 16-bit activations over 4 GPUs, seconds."""
    return 160 * (latency_us * 1e-6 + tokens * 8192 * 2 * 2 * 3 / 4 / (bus_gbs * 1e9))


def test_the_latency_fit_is_the_least_squares_line_through_the_published_rows() -> None:
    fit = comm.latency_fit()
    assert fit[comm.PEER_TO_PEER] == pytest.approx((11.730714, 2.040714), rel=1e-6)
    assert fit[comm.HOST_MEMORY] == pytest.approx((7.268333, 4.981667), rel=1e-6)
    assert comm.all_reduce_latency_s(comm.HOST_MEMORY, 4) == pytest.approx(HOST_4 * 1e-6, rel=1e-6)
    assert comm.all_reduce_latency_s(comm.PEER_TO_PEER, 1) == 0.0
    assert all(source for *_, source in c.ALL_REDUCE_LATENCY_US)


def test_geforce_cards_on_pcie_go_through_host_memory_and_the_rest_peer_to_peer() -> None:
    consumer = {s.name for s in GPUS if s.segment == "consumer"}
    assert "RTX 4090" in consumer and "L40S" not in consumer
    assert comm.latency_path(comm.link_for("RTX 4090", 4), consumer=True) == comm.HOST_MEMORY
    assert comm.latency_path(comm.link_for("L40S", 4), consumer=False) == comm.PEER_TO_PEER
    # a bridged pair of RTX 3090s talks over its NVLink bridge; four of them over the host's PCIe, through memory
    assert comm.latency_path(comm.link_for("RTX 3090", 2), consumer=True) == comm.PEER_TO_PEER
    assert comm.latency_path(comm.link_for("RTX 3090", 4), consumer=True) == comm.HOST_MEMORY


def test_one_replica_step_by_hand() -> None:
    assert RTX4090.memory_bandwidth_gbs == 1008 and RTX4090.memory_gb == 24
    one = serving.replica(WORK, SHAPE, RTX4090, RTX4090_TFLOPS, 4)
    assert one.batch == BATCH and one.path == comm.HOST_MEMORY
    assert one.decode_s == pytest.approx(DECODE, rel=1e-9)
    decode_comm = _all_reduces(HOST_4, BATCH, 18.15)
    prefill_comm = _all_reduces(HOST_4, 3840, 18.15)
    assert decode_comm == pytest.approx(6.154e-3, rel=1e-3) and prefill_comm == pytest.approx(0.8355, rel=1e-3)
    assert one.decode_comm_s == pytest.approx(decode_comm, rel=1e-6)
    assert one.prefill_comm_s == pytest.approx(prefill_comm, rel=1e-6)
    assert one.time_per_output_token_s == pytest.approx(DECODE + decode_comm, rel=1e-6)  # 36.66 ms
    request = PREFILL + prefill_comm + 256 / BATCH * (DECODE + decode_comm)
    assert one.seconds_per_request == pytest.approx(request, rel=1e-6)  # 2.025 s
    communication = prefill_comm + 256 / BATCH * decode_comm
    assert one.communication_efficiency == pytest.approx(1 - communication / request, rel=1e-6)  # 0.523
    # 5 requests a second need ceil(5 x 2.025) = 11 replicas of 4 cards every hour of the 730-hour month
    assert serving.replica_hours(WORK, one) == pytest.approx(11 * 730)


def test_four_pcie_geforce_cards_serve_slower_than_the_same_cards_on_nvlink_by_the_communication() -> None:
    pcie = serving.replica(WORK, SHAPE, RTX4090, RTX4090_TFLOPS, 4)
    nvlink = serving.replica(WORK, SHAPE, RTX4090, RTX4090_TFLOPS, 4, link=comm.link_for("H100 SXM", 4))
    assert nvlink.path == comm.PEER_TO_PEER and nvlink.link is not None
    assert nvlink.link.bus_gbs == pytest.approx(335.0)
    slow = PREFILL + _all_reduces(HOST_4, 3840, 18.15) + 256 / BATCH * (DECODE + _all_reduces(HOST_4, BATCH, 18.15))
    fast = PREFILL + _all_reduces(P2P_4, 3840, 335) + 256 / BATCH * (DECODE + _all_reduces(P2P_4, BATCH, 335))
    assert slow / fast == pytest.approx(1.7304, rel=1e-3)  # 2.025 s against 1.170 s a request
    assert pcie.seconds_per_request / nvlink.seconds_per_request == pytest.approx(slow / fast, rel=1e-6)
    # the same memory and compute: the whole difference is communication
    assert (pcie.decode_s, pcie.prefill_s) == (nvlink.decode_s, nvlink.prefill_s)
    assert pcie.seconds_per_request - nvlink.seconds_per_request == pytest.approx(
        pcie.communication_s - nvlink.communication_s, rel=1e-9)


def test_communication_moves_the_replica_to_fewer_cards_when_eight_cost_more_gpu_hours() -> None:
    row = estimate(WORK, [RTX4090]).gpus[0]
    four, eight = (serving.replica(WORK, SHAPE, RTX4090, RTX4090_TFLOPS, t) for t in (4, 8))
    assert row.gpus_per_job == 4 and row.gpu_hours == pytest.approx(serving.replica_hours(WORK, four) * 4)
    assert serving.replica_hours(WORK, eight) * 8 > serving.replica_hours(WORK, four) * 4
    # without the all-reduces eight cards would be the cheaper replica, as the compiler used to answer
    bare = [dataclasses.replace(r, decode_comm_s=0.0, prefill_comm_s=0.0) for r in (four, eight)]
    assert serving.replica_hours(WORK, bare[1]) * 8 < serving.replica_hours(WORK, bare[0]) * 4
    assert row.communication_efficiency == pytest.approx(four.communication_efficiency)
    assert row.time_per_output_token_ms == pytest.approx(four.time_per_output_token_s * 1e3)


def test_a_type_whose_every_size_streams_too_slowly_is_left_out_with_the_reason(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # a bound of 20 ms (MLPerf's interactive scenarios ask 15-80 ms): 4 x RTX 4090 stream at 36.7 ms a token; 8
    # hold a batch of 32 and read (70e9 + 32 x 1.342e9) / (8 x 1,008 GB/s x 0.7) = 20.01 ms a step, plus
    # 160 x (42.14 us + 32 x 16,384 bytes x 2 x 7/8 / 18.15 GB/s) = 14.83 ms of all-reduces: 34.84 ms, 43% of it
    # communication. 4 x H100 SXM (batch 32) stream at 12.04 + 3.23 = 15.3 ms, within it; 2 at 24.1 ms do not
    monkeypatch.setattr(c, "SERVING_MAX_TIME_PER_OUTPUT_TOKEN_S", 0.020)
    rows = {r.gpu: r for r in estimate(WORK, [RTX4090, GPUS["H100 SXM"]]).gpus}
    left_out = rows["RTX 4090"]
    assert not left_out.fits and left_out.excluded_notice is not None
    assert left_out.excluded_notice.code == "serving_too_slow"
    params = left_out.excluded_notice.params
    eight = serving.replica(WORK, SHAPE, RTX4090, RTX4090_TFLOPS, 8)
    assert params["gpus"] == 8 and params["bound_ms"] == pytest.approx(20.0)
    assert params["tpot_ms"] == pytest.approx(eight.time_per_output_token_s * 1e3) == pytest.approx(34.84, abs=0.01)
    assert params["communication_pct"] == pytest.approx(100 * eight.decode_comm_s / eight.time_per_output_token_s)
    assert left_out.excluded_reason == ("too slow to serve: 35 ms per output token at best (8 GPUs, 43% of it "
                                        "communication), more than the 20 ms MLPerf Inference allows a server")
    assert rows["H100 SXM"].fits and rows["H100 SXM"].gpus_per_job == 4
    assert rows["H100 SXM"].time_per_output_token_ms is not None and rows["H100 SXM"].time_per_output_token_ms <= 20

