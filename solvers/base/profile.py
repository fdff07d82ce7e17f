"""The workload profile a plan is made for: the `POST /v1/plans` request body (a public contract).

Validation here covers everything that can be checked without the catalog; GPU names, providers
and feasibility are checked by the planner against the catalog it is given.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import (
    Discriminator,
    Field,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from solvers.base import defaults
from solvers.base.bounds import (
    Name,
    Ratio,
)
from solvers.base.demand_forms import ConcurrencyDemand, JobShape, SeriesDemand, UtilisationDemand
from solvers.base.fields import PlanCurrency, Strict, Workload
from solvers.base.finance import Financing, Terms
from solvers.base.plan_options import PlanOptions
from solvers.base.price_inputs import ElectricityInput, PriceInput
from solvers.base.uncertainty import Uncertainty
from solvers.base.workload import PlanWorkload


def _demand_kind(value: object) -> str:
    """A `series` key is a series, a `busy_gpus` key an hourly concurrency series; else {gpus, utilisation}."""
    if isinstance(value, dict):
        return "series" if "series" in value else "concurrency" if "busy_gpus" in value else "utilisation"
    if isinstance(value, SeriesDemand):
        return "series"
    return "concurrency" if isinstance(value, ConcurrencyDemand) else "utilisation"


def _workload_form(value: object) -> str:
    """A string is a workload class (`transformer_training`); an object is the workload form (`{kind, model, ...}`)."""
    return "job" if isinstance(value, dict | PlanWorkload) else "class"


DemandForm = UtilisationDemand | SeriesDemand | ConcurrencyDemand


class Profile(Strict):
    """What the user needs: work, memory, time, power price and limits.

    Two forms (`workload`): a workload class with `demand` in reference GPU-hours, or the workload form (a job in
    model size and tokens, `solvers.base.workload.PlanWorkload`) whose demand the planner derives per GPU type
    (`solvers/workload/demand.py`); `demand` and `throughput_overrides` are then left out.
    """

    workload: Annotated[
        Annotated[Workload, Tag("class")] | Annotated[PlanWorkload, Tag("job")],
        Discriminator(_workload_form),
    ] = Field(description="a workload class (e.g. transformer_training, with demand), or the workload form "
              "{kind: train | fine_tune | serve, model: {params_b}, tokens, ...} (demand derived)")
    min_gpu_memory_gb: float = Field(
        0, ge=0, le=10_000, allow_inf_nan=False, description="only GPUs with at least this much memory (GB) are "
        "bought or rented; default 0: any memory, and the plan says when it or an alternative uses GPUs with less "
        "memory than the reference GPU the work was sized on (notice memory_below_reference): their speed is "
        "modelled, not whether the jobs fit")
    demand: Annotated[
        Annotated[UtilisationDemand, Tag("utilisation")]
        | Annotated[SeriesDemand, Tag("series")]
        | Annotated[ConcurrencyDemand, Tag("concurrency")],
        Discriminator(_demand_kind),
    ] | None = Field(None, validate_default=True,
                     description="required with a workload class; left out with the workload form")
    jobs: JobShape = Field(
        default_factory=JobShape, description="how the work runs: GPUs per job, scaling, patience, always-on load, "
        "jobs across machines")
    horizon_months: int | None = Field(
        None, ge=1, le=defaults.MAX_HORIZON_MONTHS, description="months to plan from the demand's start (at most "
        "120: ten years); give this or horizon_days; required with a utilisation demand and with the workload form, "
        "while a series or hourly demand defaults to its own span")
    horizon_days: int | None = Field(
        None, ge=1, le=defaults.MAX_HORIZON_DAYS, description="days to plan instead of months (at most 3,653: ten "
        "years)")
    electricity_usd_per_kwh: float | None = Field(
        None, ge=0, le=10, allow_inf_nan=False, description="electricity price of the owned GPUs, USD per kWh; wins "
        "over electricity.price_per_kwh and electricity.location; with none of them, 0.175 (the guide's 2023 "
        "charts) and the plan warns")
    electricity: ElectricityInput | None = Field(
        None, description="electricity by place ({location: 'DE'}) or a price in another currency; "
        "electricity_usd_per_kwh wins when both are given")
    currency: PlanCurrency = Field("USD", description="currency every money figure of the plan is given in "
                                   "(default USD); inputs carry their own currency")
    options: PlanOptions = Field(
        default_factory=PlanOptions, description="what may be bought or rented, the planning figures, place and "
        "money over time")
    prices: PriceInput = Field(
        default_factory=PriceInput, description="your own quotes, added to the catalog or planned with alone")
    throughput_overrides: dict[Name, Ratio] = Field(
        default_factory=dict,
        description="measured throughput relative to demand.reference_gpu for this workload, by GPU name",
    )

    uncertainty: Uncertainty | None = Field(
        None, description="plan for many futures at once (demand, cloud price trend, electricity, resale): one "
        "purchase for all of them, and the plan's risk figures; null: today's plan for the profile's figures alone")

    @field_validator("demand")
    @classmethod
    def _demand_with_class(cls, value: DemandForm | None, info: ValidationInfo) -> DemandForm | None:
        job = isinstance(info.data.get("workload"), PlanWorkload)
        if value is None and not job and "workload" in info.data:
            raise ValueError("demand is required with a workload class")
        if value is not None and job:
            raise ValueError("the workload form derives its demand: leave demand out and give "
                             "workload.jobs_per_month (train, fine_tune) or workload.tokens/requests_per_second "
                             "(serve)")
        return value

    @field_validator("throughput_overrides")
    @classmethod
    def _overrides_with_class(cls, value: dict[str, float], info: ValidationInfo) -> dict[str, float]:
        if value and isinstance(info.data.get("workload"), PlanWorkload):
            raise ValueError("the workload form computes each GPU type's throughput; throughput_overrides apply "
                             "to a workload class only")
        return value

    @property
    def job(self) -> PlanWorkload | None:
        """The workload form, or None for a workload class."""
        return self.workload if isinstance(self.workload, PlanWorkload) else None

    @property
    def workload_class(self) -> str:
        """The workload class the planner reads (a workload-form profile is compiled to one first)."""
        if isinstance(self.workload, PlanWorkload):
            raise ValueError("a workload-form profile is planned through solvers/workload/demand.py")
        return self.workload

    @property
    def planned_demand(self) -> DemandForm:
        """The demand the planner reads (a workload-form profile is compiled to one first)."""
        if self.demand is None:
            raise ValueError("a workload-form profile is planned through solvers/workload/demand.py")
        return self.demand

    @model_validator(mode="after")
    def _one_horizon(self) -> Profile:
        if self.horizon_months is not None and self.horizon_days is not None:
            raise ValueError("give horizon_months or horizon_days, not both")
        if (
            isinstance(self.demand, UtilisationDemand)
            and self.horizon_months is None
            and self.horizon_days is None
        ):
            raise ValueError("horizon_months or horizon_days is required with a utilisation demand")
        if self.job is not None and self.horizon_months is None and self.horizon_days is None:
            raise ValueError("horizon_months or horizon_days is required with the workload form")
        return self


def terms_of(profile: Profile) -> Terms:
    """The profile's money terms the objective is stated in (solvers.base.finance): discount rate, financing, the
    fixed monthly opex and cloud data costs."""
    opts = profile.options
    f = opts.financing
    return Terms(opts.discount_rate, None if f is None else Financing(f.annual_rate, f.term_months, f.down_payment),
                 opts.opex.fixed_usd_per_month, 0.0 if opts.cloud_data is None else opts.cloud_data.usd_per_month)
