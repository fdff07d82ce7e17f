"""The options a plan chooses from, as the stages after the offers see them: a way to own GPUs, a cloud
instance under one pricing model, a host, and the set the offers stage hands on.

Why in the base: the model, the money and the explanations read these types, and so does the independent replay,
which may import base types only; the offers stage (solvers.offers) makes them from a catalog and a profile."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pricing.catalog import Host
from solvers.base.finance import Weights, hourly_part, term_starts_factor
from solvers.base.notices import Notice


@dataclass(frozen=True)
class OwnedOption:
    """A way to own GPUs: `gpus_per_unit` GPUs bought together for `unit_price_usd`."""

    key: str
    name: str
    gpu: str
    condition: str
    gpus_per_unit: int
    unit_price_usd: float
    includes_host: bool
    throughput: float  # speed of one job slot relative to the reference's (reference GPU-hours per GPU-hour
    # when every option runs the demand's width; the workload form gives each GPU type its own widths)
    marginal_kwh_per_gpu_hour: float  # energy a working GPU-hour adds over idle (incl. host share, PUE)
    idle_kwh_per_unit_hour: float  # energy of an owned unit per hour while idle (PUE applied)
    card_watts: float  # per GPU, for the hosts' PSU check (bare cards)
    resale_usd: float  # per unit at the horizon's end (0 when resale is off)
    memory_gb: float
    slots_per_unit: float  # jobs at once one unit adds (gpus_per_unit / width; whole jobs per machine)
    vendor: str
    source: str
    as_of: str
    feed: str
    accepting_hosts: tuple[int, ...] = ()  # bare cards: indices into Options.hosts that can take them
    load_per_gpu: float = 1.0  # always-on divisible load: reference load units one of its GPUs carries

    @property
    def gpus_per_slot_hour(self) -> float:
        """GPU-hours one job slot-hour keeps busy, per GPU of a job (1, or 1 / load per GPU for divisible load)."""
        return 1.0 / self.load_per_gpu
    # issue 16: running costs beyond power, and commitments (reserved instances) that the model treats as
    # owned slots paid by the hour for every hour of their terms (renewed term after term over the horizon)
    opex_usd_per_unit_hour: float = 0.0  # colocation, maintenance, staff per GPU (OwnedOpex), per unit-hour
    kind: str = "purchase"  # "purchase" or "commitment"
    usd_per_hour: float = 0.0  # commitment: price per instance-hour
    term_months: int = 0  # commitment: the term
    paid_hours: float = 0.0  # commitment: hours paid over the horizon (whole terms, so may pass its end)
    terms: int = 0  # commitment: terms held back to back from the plan's start
    provider: str = ""
    region: str = ""
    availability: float | None = None  # None: the profile's; a commitment is the provider's to keep up (1.0)
    max_units: int | None = None  # a commitment's quota
    width: int = 1  # GPUs one job takes on this option (jobs.gpus_per_job, or its GPU type's own in the workload form)
    offer: str = ""  # copies of one offer at several widths share it (and its quota); "" = this option's own key
    payment: str = ""  # commitment: no_upfront, partial_upfront, all_upfront ("" when the source does not say)
    upfront_usd: float = 0.0  # commitment: fee per instance at each term's start (solvers.base.finance.upfront_fee)
    # commitment: what a carbon price adds to each held instance-hour (solvers.offers.place_inputs), paid as the hours
    # pass
    carbon_usd_per_hour: float = 0.0

    def available(self, profile_availability: float) -> float:
        """Share of the hours this option can work: its own (a commitment 1.0, a machine on h hours a day h / 24),
        else the profile's `options.availability`."""
        return profile_availability if self.availability is None else self.availability

    @property
    def is_commitment(self) -> bool:
        return self.kind == "commitment"

    @property
    def quota_group(self) -> str:
        """The offer whose quota this option draws on: copies at several widths share one commitment's quota."""
        return self.offer or self.key

    @property
    def hourly_usd(self) -> float:
        """A commitment's price per instance-hour paid as the hours pass (its upfront fee taken out), with the carbon
        price of the held hour (never in an upfront fee: the emissions come hour by hour)."""
        paid = hourly_part(self.usd_per_hour, self.term_months, self.payment, self.upfront_usd)
        return paid + self.carbon_usd_per_hour

    @property
    def net_price_usd(self) -> float:
        return self.unit_price_usd - self.resale_usd

    def marginal_usd_per_ref_hour(self, usd_per_kwh: float) -> float:
        return usd_per_kwh * self.marginal_kwh_per_gpu_hour / self.throughput

    def usd_per_job_hour(self, usd_per_kwh: float, width: int | None = None) -> float:
        """Energy of one job-hour at reference pace: `width` GPUs (default: the option's own) working
        1 / throughput hours."""
        width = self.width if width is None else width
        return usd_per_kwh * self.marginal_kwh_per_gpu_hour * width / self.throughput / self.load_per_gpu


@dataclass(frozen=True)
class CloudOption:
    """A cloud instance type in a region under one pricing model."""

    key: str
    provider: str
    name: str
    gpu: str
    gpu_count: int
    usd_per_hour: float
    region: str
    pricing: str
    ref_hours_per_hour: float  # reference GPU-hours one instance-hour delivers (spot overhead applied)
    max_instances: float | None  # quota: instances at once, None = unlimited
    source: str
    as_of: str
    feed: str
    slots: int = 1  # jobs one instance runs at once: gpu_count // width
    speed: float = 1.0  # reference GPU-hours of one job's work per job-hour (throughput x spot overhead)
    listing: bool = False  # a marketplace listing: one host machine
    load_per_gpu: float = 1.0  # always-on divisible load: reference load units one of its GPUs carries
    width: int = 1  # GPUs one job takes on this offer (jobs.gpus_per_job, or its GPU type's own in the workload form)
    offer: str = ""  # copies of one offer at several widths share it (and its quota); "" = this option's own key
    # jobs (load units) of owned work displaced by maintenance that one instance-hour takes: its slots, or one
    # replica for always-on load (`solvers.offers.cloud.cloud_options`)
    displaced_slots: float | None = None

    @property
    def quota_group(self) -> str:
        """The offer whose quota this option draws on: copies at several widths share one machine's quota."""
        return self.offer or self.key

    @property
    def packed_capacity(self) -> float:
        """Reference job-hours of displaced owned work one packed instance-hour does (the model's y columns)."""
        return (self.slots if self.displaced_slots is None else self.displaced_slots) * self.speed

    @property
    def usd_per_ref_hour(self) -> float:
        return self.usd_per_hour / self.ref_hours_per_hour

    @property
    def usd_per_job_hour(self) -> float:
        """Price of one instance per hour of jobs it serves at reference pace (its GPUs all busy)."""
        return self.usd_per_hour / self.speed


@dataclass(frozen=True)
class HostOption:
    host: Host
    idle_kwh_per_hour: float  # PUE applied


@dataclass
class Options:
    owned: list[OwnedOption]
    cloud: list[CloudOption]
    hosts: list[HostOption]
    electricity_usd_per_kwh: float
    availability: float
    host_watts_per_working_gpu: float
    warnings: list[str]
    prices_as_of: dict[str, str]  # feed -> oldest price date among the candidates it supplied
    candidates: int  # options before pruning
    width: int = 1  # GPUs per job
    ignored: list[Notice] = field(default_factory=list)  # the profile's own items left out, and why


JobWidths = Mapping[str, Mapping[int, float]]
"""Per GPU type (canonical name): the job widths it may run at and, at each, the speed of one job slot relative to
the reference's job slot (the workload form, solvers/workload/demand.py). Without it every option runs
`jobs.gpus_per_job` GPUs per job at the throughput model's ratio."""


def unit_cost_of(o: OwnedOption, usd_per_kwh: float, total_hours: float, weights: Weights | None) -> float:
    """One unit over the horizon on the profile's basis: price (financed, at present value) net of the resale
    (discounted from the horizon's end), idle energy and per-unit opex every hour; a commitment its paid hours."""
    if weights is None:
        return o.net_price_usd + (usd_per_kwh * o.idle_kwh_per_unit_hour + o.opex_usd_per_unit_hour) * total_hours
    if o.is_commitment:
        tail = max(o.paid_hours - total_hours, 0.0)
        hourly = o.hourly_usd * (weights.hours + tail * weights.end)
        if o.upfront_usd:  # fees at each term's start (issue 16)
            return hourly + o.upfront_usd * term_starts_factor(weights.discount_rate, o.term_months, o.terms)
        return hourly
    return (o.unit_price_usd * weights.capex - o.resale_usd * weights.end
            + (usd_per_kwh * o.idle_kwh_per_unit_hour + o.opex_usd_per_unit_hour) * weights.hours)
