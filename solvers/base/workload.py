"""The workload form users speak ("fine-tune a 13B model with LoRA on 2B tokens") and the estimate it compiles to.

Pydantic models so the API and CLI validate with the same rules and 422s name the field and the rule.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from solvers.base.bounds import MIN_FRACTION, at_least
from solvers.base.notices import Notice

Kind = Literal["train", "fine_tune", "serve"]
Method = Literal["full", "lora", "qlora"]
Precision = Literal["bf16", "fp16", "fp8", "int8", "int4"]
Sharding = Literal["auto", "ddp", "zero1", "zero2", "zero3", "tensor"]
Recompute = Literal["auto", "selective", "full"]

# Global batch in tokens per optimizer step when the workload does not say (gradient accumulation up to it): GPT-3's
# smallest, 0.5M tokens for its 125M model (Brown et al. 2020, table 2.1; 1M-3.2M for the larger ones), the most
# frequent data-parallel all-reduce among its models, hence a conservative default.
GLOBAL_BATCH_TOKENS = 524_288


class ModelShape(BaseModel):
    """A dense decoder-only transformer; only `params_b` is required, the rest is derived when absent."""

    model_config = ConfigDict(extra="forbid")

    # at least a thousand parameters (1e-6 billion): a subnormal size (5e-324) divided into infinity (issue 31)
    params_b: Annotated[float, at_least(MIN_FRACTION)] = Field(gt=0, le=20000,
                                                               description="parameters, billions (7 for a 7B model)")
    layers: int | None = Field(
        default=None, ge=1, le=1000, description="transformer layers; derived from params_b when absent (N = 12 L "
        "h^2, h / L = 128)")
    hidden: int | None = Field(default=None, ge=64, le=262144, description="model width (d_model)")
    heads: int | None = Field(
        default=None, ge=1, le=4096, description="attention heads; derived when absent (head_dim 128, rounded to a "
        "multiple of 8)")
    kv_heads: int | None = Field(default=None, ge=1, le=4096, description="key/value heads (grouped-query attention)")

    @model_validator(mode="after")
    def _kv_heads_divide_heads(self) -> ModelShape:
        if self.heads is not None and self.kv_heads is not None and self.heads % self.kv_heads:
            raise ValueError("kv_heads must divide heads")
        return self


class Workload(BaseModel):
    """One job (train, fine_tune) or one service (serve) in the user's terms."""

    model_config = ConfigDict(extra="forbid")

    kind: Kind = Field(description="train (pre-training), fine_tune, or serve (an always-on service)")
    model: ModelShape = Field(description="the model's size; only params_b is required")
    precision: Precision = Field(default="bf16", validate_default=True,
                                 description="training: bf16 or fp16; serving: any")
    # at least one token: a subnormal count (1e-320) made a job's hours infinite (issue 31)
    tokens: Annotated[float, at_least(1.0)] | None = Field(
        default=None, gt=0, le=1e16, validate_default=True,
        description="train/fine_tune: tokens one job processes; serve: generated tokens per month")
    method: Method = Field(default="full", validate_default=True, description="fine_tune only: full, lora or qlora")
    lora_rank: int = Field(default=16, ge=1, le=4096, description="fine_tune with lora or qlora: the adapters' rank")
    sequence_length: int = Field(
        default=4096, ge=16, le=2_000_000, description="train/fine_tune: tokens per sequence")
    micro_batch: int = Field(default=1, ge=1, le=4096, description="sequences per GPU per step")
    recompute: Recompute = Field(
        default="auto",
        description="activation recomputation: selective (attention recomputed, FlashAttention-style), full "
        "(gradient checkpointing: one more forward pass, far less activation memory), or auto: per GPU type the "
        "choice with the fewest GPU-hours per job that fits")
    sharding: Sharding = Field(
        default="auto", description="auto: plain data parallel if it fits, else ZeRO-3; tensor: Megatron-LM tensor "
        "parallelism (with sequence parallelism) over the fewest GPUs of one server (1, 2, 4 or 8, dividing heads) "
        "that hold the job, data parallel over such groups beyond")
    global_batch_tokens: Annotated[float, at_least(1.0)] = Field(
        default=GLOBAL_BATCH_TOKENS, gt=0, le=1e10,
        description="tokens per optimizer step (gradient accumulation up to it): how often data-parallel gradients "
        "are all-reduced; default GPT-3's smallest batch, 0.5M tokens")
    deadline_hours: float | None = Field(default=None, gt=0, le=1e6, description="a job must finish within this")
    max_gpus_per_job: int = Field(
        default=64, ge=1, le=4096, description="widest job a GPU type may run at; a type that needs more is left out")
    requests_per_second: Annotated[float, at_least(MIN_FRACTION)] | None = Field(
        default=None, gt=0, le=1e7, validate_default=True, description="serve: requests a second, instead of tokens "
        "(with context_length, output_tokens and batch_size)")
    context_length: int = Field(default=4096, ge=16, le=2_000_000, description="serve: prompt + output tokens")
    output_tokens: int = Field(default=256, ge=1, le=1_000_000, validate_default=True,
                               description="serve: generated tokens per request")
    batch_size: int = Field(default=32, ge=1, le=65536, description="serve: concurrent sequences per replica")
    usable_memory_fraction: float = Field(
        default=0.90, gt=0.1, le=1.0, description="share of a GPU's memory a job may use (CUDA context, "
        "fragmentation)")

    # Field validators (not one model validator) so a 422 names the field that breaks the rule.
    @field_validator("precision")
    @classmethod
    def _training_precision(cls, value: str, info: ValidationInfo) -> str:
        if info.data.get("kind") in ("train", "fine_tune") and value not in ("bf16", "fp16"):
            raise ValueError("training precision must be bf16 or fp16 (mixed precision)")
        return value

    @field_validator("tokens")
    @classmethod
    def _tokens_for_training(cls, value: float | None, info: ValidationInfo) -> float | None:
        kind = info.data.get("kind")
        if kind in ("train", "fine_tune") and value is None:
            raise ValueError(f"tokens is required for kind {kind!r}")
        return value

    @field_validator("method")
    @classmethod
    def _method_for_fine_tune(cls, value: str, info: ValidationInfo) -> str:
        if info.data.get("kind") == "train" and value != "full":
            raise ValueError("method lora/qlora applies to kind 'fine_tune' only")
        return value

    @field_validator("requests_per_second")
    @classmethod
    def _one_serving_demand(cls, value: float | None, info: ValidationInfo) -> float | None:
        if info.data.get("kind") == "serve" and (info.data.get("tokens") is None) == (value is None):
            raise ValueError("serve needs exactly one of tokens (per month) or requests_per_second")
        return value

    @field_validator("output_tokens")
    @classmethod
    def _output_within_context(cls, value: int, info: ValidationInfo) -> int:
        context = info.data.get("context_length")
        if info.data.get("kind") == "serve" and context is not None and value >= context:
            raise ValueError("output_tokens must be smaller than context_length")
        return value


class MemoryBreakdown(BaseModel):
    """GB per GPU, as the job would allocate it."""

    weights: float = Field(description="model weights, GB per GPU")
    gradients: float = Field(description="gradients, GB per GPU")
    optimizer_states: float = Field(description="optimizer states (mixed-precision Adam), GB per GPU")
    activations: float = Field(description="activations, GB per GPU")
    kv_cache: float = Field(description="serving: key/value cache, GB per GPU")
    total: float = Field(description="all of it, GB per GPU")


class RecomputeFit(BaseModel):
    """One activation recomputation a training job fits with on a GPU type."""

    recompute: Literal["selective", "full"] = Field(description="selective or full activation recomputation")
    min_gpus: int = Field(description="fewest GPUs of the type that hold the job with it (deadline included)")
    flops: float = Field(description="FLOPs one job executes with it")
    stage: str = Field("ddp", description="the layout it fits with (ddp, zero1, zero2, zero3, tensor); wider jobs "
                       "keep it")
    tensor_parallel: int = Field(1, description="GPUs per tensor-parallel group (stage tensor)")


class GpuEstimate(BaseModel):
    """One GPU type: how many per job, how long, or why it is left out."""

    gpu: str = Field(description="the GPU type")
    fits: bool = Field(description="the job runs on this type (within max_gpus_per_job and the deadline)")
    excluded_reason: str | None = Field(None, description="why the type is left out, in English (null when it fits)")
    excluded_notice: Notice | None = Field(None, description="excluded_reason as a stable code and its parameters "
                                           "(solvers/workload/reasons.py), for a client that says it in its language")
    gpus_per_job: int | None = Field(
        None, description="fewest GPUs of this type that hold one job (serve: one replica)")
    hours_per_job: float | None = Field(
        None, description="wall-clock hours of one job on gpus_per_job GPUs (serve: replica-hours per month)")
    gpu_hours: float | None = Field(None, description="GPU-hours of one job (serve: per month)")
    memory_per_gpu_gb: float | None = Field(None, description="memory one GPU needs, GB")
    memory: MemoryBreakdown | None = Field(None, description="that memory in parts")
    sharding: str | None = Field(None, description="how the job is laid out on its GPUs, in English")
    sharding_notice: Notice | None = Field(None, description="sharding as a stable code (ddp, zero1, zero2, zero3, "
                                           "tensor_parallel) and its parameters (solvers/workload/reasons.py)")
    recompute: Literal["selective", "full"] | None = Field(
        None, description="the activation recomputation this GPU type runs the job with at gpus_per_job (training)")
    flops: float | None = Field(None, description="FLOPs one job executes on this type at gpus_per_job, "
                                "recomputation included")
    recompute_options: list[RecomputeFit] = Field(
        default_factory=list, description="training: each recomputation the job fits with on this type, from how "
        "many GPUs, at what FLOPs; a wider job takes the one with the fewest FLOPs that fits at its width")
    achieved_tflops_per_gpu: float = Field(description="throughput one GPU reaches on the job, TFLOP/s")
    extrapolated: bool = Field(description="the throughput rests on specs, not a measurement of this GPU")
    tensor_parallel: int | None = Field(None, description="training with sharding tensor: GPUs of one tensor-parallel "
                                        "group (the job runs gpus_per_job // tensor_parallel such groups)")
    interconnect: str | None = Field(None, description="on more than one GPU (a training job or a serving "
                                     "replica): the link the collectives run over at gpus_per_job and the bus "
                                     "bandwidth assumed (solvers/workload/comm.py)")
    bus_bandwidth_gbs: float | None = Field(None, description="GB/s a ring collective reaches on that link")
    communication_efficiency: float | None = Field(
        None, description="training: compute time over step time at gpus_per_job (1: communication fully hidden); "
        "serve: a replica's time per request without its tensor-parallel all-reduces over the time with them "
        "(1 - the communication share; solvers/workload/serving.py)")
    all_reduce_latency_us: float | None = Field(
        None, description="serve, replica over more than one GPU: the fixed time of one all-reduce assumed on its "
        "path (peer to peer, or through host memory for GeForce cards on PCIe), fitted on published nccl-tests "
        "small-message times")
    time_per_output_token_ms: float | None = Field(
        None, description="serve: the replica's decode step at its batch, communication included: how fast each "
        "sequence streams (at most 200 ms, MLPerf Inference's Server bound)")


class Estimate(BaseModel):
    """The compiled workload: totals that do not depend on the GPU, then one row per GPU type."""

    kind: Kind = Field(description="train, fine_tune or serve")
    flops: float | None = Field(description="training/fine-tuning: FLOPs of one job as configured (recompute auto: "
                                "without recomputation; each GPU row gives what it executes); serve: FLOPs per month")
    params: float = Field(description="parameters of the model")
    trainable_params: float = Field(description="parameters trained (the adapters' with LoRA or QLoRA)")
    layers: int = Field(description="transformer layers (given or derived)")
    hidden: int = Field(description="model width (given or derived)")
    assumptions: list[str] = Field(description="what the compiler assumed, in English")
    gpus: list[GpuEstimate] = Field(description="one row per GPU type")


class PlanWorkload(Workload):
    """The workload form of a plan profile (`Profile.workload` as an object): the job plus how often it runs.

    The planner compiles it per GPU type (`solvers/workload/demand.py`); `serve` is read as always-on demand.
    """

    jobs_per_month: float | None = Field(
        default=None, gt=0, le=1e6, validate_default=True,
        description="train/fine_tune: jobs started per month (default 1); serve: not used (the demand is tokens "
        "per month or requests_per_second)")

    @field_validator("jobs_per_month")
    @classmethod
    def _jobs_for_training(cls, value: float | None, info: ValidationInfo) -> float | None:
        if info.data.get("kind") == "serve" and value is not None:
            raise ValueError("jobs_per_month applies to train and fine_tune; serve demand is tokens per month or "
                             "requests_per_second")
        return value

    @property
    def jobs(self) -> float:
        """Jobs per month, the documented default 1."""
        return 1.0 if self.jobs_per_month is None else self.jobs_per_month


class WidthInPlan(BaseModel):
    """One job width a GPU type runs at in the plan."""

    gpus_per_job: int = Field(description="GPUs one job takes on this type in the plan")
    hours_per_job: float = Field(description="wall-clock hours of one job at this width (serve: replica-hours per "
                                 "month)")


class WorkloadPlanRow(BaseModel):
    """One GPU type as the plan saw it: the compiler's job on it, and whether the plan could use it."""

    gpu: str = Field(description="the GPU type")
    in_plan: bool = Field(description="the planner could buy or rent this type (it fits, is fast enough, has a price "
                          "and a machine that holds a job)")
    excluded_reason: str | None = Field(None, description="why the planner could not use it")
    excluded_notice: Notice | None = Field(None, description="excluded_reason as a stable code and its parameters "
                                           "(solvers/workload/reasons.py)")
    gpus_per_job: int | None = Field(None, description="fewest GPUs of this type that hold one job (serve: a replica)")
    hours_per_job: float | None = Field(None, description="wall-clock hours of one job on gpus_per_job GPUs; serve: "
                                        "replica-hours per month")
    gpu_hours: float | None = Field(None, description="GPU-hours of one job (serve: per month)")
    memory_per_gpu_gb: float | None = Field(None, description="memory one GPU needs at gpus_per_job, GB")
    sharding: str | None = Field(None, description="how a job is laid out on its GPUs, in English")
    sharding_notice: Notice | None = Field(None, description="sharding as a stable code and its parameters "
                                           "(solvers/workload/reasons.py)")
    interconnect: str | None = Field(None, description="the link a job's (serve: a replica's) GPUs communicate over "
                                     "at gpus_per_job and its bus bandwidth (on more than one GPU)")
    communication_efficiency: float | None = Field(None, description="training: compute time over step time at "
                                                   "gpus_per_job; serve: a replica's time per request without its "
                                                   "all-reduces over the time with them")
    planned_hours_per_job: float | None = Field(
        None, description="hours of one job at the narrowest width the plan runs this type at (at gpus_per_job when "
        "the plan does not buy or rent it)")
    extrapolated: bool = Field(description="the throughput rests on specs, not a measurement of this GPU")
    widths: list[int] = Field(default_factory=list, description="job widths the planner could run this type at: "
                              "gpus_per_job, and wider where that fills its machines or is another type's width")
    plan_widths: list[WidthInPlan] = Field(default_factory=list, description="the widths the plan buys or rents this "
                                           "type for (empty: the plan does not use it)")


class WorkloadPlan(BaseModel):
    """The workload form behind a plan: one row per GPU type considered, and how it became demand."""

    kind: Kind = Field(description="train, fine_tune or serve")
    plan_gpus_per_job: int | None = Field(description="the job width of every job in the plan when all run at one "
                                          "width; null when the plan mixes widths (each GPU type at its own: "
                                          "gpus[].plan_widths)")
    widths_tried: list[int] = Field(description="every job width some GPU type could run at")
    reference_gpu: str = Field(description="the plan's work is counted in GPU-hours of this type")
    reference_gpus_per_job: int = Field(1, description="the reference type's job width: work counts its jobs")
    reference_gpu_hours_per_month: float = Field(
        description="the demand the plan saw, in hours of reference_gpu a month "
        "(periods[].demand_reference_gpu_hours are in that GPU's hours)")
    jobs_per_month: float | None = Field(description="workload.jobs_per_month (null for serve)")
    flops: float | None = Field(description="FLOPs of one job (serve: per month)")
    params: float = Field(description="parameters of the model")
    trainable_params: float = Field(description="parameters trained")
    assumptions: list[str] = Field(description="what the compiler assumed, in English")
    gpus: list[WorkloadPlanRow] = Field(description="one row per GPU type considered")
