"""GET /v1/sources: freshness of every price source."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from pricing.freshness import source_states
from service.core.clock import utcnow

router = APIRouter(prefix="/v1", tags=["prices"])


@router.get("/sources")
def list_sources(request: Request) -> list[dict[str, Any]]:
    """Each price source: enabled, last attempt, last success, rows in force, stale or not and why."""
    states = source_states(request.app.state.engine, request.app.state.sources, utcnow())
    return [state.__dict__ for state in states]
