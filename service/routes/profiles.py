"""Saved profiles: POST/GET/DELETE /v1/profiles (what plan-change alerts watch)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request, Response

from service.alerts import subscriptions as store
from service.alerts.models import ProfileIn, ProfileOut
from service.clock import utcnow

router = APIRouter(prefix="/v1/profiles", tags=["profiles"])


@router.post("", status_code=201, response_model=ProfileOut)
def create_profile(request: Request, response: Response, body: ProfileIn) -> ProfileOut:
    """Save a workload profile under a name; it must have a plan at today's prices.

    A utilisation demand without `start` is saved starting next month, so that a later re-plan differs
    only where prices differ. The answer carries the best plan now.
    """
    state = request.app.state
    saved = store.create_profile(state.engine, body, state.catalog(), utcnow())
    response.headers["Location"] = f"/v1/profiles/{saved.id}"
    return saved


@router.get("", response_model=list[ProfileOut])
def list_profiles(request: Request) -> list[ProfileOut]:
    return store.list_profiles(request.app.state.engine)


@router.get("/{profile_id}", response_model=ProfileOut)
def get_profile(request: Request, profile_id: str) -> ProfileOut:
    """A saved profile with its best plan at the prices in force now."""
    found = store.profile_out(request.app.state.engine, profile_id, request.app.state.catalog(), utcnow())
    if found is None:
        raise HTTPException(404, f"no saved profile with id {profile_id!r}")
    return found


@router.delete("/{profile_id}", status_code=204)
def delete_profile(request: Request, profile_id: str) -> Response:
    """Delete a saved profile (refused with 409 while alert subscriptions watch it)."""
    if not store.delete_profile(request.app.state.engine, profile_id):
        raise HTTPException(404, f"no saved profile with id {profile_id!r}")
    return Response(status_code=204)
