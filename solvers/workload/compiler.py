"""Compile a workload into GPUs per job and hours per job for every GPU type.

Training and fine-tuning: FLOPs = k * N * D (k = 6, 4 for LoRA/QLoRA; full recomputation adds one forward
pass, 2 N D); a GPU type's achieved FLOP/s = its dense 16-bit peak x its family's achieved fraction, calibrated
on published LLM training runs (`mfu.py`: A100 56%, H100 41% of peak); the job takes the fewest GPUs whose
memory holds the sharded states plus one micro-batch's activations (plain data parallel when one GPU suffices,
else ZeRO-3 unless the user names a stage), widened until it meets the deadline. With `recompute: auto` (the
default) a type may run the job with selective or full recomputation: its GPUs per job are the fewest either
needs, so a 24 GB card that cannot hold a 13B LoRA fine-tune's activations with selective recomputation holds it
with gradient checkpointing, as fine-tuning practice does (QLoRA, Dettmers et al. 2023, trains with gradient
checkpointing); a wider job of the same type takes whichever of the two fits there with fewer FLOPs (`hours_at`).
Serving (`serving.py`): a replica is tensor-parallel over 1, 2, 4 or 8 GPUs of one server that hold the weights and
at least one sequence's KV cache, the size with the fewest GPU-hours for the demand among those that stream within
MLPerf's 200 ms per output token; prefill is compute-bound (2N FLOPs per prompt token at the training fraction of
the precision's peak), decode bandwidth-bound (weights plus the batch's KV cache read once per step at 70% of peak
bandwidth), both plus the tensor-parallel all-reduces over the link, and the batch is the largest that fits.
All coefficients and their sources: `coefficients.py` and README.md.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from pricing.gpus import GpuSpec, bundled_gpus
from solvers.base.notices import Param
from solvers.base.performance import is_extrapolated
from solvers.base.workload import Estimate, GpuEstimate, RecomputeFit, Workload
from solvers.workload import coefficients as c
from solvers.workload import comm, mfu
from solvers.workload.memory import Shape, shape_of, trainable_params, training_memory
from solvers.workload.reasons import excluded, training_sharding
from solvers.workload.serving import HOURS_PER_MONTH as HOURS_PER_MONTH  # re-exported (demand.py)
from solvers.workload.serving import estimate_serving


def scaling(gpus: int) -> float:
    """Speed-up of `gpus` data-parallel GPUs over one (DOMAIN §3 up to 4; 95% per doubling beyond)."""
    if gpus in c.SCALING:
        return c.SCALING[gpus]
    if gpus < 4:
        return float(gpus)
    return float(gpus * (c.SCALING[4] / 4) * c.SCALING_PER_DOUBLING_BEYOND_4 ** math.log2(gpus / 4))


def workload_class(workload: Workload) -> str:
    """The throughput model's class for the workload: transformer training, or 16/8-bit inference."""
    if workload.kind != "serve":
        return "transformer_training"
    return "inference_8bit" if workload.precision in ("fp8", "int8", "int4") else "inference_16bit"


def achieved_tflops(spec: GpuSpec, workload_class: str) -> float:
    """Sustained dense TFLOPS of one GPU on the class: the GPU's achieved fraction in LLM training (`mfu.py`) times
    its peak in the class's precision (training and 16-bit prefill: BF16/FP16 with FP32 accumulate; 8-bit: 8-bit).
    Compute-led, not the bandwidth-led throughput model: large transformers' matrix products are compute-bound."""
    if workload_class == "transformer_training":
        return mfu.training_tflops(spec)
    return mfu.prefill_tflops(spec, eight_bit=workload_class == "inference_8bit")


def extrapolated(spec: GpuSpec, workload_class: str) -> bool:
    """Whether a row's speed rests on no measurement of this GPU: training needs a published LLM training run or
    ratio; serving also the throughput model's measurement of the inference class (decode is bandwidth-bound)."""
    llm = mfu.fraction(spec).extrapolated
    return llm if workload_class == "transformer_training" else llm or is_extrapolated(spec.name, workload_class)


def training_flops(workload: Workload, shape: Shape) -> float:
    """FLOPs of one job with the workload's recomputation (`auto` counts none: each GPU type adds its own)."""
    assert workload.tokens is not None
    if workload.kind == "fine_tune" and workload.method in ("lora", "qlora"):
        per = c.ADAPTER_FLOPS_PER_PARAM_TOKEN
    else:
        per = c.TRAIN_FLOPS_PER_PARAM_TOKEN
    if workload.recompute == "full":
        per += c.RECOMPUTE_FLOPS_PER_PARAM_TOKEN
    return per * shape.params * workload.tokens


def _recompute_modes(workload: Workload) -> list[Workload]:
    """The workload once per recomputation it may run with, least recomputation first."""
    if workload.recompute != "auto":
        return [workload]
    return [workload.model_copy(update={"recompute": mode}) for mode in ("selective", "full")]


def _stages(workload: Workload) -> list[str]:
    return ["ddp", "zero3"] if workload.sharding == "auto" else [workload.sharding]


def tensor_degrees(shape: Shape) -> list[int]:
    """Tensor-parallel sizes within one server: 1, 2, 4, 8 where they divide the attention heads (Megatron-LM splits
    heads across GPUs)."""
    return [t for t in (1, 2, 4, 8) if t <= c.GPUS_PER_SERVER and shape.heads % t == 0]


def _fewest_tensor(workload: Workload, shape: Shape, usable_gb: float, limit: int) -> tuple[int, int] | None:
    """(GPUs, tensor-parallel size): the smallest group of one server that holds the job, else the largest group
    times the fewest data-parallel groups whose sharded optimizer states make it fit."""
    degrees = [t for t in tensor_degrees(shape) if t <= limit]
    for t in degrees:
        if training_memory(workload, shape, "tensor", t, t).total <= usable_gb:
            return t, t
    t = degrees[-1]
    fixed = training_memory(workload, shape, "tensor", t, t)
    if fixed.total - fixed.optimizer_states >= usable_gb:
        return None
    groups = math.ceil(fixed.optimizer_states / (usable_gb - (fixed.total - fixed.optimizer_states)) - 1e-9)
    while t * groups <= limit:
        if training_memory(workload, shape, "tensor", t * groups, t).total <= usable_gb:
            return t * groups, t
        groups += 1
    return None


def step_inputs(workload: Workload, shape: Shape) -> comm.StepInputs:
    """What one micro-batch step computes and communicates (`comm.training_step`), from the workload as it runs
    (its recomputation resolved)."""
    assert workload.tokens is not None
    trainable = trainable_params(workload, shape)
    return comm.StepInputs(
        flops_per_param_token=training_flops(workload, shape) / (shape.params * workload.tokens),
        params=shape.params, micro_tokens=workload.micro_batch * workload.sequence_length,
        gradient_bytes=trainable * c.GRADIENT_BYTES_16BIT, trainable_weight_bytes=trainable * c.WEIGHT_BYTES_16BIT,
        weight_bytes=training_memory(workload, shape, "ddp", 1).weights * 1e9,
        activation_bytes_per_layer=workload.micro_batch * workload.sequence_length * shape.hidden
        * c.WEIGHT_BYTES_16BIT,
        layers=shape.layers, recompute_full=workload.recompute == "full",
        global_batch_tokens=workload.global_batch_tokens)


def job_hours(workload: Workload, shape: Shape, gpu: str, per_gpu: float, stage: str, tensor_parallel: int,
              width: int, flops: float) -> tuple[float, comm.StepTime]:
    """Wall-clock hours of one job on `width` GPUs and its step: the FLOPs at the achieved FLOP/s, the guide's
    data-parallel speed-up at the GPUs used (synchronisation, stragglers, input pipeline: `scaling`), stretched by
    the step time the link adds (`comm.training_step`: compute + communication not hidden). A tensor-parallel job
    uses whole groups of `tensor_parallel` GPUs."""
    used = width if stage != "tensor" else tensor_parallel * max(1, width // tensor_parallel)
    step = comm.training_step(step_inputs(workload, shape), gpu, stage, used, tensor_parallel, per_gpu)
    return flops / (per_gpu * 1e12 * scaling(used)) / step.efficiency / 3600, step


def _widths_from(stage: str, gpus: int, tensor_parallel: int, limit: int) -> range:
    """Job widths from `gpus` up to `limit` a layout can run at (tensor parallel: whole groups)."""
    step = tensor_parallel if stage == "tensor" else 1
    return range(gpus, limit + 1, step)


def _fewest_gpus(workload: Workload, shape: Shape, stage: str, usable_gb: float) -> int | None:
    """Fewest data-parallel GPUs whose memory holds the job: per-GPU memory is fixed + shardable / n."""
    one = training_memory(workload, shape, stage, 1).total
    if stage == "ddp":
        return 1 if one <= usable_gb else None
    shardable = 2 * (one - training_memory(workload, shape, stage, 2).total)
    fixed = one - shardable
    if fixed >= usable_gb:
        return None
    n = max(1, math.ceil(shardable / (usable_gb - fixed) - 1e-9))
    while training_memory(workload, shape, stage, n).total > usable_gb:  # float rounding at the boundary
        n += 1
    return n


@dataclass(frozen=True)
class _Fit:
    """One way a GPU type runs the job: recomputation, ZeRO stage, GPUs and hours at that width."""

    workload: Workload
    stage: str
    gpus: int
    flops: float
    hours: float
    tensor_parallel: int
    step: comm.StepTime

    @property
    def gpu_hours(self) -> float:
        return self.gpus * self.hours


def _layout(workload: Workload, shape: Shape, stage: str, usable: float, limit: int) -> tuple[int, int] | None:
    """(GPUs, tensor-parallel size) of the fewest GPUs that hold the job with `stage`, or None."""
    if stage == "tensor":
        return _fewest_tensor(workload, shape, usable, limit)
    n = _fewest_gpus(workload, shape, stage, usable)
    return (n, 1) if n is not None and n <= limit else None


def _fit(workload: Workload, shape: Shape, usable: float, per_gpu: float, gpu: str) -> _Fit | dict[str, Param]:
    """The fewest GPUs that hold the job with this recomputation, widened for the deadline; else why not (a
    reason's code and parameters, `reasons.EXCLUDED`; the GPU's own name and memory are added by the caller)."""
    limit = workload.max_gpus_per_job
    choice = next(((stage, layout) for stage in _stages(workload)
                   if (layout := _layout(workload, shape, stage, usable, limit)) is not None), None)
    if choice is None:
        stage = _stages(workload)[-1]
        worst = training_memory(workload, shape, stage, limit, min(limit, max(tensor_degrees(shape))))
        return {"code": "training_too_large", "need_gb": worst.total, "gpus": limit,
                "activations_gb": worst.activations}
    stage, (n, tp) = choice
    flops = training_flops(workload, shape)

    def hours(width: int) -> tuple[float, comm.StepTime]:
        return job_hours(workload, shape, gpu, per_gpu, stage, tp, width, flops)

    if workload.deadline_hours is not None and hours(n)[0] > workload.deadline_hours:
        # wider data parallelism: per-GPU memory stays (ddp) or shrinks (ZeRO, tensor groups' optimizer states), so
        # it still fits; over a slow link a wider job may not be faster, so every width is tried
        widths = _widths_from(stage, n, tp, limit)
        fast = next((w for w in widths if hours(w)[0] <= workload.deadline_hours), None)
        if fast is None:
            return {"code": "deadline_too_slow", "hours": hours(widths[-1])[0], "gpus": widths[-1],
                    "deadline_hours": workload.deadline_hours}
        n = fast
    at_n, step = hours(n)
    return _Fit(workload, stage, n, flops, at_n, tp, step)


def _estimate_training(workload: Workload, shape: Shape, spec: GpuSpec) -> GpuEstimate:
    """The fewest GPUs that hold the job with any recomputation the workload allows, and at that width the one with
    the fewest FLOPs (selective before full). Wider jobs may take another: `hours_at` reads `recompute_options`."""
    wclass = workload_class(workload)
    per_gpu = achieved_tflops(spec, wclass)
    common = {"gpu": spec.name, "achieved_tflops_per_gpu": per_gpu, "extrapolated": extrapolated(spec, wclass)}
    usable = spec.memory_gb * workload.usable_memory_fraction
    tried = [_fit(mode, shape, usable, per_gpu, spec.name) for mode in _recompute_modes(workload)]
    fits = [f for f in tried if isinstance(f, _Fit)]
    if not fits:  # the last mode recomputes most, so its reason is the closest miss
        last = tried[-1]
        assert isinstance(last, dict)
        params = dict(last)
        code = str(params.pop("code"))
        if code == "training_too_large":
            params.update(gpu=spec.name, usable_gb=usable)
        why = excluded(code, **params)
        return GpuEstimate(fits=False, excluded_reason=why.text, excluded_notice=why, **common)
    best = min(fits, key=lambda f: (f.gpus, f.hours, f.flops))
    memory = training_memory(best.workload, shape, best.stage, best.gpus, best.tensor_parallel)
    sharding = training_sharding(best.stage, best.workload.recompute == "full", best.gpus, c.GPUS_PER_SERVER,
                                 best.tensor_parallel)
    options = [RecomputeFit(recompute=f.workload.recompute, min_gpus=f.gpus, flops=f.flops, stage=f.stage,
                            tensor_parallel=f.tensor_parallel) for f in fits]
    link = best.step.link
    return GpuEstimate(fits=True, gpus_per_job=best.gpus, hours_per_job=best.hours, gpu_hours=best.gpu_hours,
                       memory_per_gpu_gb=memory.total, memory=memory, sharding=sharding.text,
                       sharding_notice=sharding, recompute=best.workload.recompute, flops=best.flops,
                       recompute_options=options,
                       tensor_parallel=best.tensor_parallel if best.stage == "tensor" else None,
                       interconnect=link.describe() if link else None,
                       bus_bandwidth_gbs=link.bus_gbs if link else None,
                       communication_efficiency=best.step.efficiency, **common)


def hours_at(workload: Workload, row: GpuEstimate, width: int) -> float:
    """Wall-clock hours of one training job on `width` GPUs of the row's type (width >= row.gpus_per_job): of the
    recomputations that fit at that width, the one with the fewest hours at the type's achieved FLOP/s, the
    data-parallel speed-up at `width` and the communication of its layout at `width` (`job_hours`)."""
    shape = shape_of(workload.model)
    return min(job_hours(workload.model_copy(update={"recompute": o.recompute}), shape, row.gpu,
                         row.achieved_tflops_per_gpu, o.stage, o.tensor_parallel, width, o.flops)[0]
               for o in row.recompute_options if o.min_gpus <= width)


def _estimate_serving(workload: Workload, shape: Shape, spec: GpuSpec) -> GpuEstimate:
    """A replica tensor-parallel over 1, 2, 4 or 8 GPUs of one server, its communication included (`serving.py`)."""
    wclass = workload_class(workload)
    per_gpu = achieved_tflops(spec, wclass)
    common = {"gpu": spec.name, "achieved_tflops_per_gpu": per_gpu, "extrapolated": extrapolated(spec, wclass)}
    return estimate_serving(workload, shape, spec, per_gpu, common)


def estimate(workload: Workload, gpus: Iterable[GpuSpec] | None = None) -> Estimate:
    """The workload on each GPU type: GPUs per job, hours per job (serve: replica-hours per month)."""
    shape = shape_of(workload.model)
    specs = list(gpus) if gpus is not None else list(bundled_gpus())
    if workload.kind == "serve":
        assert workload.tokens is not None or workload.requests_per_second is not None
        rows = [_estimate_serving(workload, shape, s) for s in specs]
        if workload.tokens is not None:
            month_tokens = workload.tokens
        else:
            assert workload.requests_per_second is not None
            month_tokens = workload.requests_per_second * HOURS_PER_MONTH * 3600 * workload.output_tokens
        prompt_share = workload.context_length / workload.output_tokens  # prompt + output tokens per output token
        flops: float | None = c.INFERENCE_FLOPS_PER_PARAM_TOKEN * shape.params * month_tokens * prompt_share
    else:
        flops = training_flops(workload, shape)
        rows = [_estimate_training(workload, shape, s) for s in specs]
    rows.sort(key=lambda r: (not r.fits, r.gpu_hours if r.gpu_hours is not None else math.inf, r.gpu))
    return Estimate(kind=workload.kind, flops=flops, params=shape.params,
                    trainable_params=trainable_params(workload, shape), layers=shape.layers, hidden=shape.hidden,
                    assumptions=assumptions(workload), gpus=rows)


def assumptions(workload: Workload) -> list[str]:
    """What the numbers assume, in words the plan can show."""
    notes = ["achieved FLOP/s: each GPU's dense 16-bit peak (FP32 accumulate) times its family's achieved fraction "
             "in published LLM training runs (A100 56%, H100 41%: llm-foundry, torchtitan; solvers/workload/mfu.py)"]
    if workload.kind == "serve":
        notes += [f"decode reads all weights and the batch's KV cache every step at "
                  f"{c.DECODE_BANDWIDTH_UTILISATION:.0%} of peak bandwidth; prefill at the achieved FLOP/s",
                  "KV cache in 16-bit for the full context of every sequence in the batch",
                  "a replica over several GPUs all-reduces 16-bit activations twice per layer (Megatron-LM tensor "
                  "parallelism), every decode step and every prompt, at the link's measured NCCL bus bandwidth plus "
                  "a fixed latency per all-reduce from published small-message nccl-tests times (through host memory, "
                  "slower, for GeForce cards on PCIe: no peer-to-peer on the stock driver); not overlapped with "
                  "compute (solvers/workload/serving.py)",
                  f"a replica size serves only if each sequence streams within "
                  f"{c.SERVING_MAX_TIME_PER_OUTPUT_TOKEN_S * 1e3:.0f} ms per output token (MLPerf Inference's Server "
                  "bound for llama2-70b)",
                  *([] if workload.model.kv_heads is not None else [
                      "as many key/value heads as attention heads (model.kv_heads not given: full multi-head "
                      "attention); a grouped-query model (Llama 2 70B, Llama 3: 8 KV heads) keeps a fraction of "
                      "that KV cache and serves more per replica: give model.kv_heads"]),
                  "hours_per_job: replica-hours per month for the demand given"]
    else:
        notes += ["mixed precision with Adam: 16 bytes per trainable parameter (ZeRO paper)",
                  f"activations of one micro-batch of {workload.micro_batch} x {workload.sequence_length} tokens, "
                  + (f"{workload.recompute} recomputation" if workload.recompute != "auto" else
                     "selective recomputation, or full (gradient checkpointing, one more forward pass) on a GPU "
                     "type where that takes fewer GPU-hours")
                  + " (Korthikanti et al. 2022)",
                  "data-parallel scaling 1.9x/2.8x/3.5x on 2/3/4 GPUs (guide), 95% per doubling beyond, for "
                  "everything but the link; the link's cost on top: step time = compute + communication not hidden "
                  f"behind {c.OVERLAP:.0%} of the backward pass (ring collectives at each link's measured NCCL bus "
                  "bandwidth: solvers/workload/comm.py)",
                  f"gradients all-reduced once per global batch of {workload.global_batch_tokens:,.0f} tokens "
                  "(ddp, ZeRO-1); ZeRO-2/3 reduce-scatter (and ZeRO-3 all-gathers the weights twice) every "
                  "micro-batch; tensor parallelism all-reduces activations 4 times per layer and micro-batch "
                  "(6 with full recomputation), not hidden"]
    return notes
