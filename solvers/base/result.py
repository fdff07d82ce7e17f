"""The plan the planner returns: the `POST /v1/plans` response body (a public contract).

Money is in the plan's `currency` (USD unless the profile asks for another; the `*_usd` field names are kept for
backward compatibility and mean "in `currency`"), converted at readout with the rates in `exchange_rates`;
`solvers/money/currency.py` lists which fields are money. Dates are ISO 8601.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict  # pydantic needs it on Python 3.11 (typing's lacks __required_keys__ there)

from solvers.base.notices import Notice
from solvers.base.workload import WorkloadPlan

Status = Literal["optimal", "time_limited"]
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


class Alternative(BaseModel):
    total_cost_usd: float = Field(description="the alternative's total cost over the horizon")
    costs: Costs = Field(description="its cost breakdown")
    buy: list[BuyLine] = Field(description="what it buys")
    hosts: list[HostLine] = Field(description="the hosts its cards go in")
    cloud: list[CloudLine] = Field(description="what it rents")
    commitments: list[CommitmentLine] = Field(
        default_factory=list, description="what it reserves (cloud only, when the profile allows commitments)")


class CumulativePoint(BaseModel):
    date: str = Field(description="the day of the point (ISO date)")
    day: float = Field(description="days since the plan's start")
    plan_usd: float = Field(description="the plan's cumulative cost on that day")
    cloud_only_usd: float | None = Field(description="cloud only's cumulative cost (null without that alternative)")
    buy_only_usd: float | None = Field(description="buy only's cumulative cost (null without that alternative)")
    event: Literal["start", "month_end", "resale"] = Field(
        description="start, month_end, or resale: the last day again with the resale credit taken off")


class SimpleBreakEven(BaseModel):
    """The guide's closed form: one owned option against one cloud offer at the average demand, each side priced
    for what the job can use (whole jobs of owned GPUs in a host that holds them; a rented instance's price shared
    only by the jobs it holds at once)."""

    owned: str = Field(description="the owned side as a phrase: units x the option, in hosts when the cards need one")
    cloud: str = Field(description="the cloud offer: the one the plan rents most (by cost), else the cheapest per "
                       "hour of this demand's jobs, an instance rented whole")
    units: int = Field(description="owned units bought")
    owned_name: str | None = Field(None, description="the owned option of `owned` (it is units x owned_name, in "
                                   "hosts x host_name when the cards need a host): for a client composing `owned` in "
                                   "its language")
    hosts: int = Field(0, description="host machines the units go in (0: the option includes its host)")
    host_name: str | None = Field(None, description="the host the cards go in (null: the option includes its host)")
    jobs: int = Field(1, description="whole jobs at once the units run (a job of gpus_per_job GPUs has them all in "
                      "one host), enough for the average demand unless capped_by")
    gpus_per_job: int = Field(1, description="GPUs one job takes on the owned option")
    cloud_jobs_per_instance: int = Field(1, description="jobs of this demand one instance of the cloud offer holds "
                                         "at once: its price per job-hour is the instance's over these (all its "
                                         "slots when work may wait and instances are packed)")
    capped_by: Literal["max_capex_usd", "max_owned_gpus"] | None = Field(
        None, description="the limit that keeps the purchase below the average demand: it then carries part of the "
        "work, and both sides' costs per day are of that part")
    upfront_usd: float = Field(description="what the owned side pays at the start: units and hosts")
    owned_usd_per_day: float = Field(
        description="the owned side's electricity per day at the demand, idle draw included")
    cloud_usd_per_day: float = Field(description="the cloud offer's cost per day at the demand")
    days: float | None = Field(
        description="upfront_usd / (cloud_usd_per_day - owned_usd_per_day); null when owning never costs less per "
        "day")
    formula: str = Field(description="the formula of days, as text")


class Crossings(BaseModel):
    plan_vs_cloud_only: float | None = Field(
        description="day from which the plan's cumulative cost stays on the other side of cloud only's (resale "
        "counted on the last day); null if they do not cross")
    buy_only_vs_cloud_only: float | None = Field(description="the same for buy only against cloud only")
    plan_vs_buy_only: float | None = Field(description="the same for the plan against buy only")


class BreakEven(BaseModel):
    days: float | None = Field(description="day from which the plan's cumulative cost stays below cloud-only's (its "
                               "resale counted on the last day): the last time it drops below, not the first; null if "
                               "it never stays below")
    crossings: Crossings = Field(
        description="each pair of cumulative curves: the day from which one stays below the other, resale counted on "
        "the last day, to a millionth of a day")
    cumulative: list[CumulativePoint] = Field(
        description="the cumulative cost curves of the plan, cloud only and buy only (the chart's points)")
    utilisation_threshold: float | None = Field(
        description="utilisation at which buying starts to pay (utilisation demand only)"
    )
    demand_scale_threshold: float | None = Field(
        description="multiple of the profile's demand at which buying starts to pay"
    )
    electricity_threshold_usd_per_kwh: float | None = Field(
        description="electricity rate at which the buy/rent decision flips"
    )
    cloud_price_threshold_usd_per_hour: float | None = Field(
        description="price of the reference cloud offer at which the buy/rent decision flips (every cloud price moves "
        "in proportion)"
    )
    cloud_price_threshold_offer: str | None = Field(
        description="the reference cloud offer: the one the plan rents most (by cost), else the cheapest per hour of "
        "this demand's jobs, an instance rented whole (the closed form's offer too)")
    thresholds_note: str = Field(description="how the thresholds were found, in English")
    basis: Literal["nominal", "present_value"] = Field(
        "nominal", description="what the break-even day, curves and thresholds compare: nominal sums, or present "
        "values at options.discount_rate (when above 0)")
    cloud_only_commitments: bool = Field(
        False, description="cloud only (the alternative, the curves and the thresholds) may hold reserved or "
        "committed instances: the profile brings commitment quotes or allows the catalog's")
    simple: SimpleBreakEven | None = Field(
        description="the guide's closed form for one owned option against one cloud offer (nominal, on-demand); null "
        "when there is none (simple_note says why)")
    simple_note: str | None = Field(None, description="why there is no closed form although the profile has owned "
                                    "and cloud options (no host holds a whole job, or none fits the budget)")


class Alternatives(BaseModel):
    cloud_only: Alternative | None = Field(
        description="nothing bought: cloud hours (and commitments when allowed); null when the profile forbids the "
        "cloud or no plan exists")
    buy_only: Alternative | None = Field(
        description="nothing rented: owned GPUs only; null when the profile forbids buying or no plan exists")
    notes: list[str] = Field(
        default_factory=list, description="why an alternative is missing or what it assumes, in English")
    notices: list[Notice] = Field(default_factory=list, description="the notes as codes and parameters "
                                  "(solvers/base/notices.py), for clients that translate them")


class SolverInfo(BaseModel):
    backend: str = Field(description="the solver that made the plan")
    status: str = Field(description="the solver's status of the main model")
    solve_ms: float = Field(description="time to build and solve the main model, ms")
    build_ms: float = Field(0.0, description="time spent building the model's arrays, part of solve_ms")
    gap: float | None = Field(
        description="relative optimality gap of the answer (above 0 on a time_limited plan); null when the solver "
        "gives none")
    owned_options: int = Field(description="owned options in the model after pruning")
    cloud_options: int = Field(description="cloud offers in the model after pruning")
    candidates_before_pruning: int = Field(description="owned and cloud options before dominated ones were pruned")
    levels: int = Field(0, description="load-duration levels in the model, summed over merged blocks")
    integer_instances: bool = Field(True, description="rented instances whole at every level (work cannot wait)")


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


# a TypedDict, not a model: the horizon stays the dict it always was (`plan.horizon["days"]`), with its keys typed
# for the OpenAPI document and the clients generated from it
class PlanHorizon(TypedDict):
    """The span the plan covers."""

    start: Annotated[str, Field(description="first day (ISO date)")]
    end: Annotated[str, Field(description="the day after the last (ISO date)")]
    days: Annotated[int, Field(description="days from start to end")]
    periods: Annotated[int, Field(description="how many periods `periods` holds")]


class PlanResult(BaseModel):
    id: str | None = Field(
        None, description="the stored plan's id (null for a plan that is not stored, e.g. a what-if)")
    created_at: str | None = Field(None, description="when the plan was made (ISO 8601, UTC)")
    profile_id: str | None = Field(None, description="the saved profile this plan answers, when made from one")
    profile_version: int | None = Field(None, description="the version of that profile")
    prices_in_force: dict[str, int] | None = Field(
        None, description="price snapshot id per live source the plan was made with ({}: bundled prices only); "
        "with the profile, what POST /v1/plans/{id}/recompute makes the plan again from")
    status: Status = Field(
        description="optimal, or time_limited: the solver stopped at its time limit and solver.gap says how far from "
        "optimal the plan may be")
    currency: Literal["USD", "EUR", "GBP", "CNY", "JPY", "INR", "CHF", "CAD", "AUD"] = Field(
        "USD", description="the currency of every money figure (the profile's currency)")
    recommendation: str = Field(
        description="the plan in one English sentence (the page composes it in its language from buy, hosts, "
        "commitments, cloud, costs and break_even)")
    total_cost_usd: float = Field(
        description="the plan's total cost over the horizon (costs.total_usd); the CSV export's lines add up to it "
        "to the cent")
    buy: list[BuyLine] = Field(description="GPUs and machines to buy")
    hosts: list[HostLine] = Field(description="host machines the bought cards go in")
    cloud: list[CloudLine] = Field(description="cloud hours to rent, per offer")
    costs: Costs = Field(description="the cost breakdown over the horizon")
    periods: list[PeriodLine] = Field(
        description="per period (month, or week or day for such a series): demand, delivered work, owned and cloud "
        "hours, costs, peaks and waits")
    break_even: BreakEven = Field(
        description="when buying pays off against cloud only, and the inputs at which the decision flips")
    alternatives: Alternatives = Field(description="cloud only and buy only, planned on the same profile and prices")
    prices_as_of: dict[str, str] = Field(description="per price source the plan used, the date of its prices")
    warnings: list[str] = Field(
        description="what the reader should know (extrapolated throughput with the cost resting on it, the default "
        "electricity rate, stale or old prices, ...), in English; notices has them as codes")
    notices: list[Notice] = Field(default_factory=list, description="the warnings as stable codes and parameters "
                                  "(solvers/base/notices.py) with their English text, for clients that translate them")
    solver: SolverInfo = Field(description="how the model was solved")
    horizon: PlanHorizon = Field(
        description="the plan's start and end (ISO dates), days and number of periods")
    workload: WorkloadPlan | None = Field(
        None, description="the workload form behind the plan: per GPU type GPUs per job, hours per job, memory per "
        "GPU, sharding, or why the type was left out (absent for a workload class)")
    exchange_rates: ExchangeRatesUsed | None = Field(None, description="the rates money was converted with")
    electricity: ElectricityUsed | None = Field(None, description="the electricity rate used and its source")
    cooling: CoolingUsed | None = Field(None, description="the PUE owned energy was priced at, per host kind")
    carbon: CarbonReport | None = Field(None, description="kgCO2e of the owned and the rented part")
    purchase_tax: PurchaseTax | None = Field(None, description="VAT and import duty added to purchases")
    commitments: list[CommitmentLine] = Field(default_factory=list,
                                              description="reserved / committed instances the plan holds")
    discount_rate: float = Field(0.0, description="the profile's options.discount_rate: the basis of the "
                                 "objective and of the break-even (present value; nominal at 0)")
    cash_flows: list[CashFlowLine] = Field(default_factory=list, description="monthly cash-flow table")
