"""POST /v1/estimate: the workload compiler alone - this job on each GPU type, how many GPUs, how many hours.

Nothing is stored: the answer is a pure function of the workload and the GPU facts in force. With auth on it needs
an API key and counts against its rate limit like every computing route (issue 31: it was anonymous).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query, Request

from service.core.dependencies import CallerDep, CatalogDep, RuntimeDep
from service.core.errors import InvalidField
from service.core.json_body import DeferredBodyRoute, JsonBody, checked, deferred
from service.plans.service import request_key
from solvers.workload import Estimate, Workload, estimate

router = APIRouter(prefix="/v1", tags=["estimates"], route_class=DeferredBodyRoute)

EXAMPLES = {
    "lora": {"summary": "fine-tune a 13B model with LoRA on 2B tokens",
             "value": {"kind": "fine_tune", "method": "lora", "model": {"params_b": 13}, "tokens": 2e9}},
    "pretrain": {"summary": "pre-train 1B parameters on 50B tokens within 3 days",
                 "value": {"kind": "train", "model": {"params_b": 1}, "tokens": 5e10, "deadline_hours": 72}},
    "serve": {"summary": "serve a 70B model in 8-bit at 30 requests a second",
              "value": {"kind": "serve", "model": {"params_b": 70, "kv_heads": 8}, "precision": "int8",
                        "requests_per_second": 30}},
}


@router.post("/estimate", operation_id="create_estimate", response_model=Estimate)
def create_estimate(
    runtime: RuntimeDep,
    request: Request,
    caller: CallerDep,
    catalog: CatalogDep,
    raw: Annotated[JsonBody, deferred(Workload), Body(openapi_examples=EXAMPLES)],
    gpu: Annotated[list[str] | None, Query(description="only these GPUs (any known spelling); default all")] = None,
) -> Estimate:
    """GPUs per job, hours per job, GPU-hours and memory per GPU for every GPU type, or why a type is left out."""
    workload = checked(raw, Workload, runtime.plan_pool, request_key(caller, request))
    specs = list(catalog.gpus)
    if gpu:
        names = []
        for spelling in gpu:
            name = catalog.gpus.canonical(spelling)
            if name is None:
                raise InvalidField("gpu", "known_gpu", f"unknown gpu {spelling!r}")
            names.append(name)
        specs = [catalog.gpus[n] for n in dict.fromkeys(names)]
    return estimate(workload, specs)
