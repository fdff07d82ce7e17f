"""Probes and metrics: GET /healthz (the process is up), GET /readyz (the database is reachable and migrated),
GET /metrics (Prometheus).

Liveness deliberately does not touch the database: an outage of the database must take replicas out of the
load balancer (readiness), not make an orchestrator restart every one of them (liveness).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from prometheus_client import CONTENT_TYPE_LATEST

from service.core import metrics
from service.core.errors import PROBLEM_JSON, problem
from service.operations import readiness

router = APIRouter(tags=["health"])

_NOT_READY: dict[int | str, dict[str, Any]] = {503: {
    "description": "Not ready: the database is unreachable or its schema is not at this release's migration head "
                   "(a problem document saying which).",
    "content": {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}}}


@router.get("/healthz")
def healthz() -> dict[str, Any]:
    """The process is up and answering (liveness)."""
    return {"status": "ok"}


@router.get("/readyz", responses=_NOT_READY)
def readyz(request: Request) -> Any:
    """The database answers and is migrated to this release's schema (readiness)."""
    state = readiness.check(request.app.state.engine)
    migrations = {"current": list(state.current), "head": list(state.head)}
    if not state.ready:
        return problem(503, "Not ready", state.reason(), database="ok" if state.database else "unreachable",
                       migrations=migrations)
    return {"status": "ready", "database": "ok", "migrations": migrations}


@router.get("/metrics", include_in_schema=False)
async def prometheus_metrics(request: Request) -> Response:
    """Prometheus exposition: this process's counters plus the database's state (read in a worker thread)."""
    body = await run_in_threadpool(metrics.render, request.app.state.metrics_registry)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
