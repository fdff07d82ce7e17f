"""GET /v1/prices/history (how prices moved, as JSON or CSV) and GET /v1/prices/history.svg (the same as a chart)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pandas as pd
from fastapi import APIRouter, Query, Request, Response
from sqlalchemy import Engine, func, select

from pricing import history
from pricing.catalog import Catalog
from pricing.storage import PriceSnapshot
from service.core.clock import utcnow
from service.core.dependencies import BaseCatalogDep, EngineDep, PublicReadLimitDep
from service.core.errors import InvalidField
from service.core.openapi import CSV_RESPONSE
from service.core.spreadsheet import neutralise_frame
from service.prices.history.schemas import HistoryRow
from service.web import history_chart
from service.web.chart_cache import ChartCache
from service.web.chart_http import SVG_MEDIA_TYPE, SVG_RESPONSE, ChartLang, ChartSize
from solvers.base.bounds import Timestamp

router = APIRouter(prefix="/v1", tags=["prices"])
Gpu = Annotated[str, Query(description="GPU model, any known spelling (e.g. `H100 SXM`)")]


def _known_gpu(base: Catalog, gpu: str) -> str:
    name = base.gpus.canonical(gpu)
    if name is None:
        raise InvalidField("gpu", "known_gpu", f"unknown GPU {gpu!r}; see GET /v1/gpus for the names and aliases known")
    return name


@router.get("/prices/history", operation_id="get_price_history",
            response_model=list[HistoryRow], responses=CSV_RESPONSE)
def price_history(
    request: Request,
    engine: EngineDep,
    base: BaseCatalogDep,
    gpu: Gpu,
    kind: Annotated[Literal["cloud", "new", "used"] | None, Query(description="cloud, new or used")] = None,
    provider: Annotated[str | None, Query(description="only this provider or vendor (e.g. `aws`, `eBay`)")] = None,
    pricing: Annotated[Literal["on_demand", "spot"] | None, Query(description="cloud pricing model")] = None,
    since: Annotated[Timestamp | None, Query(description="ISO 8601 (UTC without a zone); only observations at or "
                                             "after")] = None,
    until: Annotated[Timestamp | None, Query(description="ISO 8601 (UTC without a zone); only observations at or "
                                             "before")] = None,
    include_snapshot: Annotated[bool, Query(description="start each series with the bundled snapshot's row")] = True,
    format: Annotated[Literal["json", "csv"] | None, Query(description="json (default) or csv")] = None,
    limit: Annotated[int, Query(ge=1, le=1_000_000)] = 100_000,
) -> Any:
    """One row per price per refresh, oldest first: `pd.read_json(url)` or `pd.read_csv(url + '&format=csv')`.

    `usd` is per instance-hour (cloud) or per unit (hardware); `usd_per_gpu` divides by the GPUs it holds.
    """
    name = _known_gpu(base, gpu)
    # `Timestamp` gives UTC (a value without a zone is taken as UTC, like every timestamp the service writes)
    table = history.price_history(engine, base, name, kind, provider, pricing, since, until, limit, include_snapshot)
    table["observed_at"] = pd.to_datetime(table["observed_at"], utc=True).dt.strftime("%Y-%m-%dT%H:%M:%SZ")
    wants_csv = format == "csv" or (format is None and "text/csv" in request.headers.get("accept", ""))
    if wants_csv:
        return Response(neutralise_frame(table).to_csv(index=False), media_type="text/csv",
                        headers={"Content-Disposition": f'attachment; filename="{name} prices.csv"'})
    records: list[dict[str, Any]] = table.astype(object).where(table.notna(), None).to_dict(orient="records")
    return records


_CHARTS = ChartCache()


def _newest_snapshot(engine: Engine) -> int | None:
    """The newest stored snapshot's id: a history chart changes only when a new one is stored (or as time passes)."""
    with engine.connect() as conn:
        newest: int | None = conn.execute(select(func.max(PriceSnapshot.__table__.c.id))).scalar()
    return newest


@router.get("/prices/history.svg", operation_id="get_price_history_chart",
            response_class=Response, responses=SVG_RESPONSE, tags=["charts"])
def price_history_chart(engine: EngineDep, base: BaseCatalogDep, _: PublicReadLimitDep, gpu: Gpu,
                        size: ChartSize = "wide", lang: ChartLang = None) -> Response:
    """The cheapest cloud price per GPU-hour and hardware price per GPU over time (bundled snapshot, then refreshes).

    Public like the price reads; with auth on, a caller without a key is rate-limited by address as a key is. The
    chart is drawn once per GPU, size, language, stored prices and hour, and kept (issue 31)."""
    name = _known_gpu(base, gpu)
    now = utcnow()
    key = (name, size, lang, _newest_snapshot(engine), now.replace(minute=0, second=0, microsecond=0))

    def draw() -> bytes:
        table = history.price_history(engine, base, name)
        return history_chart.price_history_svg(name, table, until=now, narrow=size == "narrow", lang=lang)

    return Response(_CHARTS.get(key, draw), media_type=SVG_MEDIA_TYPE, headers={"Cache-Control": "no-cache"})
