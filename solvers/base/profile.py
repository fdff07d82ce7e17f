"""The workload profile a plan is made for: the `POST /v1/plans` request body (a public contract).

Validation here covers everything that can be checked without the catalog; GPU names, providers
and feasibility are checked by the planner against the catalog it is given.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from solvers.base import defaults
from solvers.base.bounds import (
    AnnualRate,
    Availability,
    Count,
    Fraction,
    GpuCount,
    GpuHours,
    Gpus,
    HourlyRate,
    Money,
    Month,
    Name,
    OptionalName,
    PlanDate,
    Ratio,
    Timestamp,
)
from solvers.base.finance import PROVIDER_HOURS_PER_MONTH
from solvers.base.workload import PlanWorkload

# ISO 4217 code of a money input; any currency the ECB rates in force quote (checked when the plan is made)
CurrencyCode = Annotated[str, Field(pattern=r"^[A-Za-z]{3}$", description="ISO 4217 code, e.g. USD, EUR, GBP; "
                                    "any currency of the ECB reference rates; default USD")]
PlanCurrency = Literal["USD", "EUR", "GBP", "CNY", "JPY", "INR", "CHF", "CAD", "AUD"]

Workload = Literal["cnn_training", "transformer_training", "rnn_training", "inference_16bit", "inference_8bit"]
WORKLOADS: tuple[str, ...] = Workload.__args__  # type: ignore[attr-defined]



class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, str_strip_whitespace=True)


class UtilisationDemand(_Strict):
    """N reference GPUs busy a fraction of the time: how the guide talks about demand.

    Three readings (`reading`), the same for one GPU:
    - `independent` (default): N / gpus_per_job independent jobs, each busy u of the hours, as a lab's N people
      each running their own work: the jobs busy in an hour follow a binomial law (8 GPUs at 60%: 6 or fewer busy
      in 89% of the hours, all 8 in 1.7%), so owning fewer than N leaves only the rarer busy hours to the cloud;
    - `at_once`: all N GPUs busy together for u of the hours and idle otherwise (one group's runs, a deadline
      push), so owning fewer than N leaves work for the cloud in every busy hour;
    - `average`: N x u GPUs busy at every hour (a shared cluster whose load is smooth).
    """

    gpus: Gpus = Field(1, description="number of reference GPUs; with reading independent or at_once, whole jobs: "
                      "a multiple of jobs.gpus_per_job")
    utilisation: Fraction = Field(description="fraction of hours they are busy, in (0, 1]")
    reading: Literal["independent", "at_once", "average"] = Field(
        "independent", description="independent (default): N / gpus_per_job independent jobs, each busy u of the "
        "hours (a lab's people; busy GPUs follow a binomial law hour by hour); at_once: N GPUs busy together for u "
        "of the hours; average: N x u GPUs busy on average at every hour")
    reference_gpu: Name = Field(
        description="the GPU the work is counted in: a reference GPU-hour is an hour of this GPU (a "
        "GPU name of the catalog, e.g. RTX 3090)")
    start: PlanDate | None = Field(None, description="first day of demand; default: first day of next month")


class SeriesPoint(_Strict):
    """The work of one month, week or day, and optionally how many GPUs it keeps busy at once."""

    month: Month | None = Field(None, description="YYYY-MM (month resolution)")
    start: PlanDate | None = Field(
        None, description="first day of the week (a Monday) or the day (week/day resolution)")
    reference_gpu_hours: GpuHours = Field(description="work in the period, in hours of the reference GPU")
    gpus_at_once: Gpus | None = Field(
        None, description="GPUs the work keeps busy together while it runs; default: spread evenly over the period")

    @model_validator(mode="after")
    def _one_key(self) -> SeriesPoint:
        if (self.month is None) == (self.start is None):
            raise ValueError("give month (month resolution) or start (week or day resolution), not both")
        return self

    @property
    def first_day(self) -> dt.date:
        if self.month is not None:
            return dt.date(int(self.month[:4]), int(self.month[5:7]), 1)
        assert self.start is not None  # the validator requires one of the two
        return self.start


class SeriesDemand(_Strict):
    """Reference GPU-hours per calendar month, ISO week or day, e.g. deadline bursts."""

    series: list[SeriesPoint] = Field(
        min_length=1, max_length=defaults.MAX_HORIZON_DAYS, description="the work of each month, ISO week or day "
        "(each period once, in any order); at most 120 months")
    resolution: Literal["month", "week", "day"] = Field(
        "month", description="month: points give month (YYYY-MM); week or day: points give start (YYYY-MM-DD, a "
        "week's on a Monday)")
    reference_gpu: Name = Field(
        description="the GPU the work is counted in: a reference GPU-hour is an hour of this GPU (a "
        "GPU name of the catalog, e.g. RTX 3090)")

    @model_validator(mode="after")
    def _points(self) -> SeriesDemand:
        points = self.series
        for i, p in enumerate(points):
            if self.resolution == "month" and p.month is None:
                raise ValueError(f"series[{i}]: month resolution needs month (YYYY-MM)")
            if self.resolution != "month" and p.month is not None:
                raise ValueError(f"series[{i}]: {self.resolution} resolution needs start (YYYY-MM-DD), not month")
            if self.resolution == "week" and p.start is not None and p.start.weekday() != 0:
                raise ValueError(f"series[{i}]: a week starts on a Monday (ISO 8601)")
        starts = [p.first_day for p in points]
        if len(set(starts)) != len(starts):
            raise ValueError(f"each {self.resolution} may appear only once in the series")
        if self.resolution == "month" and len(points) > defaults.MAX_HORIZON_MONTHS:
            raise ValueError(f"at most {defaults.MAX_HORIZON_MONTHS} months")
        if all(p.reference_gpu_hours == 0 for p in points):
            raise ValueError(f"the series has no demand: every {self.resolution} is 0 reference GPU-hours")
        self.series = sorted(points, key=lambda p: p.first_day)
        return self


class ConcurrencyDemand(_Strict):
    """An hourly concurrency series: GPUs busy on average in each hour, e.g. from a usage log.

    This is the form `solvers.usage` returns (`UsageSeries(start, busy_gpus)`): `start` is the first hour
    (UTC, on the hour; a time without a zone is read as UTC), then one value per hour.
    """

    start: Timestamp = Field(description="the first hour, UTC and on the hour (a time without a zone is read as UTC)")
    resolution: Literal["hour"] = Field("hour", description="hour: one value of busy_gpus per hour")
    busy_gpus: list[Annotated[float, Field(ge=0, le=100_000, allow_inf_nan=False)]] = Field(
        min_length=1, max_length=24 * defaults.MAX_HORIZON_DAYS, description="GPUs busy on average in each hour from "
        "start, one value per hour (what the usage-log import produces); hours not in the list are idle")
    reference_gpu: Name = Field(
        description="the GPU the busy GPUs are counted in (a GPU name of the catalog)")

    @field_validator("start")
    @classmethod
    def _on_the_hour(cls, value: dt.datetime) -> dt.datetime:
        value = value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)
        if value.minute or value.second or value.microsecond:
            raise ValueError("start must be on the hour")
        return value

    @field_validator("busy_gpus")
    @classmethod
    def _some_work(cls, value: list[float]) -> list[float]:
        if not any(value):
            raise ValueError("the series has no demand: every hour is 0 busy GPUs")
        return value


Patience = Literal["none", "day", "week", "month"]


class JobShape(_Strict):
    """How the work runs: GPUs one job needs together, how well it scales, and how long it may wait."""

    gpus_per_job: int = Field(1, ge=1, le=64, description="GPUs one job needs together, on one machine unless "
                              "interconnect links machines")
    interconnect: Literal["same_machine", "infiniband", "ethernet"] = Field(
        "same_machine", description="same_machine (default): a job runs on one machine or instance; infiniband: "
        "a job may span machines of one GPU type linked by an RDMA fabric (InfiniBand, or AWS EFA: cloud offers "
        "known to have one); ethernet: owned machines linked by ethernet, with jobs.cross_machine_efficiency")
    cross_machine_efficiency: float | None = Field(
        None, ge=0.01, le=1, allow_inf_nan=False,
        description="measured speed of a job across machines relative to the same GPUs in one machine; "
        "default for infiniband: 0.975 on 4 machines, 0.90 on 16 (MosaicML 2022), required for ethernet")
    scaling_efficiency: float | None = Field(
        None, ge=0.01, le=1, allow_inf_nan=False,
        description="measured speed-up on gpus_per_job GPUs divided by gpus_per_job, 0.01 to 1 (below 0.01 the job "
        "needs over 100 times its work; a denormal here once overflowed the model); "
        "default: the guide's data-parallel figures (DOMAIN.md section 3)")
    patience: Patience = Field(
        "none", description="none: work runs when it arrives; day, week, month: work may move anywhere within its "
        "calendar day, ISO week or month")
    runs: Literal["until_done", "continuously"] = Field(
        "until_done", description="until_done (default): the demand is work in reference GPU-hours and a faster GPU "
        "finishes it in fewer hours (training); continuously: an always-on service, the demand is load that must "
        "be served every hour it is there: whole GPUs (whole instances for cloud) present in every such hour")
    load: Literal["replicas", "divisible"] = Field(
        "replicas", description="with runs = continuously: replicas (default): the load is whole replicas of "
        "gpus_per_job reference GPUs, each needs its own job slot on a GPU at least as fast as the reference "
        "(a faster GPU does not carry more than one replica); divisible: the load splits freely (e.g. "
        "requests/s), a GPU of relative throughput r carries r reference GPUs of load, rounded to whole "
        "replicas of the type that serves it (0.05 reference GPUs of load need one replica of any type)")

    spare_replicas: int = Field(
        0, ge=0, le=8, description="with runs = continuously: replicas held beyond the load in every hour it is there "
        "(N + 1 and more), so a machine can fail or be serviced without the service falling short; the plan warns "
        "when one machine or one marketplace host carries every replica")

    @model_validator(mode="after")
    def _always_on_cannot_wait(self) -> JobShape:
        if self.runs == "continuously" and self.patience != "none":
            raise ValueError("patience: an always-on load (runs = continuously) cannot wait; use patience = none")
        if self.spare_replicas and self.runs != "continuously":
            raise ValueError("spare_replicas: spare replicas are for an always-on load (runs = continuously); work "
                             "that runs until done has no replicas")
        if self.interconnect == "ethernet" and self.cross_machine_efficiency is None:
            raise ValueError("cross_machine_efficiency: jobs across machines on ethernet need a measured efficiency "
                             "(the guide asks for at least 50 Gbit/s InfiniBand across machines)")
        return self


class FinancingInput(_Strict):
    """Purchases (GPUs and hosts) paid over time: a loan or lease at an annual rate (APR) over a term."""

    annual_rate: AnnualRate = Field(description="annual rate (APR), 0 or 1e-6 to 1, compounded monthly (rate / 12 a "
                                    "month), e.g. 0.07")
    term_months: int = Field(ge=1, le=defaults.MAX_HORIZON_MONTHS, description="months of level payments")
    down_payment: float = Field(0.0, ge=0, le=1, allow_inf_nan=False,
                                description="share of the price paid at the start, 0 to 1; default 0")


class OwnedOpex(_Strict):
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


class CloudData(_Strict):
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


class PlanOptions(_Strict):
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


class OwnedPriceItem(_Strict):
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


class CloudPriceItem(_Strict):
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


class CommitmentPriceItem(_Strict):
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


class PriceInput(_Strict):
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


class ElectricityInput(_Strict):
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


class Profile(_Strict):
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
