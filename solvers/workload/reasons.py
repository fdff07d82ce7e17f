"""Stable codes for the workload table's words: how a GPU type runs the job (its sharding) and why a type is left
out of the plan (issue 17: the page says them in the reader's language).

Why codes: the API's `sharding` and `excluded_reason` are English sentences that clients and tests read word for
word, so they stay; beside them `sharding_notice` and `excluded_notice` carry `{code, params, text}` (the same
shape as `solvers/base/notices.py`), `text` being exactly the English sentence. Codes are never renamed or reused.

Parameters are plain JSON numbers and names: `*_gb` are gigabytes per GPU, `hours` wall-clock hours, `gpus`,
`servers`, `batch`, `tokens`, `largest` and `max_gpus` counts, `gpu` a GPU type's name, `*_ms` milliseconds,
`*_pct` percentages (0-100).
"""

from __future__ import annotations

import math

from solvers.base.notices import Notice, Param

# how a training job is laid out on its GPUs (ZeRO stages as in the ZeRO paper), and a serving replica
SHARDING: dict[str, str] = {
    "ddp": "data parallel, states replicated",
    "zero1": "ZeRO-1 (optimizer states sharded)",
    "zero2": "ZeRO-2 (optimizer states and gradients sharded)",
    "zero3": "ZeRO-3 (weights, gradients and optimizer states sharded)",
    "tensor_parallel": "tensor parallel over {gpus} GPU(s) of one server, batch {batch} at {tokens} tokens",
    "tensor": "tensor parallel over {tp} GPU(s) of one server (Megatron-LM, sequence parallel), {dp} data-parallel "
              "group(s) sharing the optimizer states",
}
# what a training layout adds: full recomputation, and jobs wider than one server
FULL_RECOMPUTATION = "; full recomputation (gradient checkpointing)"
SERVERS = "; {servers} servers, >= 50 Gbit/s networking between them"

# why a GPU type cannot take part (compiler: memory and deadline; demand.py: the plan's own limits)
EXCLUDED: dict[str, str] = {
    "training_too_large": "does not fit: needs {need_gb:.1f} GB per GPU even on {gpus} GPUs ({activations_gb:.1f} GB "
                          "of it activations), {gpu} has {usable_gb:.1f} GB usable",
    "deadline_too_slow": "too slow for the deadline: {hours:.0f} h on {gpus} GPUs > {deadline_hours:g} h",
    "serving_too_large": "does not fit: weights plus one sequence's KV cache need {need_gb:.1f} GB, more than "
                         "{gpus} x {usable_gb:.1f} GB usable in one server",
    "serving_too_slow": "too slow to serve: {tpot_ms:.0f} ms per output token at best ({gpus} GPUs, "
                        "{communication_pct:.0f}% of it communication), more than the {bound_ms:g} ms MLPerf "
                        "Inference allows a server",
    "does_not_fit": "does not fit",
    "wider_than_planner": "needs {gpus} GPUs per job, more than the planner's {max_gpus}",
    "no_price": "no price: no purchase or cloud offer for this GPU among the prices the profile allows",
    "too_slow": "too slow: over a million times the GPU-hours of the fastest type",
    "below_min_memory": "less memory than min_gpu_memory_gb ({min_gb:g} GB)",
    "machine_too_small": "needs {gpus} GPUs per job; the largest machine on offer has {largest} (a job runs on one "
                         "machine)",
}


def excluded(code: str, **params: Param) -> Notice:
    """Why a GPU type is left out, as a code, its parameters and the English sentence (KeyError: unknown code)."""
    return Notice(code=code, params=params, text=EXCLUDED[code].format(**params))


def training_sharding(stage: str, full_recompute: bool, gpus: int, gpus_per_server: int,
                      tensor_parallel: int = 1) -> Notice:
    """A training job's layout: the ZeRO stage or tensor parallelism (code), whether it recomputes fully, how many
    servers it spans."""
    servers = math.ceil(gpus / gpus_per_server) if gpus > gpus_per_server else None
    params: dict[str, Param] = {"full_recomputation": full_recompute, "servers": servers}
    if stage == "tensor":
        params.update(tp=tensor_parallel, dp=max(1, gpus // tensor_parallel))
    text = SHARDING[stage].format(**params) + (FULL_RECOMPUTATION if full_recompute else "")
    if servers is not None:
        text += SERVERS.format(servers=servers)
    return Notice(code=stage, params=params, text=text)


def serving_sharding(gpus: int, batch: int, tokens: int) -> Notice:
    """A serving replica: tensor parallel over `gpus` GPUs of one server, `batch` sequences of `tokens` each."""
    params: dict[str, Param] = {"gpus": gpus, "batch": batch, "tokens": tokens}
    return Notice(code="tensor_parallel", params=params, text=SHARDING["tensor_parallel"].format(**params))
