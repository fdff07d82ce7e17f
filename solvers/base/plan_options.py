"""The profile's plan options (part of the `POST /v1/plans` request body, a public contract): what may be bought
or rented, availability, budgets, the hours machines are on, running costs, financing, cloud data costs and the
discount rate."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import (
    BeforeValidator,
    Field,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from solvers.base import defaults
from solvers.base.bounds import (
    AnnualRate,
    Availability,
    GpuCount,
    Money,
    Name,
)
from solvers.base.fields import CurrencyCode, Strict


class FinancingInput(Strict):
    """Purchases (GPUs and hosts) paid over time: a loan or lease at an annual rate (APR) over a term."""

    annual_rate: AnnualRate = Field(description="annual rate (APR), 0 or 1e-6 to 1, compounded monthly (rate / 12 a "
                                    "month), e.g. 0.07")
    term_months: int = Field(ge=1, le=defaults.MAX_HORIZON_MONTHS, description="months of level payments")
    down_payment: float = Field(0.0, ge=0, le=1, allow_inf_nan=False,
                                description="share of the price paid at the start, 0 to 1; default 0")


class OwnedOpex(Strict):
    """Running costs of owned hardware beyond electricity (all default 0: not counted unless given)."""

    colocation_usd_per_kw_month: Money = Field(
        0.0, description="rack/colocation price per kW of the owned GPUs' working power, per month")
    maintenance_usd_per_gpu_year: Money = Field(0.0, description="maintenance or support contract per owned GPU-year")
    staff_usd_per_gpu_month: Money = Field(0.0, description="staff time per owned GPU-month")
    staff_hours_per_month: float = Field(0.0, ge=0, le=10_000, allow_inf_nan=False,
                                         description="staff hours a month for the owned machines (any number)")
    staff_usd_per_hour: Money = Field(0.0, description="cost of one staff hour")
    storage_networking_usd_per_month: Money = Field(
        0.0, description="storage and networking for the owned machines, per month (paid if any GPU is owned)")
    currency: CurrencyCode = Field("USD", description="currency of the amounts above (default USD)")

    @property
    def fixed_usd_per_month(self) -> float:
        """Paid each month whenever anything is owned, whatever its size."""
        return self.staff_hours_per_month * self.staff_usd_per_hour + self.storage_networking_usd_per_month


class CloudData(Strict):
    """Hidden cloud costs: data kept in cloud storage and sent out, paid every month the plan uses the cloud (rents
    or commits). No default prices: give your provider's storage and egress rates."""

    dataset_gb: float = Field(0.0, ge=0, le=1e9, allow_inf_nan=False, description="training data kept in the cloud")
    checkpoints_gb: float = Field(0.0, ge=0, le=1e9, allow_inf_nan=False, description="checkpoints kept in the cloud")
    storage_usd_per_gb_month: Money = Field(description="storage price per GB-month (e.g. your object store's)")
    egress_gb_per_month: float = Field(0.0, ge=0, le=1e9, allow_inf_nan=False,
                                       description="data sent out of the cloud each month")
    egress_usd_per_gb: Money = Field(0.0, description="price of one GB sent out (required with egress_gb_per_month)")
    currency: CurrencyCode = Field("USD", description="currency of the storage and egress prices (default USD)")

    @model_validator(mode="after")
    def _egress_priced(self) -> CloudData:
        if self.egress_gb_per_month > 0 and self.egress_usd_per_gb == 0:
            raise ValueError("egress_gb_per_month needs egress_usd_per_gb: gpuplan has no default egress price")
        return self

    @property
    def usd_per_month(self) -> float:
        return ((self.dataset_gb + self.checkpoints_gb) * self.storage_usd_per_gb_month
                + self.egress_gb_per_month * self.egress_usd_per_gb)


MACHINE_ON_RULE = "`always`, `when_working` or hours a day above 0 and at most 24"


_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)  # what pydantic reads as a number


def _machine_on(value: object) -> object:
    """One error naming the field and its rule for any value outside it (the union's branches each gave their own,
    named after pydantic's internal branch: `options.machine_on.literal['always','when_working']`)."""
    if value in ("always", "when_working"):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise PydanticCustomError("machine_on", MACHINE_ON_RULE)
    if isinstance(value, str) and not _DECIMAL.fullmatch(value.strip()):  # float() takes more than pydantic does
        raise PydanticCustomError("machine_on", MACHINE_ON_RULE)
    if not 0 < float(value) <= 24:
        raise PydanticCustomError("machine_on", MACHINE_ON_RULE)
    return value


class PlanOptions(Strict):
    allow_used: bool = Field(True, description="used cards may be bought")
    allow_spot: bool = Field(
        False, description="spot instances may be rented (each spot hour delivers 1 - spot_interruption_overhead of "
        "an hour's work)")
    allow_cloud: bool = Field(True, description="False: owned GPUs only")
    allow_buy: bool = Field(True, description="False: cloud only")
    resale: bool = Field(True, description="credit the GPUs' resale value at the horizon's end")
    max_capex_usd: Money | None = Field(
        None, description="most the purchases (GPUs, machines, hosts) may cost, in max_capex_currency; reserved "
        "instances are not capex")
    max_owned_gpus: GpuCount | None = Field(None, description="most GPUs the plan may own")
    providers: list[Name] | None = Field(None, max_length=1000,
                                         description="cloud providers allowed, e.g. ['aws', 'lambda']")
    regions: list[Name] | None = Field(None, max_length=1000, description="cloud regions allowed")
    pue: float | None = Field(None, ge=1.0, le=3.0, allow_inf_nan=False, description="power usage effectiveness "
                              "(cooling) of every owned machine; default (null): by where it stands, its host's kind "
                              "(desktop and workstation 1.0, server 1.54: solvers/base/defaults.py PUE_BY_HOST_KIND)")
    availability: Availability = Field(defaults.AVAILABILITY, description="fraction of hours an owned GPU can work")
    spot_interruption_overhead: float = Field(
        defaults.SPOT_INTERRUPTION_OVERHEAD, ge=0, lt=1, description="share of a spot hour lost to pre-emption and "
        "restarts from a checkpoint")
    resale_decline_per_year: float | None = Field(
        None, ge=0, lt=1, description="a flat yearly decline of the used value instead of the fitted resale curve of "
        "the card's family (pricing/data/resale_curves.csv); null: the curve, at the card's age at the horizon's end")
    resale_fee: float = Field(
        defaults.RESALE_FEE, ge=0, lt=1, description="selling fee taken off the resale value (eBay's final value "
        "fee)")
    host_watts_per_working_gpu: float = Field(
        defaults.HOST_WATTS_PER_WORKING_GPU, ge=0, le=5000, description="power of the host (CPU, board, disks) per "
        "working GPU, W, for options that do not give their own")
    machine_on: Annotated[Literal["always", "when_working"] | Annotated[float, Field(gt=0, le=24)],
                          BeforeValidator(_machine_on)] = Field(
        defaults.MACHINE_ON, description="when owned machines are switched on, so idle power counts: always, "
        "when_working (the guide's formula), or hours a day")
    allow_marketplace: bool = Field(True, description="False: no marketplace listings (e.g. Vast hosts)")
    allow_unverified_hosts: bool = Field(
        True, description="False: no marketplace hosts that are not marked verified (unknown counts as unverified)")
    max_capex_currency: CurrencyCode = Field("USD", description="currency of max_capex_usd (default USD)")
    vat_percent: float = Field(0.0, ge=0, le=100, allow_inf_nan=False, description="VAT or sales tax on purchases, "
                               "percent of the price (GPUs, machines, hosts; default 0: prices as quoted, e.g. a lab "
                               "that reclaims VAT); above 0, a business that does not reclaim VAT also pays its "
                               "place's VAT on electricity (electricity.vat_percent)")
    import_duty_percent: float = Field(0.0, ge=0, le=100, allow_inf_nan=False, description="import duty on "
                                       "purchases, percent of the price (default 0)")
    carbon_price_per_tonne: float | None = Field(
        None, ge=0, le=100_000, allow_inf_nan=False, description="price of one tonne of CO2e; enters the objective as "
        "a cost per kWh of owned energy and per cloud instance-hour (default none: carbon is reported, not priced)")
    carbon_price_currency: CurrencyCode = Field("USD", description="currency of carbon_price_per_tonne")
    cloud_pue: float = Field(defaults.CLOUD_PUE, ge=1.0, le=3.0, allow_inf_nan=False,
                             description="power usage effectiveness assumed for cloud data centres (carbon of rented "
                                         "hours only)")
    allow_commitments: bool | None = Field(
        None, description="reserved / committed-use instances as decision variables; default (null): only when "
        "the profile brings its own prices.commitments quotes, so today's plans do not change")
    discount_rate: float = Field(
        0.0, ge=0, le=1, allow_inf_nan=False, description="cost of capital, annual, compounded monthly: every "
        "cash flow is taken at its present value and the plan minimises the present value; default 0 (undiscounted)")
    financing: FinancingInput | None = Field(None, description="pay purchases over time; default: cash at the start")
    opex: OwnedOpex = Field(default_factory=OwnedOpex, description="running costs of owned hardware beyond power")
    cloud_data: CloudData | None = Field(
        None, description="cloud storage and egress paid each month the plan uses the cloud; default: not counted")

    @field_validator("providers")
    @classmethod
    def _lower(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else [p.strip().lower() for p in value]
