"""Saved profiles: create, new versions (PUT), read, list, versions, delete, and plans made from them.

Every answer that carries a plan summary (create, new version, read) solves it in the plan pool, bounded as
POST /v1/plans is (503 with Retry-After when full, 429 per key or address, the time budget), never on the
request's thread."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query, Request, Response

from service.alerts.plan_watch import plan_summary, required_summary
from service.core.clock import utcnow
from service.core.dependencies import CallerDep, CatalogDep, EngineDep, RuntimeDep
from service.core.errors import NotFound, found
from service.core.json_body import DeferredBodyRoute, JsonBody, checked, deferred
from service.core.pagination import DEFAULT_LIMIT, Cursor, Limit, Page
from service.plans.endpoints import BOUNDED
from service.plans.service import created, plan_for, request_key
from service.profiles import repository
from service.profiles.schemas import ProfileIn, ProfileOut, ProfileVersionOut
from solvers.base.profile import Profile
from solvers.base.result import PlanResult

router = APIRouter(prefix="/v1/profiles", tags=["profiles"], route_class=DeferredBodyRoute)
# the body as its bytes, validated on the route's thread (or first in a plan worker when large), never on the event
# loop (service/core/json_body.py); OpenAPI shows it as `ProfileIn`
ProfileInBody = Annotated[JsonBody, deferred(ProfileIn), Body()]


WHAT = "saved profile"


@router.post("", operation_id="create_profile", status_code=201, response_model=ProfileOut, responses=BOUNDED)
def create_profile(runtime: RuntimeDep, catalog: CatalogDep, request: Request, response: Response,
                   caller: CallerDep, raw: ProfileInBody) -> ProfileOut:
    """Save a workload profile under a name; it must have a plan at today's prices.

    A utilisation demand without `start` is saved starting next month, so that a later re-plan differs
    only where prices differ. The answer carries the best plan now, solved in the plan pool.
    """
    now = utcnow()
    body = checked(raw, ProfileIn, runtime.plan_pool, request_key(caller, request))
    profile = repository.pinned(body.profile, now.date())
    summary: dict[str, Any] = runtime.plan_pool.plan(request_key(caller, request), required_summary, profile, catalog,
                                                     now.date())
    saved = repository.create_profile(runtime.engine, caller, body, profile, summary, now)
    response.headers["Location"] = f"/v1/profiles/{saved.id}"
    return saved


@router.get("", operation_id="list_profiles", response_model=Page[ProfileOut])
def list_profiles(engine: EngineDep, caller: CallerDep, tag: str | None = None,
                  name: str | None = Query(None, description="part of the name, any case"),
                  limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> Page[ProfileOut]:
    """The caller's saved profiles, newest first."""
    return repository.list_profiles(engine, caller, limit, cursor, tag, name)


@router.get("/{profile_id}", operation_id="get_profile", response_model=ProfileOut, responses=BOUNDED)
def get_profile(runtime: RuntimeDep, catalog: CatalogDep, request: Request, caller: CallerDep,
                profile_id: str) -> ProfileOut:
    """A saved profile (its current version) with its best plan at the prices in force now, solved in the plan
    pool (bounded as POST /v1/plans is)."""
    saved = found(repository.get_profile(runtime.engine, caller, profile_id), WHAT, profile_id)
    summary: dict[str, Any] = runtime.plan_pool.plan(request_key(caller, request), plan_summary,
                                                     Profile.model_validate(saved.profile), catalog, utcnow().date())
    return repository.profile_out(saved, summary)


def new_version(runtime: RuntimeDep, catalog: CatalogDep, request: Request, caller: CallerDep, profile_id: str,
                body: ProfileIn) -> ProfileOut:
    """`body` as the profile's next version, planned in the pool first (also the usage import's last step)."""
    current = found(repository.get_profile(runtime.engine, caller, profile_id), WHAT, profile_id)
    now = utcnow()
    profile = repository.pinned(body.profile, now.date())
    summary: dict[str, Any] = runtime.plan_pool.plan(request_key(caller, request), required_summary, profile, catalog,
                                                     now.date())
    return found(repository.update_profile(runtime.engine, caller, current, body, profile, summary, now), WHAT,
                 profile_id)


@router.put("/{profile_id}", operation_id="update_profile", response_model=ProfileOut, responses=BOUNDED)
def update_profile(runtime: RuntimeDep, catalog: CatalogDep, request: Request, caller: CallerDep, profile_id: str,
                   raw: ProfileInBody) -> ProfileOut:
    """Replace the profile: a new version (the old ones stay readable); plan-change alerts start again from it.
    Its plan is solved in the plan pool (bounded as POST /v1/plans is)."""
    body = checked(raw, ProfileIn, runtime.plan_pool, request_key(caller, request))
    return new_version(runtime, catalog, request, caller, profile_id, body)


@router.get("/{profile_id}/versions", operation_id="list_profile_versions", response_model=list[ProfileVersionOut])
def list_versions(engine: EngineDep, caller: CallerDep, profile_id: str) -> list[ProfileVersionOut]:
    """Every version of the profile, oldest first."""
    return found(repository.versions(engine, caller, profile_id), WHAT, profile_id)


@router.post("/{profile_id}/plans", operation_id="create_profile_plan",
             status_code=201, response_model=PlanResult, responses=BOUNDED)
def plan_profile(runtime: RuntimeDep, request: Request, caller: CallerDep, profile_id: str) -> Response:
    """Plan the profile's current version; the plan records the version and the prices it used. Bounded as
    POST /v1/plans is: with auth off, the per-caller limit on plans in flight counts the client address."""
    saved = found(repository.get_profile(runtime.engine, caller, profile_id), WHAT, profile_id)
    address = request.client.host if request.client else None
    return created(plan_for(runtime, caller, Profile.model_validate(saved.profile), utcnow(), saved.id,
                            saved.version, client_address=address))


@router.delete("/{profile_id}", operation_id="delete_profile", status_code=204)
def delete_profile(engine: EngineDep, caller: CallerDep, profile_id: str) -> Response:
    """Delete a saved profile and its versions (refused with 409 while alert subscriptions watch it); plans
    made from it keep their copy of the profile."""
    if not repository.delete_profile(engine, caller, profile_id):
        raise NotFound(WHAT, profile_id)
    return Response(status_code=204)
