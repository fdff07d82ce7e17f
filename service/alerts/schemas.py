"""The alerts API's request and response bodies (a public contract, like the plan request).

Prices are compared per GPU: a cloud price per GPU-hour (an 8 x H100 instance at 31.2 USD/h is 3.90 USD
per GPU-hour), a hardware price per GPU (a card, or a server's price divided by its GPUs). That is how
people say "an H100 under 2 dollars an hour" whatever the instance size.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AnyHttpUrl, BaseModel, ConfigDict, EmailStr, Field, model_validator

PriceKind = Literal["cloud", "new", "used"]
Pricing = Literal["on_demand", "spot"]
_Name = Annotated[str, Field(min_length=1, max_length=200)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, str_strip_whitespace=True)


class _PriceFilter(_Strict):
    gpu: str = Field(min_length=1, description="GPU model, any known spelling (see GET /v1/gpus)")
    pricing: Pricing | None = Field(None, description="cloud prices only: on_demand or spot; null: both")
    providers: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="only these providers or vendors (e.g. aws, azure, ebay); null: any")
    regions: list[Annotated[str, Field(min_length=1)]] | None = Field(
        None, description="only regions matching one of these case-insensitive patterns (`*` any text), e.g. "
        "`us-*` (AWS, GCP), `*us`, `*us2` (Azure): a US region; null: any region")

    def check_pricing(self, kind: PriceKind | None) -> None:
        if self.pricing is not None and kind not in (None, "cloud"):
            raise ValueError("pricing applies to cloud prices only")


class PriceThreshold(_PriceFilter):
    """Alert when a price crosses a line: drops under `below_usd` or rises over `above_usd`."""

    type: Literal["price_threshold"]
    kind: PriceKind = Field("cloud", description="cloud (per GPU-hour), new or used (per GPU)")
    below_usd: float | None = Field(None, gt=0, le=10_000_000)
    above_usd: float | None = Field(None, gt=0, le=10_000_000)

    @model_validator(mode="after")
    def _one_line(self) -> PriceThreshold:
        if (self.below_usd is None) == (self.above_usd is None):
            raise ValueError("give exactly one of below_usd and above_usd")
        self.check_pricing(self.kind)
        return self


class PriceMove(_PriceFilter):
    """Alert when any matching price moves more than `move_pct` from the price of the last alert."""

    type: Literal["price_move"]
    kind: PriceKind | None = Field(None, description="cloud, new or used; null: all three")
    move_pct: float = Field(gt=0, le=1000, description="percent, either direction")

    @model_validator(mode="after")
    def _pricing(self) -> PriceMove:
        self.check_pricing(self.kind)
        return self


class PlanChange(_Strict):
    """Alert when a saved profile's best plan changes after a refresh."""

    type: Literal["plan_change"]
    profile_id: str = Field(min_length=1, max_length=36)
    cost_move_pct: float | None = Field(
        5.0, gt=0, le=1000, description="also alert when the total cost moves more than this percent; "
        "null: only when the purchases change")


Condition = Annotated[PriceThreshold | PriceMove | PlanChange, Field(discriminator="type")]


class Webhook(_Strict):
    type: Literal["webhook"]
    url: AnyHttpUrl


class Email(_Strict):
    type: Literal["email"]
    to: EmailStr


Delivery = Annotated[Webhook | Email, Field(discriminator="type")]


class SubscriptionIn(_Strict):
    name: _Name
    condition: Condition
    delivery: Delivery


class SubscriptionOut(BaseModel):
    id: str
    name: str
    condition: dict[str, Any]
    delivery: dict[str, Any] = Field(description="channel and target; a webhook's secret is never shown again")
    status: Literal["active", "paused", "disabled"]
    status_reason: str | None
    failed_events: int = Field(description="events in a row that could not be delivered")
    created_at: str
    updated_at: str
    secret: str | None = Field(None, description="HMAC-SHA256 key for X-Gpuplan-Signature; only in the "
                               "answer that created the subscription")


class AttemptOut(BaseModel):
    attempted_at: str
    ok: bool
    status_code: int | None
    error: str | None
    duration_ms: float


class EventOut(BaseModel):
    id: str
    type: str
    created_at: str
    status: Literal["pending", "delivered", "failed"]
    attempts: int
    next_attempt_at: str | None
    last_status_code: int | None
    last_error: str | None
    delivered_at: str | None
    summary: str
    attempt_log: list[AttemptOut]
