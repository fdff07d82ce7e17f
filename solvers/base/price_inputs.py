"""The profile's own prices (part of the `POST /v1/plans` request body, a public contract): owned, cloud and
commitment quotes, whether they replace or extend the catalog, and the electricity rate or place."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import (
    Field,
    PrivateAttr,
    field_validator,
    model_validator,
)

from solvers.base import defaults
from solvers.base.bounds import (
    Count,
    HourlyRate,
    Money,
    Name,
    OptionalName,
    PlanDate,
)
from solvers.base.fields import CurrencyCode, Strict
from solvers.base.finance import PROVIDER_HOURS_PER_MONTH


class OwnedPriceItem(Strict):
    """A purchase option the caller brings: a vendor quote, a used card, a whole desktop or server."""

    name: Name = Field(description="what the option is called in the plan")
    gpu: Name = Field(description="the GPU (a GPU name of the catalog)")
    gpus_per_unit: int = Field(1, ge=1, le=64, description="GPUs in one unit (a card: 1; a server: its GPUs)")
    unit_price_usd: Money = Field(
        description="price of one unit in currency (default USD), before VAT and import duty")
    watts: float | None = Field(None, gt=0, le=100_000, description="working power of one unit")
    idle_watts: float | None = Field(None, ge=0, le=100_000, description="idle power of one unit")
    condition: Literal["new", "used"] = Field("new", description="new or used")
    includes_host: bool = Field(
        False, description="the unit is a whole machine (desktop, server); false: a bare card that needs a host from "
        "the catalog")
    kind: Literal["desktop", "workstation", "server"] | None = Field(
        None, description="a whole machine's kind, which sets its cooling overhead (options.pue); default: a "
        "server if it holds more than 4 GPUs or SXM/OAM modules, else a workstation (bare cards: their host's)")
    source: OptionalName = Field("request", description="where the price comes from, shown in the plan and the exports")
    as_of: PlanDate | None = Field(None, description="date of the price; default: today")
    currency: CurrencyCode = Field("USD", description="currency of unit_price_usd (default USD)")

    @model_validator(mode="after")
    def _idle_below_working(self) -> OwnedPriceItem:
        if self.watts is not None and self.idle_watts is not None and self.idle_watts > self.watts:
            raise ValueError("idle_watts must not exceed watts")
        return self


class CloudPriceItem(Strict):
    """A cloud offer the caller brings, e.g. a negotiated rate."""

    provider: Name = Field(description="cloud provider, e.g. aws (read in lower case)")
    name: Name = Field(description="instance type or offer name")
    gpu: Name = Field(description="the GPU (a GPU name of the catalog)")
    gpu_count: int = Field(1, ge=1, le=64, description="GPUs in one instance")
    usd_per_hour: HourlyRate = Field(description="price of one instance-hour in currency (default USD)")
    region: OptionalName = Field("any", description="the provider's region (any: not said)")
    pricing: Literal["on_demand", "spot"] = Field("on_demand", description="on_demand or spot")
    max_instances: Count | None = Field(None, description="quota: instances at once")
    multi_node: bool = Field(False, description="instances can be linked for one job over an RDMA fabric "
                             "(InfiniBand or AWS EFA); used only with jobs.interconnect")
    source: OptionalName = Field("request", description="where the price comes from, shown in the plan and the exports")
    as_of: PlanDate | None = Field(None, description="date of the price; default: today")
    currency: CurrencyCode = Field("USD", description="currency of usd_per_hour (default USD)")
    verified: bool = Field(False, description="a marketplace host the marketplace marks verified (kept by "
                           "options.allow_unverified_hosts = false); default false: unknown counts as unverified")

    @field_validator("provider")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.lower()


class CommitmentPriceItem(Strict):
    """A reserved or committed-use quote: `usd_per_hour` paid every hour of `term_months`, used or not."""

    provider: Name = Field(description="cloud provider, e.g. aws (read in lower case)")
    name: Name = Field(description="instance type or offer name")
    gpu: Name = Field(description="the GPU (a GPU name of the catalog)")
    gpu_count: int = Field(1, ge=1, le=64, description="GPUs in one instance")
    usd_per_hour: HourlyRate = Field(description="effective price per instance-hour over the term (an upfront fee "
                                     "spread over the term at the providers' 730 hours a month)")
    term_months: int = Field(ge=1, le=defaults.MAX_HORIZON_MONTHS, description="e.g. 12 or 36")
    region: OptionalName = Field("any", description="the provider's region (any: not said)")
    max_instances: Count | None = Field(None, description="most instances that can be committed")
    source: OptionalName = Field("request", description="where the price comes from, shown in the plan and the exports")
    as_of: PlanDate | None = Field(None, description="date of the price; default: today")
    currency: CurrencyCode = Field("USD", description="currency of usd_per_hour and upfront_usd (default USD)")
    payment: Literal["no_upfront", "partial_upfront", "all_upfront"] = Field(
        "no_upfront", description="when the term is paid: every hour (no_upfront), a fee at each term's start and "
        "the rest hourly (partial_upfront, with upfront_usd), or the whole term at its start (all_upfront: "
        "usd_per_hour x 730 h x term_months)")
    upfront_usd: Money | None = Field(None, description="partial_upfront only: the fee per instance paid at each "
                                      "term's start; the rest is paid hourly")
    # set by solvers.offers.place_inputs.prepare, never by a request: what a carbon price adds to each held
    # instance-hour
    _carbon_usd_per_hour: float = PrivateAttr(0.0)

    @property
    def carbon_usd_per_hour(self) -> float:
        """USD a carbon price adds to each instance-hour of the term (0 without one); not part of the request."""
        return self._carbon_usd_per_hour

    def with_carbon(self, usd_per_hour: float) -> CommitmentPriceItem:
        """A copy carrying the carbon price of its held hours (a private attribute: the schema is unchanged)."""
        copy = self.model_copy()
        copy._carbon_usd_per_hour = usd_per_hour
        return copy

    @field_validator("provider")
    @classmethod
    def _lower(cls, value: str) -> str:
        return value.lower()

    @model_validator(mode="after")
    def _upfront_fee(self) -> CommitmentPriceItem:
        if self.payment == "partial_upfront" and self.upfront_usd is None:
            raise ValueError("a partial_upfront commitment needs upfront_usd, the fee paid at each term's start")
        if self.payment != "partial_upfront" and self.upfront_usd is not None:
            raise ValueError("upfront_usd is for payment partial_upfront only (all_upfront pays usd_per_hour x "
                             "730 h x term_months at each term's start)")
        term_price = self.usd_per_hour * PROVIDER_HOURS_PER_MONTH * self.term_months
        if self.upfront_usd is not None and self.upfront_usd > term_price:
            raise ValueError("upfront_usd exceeds the term's price (usd_per_hour x 730 h x term_months)")
        return self


class PriceInput(Strict):
    mode: Literal["extend", "replace"] = Field(
        "extend", description="extend: add these quotes to the catalog; replace: plan with these quotes alone")
    owned: list[OwnedPriceItem] = Field(
        default_factory=list, max_length=1000, description="purchase options: vendor quotes, used cards, whole "
        "desktops or servers")
    cloud: list[CloudPriceItem] = Field(
        default_factory=list, max_length=10_000, description="cloud offers, e.g. negotiated rates")
    commitments: list[CommitmentPriceItem] = Field(
        default_factory=list, max_length=1000, description="reserved or committed-use quotes; bringing any allows "
        "commitments (options.allow_commitments)")


class ElectricityInput(Strict):
    """Where the owned GPUs draw power: a location fills the rate (and the grid's carbon intensity) from the bundled
    tables; a price given here wins over the location's, and `electricity_usd_per_kwh` wins over both."""

    location: str | None = Field(None, min_length=2, max_length=8, description="ISO 3166 country code (DE), a US "
                                 "state as US-CA, or EU (average); the tables and their sources: the user guide, "
                                 "docs/finance-and-place.md")
    price_per_kwh: float | None = Field(None, ge=0, le=1_000, allow_inf_nan=False,
                                        description="price of one kWh in `currency`")
    currency: CurrencyCode = Field("USD", description="currency of price_per_kwh (default USD)")
    consumer: Literal["business", "residential"] = Field(
        "business", description="whose tariff the location's rate is: a business's (default: a lab) or a "
        "household's (a desktop at home; the location needs a household row in the bundled table)")
    vat_percent: float | None = Field(
        None, ge=0, le=300, allow_inf_nan=False, description="VAT (and other taxes) added to the electricity price, "
        "percent; default: on the location's rate, the rate the place charges when VAT is paid (a household always, "
        "a business when options.vat_percent > 0, i.e. it does not reclaim VAT), else none; a price the profile "
        "gives is taken as it is")

    @field_validator("location")
    @classmethod
    def _location_shape(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().upper().replace("_", "-")
        if not re.fullmatch(r"[A-Z]{2}(-[A-Z0-9]{1,3})?", value):
            raise ValueError("a location is an ISO country code (DE) or a US state as US-CA")
        return value
