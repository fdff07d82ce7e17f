"""One owned row -> owned options: energy at the place's PUE, machines linked for wide jobs, serving replicas for
always-on load, running costs (opex), the hours a machine is on, and the widths worth keeping in the workload form.

In: an `OwnedRow` (solvers.offers.owned_rows), its GPU spec, its resale (found by `solvers.offers.resale.Resale`)
and the profile. Out: `OwnedOption`s."""

from __future__ import annotations

import math

from pricing.catalog import Host
from pricing.gpus import GpuSpec
from solvers.base import defaults
from solvers.base.evolve import defaults_of, evolved, filled
from solvers.base.options import OwnedOption
from solvers.base.plan_options import OwnedOpex
from solvers.base.profile import Profile
from solvers.offers.owned_rows import OwnedRow
from solvers.offers.throughput import cross_machine_efficiency, serving_slots


def useful_widths(owned: list[OwnedOption], hosts: list[Host]) -> list[OwnedOption]:
    """Of one purchase (or commitment) offered at several job widths, the copies no other copy beats on its own
    machine: a plan using a beaten copy can swap each unit for the copy that beats it and never pay more. On an
    8-GPU machine a job that fits one GPU runs at width 1 (8 jobs at once, no scaling loss); a 3-GPU job runs at 3
    or 4 (both 2 jobs at once: 4 is faster, 3 saves energy), never wider (one job at once, less work an hour than
    two jobs of 4 and more energy per job). Rented instances are not filtered here: wider is cheaper for an
    instance rented whole for one job, and pruning rule 1 drops the copies that are not."""
    groups: dict[str, list[OwnedOption]] = {}
    for o in owned:
        groups.setdefault(o.quota_group, []).append(o)
    beaten: set[str] = set()
    for copies in groups.values():
        for i, a in enumerate(copies):
            if any(_beats(b, a, hosts) and (j < i or not _beats(a, b, hosts))
                   for j, b in enumerate(copies) if j != i):
                beaten.add(a.key)
    return [o for o in owned if o.key not in beaten]


def _beats(b: OwnedOption, a: OwnedOption, hosts: list[Host]) -> bool:
    """`b` (a copy of `a`'s unit at another width) does all `a` does for no more money: as many jobs at once, as
    much work per hour, no more energy per job; bare cards also per card and in every host that takes them."""
    if b.unit_price_usd > a.unit_price_usd or b.net_price_usd > a.net_price_usd:
        return False
    if b.usd_per_job_hour(1.0) > a.usd_per_job_hour(1.0):
        return False
    if a.includes_host:
        work = b.slots_per_unit * b.throughput >= a.slots_per_unit * a.throughput
        return b.slots_per_unit >= a.slots_per_unit and work
    if b.width > a.width or b.throughput / b.width < a.throughput / a.width:
        return False
    if not set(a.accepting_hosts) <= set(b.accepting_hosts):  # copies placed apart (solvers.offers.pue.places)
        return False
    return all((hosts[k].slots // b.width) * b.throughput >= (hosts[k].slots // a.width) * a.throughput
               for k in a.accepting_hosts)


def idle_hours_share(machine_on: str | float) -> float:
    """Share of the hours an owned machine is on while idle: always 1, when_working 0, h hours a day h / 24.

    With `when_working` a working GPU draws its full power (no idle baseline to subtract): the guide's formula.
    """
    if machine_on == "always":
        return 1.0
    if machine_on == "when_working":
        return 0.0
    return float(machine_on) / 24.0


def on_hours_share(machine_on: str | float) -> float:
    """Share of the hours an owned machine can work: h / 24 when it is on h hours a day, else all of them.

    A machine on h hours a day works only while it is on, so its available hours are capped at h / 24 of every
    period (the availability a purchase carries, the lower of the two: maintenance fits in the hours it is off).
    Without the cap the idle draw was charged for h / 24 of the hours while the work ran in more hours than that,
    and a machine on 2 hours a day at 50% utilisation cost less energy than one on only while working.
    """
    if isinstance(machine_on, str):
        return 1.0
    return float(machine_on) / 24.0


class OwnedUnit:
    """One row's unit as options: the fields every copy of it shares (per job width and place) computed once, and
    `at` the option at one width and place. Its energy at the place's PUE, its running costs (`opex`: colocation
    counts its GPUs' working power, with the host share a bare card adds to its host) and its `availability` (a
    machine on only some hours a day) are set as it is made.

    Why this shape: the offers stage makes one option per quote, width and place; making each through the
    dataclass's `__init__` and copying it again per place, for opex and for availability was half of the offers
    stage for 200 quotes (issue 31). An option is filled without `__init__` from the row's shared dict (the
    dataclass's defaults and the row's fields) and its own eight fields; the first option a process makes is
    checked to hold exactly `OwnedOption`'s fields (`solvers.base.evolve.filled`), and the tests hold options
    made here equal to the dataclass's own."""

    __slots__ = ("_idle", "_marginal", "_n", "_state", "_whole")

    def __init__(self, row: OwnedRow, spec: GpuSpec, kwh_per_watt_hour: float, host_watts: float, resale: float,
                 idle_share: float = 1.0, opex: OwnedOpex | None = None, availability: float | None = None) -> None:
        n = row.gpus_per_unit
        if row.watts is not None:
            working_per_gpu = row.watts / n
        else:
            working_per_gpu = spec.tdp_w + (host_watts if row.includes_host else 0.0)
        idle_unit = (row.idle_watts if row.idle_watts is not None
                     else defaults.GPU_IDLE_FRACTION_OF_TDP * spec.tdp_w * n)
        host_share = 0.0 if row.includes_host else host_watts
        baseline = idle_unit / n if idle_share > 0 else 0.0  # idle draw a working GPU does not add (machine on anyway)
        marginal_w = max(working_per_gpu - baseline, 0.0) + host_share
        self._n = n
        self._whole = row.includes_host
        self._marginal = kwh_per_watt_hour * marginal_w  # at PUE 1; `at` multiplies by the place's PUE
        self._idle = kwh_per_watt_hour * idle_unit * idle_share
        # the defaults' copy filled key by key: half the time of a dict display unpacking them (0.5 us of 1 us a
        # row, for 200 quotes); the same keys in the same order
        state = _OPTION_DEFAULTS.copy()
        state["name"] = row.name
        state["gpu"] = row.gpu
        state["condition"] = row.condition
        state["gpus_per_unit"] = n
        state["unit_price_usd"] = row.unit_price_usd
        state["includes_host"] = row.includes_host
        state["card_watts"] = working_per_gpu
        state["resale_usd"] = resale
        state["memory_gb"] = spec.memory_gb
        state["vendor"] = row.vendor
        state["source"] = row.source
        state["as_of"] = row.as_of
        state["feed"] = row.feed
        state["opex_usd_per_unit_hour"] = (0.0 if opex is None
                                           else n * opex_per_gpu_hour(opex, working_per_gpu / 1000.0))
        state["availability"] = availability
        self._state = state

    def at(self, key: str, throughput: float, width: int = 1, accepting_hosts: tuple[int, ...] = (),
           pue: float = 1.0, offer: str = "") -> OwnedOption:
        """The option running jobs of `width` GPUs at `throughput` (one job slot against the reference's), in
        `accepting_hosts` (bare cards), at the `pue` of where it stands (`solvers.offers.pue.places`)."""
        n = self._n
        # a dict of its own, set as the instance's (`solvers.base.evolve.filled`, which checks the first)
        state = self._state.copy()
        state["key"] = key
        state["throughput"] = throughput
        state["marginal_kwh_per_gpu_hour"] = self._marginal * pue
        state["idle_kwh_per_unit_hour"] = self._idle * pue
        state["slots_per_unit"] = (n // width) if self._whole else n / width
        state["width"] = width
        state["accepting_hosts"] = accepting_hosts
        state["offer"] = offer
        return filled(OwnedOption, state)


_OPTION_DEFAULTS = defaults_of(OwnedOption)


def linked_machines(option: OwnedOption, profile: Profile) -> OwnedOption:
    """A machine smaller than a job, linked to others of its kind: each machine carries gpus / width of a job at
    the cross-machine efficiency, and (InfiniBand) pays its share of the network, `NETWORK_USD_PER_MACHINE`.

    Always-on load keeps the machine's own speed: a replica wider than any machine is linked however it runs, the
    reference replica included, so its load is stated on linked machines and the efficiency does not apply twice
    (on jobs that finish, the efficiency is what a job loses against running on one machine)."""
    jobs = profile.jobs
    machines = math.ceil(option.width / option.gpus_per_unit)
    network = defaults.NETWORK_USD_PER_MACHINE if jobs.interconnect == "infiniband" else 0.0
    efficiency = 1.0 if jobs.runs == "continuously" else cross_machine_efficiency(profile, machines)
    return evolved(option, slots_per_unit=option.gpus_per_unit / option.width,
                   throughput=option.throughput * efficiency, unit_price_usd=option.unit_price_usd + network)


def serving_replicas(option: OwnedOption, width: int, load: str, pooled: bool, unit: float = 1.0,
             most: float = math.inf) -> OwnedOption:
    """The option for always-on load: capacity in load units per unit (`serving_slots`), busy every hour it
    holds load (throughput 1: a faster GPU does not finish sooner), energy per unit of load it carries.
    `pooled`: its GPUs join others' (bare cards in the plan's hosts, machines linked for a replica wider than
    one), so a unit carries a fraction of a replica. `unit`: reference replicas per load unit (periods.load_unit);
    `most`: the peak's load units."""
    r = option.throughput / unit if load == "divisible" else option.throughput
    return evolved(option, throughput=1.0, load_per_gpu=r if load == "divisible" else 1.0,
                   slots_per_unit=serving_slots(option.gpus_per_unit, r, width, load, pooled=pooled, most=most))


HOURS_PER_MONTH = 365.25 * 24 / 12  # 730.5: an average calendar month


HOURS_PER_YEAR = 365.25 * 24


def opex_per_gpu_hour(opex: OwnedOpex, kw_per_gpu: float) -> float:
    """Per-GPU running costs beyond power, per hour: colocation by kW, maintenance per GPU-year, staff per GPU."""
    return (opex.colocation_usd_per_kw_month * kw_per_gpu / HOURS_PER_MONTH
            + opex.maintenance_usd_per_gpu_year / HOURS_PER_YEAR
            + opex.staff_usd_per_gpu_month / HOURS_PER_MONTH)
