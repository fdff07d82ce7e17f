"""Memory one GPU needs for a job: weights, gradients, optimizer states, activations, KV cache.

Pure arithmetic on the coefficients in `coefficients.py` (ZeRO, Korthikanti et al., QLoRA); the
compiler decides the sharding and the GPU count, this module only says what a choice costs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from solvers.base.workload import MemoryBreakdown, ModelShape, Workload
from solvers.workload import coefficients as c

GB = 1e9


@dataclass(frozen=True)
class Shape:
    """The transformer shape the estimate uses (given, or derived from the parameter count)."""

    params: float
    layers: int
    hidden: int
    heads: int
    kv_heads: int

    @property
    def head_dim(self) -> float:
        return self.hidden / self.heads


def shape_of(model: ModelShape) -> Shape:
    """Fill a missing shape from N ~ 12 L h^2 and h / L ~ 128 (coefficients.py)."""
    params = model.params_b * 1e9
    hidden = model.hidden
    layers = model.layers
    if hidden is None and layers is None:
        hidden = max(1, round((params * c.HIDDEN_PER_LAYER / c.PARAMS_PER_LAYER_HIDDEN2) ** (1 / 3)))
    if hidden is None:
        assert layers is not None
        hidden = max(1, round(math.sqrt(params / (c.PARAMS_PER_LAYER_HIDDEN2 * layers))))
    if layers is None:
        layers = max(1, round(params / (c.PARAMS_PER_LAYER_HIDDEN2 * hidden**2)))
    heads = model.heads or _guessed_heads(hidden)
    kv_heads = model.kv_heads or heads
    return Shape(params, layers, hidden, heads, kv_heads)


def _guessed_heads(hidden: int) -> int:
    """Heads of size ~128, rounded to a multiple of 8 from 8 heads up (coefficients.GUESSED_HEADS_MULTIPLE)."""
    heads = max(1, round(hidden / c.HEAD_DIM))
    step = c.GUESSED_HEADS_MULTIPLE
    return heads if heads < step else max(step, round(heads / step) * step)


def trainable_params(workload: Workload, shape: Shape) -> float:
    """All parameters, or the LoRA adapters' r * 18h per layer on every linear layer."""
    if workload.kind == "fine_tune" and workload.method in ("lora", "qlora"):
        return shape.layers * workload.lora_rank * c.LORA_PARAMS_PER_RANK_HIDDEN * shape.hidden
    return shape.params


def activation_bytes(workload: Workload, shape: Shape) -> float:
    """One micro-batch's stored activations on one GPU (16-bit, Korthikanti et al. 2022)."""
    per_token_hidden = (c.ACTIVATION_BYTES_FULL_RECOMPUTE if workload.recompute == "full"
                        else c.ACTIVATION_BYTES_SELECTIVE)
    return per_token_hidden * workload.sequence_length * workload.micro_batch * shape.hidden * shape.layers


def training_memory(workload: Workload, shape: Shape, stage: str, gpus: int,
                    tensor_parallel: int = 1) -> MemoryBreakdown:
    """GB per GPU for a training or fine-tuning job on `gpus` data-parallel GPUs with ZeRO `stage`.

    stage: "ddp" (nothing sharded), "zero1" (optimizer states), "zero2" (+ gradients), "zero3" (+ weights), or
    "tensor": Megatron-LM tensor parallelism over `tensor_parallel` GPUs with sequence parallelism, which splits
    weights, gradients, optimizer states and activations by the tensor-parallel degree t (Korthikanti et al. 2022,
    table 2: 34 s b h / t per layer with selective recomputation), the optimizer states further over the
    gpus // t data-parallel groups (Megatron's distributed optimizer, as ZeRO-1).
    """
    trainable = trainable_params(workload, shape)
    adapters = trainable != shape.params
    frozen_bytes = c.WEIGHT_BYTES["int4" if workload.method == "qlora" else workload.precision]
    weights = (shape.params * frozen_bytes + trainable * c.WEIGHT_BYTES_16BIT) if adapters \
        else shape.params * c.WEIGHT_BYTES_16BIT
    gradients = trainable * c.GRADIENT_BYTES_16BIT
    optimizer = trainable * c.ADAM_STATE_BYTES
    if stage in ("zero1", "zero2", "zero3"):
        optimizer /= gpus
    if stage in ("zero2", "zero3"):
        gradients /= gpus
    if stage == "zero3":
        weights /= gpus
    activations = activation_bytes(workload, shape)
    if stage == "tensor":
        t = tensor_parallel
        weights, gradients, activations = weights / t, gradients / t, activations / t
        optimizer /= t * max(1, gpus // t)
    total = weights + gradients + optimizer + activations
    return MemoryBreakdown(weights=weights / GB, gradients=gradients / GB, optimizer_states=optimizer / GB,
                           activations=activations / GB, kv_cache=0.0, total=total / GB)


def kv_cache_bytes_per_sequence(shape: Shape, context: int) -> float:
    """Keys and values of every layer for `context` tokens, 16-bit: 2 * L * kv_heads * head_dim * 2 bytes."""
    return 2 * shape.layers * shape.kv_heads * shape.head_dim * context * c.WEIGHT_BYTES_16BIT


def serving_memory(workload: Workload, shape: Shape, tensor_parallel: int, batch: int) -> MemoryBreakdown:
    """GB per GPU of one replica split over `tensor_parallel` GPUs serving `batch` sequences at full context."""
    weights = shape.params * c.WEIGHT_BYTES[workload.precision] / tensor_parallel
    kv = batch * kv_cache_bytes_per_sequence(shape, workload.context_length) / tensor_parallel
    return MemoryBreakdown(weights=weights / GB, gradients=0.0, optimizer_states=0.0, activations=0.0,
                           kv_cache=kv / GB, total=(weights + kv) / GB)
