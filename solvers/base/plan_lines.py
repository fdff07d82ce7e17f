"""The plan's lines (part of the `POST /v1/plans` response body, a public contract): what to buy, which hosts,
what to rent and commit to, its costs, and its figures by period and by month of cash flow."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

LINE_WIDTH = ("GPUs one job takes on it: set in the workload form, where every GPU type runs jobs at its own width "
              "(null: the profile's jobs.gpus_per_job)")


class BuyLine(BaseModel):
    name: str = Field(description="the option bought: a catalog price row or a profile quote")
    gpu: str = Field(description="the GPU (its canonical name)")
    condition: Literal["new", "used"] = Field(description="new or used")
    count: int = Field(description="units bought")
    gpus_per_unit: int = Field(description="GPUs in one unit (a card: 1; a server: its GPUs)")
    includes_host: bool = Field(
        description="the unit is a whole machine; false: a bare card in one of the plan's hosts")
    unit_price_usd: float = Field(
        description="price of one unit, VAT and import duty included (options.vat_percent, import_duty_percent), "
        "with the network of a linked machine")
    resale_usd_per_unit: float = Field(
        description="expected sale proceeds of one unit at the horizon's end (used value declining by "
        "options.resale_decline_per_year, less options.resale_fee; never above the price; 0 without options.resale)")
    source: str = Field(description="where the price comes from (a catalog source, or the quote's source)")
    price_as_of: str = Field(description="date of the price")
    gpus_per_job: int | None = Field(None, description=LINE_WIDTH)
    vendor: str | None = Field(None, description="the seller or price publisher the catalog names for the row (e.g. "
                               "Amazon, eBay, NVIDIA MSRP); null for a profile quote, whose `source` says where it "
                               "came from")


class HostLine(BaseModel):
    name: str = Field(description="the host machine (hosts.csv)")
    slots: int = Field(description="GPU cards one host holds")
    count: int = Field(description="hosts bought")
    unit_price_usd: float = Field(description="price of one host without GPUs, VAT and import duty included")
    psu_watts: float = Field(description="usable power supply of one host, W (the cards in it must fit)")
    idle_watts: float = Field(description="power of one host while its machine is on and idle, W")
    source: str = Field(description="where the price comes from")
    price_as_of: str = Field(description="date of the price")


class CloudLine(BaseModel):
    provider: str = Field(description="cloud provider")
    name: str = Field(description="instance type or offer name")
    gpu: str = Field(description="the GPU (its canonical name)")
    gpu_count: int = Field(description="GPUs in one instance")
    region: str = Field(description="the provider's region (global: none named)")
    pricing: Literal["on_demand", "spot"] = Field(description="on_demand or spot")
    usd_per_hour: float = Field(
        description="price of one instance-hour (a carbon price included, see carbon_usd_per_hour)")
    hours: float = Field(description="instance-hours over the horizon")
    cost_usd: float = Field(description="hours x usd_per_hour")
    source: str = Field(description="where the price comes from")
    price_as_of: str = Field(description="date of the price")
    kg_co2e: float | None = Field(None, description="emissions of these hours (GPU power x hours x cloud PUE x the "
                                  "region's grid intensity)")
    carbon_usd_per_hour: float = Field(0.0, description="what options.carbon_price_per_tonne adds to each "
                                       "instance-hour (already inside usd_per_hour; 0 without a carbon price)")
    gpus_per_job: int | None = Field(None, description=LINE_WIDTH)


class CommitmentLine(BaseModel):
    """Reserved / committed instances held from the plan's start, renewed term after term over the horizon."""

    provider: str = Field(description="cloud provider")
    name: str = Field(description="instance type or offer name")
    gpu: str = Field(description="the GPU (its canonical name)")
    gpu_count: int = Field(description="GPUs in one instance")
    region: str = Field(description="the provider's region")
    count: int = Field(description="instances committed")
    term_months: int = Field(
        description="length of one term; a term of m months ends on the same calendar day m months later")
    terms: int = Field(description="terms paid back to back to cover the horizon (the last one in full)")
    usd_per_hour: float = Field(description="price per instance-hour, paid every hour of the term")
    paid_hours: float = Field(description="hours paid per instance (whole terms)")
    cost_usd: float = Field(description="count x usd_per_hour x paid_hours; with an upfront fee, count x (fee x terms "
                            "+ the hourly part x paid_hours)")
    payment: str = Field("not_stated", description="no_upfront, partial_upfront, all_upfront, or not_stated (the "
                         "source does not say: paid hourly)")
    upfront_usd: float = Field(0.0, description="fee per instance paid at each term's start (in the cash flows at "
                               "that date); the rest is paid hourly")
    source: str = Field(description="where the price comes from")
    price_as_of: str = Field(description="date of the price")
    gpus_per_job: int | None = Field(None, description=LINE_WIDTH)
    carbon_usd_per_hour: float = Field(0.0, description="what options.carbon_price_per_tonne adds to each held "
                                       "instance-hour (already inside usd_per_hour and cost_usd; paid hourly, never "
                                       "in the upfront fee)")
    kg_co2e: float | None = Field(None, description="emissions of every held hour: count x paid_hours x GPU power x "
                                  "GPUs x cloud PUE x the region's grid intensity (a reserved instance is held, and "
                                  "counted, every hour of its terms, used or not)")
    on_demand_usd_per_hour: float | None = Field(None, description="the on-demand price of the instance the "
                                                 "commitment discounts (the list price; FOCUS ListUnitPrice): the same "
                                                 "instance, else the provider's cheapest with the same GPU and GPU "
                                                 "count in the same region, else in any region; null when none is "
                                                 "known")
    on_demand_offer: str | None = Field(None, description="which on-demand offer that price is: provider, name "
                                        "(region)")


class Costs(BaseModel):
    capex_usd: float = Field(
        description="purchases: GPUs, machines, hosts and the network of linked machines, taxes included")
    electricity_usd: float = Field(
        description="energy of the owned GPUs and hosts (PUE applied; a carbon price on it included)")
    cloud_usd: float = Field(description="rented on-demand and spot hours (a carbon price on them included)")
    resale_credit_usd: float = Field(
        description="expected resale of the owned GPUs at the horizon's end (subtracted from the total)")
    total_usd: float = Field(
        description="capex + electricity + cloud + commitments + opex + financing interest + cloud data − resale "
        "credit, nominal")
    commitments_usd: float = Field(0.0, description="reserved / committed instances, whole terms")
    opex_usd: float = Field(0.0, description="owned hardware's running costs beyond power (options.opex)")
    financing_interest_usd: float = Field(0.0, description="interest paid on financed purchases (options.financing)")
    cloud_data_usd: float = Field(0.0, description="cloud storage and egress (options.cloud_data)")
    present_value_usd: float | None = Field(
        None, description="total at present value, discounted at options.discount_rate (equal to total_usd at 0)")


class CashFlowLine(BaseModel):
    """One period's cash flows (the 'start' row: t = 0), nominal and at present value; costs positive."""

    month: str = Field(description="the period's label; 'start' for payments at the plan's start")
    date: str = Field(description="when the flows are counted: the start, or the period's end")
    capex_usd: float = Field(description="purchases paid: cash at the start, or down payment and loan payments")
    electricity_usd: float = Field(description="energy of the owned hardware in the period")
    opex_usd: float = Field(description="owned hardware's running costs beyond power in the period (options.opex)")
    cloud_usd: float = Field(description="cloud hours, with the cloud's storage and egress (options.cloud_data)")
    commitments_usd: float = Field(
        description="reserved / committed instances paid in the period (upfront fees at the terms' start dates)")
    resale_usd: float = Field(description="resale proceeds (negative: money in)")
    net_usd: float = Field(description="the row's flows added up")
    cumulative_usd: float = Field(description="net flows up to and including this row")
    discount_factor: float = Field(
        description="(1 + discount_rate / 12)^-t for a flow t calendar months after the start")
    net_present_value_usd: float = Field(description="net_usd x discount_factor")
    cumulative_present_value_usd: float = Field(description="present values up to and including this row")


class PeriodLine(BaseModel):
    month: str = Field(
        description="the period's label: YYYY-MM, or the first day (YYYY-MM-DD) of a week or day period")
    start: str = Field(description="the period's first day")
    days: int = Field(description="days of the period within the horizon")
    demand_reference_gpu_hours: float = Field(description="work that arrived in the period, reference GPU-hours")
    delivered_reference_gpu_hours: float = Field(description="work done by owned and cloud GPUs, reference GPU-hours")
    owned_gpu_hours: dict[str, float] = Field(description="GPU-hours worked per purchase, keyed by its line in the "
                                              "plan's `buy` (`buy[0]`, ...)")
    cloud_hours: dict[str, float] = Field(description="instance-hours per cloud offer or commitment, keyed by its line "
                                          "in the plan's `cloud` or `commitments` (`cloud[0]`, `commitments[0]`)")
    electricity_usd: float = Field(description="energy of the owned GPUs and hosts in the period")
    cloud_usd: float = Field(description="rented cloud hours in the period")
    peak_owned_gpus: float = Field(0.0, description="most owned GPUs busy at once in the period")
    peak_rented_gpus: float = Field(0.0, description="most rented GPUs busy at once in the period (whole instances "
                                    "may hold more, see unused_rented_gpu_hours; work that waits fills whole "
                                    "instances, so their busy GPUs count at once; hours rented for owned machines' "
                                    "maintenance or off-hours count one instance's GPUs, at least that many)")
    unused_rented_gpu_hours: float = Field(0.0, description="GPU-hours of rented instances that no job used "
                                           "(paid: instances are rented whole)")
    commitments_usd: float = Field(0.0, description="reserved / committed instances paid in the period")
    opex_usd: float = Field(0.0, description="owned hardware's running costs beyond power in the period")
    waited_gpu_hours: float = Field(0.0, description="busy GPU-hours of work that arrived in the period and waited "
                                    "for the plan's GPUs (first come first served in time order; 0 when the plan "
                                    "serves every hour's work as it arrives)")
    max_wait_hours: float = Field(0.0, description="the longest wait, in hours, of work that arrived in the period "
                                  "(first come first served on the plan's GPUs)")
    served_every_hour: bool | None = Field(
        None, description="always-on load (jobs.runs = continuously): true when owned and rented GPUs present cover "
        "the load in every hour of the period; null for work that runs until done")
