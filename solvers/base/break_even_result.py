"""Why the plan (part of the `POST /v1/plans` response body, a public contract): its two alternatives, the
cumulative cost curves and their crossings, the decision thresholds and the guide's closed-form break-even."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from solvers.base.notices import Notice
from solvers.base.plan_lines import BuyLine, CloudLine, CommitmentLine, Costs, HostLine


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
