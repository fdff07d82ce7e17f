"""GET /v1/sources: freshness of every price source."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from pricing.freshness import source_states
from service.core.clock import utcnow
from service.core.dependencies import EngineDep, SourcesDep
from service.prices.sources.schemas import SourceOut

router = APIRouter(prefix="/v1", tags=["prices"])


@router.get("/sources", response_model=list[SourceOut])
def list_sources(engine: EngineDep, sources: SourcesDep) -> list[dict[str, Any]]:
    """Each price source: enabled, last attempt, last success, rows in force, stale or not and why."""
    states = source_states(engine, sources, utcnow())
    return [state.__dict__ for state in states]
