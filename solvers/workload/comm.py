"""Communication of a multi-GPU training step or serving replica: which link the GPUs talk over, how fast, how long
a small message takes, and how much of it the step waits for.

Why: without it a job planned on 8 x RTX 4090 over PCIe ran as fast as on 8 x H100 SXM on NVLink. Large-model
training moves whole copies of the gradients (and, with ZeRO-3, of the weights) every step, and tensor parallelism
moves activations every layer; on PCIe that can take longer than the arithmetic.

The link (`pricing/data/gpu_compute.csv`, columns interconnect and interconnect_gbs, bidirectional GB/s): NVLink
through NVSwitch (SXM parts) and AMD Infinity Fabric link every GPU of a server; an NVLink bridge ("-bridge") links
a PAIR of PCIe cards, so a job on more than 2 of them talks over the host's PCIe (the generation the card has:
`BRIDGE_HOST_PCIE`); PCIe cards talk over PCIe. A collective runs at the link's unidirectional bandwidth (half the
bidirectional figure) times the fraction NCCL achieves on that kind of link, the median of published nccl-tests
bus bandwidths (`pricing/data/nccl_allreduce.csv`, `nccl_allreduce.SOURCES.md`).

Ring collective time (nccl-tests doc/PERFORMANCE.md: busbw = algbw x 2(n-1)/n for all-reduce, algbw x (n-1)/n for
all-gather and reduce-scatter, algbw = bytes / time): all-reduce of S bytes over n ranks takes
S x 2(n-1)/n / busbw; all-gather or reduce-scatter of S gathered bytes S x (n-1)/n / busbw.

What one training step (one micro-batch per data-parallel rank) communicates (`training_step`):
- data parallel (`ddp`), ZeRO-1: the 16-bit gradients of the trainable parameters all-reduced (ZeRO-1: reduce-
  scatter, then all-gather of the updated weights, the same volume; Rajbhandari et al. 2020, "ZeRO", section 7.1)
  once per optimizer step, i.e. once per global batch (`Workload.global_batch_tokens`, gradient accumulation; PyTorch
  DDP's `no_sync` skips the all-reduce of the other micro-batches);
- ZeRO-2: gradients reduce-scattered every micro-batch (the shards are all a rank keeps), updated weights
  all-gathered once per optimizer step;
- ZeRO-3: weights all-gathered in the forward and again in the backward pass and gradients reduce-scattered, every
  micro-batch: 1.5x data parallelism's volume (ZeRO, section 7);
- tensor parallel (`tensor`, Megatron-LM): two all-reduces of b x s x h 16-bit activations per layer in the forward
  pass and two in the backward (Shoeybi et al. 2019, "Megatron-LM", section 3 and figure 4), two more with full
  recomputation (the forward replayed); sequence parallelism replaces each by a reduce-scatter and an all-gather of
  the same volume (Korthikanti et al. 2022, section 4.2.2). They sit on the critical path: not overlapped. Data
  parallelism over several tensor-parallel groups shards the optimizer states as ZeRO-1 does (Megatron's
  distributed optimizer) and all-reduces the groups' gradient shards once per optimizer step.

Overlap: PyTorch DDP launches the all-reduce of gradient buckets while the backward pass still computes (Li et al.
2020, "PyTorch Distributed: Experiences on Accelerating Data Parallel Training", VLDB 13(12): gradient bucketing and
overlapping computation with communication; the DDP design note https://pytorch.org/docs/stable/notes/ddp.html),
Megatron-core's DDP does the same with all-reduce or reduce-scatter per bucket (its `DistributedDataParallel` API
page), and DeepSpeed's ZeRO overlaps its reduce-scatter and prefetched all-gathers likewise. Data-parallel
communication may hide behind `OVERLAP` (a conservative 50%) of the backward pass of the micro-batch it belongs to;
the rest is waited for. Step time = compute + what is not hidden.

Serving (`serving.py`) moves small messages: a decode step all-reduces batch x hidden activations, a few hundred
kilobytes, where the fixed time of a collective outweighs the bytes. A collective therefore also costs a latency,
fitted on published small-message nccl-tests times (`coefficients.ALL_REDUCE_LATENCY_US`, `latency_fit`) per
path: peer to peer, or through host memory for GeForce cards, which the stock driver gives no PCIe peer-to-peer.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import lru_cache

from pricing.bus_bandwidth import bundled_bus_bandwidths
from pricing.compute import bundled_compute
from solvers.workload.coefficients import ALL_REDUCE_LATENCY_US, GPUS_PER_SERVER, OVERLAP

# PCIe cards with an NVLink bridge talk over the host's PCIe beyond the bridged pair: the card's own PCIe generation
# (Turing and Volta cards PCIe 3.0, Ampere PCIe 4.0, H100 PCIe / NVL PCIe 5.0: the vendors' product pages and
# whitepapers, as gpu_compute.SOURCES.md cites them) at gpu_compute.csv's figure for that link (bidirectional GB/s).
BRIDGE_HOST_PCIE = {"nvlink2-bridge": "pcie3", "nvlink3-bridge": "pcie4", "nvlink4-bridge": "pcie5"}
PCIE_GBS = {"pcie3": 32.0, "pcie4": 64.0, "pcie5": 128.0}
BRIDGED_GPUS = 2  # an NVLink bridge joins two cards

KIND_OF_MEASURED = "nvlink"  # kinds without a measurement take this kind's fraction (extrapolated)


def link_kind(link: str) -> str:
    """nvlink | nvlink-bridge | pcie | infinity-fabric, from a gpu_compute.csv interconnect name."""
    if link.endswith("-bridge"):
        return "nvlink-bridge"
    if link.startswith("nvlink"):
        return "nvlink"
    if link.startswith("pcie"):
        return "pcie"
    return link


def _link_gbs(gpu: str, link: str) -> float:
    """The bidirectional GB/s of `link` on `gpu`: the GPU's own gpu_compute.csv figure, or PCIe's."""
    own = bundled_compute().get(gpu)
    if own is not None and own.interconnect == link:
        return own.interconnect_gbs
    return PCIE_GBS[link]


def measured_fractions() -> dict[str, list[float]]:
    """Per link kind, every fitted row's busbw over the link's unidirectional bandwidth."""
    out: dict[str, list[float]] = {}
    for m in bundled_bus_bandwidths():
        if m.fit:
            out.setdefault(link_kind(m.link), []).append(m.busbw_gbs / (_link_gbs(m.gpu, m.link) / 2))
    return out


@lru_cache(maxsize=1)
def fractions() -> dict[str, float]:
    """Per link kind, the median achieved fraction of unidirectional bandwidth (the fit)."""
    return {kind: statistics.median(values) for kind, values in measured_fractions().items()}


@dataclass(frozen=True)
class Link:
    """The link a job's collectives run over, and the bus bandwidth assumed on it."""

    name: str  # gpu_compute.csv's interconnect, e.g. nvlink4, pcie4
    bidirectional_gbs: float
    fraction: float
    measured: bool  # False: the kind has no published measurement (another kind's fraction)
    via_host: bool  # a bridged card's job wider than the bridged pair, over the host's PCIe

    @property
    def bus_gbs(self) -> float:
        """GB/s a ring collective's busbw reaches: unidirectional (half the bidirectional figure) x fraction."""
        return self.bidirectional_gbs / 2 * self.fraction

    def describe(self) -> str:
        """The interconnect in words, for the estimate's rows."""
        host = " (host PCIe: the NVLink bridge links only 2 cards)" if self.via_host else ""
        basis = "" if self.measured else ", fraction extrapolated from NVLink"
        return (f"{self.name}{host}, {self.bidirectional_gbs:g} GB/s bidirectional, collectives at "
                f"{self.bus_gbs:.1f} GB/s bus bandwidth ({self.fraction:.0%} of one direction{basis})")


def link_for(gpu: str, gpus: int) -> Link:
    """The link `gpus` GPUs of type `gpu` in one server communicate over."""
    spec = bundled_compute().get(gpu)
    name, gbs = (spec.interconnect, spec.interconnect_gbs) if spec is not None else ("pcie3", PCIE_GBS["pcie3"])
    via_host = False
    if name in BRIDGE_HOST_PCIE and gpus > BRIDGED_GPUS:
        name, gbs, via_host = BRIDGE_HOST_PCIE[name], PCIE_GBS[BRIDGE_HOST_PCIE[name]], True
    kind = link_kind(name)
    table = fractions()
    measured = kind in table
    return Link(name, gbs, table[kind] if measured else table[KIND_OF_MEASURED], measured, via_host)


PEER_TO_PEER = "peer_to_peer"
HOST_MEMORY = "host_memory"


def latency_path(link: Link, consumer: bool) -> str:
    """How a small message travels: through host memory when consumer (GeForce) cards talk over PCIe (no peer-to-peer
    on the stock driver), else peer to peer (NVLink, bridges, Infinity Fabric, PCIe P2P of data-centre cards)."""
    return HOST_MEMORY if consumer and link_kind(link.name) == "pcie" else PEER_TO_PEER


@lru_cache(maxsize=1)
def latency_fit() -> dict[str, tuple[float, float]]:
    """Per path, (a, b) of the least-squares line time_us = a + b (ranks - 1) through the published rows."""
    fits: dict[str, tuple[float, float]] = {}
    for path in sorted({row[0] for row in ALL_REDUCE_LATENCY_US}):
        points = [(ranks - 1.0, us) for p, ranks, us, _ in ALL_REDUCE_LATENCY_US if p == path]
        slope, intercept = statistics.linear_regression([x for x, _ in points], [y for _, y in points])
        fits[path] = (intercept, slope)
    return fits


def all_reduce_latency_s(path: str, ranks: int) -> float:
    """Fixed time of one all-reduce over `ranks` GPUs on `path` (0 on one GPU), seconds."""
    if ranks <= 1:
        return 0.0
    intercept, slope = latency_fit()[path]
    return (intercept + slope * (ranks - 1)) * 1e-6


def all_reduce_seconds(size_bytes: float, ranks: int, bus_gbs: float) -> float:
    """Ring all-reduce of `size_bytes` over `ranks` (nccl-tests PERFORMANCE.md: busbw = algbw x 2(n-1)/n)."""
    return 0.0 if ranks <= 1 else size_bytes * 2 * (ranks - 1) / ranks / (bus_gbs * 1e9)


def gather_seconds(size_bytes: float, ranks: int, bus_gbs: float) -> float:
    """Ring all-gather or reduce-scatter of `size_bytes` gathered (busbw = algbw x (n-1)/n)."""
    return 0.0 if ranks <= 1 else size_bytes * (ranks - 1) / ranks / (bus_gbs * 1e9)


@dataclass(frozen=True)
class StepTime:
    """One micro-batch step of one GPU: compute, communication, and what of it the step waits for."""

    compute_s: float
    data_parallel_s: float  # per micro-batch, amortised over gradient accumulation
    tensor_parallel_s: float
    exposed_s: float
    link: Link | None  # None: one GPU, nothing to communicate

    @property
    def efficiency(self) -> float:
        """Compute time over step time: the share of the job's time its GPUs compute."""
        return self.compute_s / (self.compute_s + self.exposed_s)


@dataclass(frozen=True)
class StepInputs:
    """What a step moves, per micro-batch, for one layout (from the workload and the model's shape)."""

    flops_per_param_token: float  # k in k N D, recomputation included
    params: float
    micro_tokens: float  # micro_batch x sequence_length
    gradient_bytes: float  # 16-bit gradients of the trainable parameters, unsharded
    trainable_weight_bytes: float  # 16-bit trainable weights, unsharded (ZeRO-1/2 all-gather them after the step)
    weight_bytes: float  # every weight as stored (frozen ones at their precision), unsharded (ZeRO-3 gathers them)
    activation_bytes_per_layer: float  # b x s x h x 2: one tensor-parallel all-reduce
    layers: int
    recompute_full: bool
    global_batch_tokens: float


def training_step(inputs: StepInputs, gpu: str, stage: str, gpus: int, tensor_parallel: int,
                  tflops_per_gpu: float) -> StepTime:
    """Step time of one GPU of a `gpus`-wide job (ZeRO `stage`, or `tensor` over `tensor_parallel` GPUs)."""
    tp = tensor_parallel if stage == "tensor" else 1
    dp = max(1, gpus // tp)
    compute = inputs.flops_per_param_token * inputs.params * inputs.micro_tokens / tp / (tflops_per_gpu * 1e12)
    if gpus <= 1:
        return StepTime(compute, 0.0, 0.0, 0.0, None)
    link = link_for(gpu, min(gpus, GPUS_PER_SERVER))
    bus = link.bus_gbs
    backward = compute * (inputs.flops_per_param_token - 2.0) / inputs.flops_per_param_token  # forward: 2 N per token
    window = OVERLAP * backward
    per_micro = per_step = 0.0  # data-parallel seconds every micro-batch / once per optimizer step
    if stage in ("ddp", "zero1"):
        per_step = all_reduce_seconds(inputs.gradient_bytes, dp, bus)
    elif stage == "zero2":
        per_micro = gather_seconds(inputs.gradient_bytes, dp, bus)
        per_step = gather_seconds(inputs.trainable_weight_bytes, dp, bus)
    elif stage == "zero3":
        per_micro = 2 * gather_seconds(inputs.weight_bytes, dp, bus) + gather_seconds(inputs.gradient_bytes, dp, bus)
    elif stage == "tensor":
        per_step = all_reduce_seconds(inputs.gradient_bytes / tp, dp, bus)
    else:
        raise ValueError(f"unknown sharding stage {stage!r}")
    accumulation = max(1.0, inputs.global_batch_tokens / (inputs.micro_tokens * dp))
    # the optimizer step's collective runs in the backward pass of the last micro-batch before it
    exposed_dp = ((accumulation - 1) * max(0.0, per_micro - window)
                  + max(0.0, per_micro + per_step - window)) / accumulation
    tensor = 0.0
    if tp > 1:
        all_reduces = (4 + (2 if inputs.recompute_full else 0)) * inputs.layers
        tensor = all_reduces * all_reduce_seconds(inputs.activation_bytes_per_layer, tp, link_for(gpu, tp).bus_gbs)
    return StepTime(compute, per_micro + per_step / accumulation, tensor, exposed_dp + tensor, link)
