"""What GET /v1/gpus and GET /v1/prices answer: one row per GPU model, one row per price in force.

Rows allow extra fields: a column added to the GPU table or the price catalog (pricing/) reaches the API
at once and is documented here when it becomes part of the contract.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FLAGS_DOC = ("the catalog audit's flags on this row (`gpuplan catalog audit`): 'check: reason [action]', action "
             "quarantined, confirmed, withdrawn, noted or unexplained")
QUARANTINED_DOC = "held back from plans by the catalog audit (kept and shown here with its reason)"


class GpuOut(BaseModel):
    """A GPU model as its vendor specifies it; `source` says where each figure is from."""

    model_config = ConfigDict(extra="allow")

    name: str
    aliases: list[str]
    vendor: str
    architecture: str
    chip: str
    segment: str
    form_factor: str
    memory_gb: float
    memory_bandwidth_gbs: float
    tdp_w: float
    fp16_tensor_tflops: float | None
    fp8: bool
    tensor_cores: bool
    launch_date: str
    launch_price_usd: float | None
    source: str
    notes: str
    relative_throughput: float | None = Field(
        None, description="modelled throughput relative to `reference_gpu` (only when `workload` is given)")
    extrapolated_workloads: list[str] = Field(
        default_factory=list, description="workload classes no bundled measurement of this GPU backs")
    extrapolated: bool | None = Field(
        None, description="with `workload`: the throughput is extrapolated from specs, not backed by a measurement")


class CloudPriceOut(BaseModel):
    """A cloud offer in force: USD per instance-hour."""

    model_config = ConfigDict(extra="allow")

    kind: Literal["cloud"]
    provider: str
    name: str
    gpu: str
    gpu_count: int
    usd_per_hour: float
    region: str
    pricing: str
    source: str
    as_of: str
    feed: str
    flags: list[str] = Field(default_factory=list, description=FLAGS_DOC)
    quarantined: bool = Field(False, description=QUARANTINED_DOC)
    max_instances: float | None = Field(description="quota: instances one may rent at once (marketplace: listings)")
    p10_usd_per_hour: float | None = Field(None, description="marketplace aggregate: 10th percentile of the listings")
    listings: int | None = Field(None, description="marketplace aggregate: how many listings the median is over")
    reliability: float | None = Field(None, description="marketplace aggregate: median host reliability (0..1)")


class CommitmentPriceOut(BaseModel):
    """A reserved or committed price: USD per instance-hour over `term_months`, paid whether used or not.

    The planner uses them as decision variables when a profile sets options.allow_commitments (issue 16)."""

    model_config = ConfigDict(extra="allow")

    kind: Literal["commitment"]
    provider: str
    name: str
    gpu: str
    gpu_count: int
    usd_per_hour: float
    region: str
    pricing: Literal["reserved", "committed"]
    term_months: int
    payment: str = Field(description="no_upfront | partial_upfront | all_upfront; empty: the source does not say")
    source: str
    as_of: str
    feed: str
    flags: list[str] = Field(default_factory=list, description=FLAGS_DOC)
    quarantined: bool = Field(False, description=QUARANTINED_DOC)


class HardwarePriceOut(BaseModel):
    """A hardware price in force: USD per unit (a card, or a machine when `includes_host`)."""

    model_config = ConfigDict(extra="allow")

    kind: Literal["new", "used"]
    name: str
    gpu: str
    condition: Literal["new", "used"]
    gpus_per_unit: int
    unit_price_usd: float
    includes_host: bool
    watts: float | None
    idle_watts: float | None
    vendor: str
    source: str
    as_of: str
    feed: str
    flags: list[str] = Field(default_factory=list, description=FLAGS_DOC)
    quarantined: bool = Field(False, description=QUARANTINED_DOC)


PriceOut = CloudPriceOut | HardwarePriceOut | CommitmentPriceOut
