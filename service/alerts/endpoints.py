"""Alert subscriptions: create, list, pause, resume, delete, test, and see their deliveries."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, HTTPException, Request, Response

from service.alerts import repository as store
from service.alerts.outbox import deliver_now, enqueue_test_event
from service.alerts.schemas import EventOut, SubscriptionIn, SubscriptionOut
from service.core.clock import utcnow
from service.core.pagination import DEFAULT_LIMIT, Limit, Page
from service.labs.auth import CallerDep

router = APIRouter(prefix="/v1/alerts", tags=["alerts"])

_EXAMPLES: dict[str, Any] = {
    "threshold": {"summary": "On-demand H100 SXM under 2.00 USD per GPU-hour in a US region", "value": {
        "name": "cheap H100", "condition": {
            "type": "price_threshold", "gpu": "H100 SXM", "kind": "cloud", "pricing": "on_demand",
            "regions": ["us-*", "*us", "*us2", "*us3"], "below_usd": 2.0},
        "delivery": {"type": "webhook", "url": "https://lab.example/hooks/gpuplan"}}},
    "used": {"summary": "Used RTX 3090 under 700 USD, by e-mail", "value": {
        "name": "used 3090", "condition": {"type": "price_threshold", "gpu": "RTX 3090", "kind": "used",
                                           "below_usd": 700},
        "delivery": {"type": "email", "to": "lab@example.org"}}},
    "move": {"summary": "Any A100 80GB price moving more than 10%", "value": {
        "name": "A100 moves", "condition": {"type": "price_move", "gpu": "A100 80GB", "move_pct": 10},
        "delivery": {"type": "webhook", "url": "https://lab.example/hooks/gpuplan"}}},
    "plan": {"summary": "A saved profile's best plan changes", "value": {
        "name": "our plan", "condition": {"type": "plan_change", "profile_id": "<id from POST /v1/profiles>",
                                          "cost_move_pct": 5},
        "delivery": {"type": "webhook", "url": "https://lab.example/hooks/gpuplan"}}},
}


def _found(value: SubscriptionOut | None, subscription_id: str) -> SubscriptionOut:
    if value is None:
        raise HTTPException(404, f"no alert subscription with id {subscription_id!r}")
    return value


@router.post("", status_code=201, response_model=SubscriptionOut)
def create_subscription(request: Request, response: Response, caller: CallerDep,
                        body: Annotated[SubscriptionIn, Body(openapi_examples=_EXAMPLES)]) -> SubscriptionOut:
    """Subscribe to a price threshold, a relative price move or a saved profile's plan.

    Webhooks are POSTed as JSON with `X-Gpuplan-Event-Id`, `X-Gpuplan-Timestamp` and
    `X-Gpuplan-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`, keyed with `secret`, which only
    this answer shows: keep it.
    """
    state = request.app.state
    created = store.create_subscription(state.engine, caller, body, state.catalog(), state.settings, utcnow())
    response.headers["Location"] = f"/v1/alerts/{created.id}"
    return created


@router.get("", response_model=Page[SubscriptionOut])
def list_subscriptions(request: Request, caller: CallerDep,
                       status: Literal["active", "paused", "disabled"] | None = None,
                       kind: Literal["price_threshold", "price_move", "plan_change"] | None = None,
                       limit: Limit = DEFAULT_LIMIT, cursor: str | None = None) -> Page[SubscriptionOut]:
    """The caller's subscriptions, newest first."""
    return store.list_subscriptions(request.app.state.engine, caller, status, kind, limit, cursor)


@router.get("/{subscription_id}", response_model=SubscriptionOut)
def get_subscription(request: Request, caller: CallerDep, subscription_id: str) -> SubscriptionOut:
    return _found(store.get_subscription(request.app.state.engine, caller, subscription_id), subscription_id)


@router.post("/{subscription_id}/pause", response_model=SubscriptionOut)
def pause(request: Request, caller: CallerDep, subscription_id: str) -> SubscriptionOut:
    """No new events while paused; events already waiting are kept and sent after resume."""
    engine = request.app.state.engine
    return _found(store.set_status(engine, caller, subscription_id, "paused", utcnow()), subscription_id)


@router.post("/{subscription_id}/resume", response_model=SubscriptionOut)
def resume(request: Request, caller: CallerDep, subscription_id: str) -> SubscriptionOut:
    """Active again; also re-enables a subscription that was disabled after failed deliveries."""
    engine = request.app.state.engine
    return _found(store.set_status(engine, caller, subscription_id, "active", utcnow()), subscription_id)


@router.delete("/{subscription_id}", status_code=204)
def delete_subscription(request: Request, caller: CallerDep, subscription_id: str) -> Response:
    if not store.delete_subscription(request.app.state.engine, caller, subscription_id):
        raise HTTPException(404, f"no alert subscription with id {subscription_id!r}")
    return Response(status_code=204)


@router.post("/{subscription_id}/test", status_code=202, response_model=EventOut)
def send_test(request: Request, caller: CallerDep, subscription_id: str) -> EventOut:
    """Send a `test` event now; the answer shows the first attempt (later retries as for any event)."""
    state = request.app.state
    sub = _found(store.get_subscription(state.engine, caller, subscription_id), subscription_id)
    if sub.status != "active":
        raise HTTPException(409, f"alert subscription {subscription_id!r} is {sub.status}; resume it first")
    now = utcnow()
    event_id = enqueue_test_event(state.engine, sub.id, sub.name, now)
    deliver_now(state.engine, state.alert_channels, event_id, now, state.alert_policy)
    return store.deliveries(state.engine, sub.id, 1, event_id=event_id).items[0]


@router.get("/{subscription_id}/deliveries", response_model=Page[EventOut])
def list_deliveries(request: Request, caller: CallerDep, subscription_id: str,
                    status: Literal["pending", "delivered", "failed"] | None = None,
                    limit: Limit = DEFAULT_LIMIT, cursor: str | None = None) -> Page[EventOut]:
    """The newest events of this subscription: status, attempts with status codes and errors, next retry."""
    engine = request.app.state.engine
    _found(store.get_subscription(engine, caller, subscription_id), subscription_id)
    return store.deliveries(engine, subscription_id, limit, cursor, status)
