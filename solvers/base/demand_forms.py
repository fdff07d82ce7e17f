"""The profile's demand forms and job shape (parts of the `POST /v1/plans` request body, a public contract): GPUs
at a utilisation, a monthly or hourly usage series, a concurrency timeline, and how wide and how patient a job is.

The demand stage (solvers.demand) turns these into periods; the offers and the replay read the job shape."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import (
    Field,
    field_validator,
    model_validator,
)

from solvers.base import defaults
from solvers.base.bounds import (
    Fraction,
    GpuHours,
    Gpus,
    Month,
    Name,
    PlanDate,
    Timestamp,
)
from solvers.base.fields import Patience, Strict


class UtilisationDemand(Strict):
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


class SeriesPoint(Strict):
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


class SeriesDemand(Strict):
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


class ConcurrencyDemand(Strict):
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


class JobShape(Strict):
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
