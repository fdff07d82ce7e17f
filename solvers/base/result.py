"""The plan the planner returns: the `POST /v1/plans` response body (a public contract).

Money is in the plan's `currency` (USD unless the profile asks for another; the `*_usd` field names are kept for
backward compatibility and mean "in `currency`"), converted at readout with the rates in `exchange_rates`;
`solvers/money/currency.py` lists which fields are money. Dates are ISO 8601.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field
from typing_extensions import TypedDict  # pydantic needs it on Python 3.11 (typing's lacks __required_keys__ there)

from solvers.base.break_even_result import Alternatives, BreakEven
from solvers.base.inputs_used import CarbonReport, CoolingUsed, ElectricityUsed, ExchangeRatesUsed, PurchaseTax
from solvers.base.notices import Notice
from solvers.base.plan_lines import BuyLine, CashFlowLine, CloudLine, CommitmentLine, Costs, HostLine, PeriodLine
from solvers.base.risk import Risk
from solvers.base.workload import WorkloadPlan

Status = Literal["optimal", "time_limited"]


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
    risk: Risk | None = Field(
        None, description="the plan over the futures of the profile's uncertainty: expected total, percentiles, "
        "cloud only in the same futures, the chance of beating it, the value of the stochastic solution and of "
        "waiting (null without uncertainty)")
