"""What a plan was made with (part of the `POST /v1/plans` response body, a public contract): the exchange
rates, electricity and cooling by place, the carbon report and the purchase taxes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from solvers.base.notices import Notice


class RateUsed(BaseModel):
    currency: str = Field(description="ISO 4217 code")
    units_per_eur: float = Field(description="the ECB reference rate: units of this currency per euro")
    usd_per_unit: float = Field(description="US dollars one unit buys (the planner works in USD)")
    fixed_rate_source: str | None = Field(None, description="a currency the euro replaced (e.g. BGN): its "
                                          "irrevocably fixed conversion rate is used, and this names its source")


class ExchangeRatesUsed(BaseModel):
    """The ECB publication a plan converted its money with (inputs to USD, USD to the plan's currency)."""

    as_of: str = Field(description="the ECB's date of the reference rates")
    source: str = Field(description="the publication the rates come from")
    origin: Literal["bundled", "live"] = Field(
        description="bundled: the snapshot in the package; live: the ecb source's last good fetch")
    rates: list[RateUsed] = Field(description="the plan's currency, USD and every input currency")


class ElectricityUsed(BaseModel):
    """The electricity rate the plan priced owned energy at, and where it came from."""

    price_per_kwh: float = Field(description="in the plan's currency, VAT included where added, before any carbon "
                                 "price")
    location: str | None = Field(description="electricity.location of the profile (null: none given)")
    source: str = Field(description="'profile' for a rate the profile gave, else the table row's source")
    as_of: str | None = Field(description="date of the rate's source row (null for a rate the profile gave)")
    period: str | None = Field(None, description="the period the table's rate is for (e.g. 2024-S1)")
    consumer: Literal["business", "residential"] = Field("business", description="whose tariff: electricity.consumer")
    vat_percent: float = Field(0.0, description="VAT (and other taxes a VAT-registered business recovers) added to "
                               "the rate, percent")
    vat_source: str | None = Field(None, description="where vat_percent comes from, or why none was added")


class CoolingUsed(BaseModel):
    """The power usage effectiveness (cooling and power distribution) owned energy was priced at, by where a machine
    stands: a bare card takes its host's kind, a whole machine its own (solvers/offers/pue.py)."""

    pue_by_host_kind: dict[str, float] = Field(description="desktop, workstation, server: the PUE each owned machine "
                                               "of that kind was priced at")
    source: str = Field(description="'options.pue' when the profile gave one figure for every machine, else where "
                        "the figures per kind come from")


class RegionCarbon(BaseModel):
    provider: str = Field(description="cloud provider")
    region: str = Field(description="the provider's region")
    location: str | None = Field(description="where the region is (country or US state; null: not known)")
    g_co2e_per_kwh: float | None = Field(description="grid carbon intensity there (null: not known)")
    instance_hours: float = Field(description="rented (on-demand and spot) instance-hours")
    committed_instance_hours: float = Field(0.0, description="reserved / committed instance-hours held: count x "
                                            "paid hours, every hour of every term")
    kwh: float = Field(description="GPU board power x GPUs x (rented + committed) hours x cloud PUE")
    kg_co2e: float | None = Field(description="emissions of those hours (null when the intensity is not known)")
    source: str | None = Field(description="source of the intensity")


class CarbonReport(BaseModel):
    """Emissions of the plan: owned energy at the profile's location, rented hours at each region's grid."""

    owned_kwh: float | None = Field(description="energy of the owned GPUs and hosts over the horizon (PUE applied)")
    owned_g_co2e_per_kwh: float | None = Field(description="grid carbon intensity at the owned GPUs' location")
    owned_location: str | None = Field(description="electricity.location, or null")
    owned_source: str | None = Field(description="source of the owned intensity")
    owned_kg_co2e: float | None = Field(description="null when the location or its intensity is not known")
    rented_kg_co2e: float = Field(description="sum over the regions whose intensity is known, committed "
                                  "instances included (every hour they are held)")
    committed_kg_co2e: float = Field(0.0, description="the part of rented_kg_co2e of reserved / committed instances")
    rented_unknown_instance_hours: float = Field(description="rented instance-hours in regions with no known "
                                                 "intensity (not counted in rented_kg_co2e)")
    cloud_pue: float = Field(description="options.cloud_pue used for rented hours")
    regions: list[RegionCarbon] = Field(description="emissions per cloud region the plan rents or reserves in")
    carbon_price_per_tonne: float | None = Field(description="in the plan's currency")
    carbon_cost: float | None = Field(description="carbon price x counted emissions, in the plan's currency; "
                                      "already inside the electricity, cloud and commitment figures; to the cent")
    owned_carbon_cost: float | None = Field(None, description="the part of carbon_cost on owned energy (inside "
                                            "costs.electricity_usd)")
    notes: list[str] = Field(
        default_factory=list, description="what was assumed (e.g. a country's figure for a province, the world "
        "average for an unknown region), in English")
    notices: list[Notice] = Field(default_factory=list, description="the notes as codes and parameters "
                                  "(solvers/base/notices.py), for clients that translate them")


class PurchaseTax(BaseModel):
    vat_percent: float = Field(description="options.vat_percent added to every purchase")
    import_duty_percent: float = Field(description="options.import_duty_percent added to every purchase")
    note: str = Field(
        description="how the taxes are counted (the resale credit is a share of the gross price), in English")
