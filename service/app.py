"""The FastAPI application: wires settings, storage, the catalog, the scheduler and the routers together."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

from fastapi import FastAPI

from pricing.catalog import Catalog, bundled_catalog
from pricing.freshness import active_sources
from pricing.live import LiveCatalog
from pricing.sources import build_sources
from pricing.sources.base import Source
from service import problems
from service.db import make_engine, migrate, session_factory
from service.routes import catalog, health, plans, sources
from service.scheduler import RefreshScheduler
from service.settings import Settings
from service.store import PlanStore


def create_app(settings: Settings | None = None, catalog_source: Callable[[], Catalog] | None = None,
               price_sources: Sequence[Source] | None = None) -> FastAPI:
    """`catalog_source` replaces the live view (bundled snapshot + stored prices), e.g. for a fixed test catalog."""
    settings = settings or Settings()
    migrate(settings.database_url)
    engine = make_engine(settings.database_url)
    base = bundled_catalog()
    configured = list(price_sources) if price_sources is not None else build_sources(settings.sources)
    refresher = RefreshScheduler(engine, configured, base.gpus)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        if settings.scheduler:
            refresher.start(settings.scheduler_tick_s, settings.scheduler_first_tick_s)
        try:
            yield
        finally:
            refresher.shutdown()

    app = FastAPI(
        title="gpuplan",
        version="1.0",
        summary="Buy GPUs or rent cloud GPU hours: the cheapest mix for a deep-learning workload.",
        description="Plans are made by a mixed-integer program (PuLP + HiGHS) over GPU facts and prices "
        "that each name their source and date. Money is USD; dates are ISO 8601 UTC.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.base_catalog = base
    app.state.catalog = catalog_source or LiveCatalog(engine, base, active_sources(configured))
    app.state.sources = configured
    app.state.refresher = refresher
    app.state.plans = PlanStore(session_factory(engine))
    problems.install(app)
    app.include_router(plans.router)
    app.include_router(catalog.router)
    app.include_router(sources.router)
    app.include_router(health.router)
    return app
