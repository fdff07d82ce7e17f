"""Saved profiles: create, new versions (PUT), read, list, versions, delete, and plans made from them."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Query, Request, Response

from service.core.clock import utcnow
from service.core.pagination import DEFAULT_LIMIT, Limit, Page
from service.labs.auth import CallerDep
from service.plans.service import plan_for
from service.profiles import repository as store
from service.profiles.schemas import ProfileIn, ProfileOut, ProfileVersionOut
from solvers.profile import Profile
from solvers.result import PlanResult

router = APIRouter(prefix="/v1/profiles", tags=["profiles"])


def _missing(profile_id: str) -> HTTPException:
    return HTTPException(404, f"no saved profile with id {profile_id!r}")


@router.post("", status_code=201, response_model=ProfileOut)
def create_profile(request: Request, response: Response, caller: CallerDep, body: ProfileIn) -> ProfileOut:
    """Save a workload profile under a name; it must have a plan at today's prices.

    A utilisation demand without `start` is saved starting next month, so that a later re-plan differs
    only where prices differ. The answer carries the best plan now.
    """
    state = request.app.state
    saved = store.create_profile(state.engine, caller, body, state.catalog(), utcnow())
    response.headers["Location"] = f"/v1/profiles/{saved.id}"
    return saved


@router.get("", response_model=Page[ProfileOut])
def list_profiles(request: Request, caller: CallerDep, tag: str | None = None,
                  name: str | None = Query(None, description="part of the name, any case"),
                  limit: Limit = DEFAULT_LIMIT, cursor: str | None = None) -> Page[ProfileOut]:
    """The caller's saved profiles, newest first."""
    return store.list_profiles(request.app.state.engine, caller, limit, cursor, tag, name)


@router.get("/{profile_id}", response_model=ProfileOut)
def get_profile(request: Request, caller: CallerDep, profile_id: str) -> ProfileOut:
    """A saved profile (its current version) with its best plan at the prices in force now."""
    found = store.profile_out(request.app.state.engine, caller, profile_id, request.app.state.catalog(), utcnow())
    if found is None:
        raise _missing(profile_id)
    return found


@router.put("/{profile_id}", response_model=ProfileOut)
def update_profile(request: Request, caller: CallerDep, profile_id: str, body: ProfileIn) -> ProfileOut:
    """Replace the profile: a new version (the old ones stay readable); plan-change alerts start again from it."""
    state = request.app.state
    updated = store.update_profile(state.engine, caller, profile_id, body, state.catalog(), utcnow())
    if updated is None:
        raise _missing(profile_id)
    return updated


@router.get("/{profile_id}/versions", response_model=list[ProfileVersionOut])
def list_versions(request: Request, caller: CallerDep, profile_id: str) -> list[ProfileVersionOut]:
    found = store.versions(request.app.state.engine, caller, profile_id)
    if found is None:
        raise _missing(profile_id)
    return found


@router.post("/{profile_id}/plans", status_code=201, response_model=PlanResult)
def plan_profile(request: Request, response: Response, caller: CallerDep, profile_id: str) -> PlanResult:
    """Plan the profile's current version; the plan records the version and the prices it used."""
    state = request.app.state
    saved = store.get_profile(state.engine, caller, profile_id)
    if saved is None:
        raise _missing(profile_id)
    stored = plan_for(state, caller, Profile.model_validate(saved.profile), utcnow(), saved.id, saved.version)
    response.headers["Location"] = f"/v1/plans/{stored.id}"
    return stored


@router.delete("/{profile_id}", status_code=204)
def delete_profile(request: Request, caller: CallerDep, profile_id: str) -> Response:
    """Delete a saved profile and its versions (refused with 409 while alert subscriptions watch it); plans
    made from it keep their copy of the profile."""
    if not store.delete_profile(request.app.state.engine, caller, profile_id):
        raise _missing(profile_id)
    return Response(status_code=204)
