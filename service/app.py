"""The FastAPI application: wires settings, storage, the catalog, the scheduler and the routers together."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager

import anyio
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from pricing.catalog import Catalog, bundled_catalog
from pricing.freshness import active_sources
from pricing.live import LiveCatalog
from pricing.sources import build_sources
from pricing.sources.base import Source
from service.alerts import endpoints as alerts_routes
from service.alerts.worker import DELIVERY_JOB_ID, AlertWorker, channels_from, policy_from
from service.core import body_limit, errors, idempotency, input_guard, logs, metrics, openapi, slow_clients
from service.core.db import make_engine
from service.core.dependencies import Runtime, attach
from service.core.plan_pool import PlanPool
from service.core.settings import Settings
from service.estimates import endpoints as estimates
from service.labs import gate
from service.labs.ratelimit import limiter_from
from service.operations import endpoints as health
from service.operations.leader import leader_lock
from service.operations.readiness import migrate_on_start
from service.operations.scheduler import RefreshScheduler
from service.plans import endpoints as plans
from service.prices.catalog import endpoints as catalog
from service.prices.history import endpoints as chart_routes
from service.prices.sources import endpoints as sources
from service.profiles import endpoints as profiles
from service.usage import endpoints as usage
from service.web import STATIC_DIR
from service.web import endpoints as web_routes


def create_app(settings: Settings | None = None, catalog_source: Callable[[], Catalog] | None = None,
               price_sources: Sequence[Source] | None = None) -> FastAPI:
    """`catalog_source` replaces the live view (bundled snapshot + stored prices), e.g. for a fixed test catalog."""
    settings = settings or Settings()
    logs.configure_logging(settings.log_level, settings.log_format)
    migrate_on_start(settings.database_url, settings.migrate_on_start)
    engine = make_engine(settings.database_url)
    base = bundled_catalog()
    configured = list(price_sources) if price_sources is not None else build_sources(settings.sources)
    prices_now = catalog_source or LiveCatalog(engine, base, active_sources(configured))
    plan_pool = PlanPool(settings.plan_executor, settings.plan_workers or os.cpu_count() or 1, settings.plan_queue,
                         settings.plan_concurrency_per_caller, settings.plan_time_budget_s, settings.plan_worker_nice)
    alerts = AlertWorker(engine, prices_now, channels_from(settings), policy_from(settings), plan_pool=plan_pool)
    refresher = RefreshScheduler(engine, configured, base.gpus, after_refresh=alerts.evaluate)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        # the shutdown runs after a failed start too (workers that did not come up, a scheduler that did not start):
        # each step is safe on what never started, and the engine's pooled connections must go in every case
        try:
            await anyio.to_thread.run_sync(plan_pool.start)
            if settings.scheduler:
                refresher.start(settings.scheduler_tick_s, settings.scheduler_first_tick_s,
                                jobs=[(DELIVERY_JOB_ID, alerts.deliver, settings.alerts_tick_s)],
                                leader=leader_lock(engine), leader_check_s=settings.leader_check_s)
            yield
        finally:
            refresher.shutdown()
            await anyio.to_thread.run_sync(plan_pool.shutdown)
            # the pooled connections close now, not when the engine is collected: on a shared PostgreSQL server
            # the pools of stopped apps held connections up to its max_connections (test_engine_lifecycle.py)
            engine.dispose()

    # /docs and /redoc from Swagger UI and ReDoc files shipped in the fastapi-offline package (served under
    # /static-offline-docs), not from a CDN: the API's documentation works where the service does, offline too
    app = FastAPIOffline(
        favicon_url="/static/favicon.svg",
        title="gpuplan",
        version="1.0",
        summary="Buy GPUs or rent cloud GPU hours: the cheapest mix for a deep-learning workload.",
        description="Plans are made by a mixed-integer program (HiGHS) over GPU facts and prices "
        "that each name their source and date. Money is USD; dates are ISO 8601 UTC.",
        lifespan=lifespan,
    )
    input_guard.install(app)  # added first, so innermost: its 422s are timed by metrics like any answer
    registry = metrics.install(app, engine, configured)
    attach(app, Runtime(
        settings=settings, engine=engine, base_catalog=base, catalog=prices_now, sources=configured,
        rate_limiter=limiter_from(settings.rate_limit_redis_url, settings.rate_limit_per_minute,
                                  settings.rate_limit_burst), alerts=alerts,
        refresher=refresher, metrics_registry=registry, plan_pool=plan_pool))
    errors.install(app)
    openapi.install(app, settings.auth)
    idempotency.install(app)
    app.include_router(plans.router)
    app.include_router(catalog.router)
    app.include_router(estimates.router)
    app.include_router(sources.router)
    app.include_router(profiles.router)
    app.include_router(usage.router)
    app.include_router(usage.unsaved_router)
    app.include_router(alerts_routes.router)
    app.include_router(health.router)
    app.include_router(chart_routes.router)
    app.include_router(web_routes.router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    body_limit.install(app, settings.max_body_bytes)  # outside the JSON guard: nothing parses an oversized body
    gate.install(app)  # outside the body limit: with auth on, no body is read for a keyed route without a key
    slow_clients.install(app, settings.read_timeout_s)
    app.add_middleware(logs.RequestIdMiddleware)  # added last, so outermost: its id is in every log line of the request
    return app
