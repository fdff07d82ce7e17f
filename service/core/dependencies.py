"""Typed FastAPI dependencies: what an endpoint may ask for (engine, settings, catalog, sources, caller).

The app factory builds one `Runtime` and attaches it to the app; this module is the only reader. Endpoints
declare what they need as annotated parameters (`engine: EngineDep`), so each one says its inputs in its
signature, mypy checks them, and a test can swap any of them with `app.dependency_overrides[get_engine]`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, cast

from fastapi import Depends, FastAPI, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from prometheus_client import CollectorRegistry
from sqlalchemy import Engine

from pricing.catalog import Catalog
from pricing.sources.base import Source
from service.core.errors import Forbidden, TooManyRequests, Unauthorized
from service.core.plan_pool import PlanPool
from service.core.settings import Settings
from service.labs.auth import KEY_STATE, LOCAL_USER, READ_METHODS, Caller
from service.labs.ratelimit import Limiter
from service.labs.repository import authenticate

if TYPE_CHECKING:
    from service.alerts.worker import AlertWorker
    from service.operations.scheduler import RefreshScheduler


@dataclass
class Runtime:
    """Everything one app instance is made of, built once by `service.app.create_app`."""

    settings: Settings
    engine: Engine
    base_catalog: Catalog  # bundled GPU facts and prices: names, aliases, the snapshot
    catalog: Callable[[], Catalog]  # the prices in force now (bundled + newest good snapshots)
    sources: Sequence[Source]
    rate_limiter: Limiter  # per key: in this process, or shared through Redis
    alerts: AlertWorker
    refresher: RefreshScheduler
    metrics_registry: CollectorRegistry  # this app's database collector, read by /metrics
    plan_pool: PlanPool  # where plans are solved, with its bounds (service/core/plan_pool.py)


def attach(app: FastAPI, runtime: Runtime) -> None:
    app.state.runtime = runtime


def runtime_of(app: FastAPI) -> Runtime:
    """The runtime of an app made by `create_app` (for middleware, tests and the CLI; endpoints use the deps)."""
    return cast(Runtime, app.state.runtime)


async def get_runtime(request: Request) -> Runtime:
    return runtime_of(cast(FastAPI, request.app))


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


async def get_engine(runtime: RuntimeDep) -> Engine:
    return runtime.engine


async def get_settings(runtime: RuntimeDep) -> Settings:
    return runtime.settings


def get_catalog(runtime: RuntimeDep) -> Catalog:
    """The catalog in force for this request (read once, so one request sees one set of prices); plain `def`
    because reading it may query the database (FastAPI runs it in a worker thread)."""
    return runtime.catalog()


async def get_base_catalog(runtime: RuntimeDep) -> Catalog:
    return runtime.base_catalog


async def get_sources(runtime: RuntimeDep) -> Sequence[Source]:
    return runtime.sources


async def get_metrics_registry(runtime: RuntimeDep) -> CollectorRegistry:
    return runtime.metrics_registry


# The getters that only read the runtime are `async def`: FastAPI then calls them on the event loop instead of
# a worker thread, so probes and metrics never wait for a thread behind busy plan requests.
EngineDep = Annotated[Engine, Depends(get_engine)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
CatalogDep = Annotated[Catalog, Depends(get_catalog)]
BaseCatalogDep = Annotated[Catalog, Depends(get_base_catalog)]
SourcesDep = Annotated[Sequence[Source], Depends(get_sources)]
MetricsRegistryDep = Annotated[CollectorRegistry, Depends(get_metrics_registry)]

_bearer = HTTPBearer(auto_error=False, description="an API key from `gpuplan keys create LAB` (when GPUPLAN_AUTH=on)")


def current_caller(request: Request, runtime: RuntimeDep,
                   credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> Caller:
    """Who is calling: the local user when auth is off, else the lab of a valid key within its rate limit."""
    settings = runtime.settings
    if not settings.auth:
        return LOCAL_USER
    if credentials is None:
        raise Unauthorized("this endpoint needs an API key: Authorization: Bearer <key>")
    key = getattr(request.state, KEY_STATE, None) or authenticate(runtime.engine, credentials.credentials)
    if key is None:
        raise Unauthorized("the API key is unknown or revoked")
    wait = runtime.rate_limiter.retry_after(key.id)
    if wait is not None:
        raise TooManyRequests(f"rate limit of {settings.rate_limit_per_minute:g} requests per minute for "
                              f"this key reached", max(1, math.ceil(wait)))
    if key.read_only and request.method not in READ_METHODS:
        raise Forbidden("this API key is read-only")
    return Caller(key.lab_id, key.id, key.read_only)


CallerDep = Annotated[Caller, Depends(current_caller)]


def limited_public_read(request: Request, runtime: RuntimeDep,
                        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> None:
    """A public read that costs the service real work (a chart): with auth on it counts against a rate limit like
    every keyed request, the key's when a valid one is given, else the client address's (issue 31: sixteen
    anonymous history charts at once took 12.8 s each). With auth off nothing is limited, as everywhere."""
    settings = runtime.settings
    if not settings.auth:
        return
    key = authenticate(runtime.engine, credentials.credentials) if credentials is not None else None
    bucket = key.id if key is not None else f"address:{request.client.host if request.client else 'unknown'}"
    wait = runtime.rate_limiter.retry_after(bucket)
    if wait is not None:
        raise TooManyRequests(f"rate limit of {settings.rate_limit_per_minute:g} requests per minute reached for "
                              f"this {'key' if key is not None else 'client address'}", max(1, math.ceil(wait)))


PublicReadLimitDep = Annotated[None, Depends(limited_public_read)]


def sees_operations(runtime: RuntimeDep,
                    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> bool:
    """Whether the caller may see how the service runs (`/metrics`, why a source fails, which credentials are
    missing): everyone when auth is off or the operator set `GPUPLAN_OPERATIONS_PUBLIC`, else a valid API key."""
    if not runtime.settings.auth or runtime.settings.operations_public:
        return True
    return credentials is not None and authenticate(runtime.engine, credentials.credentials) is not None


OperatorViewDep = Annotated[bool, Depends(sees_operations)]
