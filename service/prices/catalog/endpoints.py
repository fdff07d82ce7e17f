"""GET /v1/gpus and GET /v1/prices: the facts and prices plans are made from."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pandas as pd
from fastapi import APIRouter, Query

from pricing.audit.keys import cloud_key, commitment_key, hardware_key
from pricing.catalog import Catalog
from service.core.dependencies import CatalogDep
from service.core.errors import InvalidField
from service.prices.catalog.schemas import GpuOut, PriceOut
from solvers.base.fields import WORKLOADS
from solvers.base.performance import is_extrapolated, relative_throughput

router = APIRouter(prefix="/v1", tags=["catalog"])


@router.get("/gpus", operation_id="list_gpus", response_model=list[GpuOut], response_model_exclude_unset=True)
def list_gpus(
    catalog: CatalogDep,
    workload: Annotated[str | None, Query(description="add relative_throughput for this workload class")] = None,
    reference_gpu: Annotated[str, Query(description="throughput is relative to this GPU")] = "RTX 3090",
) -> list[dict[str, Any]]:
    """GPU facts with their sources; optionally the modelled throughput relative to a reference GPU.

    `extrapolated_workloads` lists the workload classes for which no bundled measurement of this GPU backs
    the throughput model; with `workload`, `extrapolated` says it for that class.
    """
    if workload is not None and workload not in WORKLOADS:
        raise InvalidField("workload", "known_workload", f"workload must be one of {list(WORKLOADS)}")
    reference = catalog.gpus.canonical(reference_gpu)
    if reference is None:
        raise InvalidField("reference_gpu", "known_gpu", f"unknown reference_gpu {reference_gpu!r}")
    rows = []
    for spec in catalog.gpus:
        row: dict[str, Any] = {**spec.__dict__, "aliases": list(spec.aliases),
                               "extrapolated_workloads": [w for w in WORKLOADS if is_extrapolated(spec.name, w)]}
        if workload is not None:
            row["relative_throughput"] = round(relative_throughput(spec, catalog.gpus[reference], workload), 4)
            row["extrapolated"] = is_extrapolated(spec.name, workload)
        rows.append(row)
    return rows


@router.get("/prices", operation_id="list_prices", response_model=list[PriceOut])
def list_prices(
    catalog: CatalogDep,
    gpu: str | None = None,
    provider: str | None = None,
    kind: Literal["cloud", "new", "used", "commitment"] | None = None,
) -> list[dict[str, Any]]:
    """Prices in force, each with source and date: cloud offers (USD per instance-hour; marketplace aggregates
    add p10_usd_per_hour, listings and reliability, and max_instances is the quota), hardware (USD per unit),
    and commitments (kind "commitment": reserved/committed prices per instance-hour over `term_months`, with
    `payment`; planned on when a profile sets options.allow_commitments). Every row carries the catalog audit's
    `flags` and whether the audit holds it back from plans (`quarantined`: such rows are listed too)."""
    name = None
    if gpu is not None:
        name = catalog.gpus.canonical(gpu)
        if name is None:
            raise InvalidField("gpu", "known_gpu", f"unknown gpu {gpu!r}")
    rows: list[dict[str, Any]] = []
    if kind in (None, "cloud"):
        cloud = _with_held(catalog.cloud, catalog.held.cloud)
        if name is not None:
            cloud = cloud[cloud["gpu"] == name]
        if provider is not None:
            cloud = cloud[cloud["provider"] == provider.lower()]
        rows += [{"kind": "cloud", **r, **_audit(catalog, cloud_key(r["provider"], r["name"], r["region"], r["pricing"],
                                                                   r["gpu"], r["gpu_count"]))}
                 for r in _records(cloud)]
    if kind in (None, "commitment"):
        commitments = _with_held(catalog.commitments, catalog.held.commitments)
        if name is not None:
            commitments = commitments[commitments["gpu"] == name]
        if provider is not None:
            commitments = commitments[commitments["provider"] == provider.lower()]
        rows += [{"kind": "commitment", **r, **_audit(catalog, commitment_key(
            r["provider"], r["name"], r["region"], r["pricing"], r["term_months"], r["payment"], r["gpu"],
            r["gpu_count"]))} for r in _records(commitments)]
    if kind in (None, "new", "used") and provider is None:
        hardware = _with_held(catalog.hardware, catalog.held.hardware)
        if name is not None:
            hardware = hardware[hardware["gpu"] == name]
        if kind is not None:
            hardware = hardware[hardware["condition"] == kind]
        rows += [{"kind": r["condition"], **r, **_audit(catalog, hardware_key(
            r["name"], r["vendor"], r["condition"], r["gpu"], r["gpus_per_unit"], r["as_of"]))}
            for r in _records(hardware)]
    return rows


def _with_held(frame: pd.DataFrame, held: pd.DataFrame) -> pd.DataFrame:
    """The rows plans use and the rows the audit holds back, in one list (the held ones say so)."""
    return frame if held.empty else pd.concat([frame, held], ignore_index=True)


def _audit(catalog: Catalog, key: str) -> dict[str, Any]:
    if catalog.audit is None:
        return {"flags": [], "quarantined": False}
    flags = catalog.audit.flags_of(key)
    return {"flags": [f.text() for f in flags], "quarantined": any(f.action == "quarantined" for f in flags)}


def _records(frame: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
    return out
