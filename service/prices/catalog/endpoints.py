"""GET /v1/gpus and GET /v1/prices: the facts and prices plans are made from."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request

from pricing.catalog import Catalog
from solvers.performance import relative_throughput
from solvers.profile import WORKLOADS

router = APIRouter(prefix="/v1", tags=["catalog"])


@router.get("/gpus")
def list_gpus(
    request: Request,
    workload: Annotated[str | None, Query(description="add relative_throughput for this workload class")] = None,
    reference_gpu: Annotated[str, Query(description="throughput is relative to this GPU")] = "RTX 3090",
) -> list[dict[str, Any]]:
    """GPU facts with their sources; optionally the modelled throughput relative to a reference GPU."""
    catalog: Catalog = request.app.state.catalog()
    if workload is not None and workload not in WORKLOADS:
        raise HTTPException(422, f"workload must be one of {list(WORKLOADS)}")
    reference = catalog.gpus.canonical(reference_gpu)
    if reference is None:
        raise HTTPException(422, f"unknown reference_gpu {reference_gpu!r}")
    rows = []
    for spec in catalog.gpus:
        row: dict[str, Any] = {**spec.__dict__, "aliases": list(spec.aliases)}
        if workload is not None:
            row["relative_throughput"] = round(relative_throughput(spec, catalog.gpus[reference], workload), 4)
        rows.append(row)
    return rows


@router.get("/prices")
def list_prices(
    request: Request,
    gpu: str | None = None,
    provider: str | None = None,
    kind: Literal["cloud", "new", "used"] | None = None,
) -> list[dict[str, Any]]:
    """Prices in force: cloud offers (USD per instance-hour) and hardware (USD per unit), each with source and date."""
    catalog: Catalog = request.app.state.catalog()
    name = None
    if gpu is not None:
        name = catalog.gpus.canonical(gpu)
        if name is None:
            raise HTTPException(422, f"unknown gpu {gpu!r}")
    rows: list[dict[str, Any]] = []
    if kind in (None, "cloud"):
        cloud = catalog.cloud
        if name is not None:
            cloud = cloud[cloud["gpu"] == name]
        if provider is not None:
            cloud = cloud[cloud["provider"] == provider.lower()]
        rows += [{"kind": "cloud", **r} for r in _records(cloud)]
    if kind in (None, "new", "used") and provider is None:
        hardware = catalog.hardware
        if name is not None:
            hardware = hardware[hardware["gpu"] == name]
        if kind is not None:
            hardware = hardware[hardware["condition"] == kind]
        rows += [{"kind": r["condition"], **r} for r in _records(hardware)]
    return rows


def _records(frame: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
    return out
