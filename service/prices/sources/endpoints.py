"""GET /v1/sources: freshness of every price source."""

from __future__ import annotations

import dataclasses
from typing import Any

from fastapi import APIRouter

from pricing.freshness import SourceState, source_states
from pricing.redact import redact
from service.core.clock import utcnow
from service.core.dependencies import EngineDep, OperatorViewDep, SourcesDep
from service.prices.sources.schemas import SourceOut

router = APIRouter(prefix="/v1", tags=["prices"])

# what only an operator needs and nobody else should read: provider errors (internal host names, URLs),
# which credentials are missing, the provider's own names of unknown SKUs
_DETAIL: dict[str, Any] = {"last_error": None, "stale_reasons": [], "missing_credentials": [],
                           "unknown_sku_names": []}


def _shown(state: SourceState, detail: bool) -> dict[str, Any]:
    if not detail:
        return {**dataclasses.asdict(state), **_DETAIL}
    # errors stored before redaction was added are redacted on the way out too
    return {**dataclasses.asdict(state), "last_error": None if state.last_error is None else redact(state.last_error),
            "stale_reasons": [redact(reason) for reason in state.stale_reasons]}


@router.get("/sources", operation_id="list_sources", response_model=list[SourceOut])
def list_sources(engine: EngineDep, sources: SourcesDep, operator: OperatorViewDep) -> list[dict[str, Any]]:
    """Each price source: enabled, last attempt, last success, rows in force, stale or not and why.

    With auth on, why a source is stale (its error, missing credentials, unknown SKU names) is shown only to a
    caller with an API key, unless the operator set `GPUPLAN_OPERATIONS_PUBLIC`."""
    states = source_states(engine, sources, utcnow())
    return [_shown(state, operator) for state in states]
