"""Alert subscriptions: create, list, pause, resume, delete, test, and see their deliveries."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Request, Response

from service.alerts import repository
from service.alerts.outbox import deliver_now, enqueue_test_event
from service.alerts.plan_watch import plan_summary
from service.alerts.schemas import EventOut, SubscriptionIn, SubscriptionOut
from service.core.clock import utcnow
from service.core.dependencies import CallerDep, CatalogDep, EngineDep, RuntimeDep
from service.core.errors import Conflict, NotFound, found
from service.core.json_body import DeferredBodyRoute, JsonBody, checked, deferred
from service.core.pagination import DEFAULT_LIMIT, Cursor, Limit, Page
from service.plans.endpoints import BOUNDED
from service.plans.service import request_key

router = APIRouter(prefix="/v1/alerts", tags=["alerts"], route_class=DeferredBodyRoute)

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


WHAT = "alert subscription"


@router.post("", operation_id="create_alert", status_code=201, response_model=SubscriptionOut, responses=BOUNDED)
def create_subscription(runtime: RuntimeDep, catalog: CatalogDep, request: Request, response: Response,
                        caller: CallerDep,
                        raw: Annotated[JsonBody, deferred(SubscriptionIn), Body(openapi_examples=_EXAMPLES)],
                        ) -> SubscriptionOut:
    """Subscribe to a price threshold, a relative price move or a saved profile's plan.

    Webhooks are POSTed as JSON with `X-Gpuplan-Event-Id`, `X-Gpuplan-Timestamp` and
    `X-Gpuplan-Signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`, keyed with `secret`, which only
    this answer shows: keep it. A plan-change subscription's baseline plan is solved in the plan pool, bounded
    as POST /v1/plans is.
    """
    now, key = utcnow(), request_key(caller, request)
    body = checked(raw, SubscriptionIn, runtime.plan_pool, key)
    created = repository.create_subscription(
        runtime.engine, caller, body, catalog, runtime.settings, now,
        lambda profile: runtime.plan_pool.plan(key, plan_summary, profile, catalog, now.date()))
    response.headers["Location"] = f"/v1/alerts/{created.id}"
    return created


@router.get("", operation_id="list_alerts", response_model=Page[SubscriptionOut])
def list_subscriptions(engine: EngineDep, caller: CallerDep,
                       status: Literal["active", "paused", "disabled"] | None = None,
                       kind: Literal["price_threshold", "price_move", "plan_change"] | None = None,
                       limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> Page[SubscriptionOut]:
    """The caller's subscriptions, newest first."""
    return repository.list_subscriptions(engine, caller, status, kind, limit, cursor)


@router.get("/{subscription_id}", operation_id="get_alert", response_model=SubscriptionOut)
def get_subscription(engine: EngineDep, caller: CallerDep, subscription_id: str) -> SubscriptionOut:
    """One subscription (its secret is shown only when it is created)."""
    return found(repository.get_subscription(engine, caller, subscription_id), WHAT, subscription_id)


@router.post("/{subscription_id}/pause", operation_id="pause_alert", response_model=SubscriptionOut)
def pause(engine: EngineDep, caller: CallerDep, subscription_id: str) -> SubscriptionOut:
    """No new events while paused; events already waiting are kept and sent after resume."""
    return found(repository.set_status(engine, caller, subscription_id, "paused", utcnow()), WHAT, subscription_id)


@router.post("/{subscription_id}/resume", operation_id="resume_alert", response_model=SubscriptionOut)
def resume(engine: EngineDep, caller: CallerDep, subscription_id: str) -> SubscriptionOut:
    """Active again; also re-enables a subscription that was disabled after failed deliveries."""
    return found(repository.set_status(engine, caller, subscription_id, "active", utcnow()), WHAT, subscription_id)


@router.delete("/{subscription_id}", operation_id="delete_alert", status_code=204)
def delete_subscription(engine: EngineDep, caller: CallerDep, subscription_id: str) -> Response:
    """Delete the subscription with its waiting events and delivery log."""
    if not repository.delete_subscription(engine, caller, subscription_id):
        raise NotFound(WHAT, subscription_id)
    return Response(status_code=204)


@router.post("/{subscription_id}/test", operation_id="send_test_alert", status_code=202, response_model=EventOut)
def send_test(runtime: RuntimeDep, caller: CallerDep, subscription_id: str) -> EventOut:
    """Send a `test` event now; the answer shows the first attempt (later retries as for any event)."""
    engine = runtime.engine
    sub = found(repository.get_subscription(engine, caller, subscription_id), WHAT, subscription_id)
    if sub.status != "active":
        raise Conflict(f"alert subscription {subscription_id!r} is {sub.status}; resume it first")
    now = utcnow()
    event_id = enqueue_test_event(engine, sub.id, sub.name, now)
    deliver_now(engine, runtime.alerts.channels, event_id, now, runtime.alerts.policy)
    return repository.deliveries(engine, sub.id, 1, event_id=event_id).items[0]


@router.get("/{subscription_id}/deliveries", operation_id="list_alert_deliveries", response_model=Page[EventOut])
def list_deliveries(engine: EngineDep, caller: CallerDep, subscription_id: str,
                    status: Literal["pending", "delivered", "failed"] | None = None,
                    limit: Limit = DEFAULT_LIMIT, cursor: Cursor = None) -> Page[EventOut]:
    """The newest events of this subscription: status, attempts with status codes and errors, next retry."""
    found(repository.get_subscription(engine, caller, subscription_id), WHAT, subscription_id)
    return repository.deliveries(engine, subscription_id, limit, cursor, status)
