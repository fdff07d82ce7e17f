"""GET /v1/prices/history (how prices moved, as JSON or CSV) and GET /v1/prices/history.svg (the same as a chart)."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

import pandas as pd
from fastapi import APIRouter, HTTPException, Query, Request, Response

from pricing import history
from service.core.clock import utcnow
from service.core.errors import problem
from service.core.timestamps import as_utc
from service.web import charts
from service.web.charts import SVG_RESPONSE, ChartSize

router = APIRouter(prefix="/v1", tags=["prices"])


@router.get("/prices/history", responses={200: {"content": {"text/csv": {}}}})
def price_history(
    request: Request,
    gpu: Annotated[str, Query(description="GPU model, any known spelling (e.g. `H100 SXM`)")],
    kind: Annotated[Literal["cloud", "new", "used"] | None, Query(description="cloud, new or used")] = None,
    provider: Annotated[str | None, Query(description="only this provider or vendor (e.g. `aws`, `eBay`)")] = None,
    pricing: Annotated[Literal["on_demand", "spot"] | None, Query(description="cloud pricing model")] = None,
    since: Annotated[dt.datetime | None, Query(description="ISO 8601; only observations at or after")] = None,
    until: Annotated[dt.datetime | None, Query(description="ISO 8601; only observations at or before")] = None,
    include_snapshot: Annotated[bool, Query(description="start each series with the bundled snapshot's row")] = True,
    format: Annotated[Literal["json", "csv"] | None, Query(description="json (default) or csv")] = None,
    limit: Annotated[int, Query(ge=1, le=1_000_000)] = 100_000,
) -> Any:
    """One row per price per refresh, oldest first: `pd.read_json(url)` or `pd.read_csv(url + '&format=csv')`.

    `usd` is per instance-hour (cloud) or per unit (hardware); `usd_per_gpu` divides by the GPUs it holds.
    """
    name = request.app.state.base_catalog.gpus.canonical(gpu)
    if name is None:
        raise HTTPException(422, f"gpu: unknown GPU {gpu!r}; see GET /v1/gpus for the names and aliases known")
    state = request.app.state
    # query datetimes without a zone are taken as UTC, like every timestamp the service writes
    since_utc, until_utc = (None if t is None else as_utc(t) for t in (since, until))
    table = history.price_history(state.engine, state.base_catalog, name, kind, provider, pricing, since_utc,
                                  until_utc, limit, include_snapshot)
    table["observed_at"] = pd.to_datetime(table["observed_at"], utc=True).dt.strftime("%Y-%m-%dT%H:%M:%SZ")
    wants_csv = format == "csv" or (format is None and "text/csv" in request.headers.get("accept", ""))
    if wants_csv:
        return Response(table.to_csv(index=False), media_type="text/csv",
                        headers={"Content-Disposition": f'attachment; filename="{name} prices.csv"'})
    records: list[dict[str, Any]] = table.astype(object).where(table.notna(), None).to_dict(orient="records")
    return records


@router.get("/prices/history.svg", response_class=Response, responses=SVG_RESPONSE, tags=["charts"])
def price_history_chart(
    request: Request,
    gpu: Annotated[str, Query(description="GPU model, any known spelling (e.g. `H100 SXM`)")],
    size: ChartSize = "wide",
) -> Response:
    """The cheapest cloud price per GPU-hour and hardware price per GPU over time (bundled snapshot, then refreshes)."""
    name = request.app.state.base_catalog.gpus.canonical(gpu)
    if name is None:
        message = f"unknown GPU {gpu!r}; see GET /v1/gpus for the names and aliases known"
        return problem(422, "Invalid request", f"gpu: {message}",
                       errors=[{"field": "gpu", "rule": "known_gpu", "message": message}])
    table = history.price_history(request.app.state.engine, request.app.state.base_catalog, name)
    svg = charts.price_history_svg(name, table, until=utcnow(), narrow=size == "narrow")
    return Response(svg, media_type=charts.SVG_MEDIA_TYPE, headers={"Cache-Control": "no-cache"})
