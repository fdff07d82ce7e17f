"""Probes and metrics: GET /healthz (the process is up), GET /readyz (the database is reachable and migrated),
GET /metrics (Prometheus).

Liveness deliberately does not touch the database: an outage of the database must take replicas out of the
load balancer (readiness), not make an orchestrator restart every one of them (liveness).
"""

from __future__ import annotations

from typing import Any

import anyio
from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST

from service.core import metrics
from service.core.dependencies import EngineDep, MetricsRegistryDep, OperatorViewDep
from service.core.errors import PROBLEM_JSON, Unauthorized, problem
from service.operations import readiness
from service.operations.schemas import Health, Ready

router = APIRouter(tags=["health"])
# probes and metrics read the database in threads of their own, never queued behind plans in AnyIO's shared pool
_OWN_THREADS = anyio.CapacityLimiter(4)

_NOT_READY: dict[int | str, dict[str, Any]] = {503: {
    "description": "Not ready: the database is unreachable or its schema is not at this release's migration head "
                   "(a problem document saying which).",
    "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}}}


@router.get("/healthz", operation_id="get_health", response_model=Health)
async def healthz() -> dict[str, Any]:
    """The process is up and answering (liveness)."""
    return {"status": "ok"}


@router.get("/readyz", operation_id="get_readiness", response_model=Ready, responses=_NOT_READY)
async def readyz(engine: EngineDep) -> Any:
    """The database answers and is migrated to this release's schema (readiness)."""
    state = await anyio.to_thread.run_sync(readiness.check, engine, limiter=_OWN_THREADS)
    migrations = {"current": list(state.current), "head": list(state.head)}
    if not state.migrated:
        return problem(503, "Not ready", state.reason(), database="ok" if state.database else "unreachable",
                       migrations=migrations)
    return {"status": "ready", "database": "ok", "migrations": migrations}


@router.get("/metrics", include_in_schema=False)
async def prometheus_metrics(registry: MetricsRegistryDep, operator: OperatorViewDep) -> Response:
    """Prometheus exposition: this process's counters plus the database's state (read in a worker thread).
    With auth on it needs an API key (Prometheus: `authorization: {credentials: <key>}`) unless
    `GPUPLAN_OPERATIONS_PUBLIC` is set."""
    if not operator:
        raise Unauthorized("metrics need an API key: Authorization: Bearer <key>")
    body = await anyio.to_thread.run_sync(metrics.render, registry, limiter=_OWN_THREADS)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
