"""The FastAPI application: wires settings, storage, the catalog and the routers together."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI

from pricing.catalog import Catalog, bundled_catalog
from service import problems
from service.db import make_engine, migrate, session_factory
from service.routes import catalog, health, plans
from service.settings import Settings
from service.store import PlanStore


def create_app(settings: Settings | None = None, catalog_source: Callable[[], Catalog] = bundled_catalog) -> FastAPI:
    settings = settings or Settings()
    migrate(settings.database_url)
    engine = make_engine(settings.database_url)
    app = FastAPI(
        title="gpuplan",
        version="1.0",
        summary="Buy GPUs or rent cloud GPU hours: the cheapest mix for a deep-learning workload.",
        description="Plans are made by a mixed-integer program (PuLP + HiGHS) over GPU facts and prices "
        "that each name their source and date. Money is USD; dates are ISO 8601 UTC.",
    )
    app.state.settings = settings
    app.state.engine = engine
    app.state.catalog = catalog_source
    app.state.plans = PlanStore(session_factory(engine))
    problems.install(app)
    app.include_router(plans.router)
    app.include_router(catalog.router)
    app.include_router(health.router)
    return app
