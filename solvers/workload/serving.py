"""A serving replica tensor-parallel over 1, 2, 4 or 8 GPUs of one server: its batch, its step times, the
communication its interconnect adds, and whether it serves at all.

Why a module of its own: a replica split over GPUs pays Megatron-style tensor parallelism's all-reduces on its
critical path, and over PCIe between GeForce cards (no peer-to-peer, every hop through host memory) that can cost a
large share of its time; without it four RTX 4090s served a 70B model as fast as four NVLink-linked GPUs of the same
memory bandwidth would.

The replica (coefficients in `coefficients.py`, link and collectives in `comm.py`):
- decode step = max(weights and the batch's KV cache read at `DECODE_BANDWIDTH_UTILISATION` of the GPUs' peak
  bandwidth, 2 N FLOPs per sequence at the achieved FLOP/s) + communication;
- prefill of one request = 2 N FLOPs per prompt token at the achieved FLOP/s + communication;
- communication: Megatron-LM splits each layer's attention and MLP over the GPUs and sums their outputs with two
  all-reduces per layer (Shoeybi et al. 2019, "Megatron-LM", section 3): per decode step 2 L all-reduces of
  batch x hidden 16-bit activations, per prefill 2 L of prompt x hidden; each costs the path's fixed latency
  (`comm.all_reduce_latency_s`) plus the ring's bytes at the link's bus bandwidth (`comm.all_reduce_seconds`), not
  overlapped with compute (the next layer needs the sum);
- a request takes its prefill plus its share of the batch's decode steps: output_tokens x step / batch;
- a size serves only when its decode step, the time per output token, is within
  `SERVING_MAX_TIME_PER_OUTPUT_TOKEN_S` (MLPerf Inference's Server bound); of the sizes that hold the weights and
  one sequence's KV cache and serve, the one with the fewest GPU-hours for the demand (ties: fewer GPUs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pricing.gpus import GpuSpec
from solvers.base.workload import GpuEstimate, Workload
from solvers.workload import coefficients as c
from solvers.workload import comm
from solvers.workload.memory import Shape, kv_cache_bytes_per_sequence, serving_memory
from solvers.workload.reasons import excluded, serving_sharding

HOURS_PER_MONTH = 730.0  # 8,760 / 12


@dataclass(frozen=True)
class Replica:
    """One replica over `tp` GPUs: its batch and the seconds its steps take, communication apart."""

    tp: int
    batch: int
    decode_s: float  # one decode step without communication: max(memory read, compute)
    decode_comm_s: float  # the step's all-reduces
    prefill_s: float  # one request's prompt without communication
    prefill_comm_s: float
    link: comm.Link | None  # None: one GPU
    path: str  # comm.PEER_TO_PEER or comm.HOST_MEMORY: how its small messages travel
    latency_s: float  # fixed time of one all-reduce on that path
    output_tokens_share: float  # output_tokens / batch: the decode steps one request accounts for

    @property
    def time_per_output_token_s(self) -> float:
        """The decode step with its communication: how fast each sequence of the batch streams."""
        return self.decode_s + self.decode_comm_s

    @property
    def seconds_per_request(self) -> float:
        """Replica time one request takes: its prefill and its share of the batch's decode steps."""
        return self.prefill_s + self.prefill_comm_s + self.output_tokens_share * self.time_per_output_token_s

    @property
    def communication_s(self) -> float:
        """The part of `seconds_per_request` the GPUs spend in all-reduces."""
        return self.prefill_comm_s + self.output_tokens_share * self.decode_comm_s

    @property
    def communication_efficiency(self) -> float:
        """Time per request without communication over time with it (1: nothing to communicate)."""
        return 1.0 - self.communication_s / self.seconds_per_request

    @property
    def serves(self) -> bool:
        """Whether each sequence streams within the Server bound (`SERVING_MAX_TIME_PER_OUTPUT_TOKEN_S`)."""
        return self.time_per_output_token_s <= c.SERVING_MAX_TIME_PER_OUTPUT_TOKEN_S


def tensor_parallel_seconds(shape: Shape, tokens: float, tp: int, link: comm.Link, latency_s: float) -> float:
    """The 2 L all-reduces of `tokens` x hidden 16-bit activations one forward pass over `tokens` tokens makes."""
    size = tokens * shape.hidden * c.SERVING_ACTIVATION_BYTES
    return 2 * shape.layers * (latency_s + comm.all_reduce_seconds(size, tp, link.bus_gbs))


def replica(workload: Workload, shape: Shape, spec: GpuSpec, per_gpu_tflops: float, tp: int,
            link: comm.Link | None = None) -> Replica:
    """The replica over `tp` GPUs of `spec` with the largest batch that fits (at most `batch_size`); `link` overrides
    the link the type's GPUs talk over (`comm.link_for`), e.g. to price the same cards on another interconnect."""
    usable = spec.memory_gb * workload.usable_memory_fraction * 1e9
    kv_seq = kv_cache_bytes_per_sequence(shape, workload.context_length)
    weights = shape.params * c.WEIGHT_BYTES[workload.precision]
    batch = max(1, min(workload.batch_size, math.floor((usable * tp - weights) / kv_seq)))
    flops_per_token = c.INFERENCE_FLOPS_PER_PARAM_TOKEN * shape.params
    achieved = per_gpu_tflops * 1e12 * tp
    bandwidth = spec.memory_bandwidth_gbs * 1e9 * tp * c.DECODE_BANDWIDTH_UTILISATION
    decode = max((weights + batch * kv_seq) / bandwidth, flops_per_token * batch / achieved)
    prompt = workload.context_length - workload.output_tokens
    prefill = flops_per_token * prompt / achieved
    decode_comm = prefill_comm = latency = 0.0
    path = comm.PEER_TO_PEER
    if tp > 1:
        link = link or comm.link_for(spec.name, tp)
        path = comm.latency_path(link, spec.segment == "consumer")
        latency = comm.all_reduce_latency_s(path, tp)
        decode_comm = tensor_parallel_seconds(shape, batch, tp, link, latency)
        prefill_comm = tensor_parallel_seconds(shape, prompt, tp, link, latency)
    else:
        link = None
    return Replica(tp, batch, decode, decode_comm, prefill, prefill_comm, link, path, latency,
                   workload.output_tokens / batch)


def replica_hours(workload: Workload, one: Replica) -> float:
    """Replica-hours a month for the demand: whole replicas every hour for requests per second, else the tokens'
    share of a replica's hours."""
    requests_per_second = 1.0 / one.seconds_per_request
    if workload.requests_per_second is not None:
        return math.ceil(workload.requests_per_second / requests_per_second) * HOURS_PER_MONTH
    assert workload.tokens is not None
    return workload.tokens / (requests_per_second * workload.output_tokens) / 3600


def describe(one: Replica) -> str:
    """The replica's interconnect in words: the link, and the host-memory path of GeForce cards' small messages."""
    assert one.link is not None
    host = "; GeForce cards have no PCIe peer-to-peer: all-reduces pass through host memory"
    return one.link.describe() + (host if one.path == comm.HOST_MEMORY else "") + (
        f"; {one.latency_s * 1e6:.1f} us per all-reduce besides the bytes")


def estimate_serving(workload: Workload, shape: Shape, spec: GpuSpec, per_gpu_tflops: float,
                     common: dict[str, Any]) -> GpuEstimate:
    """The type's row: of the sizes that hold the weights and one sequence's KV cache and serve, the one with the
    fewest GPU-hours for the demand. Why not simply the fewest GPUs: a 70B model in 8 bits fills one 80 GB card,
    leaving room for a batch of one, so one replica per GPU serves a fraction of what a replica over two GPUs with
    a full batch does. Why not simply the most: over a slow link a wider replica's all-reduces can cost more than
    its extra bandwidth saves. `common` holds the row's GPU-wide fields (name, achieved FLOP/s, extrapolated)."""
    usable = spec.memory_gb * workload.usable_memory_fraction * 1e9
    need = shape.params * c.WEIGHT_BYTES[workload.precision] + kv_cache_bytes_per_sequence(shape,
                                                                                           workload.context_length)
    sizes = [t for t in (1, 2, 4, 8) if t <= workload.max_gpus_per_job and need <= usable * t]
    if not sizes:
        why = excluded("serving_too_large", need_gb=need / 1e9, gpus=min(8, workload.max_gpus_per_job),
                       usable_gb=usable / 1e9)
        return GpuEstimate(fits=False, excluded_reason=why.text, excluded_notice=why, **common)
    replicas = [replica(workload, shape, spec, per_gpu_tflops, t) for t in sizes]
    serving = [r for r in replicas if r.serves]
    if not serving:
        fastest = min(replicas, key=lambda r: (r.time_per_output_token_s, r.tp))
        why = excluded("serving_too_slow", tpot_ms=fastest.time_per_output_token_s * 1e3, gpus=fastest.tp,
                       communication_pct=100 * fastest.decode_comm_s / fastest.time_per_output_token_s,
                       bound_ms=c.SERVING_MAX_TIME_PER_OUTPUT_TOKEN_S * 1e3)
        return GpuEstimate(fits=False, excluded_reason=why.text, excluded_notice=why, **common)
    best = min(serving, key=lambda r: (replica_hours(workload, r) * r.tp, r.tp))
    hours = replica_hours(workload, best)
    memory = serving_memory(workload, shape, best.tp, best.batch)
    sharding = serving_sharding(best.tp, best.batch, workload.context_length)
    link = best.link
    return GpuEstimate(fits=True, gpus_per_job=best.tp, hours_per_job=hours, gpu_hours=hours * best.tp,
                       memory_per_gpu_gb=memory.total, memory=memory, sharding=sharding.text,
                       sharding_notice=sharding, interconnect=describe(best) if link else None,
                       bus_bandwidth_gbs=link.bus_gbs if link else None,
                       communication_efficiency=best.communication_efficiency,
                       all_reduce_latency_us=best.latency_s * 1e6 if link else None,
                       time_per_output_token_ms=best.time_per_output_token_s * 1e3, **common)
