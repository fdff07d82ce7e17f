"""Turn a solution in model terms (units, jobs and instances per level) into plan lines, costs and monthly figures.

Blocks merge periods with the same load-duration curve per hour, so a block's hours are spread over its
periods in proportion to their hours: an optimal split, since costs are linear in hours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import compress
from typing import Any

import numpy as np
from pydantic import TypeAdapter

from solvers.base.break_even_result import Alternative
from solvers.base.finance import Terms
from solvers.base.options import CloudOption, HostOption, OwnedOption
from solvers.base.plan_lines import BuyLine, CashFlowLine, CloudLine, CommitmentLine, Costs, HostLine, PeriodLine
from solvers.demand.blocks import Block
from solvers.demand.periods import Period
from solvers.demand.waits import Waits
from solvers.money.allocation import Allocation, allocation_waits, capacities
from solvers.money.cash_flows import flows_of
from solvers.money.plan_fixed import PlanFixed
from solvers.money.rounding import rounded_lists


@dataclass
class Accounts:
    buy: list[BuyLine]
    hosts: list[HostLine]
    cloud: list[CloudLine]
    costs: Costs
    periods: list[PeriodLine]
    period_running_usd: list[float]   # every flow after the start per period, on the profile's basis (curves)
    listings: list[str] = field(default_factory=list)  # marketplace listings the plan rents
    commitments: list[CommitmentLine] = field(default_factory=list)
    cash_flows: list[CashFlowLine] = field(default_factory=list)
    start_usd: float = 0.0   # paid at the start on the profile's basis (cumulative curves)
    resale_basis_usd: float = 0.0  # resale on the profile's basis
    # per listing label: host machines its row stands for (a Vast aggregate's listing count, its quota; 1 for one host)
    listing_machines: dict[str, int] = field(default_factory=dict)

    def alternative(self) -> Alternative:
        return Alternative(total_cost_usd=self.costs.total_usd, costs=self.costs, buy=self.buy,
                           hosts=self.hosts, cloud=self.cloud, commitments=self.commitments)


def cloud_label(c: CloudOption) -> str:
    return f"{c.provider}/{c.name}/{c.region}/{c.pricing}"


@dataclass
class _BlockFigures:
    """What each block's solution adds up to, per block-hour share (spread over its periods by hours): arrays over
    the blocks."""

    owned: list[tuple[str, np.ndarray]]   # option key -> GPU-hours worked, in the allocation's order
    cloud: list[tuple[str, np.ndarray]]   # offer key -> instance-hours, each key once (its first place)
    delivered: np.ndarray
    unused_rented: np.ndarray | None  # None: no rented instance, 0.0 (a Python float) in every block
    peak_owned: np.ndarray
    peak_rented: np.ndarray
    unserved: np.ndarray  # cells where some jobs had no owned or rented slot


@dataclass
class Ledger:
    """Everything needed to price an allocation: the options by key, blocks, periods and the rate."""

    owned: dict[str, OwnedOption]
    cloud: dict[str, CloudOption]
    hosts: dict[str, HostOption]
    blocks: list[Block]
    periods: list[Period]
    usd_per_kwh: float
    width: int = 1  # the demand's job width (delivered reference GPU-hours); each option has its own for its GPUs
    efficiency: float = 1.0
    always_on: bool = False  # jobs.runs = continuously: report whether every hour was served
    terms: Terms = field(default_factory=Terms)
    show_widths: bool = False  # the workload form: each line says the job width it runs at
    hours_on: float | None = None  # options.machine_on as hours a day; None: machines on whenever there is work
    patience: str = "none"  # jobs.patience: the windows within which the plan's rented hours may be taken

    def _line_width(self, width: int) -> int | None:
        return width if self.show_widths else None
    _fixed: PlanFixed | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def fixed(self) -> PlanFixed:
        """What every account of this plan shares (a plan accounts for itself and its two alternatives)."""
        if self._fixed is None:
            self._fixed = PlanFixed.of(self.blocks, self.periods)
        return self._fixed

    def _block_figures(self, alloc: Allocation, detail: bool) -> _BlockFigures:
        """Each block's figures, computed for all blocks at once per option. Why: a loop over blocks with a mask and
        three maxima each cost some 10 us a block, twelve blocks in a 36-month series, three accounts a plan; the
        arrays hold the same floats (the same operations element by element, the peaks as `max(initial=0.0)` of the
        block's active cells by `np.maximum.at`, which takes them in the same order). Without `detail` (an
        alternative's account) only the hours worked and rented, which its costs need: the per-period table's
        figures (delivered work, peaks, idle rented hours, unserved hours) are left at zero."""
        cells = self.fixed.cells
        w = self.width
        n_blocks = len(self.blocks)
        owned_at_once = np.zeros(len(cells.jobs))
        owned_gpus = np.zeros(len(cells.jobs))
        job_hours = np.zeros(n_blocks)
        owned_columns: list[tuple[str, np.ndarray]] = []
        for key, jobs in alloc.owned_jobs.items():
            o = self.owned[key]
            busy = np.bincount(cells.block, weights=jobs * cells.hours, minlength=n_blocks)
            displaced = alloc.displaced.get(key, np.zeros(n_blocks))
            owned_columns.append((key, o.width * (busy / o.throughput - np.asarray(displaced)) / o.load_per_gpu))
            if detail:
                job_hours += busy - o.throughput * displaced
                owned_at_once += jobs
                owned_gpus += o.width * jobs / o.load_per_gpu
        remaining = np.maximum(cells.jobs - owned_at_once, 0.0)
        rented_at_once = np.zeros(len(cells.jobs))
        rented_gpus = np.zeros(len(cells.jobs))
        cloud_columns: list[tuple[str, np.ndarray]] = []  # in the order each block adds them up
        idle_total = np.zeros(n_blocks)
        outage_idle = False
        for key, inst in sorted(alloc.instances.items(), key=lambda kv: self.cloud[kv[0]].usd_per_job_hour):
            c = self.cloud[key]
            run_hours = inst * cells.hours / c.speed
            cloud_columns.append((key, np.bincount(cells.block, weights=run_hours, minlength=n_blocks)))
            if detail:
                used = np.minimum(c.slots * inst, remaining)
                remaining = remaining - used
                rented_at_once += used
                rented_gpus += c.width * _busy_jobs(inst, used, c.slots) / c.load_per_gpu
                unused = (c.gpu_count * inst - c.width * used / c.load_per_gpu) * cells.hours / c.speed
                idle_total += np.bincount(cells.block, weights=unused, minlength=n_blocks)
        if detail:  # the rented jobs' hours, after the owned ones' and before the packed hours'
            job_hours += np.bincount(cells.block, weights=rented_at_once * cells.hours, minlength=n_blocks)
        packed_peak = np.zeros(n_blocks)  # GPUs of one packed instance, where a block has packed hours of it
        for key, packed in alloc.packed_hours.items():
            c = self.cloud[key]
            cloud_columns.append((key, np.asarray(packed)))
            if not detail:
                continue
            job_hours += packed * c.packed_capacity
            idle_gpus = 0.0
            if c.displaced_slots is not None:  # an instance-hour rented for one replica's outage: its other GPUs
                idle_gpus = max(c.gpu_count - c.width * (c.packed_capacity / c.speed) / c.load_per_gpu, 0.0)
                idle_total += idle_gpus * np.asarray(packed)
                outage_idle = True
            packed_peak = np.maximum(packed_peak, np.where(np.asarray(packed) > 1e-9, c.gpu_count - idle_gpus, 0.0))
        merged: dict[str, np.ndarray] = {}
        for key, column in cloud_columns:  # 0.0 plus each of the key's columns, as each block added them up
            merged[key] = merged.get(key, 0.0) + column
        if not detail:
            zeros = np.zeros(n_blocks)
            return _BlockFigures(owned_columns, list(merged.items()), zeros, None, zeros, zeros, zeros)
        active = cells.hours > 1e-9
        where = cells.block[active]
        peak_owned, peak_rented = np.zeros(n_blocks), np.zeros(n_blocks)
        np.maximum.at(peak_owned, where, owned_gpus[active])
        np.maximum.at(peak_rented, where, rented_gpus[active])
        # hours rented for owned machines' maintenance or off-hours: one instance at least is busy then (which hours
        # of the period they fall in is not modelled, so not how many at once)
        peak_rented = np.maximum(peak_rented, packed_peak)
        unserved = np.bincount(where[~(remaining[active] <= 1e-6)], minlength=n_blocks)
        unused_rented = idle_total if alloc.instances or outage_idle else None  # else 0.0, summed block by block
        return _BlockFigures(owned_columns, list(merged.items()), job_hours * w * self.efficiency, unused_rented,
                             peak_owned, peak_rented, unserved)

    def account(self, alloc: Allocation, detail: bool = True) -> Accounts:
        """`detail` False (an alternative): the lines, costs and curves, without the per-period table and the
        cash-flow rows, which only the plan itself shows."""
        rate = self.usd_per_kwh
        fixed = self.fixed
        fig = self._block_figures(alloc, detail)
        at, share, outside = fixed.block_of, fixed.share_of, fixed.outside
        idle_kwh_per_hour = sum(n * self.owned[k].idle_kwh_per_unit_hour for k, n in alloc.purchase.units.items())
        idle_kwh_per_hour += sum(n * self.hosts[s].idle_kwh_per_hour for s, n in alloc.purchase.hosts.items())
        electricity = [rate * idle_kwh_per_hour * hours for hours in fixed.period_hours]
        # Each period's figures from its block's, all periods at once: a period is in one block at most, so each
        # figure is its start plus the same terms in the same order as a loop over blocks, periods and keys added
        # them (element by element the same operations); the numpy scalars it made stay numpy scalars (`_of`),
        # for `round` rounds them differently. By the line's key here; the periods name a line by its place in
        # `buy`, `cloud` or `commitments`, never by the quote's own name, which would repeat every input string
        # once per period (issue 31).
        owned_hours: list[tuple[str, np.ndarray]] = []
        cloud_hours: list[tuple[tuple[str, str], np.ndarray]] = []  # committed instance-hours first, as shown
        energy: np.ndarray | None = None
        for key, column in fig.owned:
            o = self.owned[key]
            if o.is_commitment:  # committed instance-hours worked, shown with the cloud's
                if detail:
                    cloud_hours.append((("commitments", key), column[at] * share / o.gpus_per_unit))
                continue
            term = rate * o.marginal_kwh_per_gpu_hour * column[at] * share
            energy = (np.array(electricity, dtype=np.float64) if energy is None else energy) + term
            if detail:
                owned_hours.append((key, column[at] * share))
        if energy is not None:
            electricity = _of(energy, electricity, outside)
        cloud_cost = [0.0] * len(self.periods)
        spend: np.ndarray | None = None
        cloud_totals: dict[str, tuple[float, float]] = {}
        for key, column in fig.cloud:
            c = self.cloud[key]
            spend = (np.zeros(len(at)) if spend is None else spend) + c.usd_per_hour * column[at] * share
            if detail:
                cloud_hours.append((("cloud", key), column[at] * share))
            if len(column):  # hours and cost summed block by block, in order, as numpy scalars
                h = cost = 0.0
                for hours in column.tolist():
                    h, cost = h + hours, cost + hours * c.usd_per_hour
                cloud_totals[key] = (np.float64(h), np.float64(cost))
        if spend is not None:
            cloud_cost = _of(spend, cloud_cost, outside)
        cloud_totals = {k: v for k, v in cloud_totals.items() if v[0] > 1e-9}

        purchases = {k: n for k, n in alloc.purchase.units.items() if not self.owned[k].is_commitment}
        committed = {k: n for k, n in alloc.purchase.units.items() if self.owned[k].is_commitment and n > 0}
        buy = [
            BuyLine(name=o.name, gpu=o.gpu, condition=o.condition, count=n, gpus_per_unit=o.gpus_per_unit,  # type: ignore[arg-type]
                    includes_host=o.includes_host, unit_price_usd=o.unit_price_usd,
                    resale_usd_per_unit=round(o.resale_usd, 2), source=o.source, price_as_of=o.as_of,
                    gpus_per_job=self._line_width(o.width),
                    vendor=o.vendor if o.feed != "request" and isinstance(o.vendor, str) and o.vendor else None)
            for k, n in sorted(purchases.items()) if n > 0 for o in [self.owned[k]]
        ]
        hosts = [
            HostLine(name=h.host.name, slots=h.host.slots, count=n, unit_price_usd=h.host.base_cost_usd,
                     psu_watts=h.host.psu_watts, idle_watts=h.host.idle_watts, source=h.host.source,
                     price_as_of=h.host.as_of)
            for name, n in sorted(alloc.purchase.hosts.items(), key=lambda kv: (self.hosts[kv[0]].host.slots, kv[0]))
            if n > 0 for h in [self.hosts[name]]
        ]
        cloud = [
            CloudLine(provider=c.provider, name=c.name, gpu=c.gpu, gpu_count=c.gpu_count, region=c.region,
                      pricing=c.pricing, usd_per_hour=c.usd_per_hour, hours=round(h, 3),  # type: ignore[arg-type]
                      cost_usd=round(cost, 2), source=c.source, price_as_of=c.as_of,
                      gpus_per_job=self._line_width(c.width))
            for k, (h, cost) in sorted(cloud_totals.items(), key=lambda kv: -kv[1][1]) for c in [self.cloud[k]]
        ]
        capex = sum(line.count * line.unit_price_usd for line in buy) + sum(h.count * h.unit_price_usd for h in hosts)
        resale = sum(n * self.owned[k].resale_usd for k, n in purchases.items())
        uses_cloud = bool(committed) or any(float(np.max(v, initial=0.0)) > 1e-9 for v in alloc.instances.values())
        flows = flows_of(self.owned, self.terms, self.fixed.hours, self.fixed.calendar, capex, resale, purchases,
                         committed, uses_cloud)
        commitments = [
            CommitmentLine(provider=o.provider, name=o.name, gpu=o.gpu, gpu_count=o.gpus_per_unit, region=o.region,
                           count=n, term_months=o.term_months,
                           terms=o.terms,
                           usd_per_hour=o.usd_per_hour + o.carbon_usd_per_hour, paid_hours=round(o.paid_hours, 3),
                           cost_usd=round(n * (o.usd_per_hour + o.carbon_usd_per_hour) * o.paid_hours
                                          if not o.upfront_usd
                                          else n * (o.hourly_usd * o.paid_hours + o.upfront_usd * o.terms), 2),
                           carbon_usd_per_hour=o.carbon_usd_per_hour,
                           payment=o.payment or "not_stated", upfront_usd=round(o.upfront_usd, 2),
                           source=o.source, price_as_of=o.as_of, gpus_per_job=self._line_width(o.width))
            for k, n in sorted(committed.items()) for o in [self.owned[k]]
        ]
        extra = flows.commitments_total + flows.opex_total + flows.interest + flows.cloud_data_total
        energy_usd, cloud_usd = sum(electricity), sum(cloud_cost)
        total = capex + energy_usd + cloud_usd - resale
        if extra:
            total += extra
        costs = Costs(
            capex_usd=round(capex, 2),
            electricity_usd=round(energy_usd, 2),
            cloud_usd=round(cloud_usd, 2),
            resale_credit_usd=round(resale, 2),
            total_usd=round(total, 2),
            commitments_usd=round(flows.commitments_total, 2),
            opex_usd=round(flows.opex_total, 2),
            financing_interest_usd=round(flows.interest, 2),
            cloud_data_usd=round(flows.cloud_data_total, 2),
        )
        running = [e + c for e, c in zip(electricity, cloud_cost, strict=True)]
        table, start_basis, running_basis, resale_basis, present_value = flows.table(
            self.terms, self.periods, electricity, cloud_cost,
                                                                                     running, detail)
        costs.present_value_usd = round(present_value, 2)
        listings = sorted({cloud_label(self.cloud[k]) for k in cloud_totals if self.cloud[k].listing})
        machines = {cloud_label(c): _machines(c) for k in cloud_totals if (c := self.cloud[k]).listing}
        if not detail:
            return Accounts(buy, hosts, cloud, costs, [], running_basis, listings, commitments, table, start_basis,
                            resale_basis, listing_machines=machines)
        bought = [k for k, n_units in sorted(purchases.items()) if n_units > 0]  # the order of `buy`
        place = {k: f"buy[{i}]" for i, k in enumerate(bought)}
        rented = sorted(cloud_totals.items(), key=lambda kv: -kv[1][1])  # the order of `cloud`
        places = {("cloud", k): f"cloud[{i}]" for i, (k, _) in enumerate(rented)}
        places.update({("commitments", k): f"commitments[{i}]" for i, k in enumerate(sorted(committed))})
        owned_rounded = _kept(owned_hours, place, len(self.periods), outside)
        cloud_rounded = _kept(cloud_hours, places, len(self.periods), outside)
        n_periods = len(self.periods)
        delivered = _of(0.0 + fig.delivered[at] * share, [0.0] * n_periods, outside)
        unused = ([0.0] * n_periods if fig.unused_rented is None
                  else _of(0.0 + fig.unused_rented[at] * share, [0.0] * n_periods, outside))
        peak_owned, peak_rented = fig.peak_owned[at].tolist(), fig.peak_rented[at].tolist()
        served = (fig.unserved[at] == 0).tolist()
        for p in outside:
            peak_owned[p], peak_rented[p], served[p] = 0.0, 0.0, True
        waits = allocation_waits(alloc, self.periods, self.blocks, self.owned, self.cloud, self.width,
                                 self.hours_on, self.patience, self.fixed.cells.hours)
        # every other figure of the table in two batches, one per number of digits
        delivered_r, peak_owned_r, peak_rented_r, unused_r, waited_r = rounded_lists(
            [delivered, self._peak_owned(peak_owned, alloc, waits), peak_rented, unused, waits.waited_gpu_hours], 3)
        electricity_r, cloud_r, commitments_r, opex_r = rounded_lists(
            [electricity, cloud_cost, flows.commitments.tolist(), flows.opex.tolist()], 2)
        # one line a period: its label, start and days, then its figures in the order of `_LINE_FIELDS`
        lines = _PERIOD_LINES.validate_python([dict(zip(_LINE_FIELDS, line, strict=False)) for line in zip(
            fixed.labels, fixed.starts, fixed.days, fixed.demand_r, delivered_r, owned_rounded, cloud_rounded,
            electricity_r, cloud_r, commitments_r, opex_r, peak_owned_r, peak_rented_r, unused_r, waited_r,
            waits.max_wait_hours, served if self.always_on else [None] * n_periods, strict=True)])
        return Accounts(buy, hosts, cloud, costs, lines, running_basis, listings, commitments, table,
                        start_basis, resale_basis, listing_machines=machines)

    def _peak_owned(self, peaks: list[float], alloc: Allocation, waits: Waits) -> list[float]:
        """Each period's most owned GPUs busy at once: the curve's, or where work waits, the replay's (the curve is
        then each window's average: a lab's four GPUs busy together twelve hours a day showed two). The replay's
        owned work in an hour is in the arrivals' reference GPUs; its GPUs are that times the owned GPUs per unit
        of owned capacity."""
        if waits.owned_peak is None:
            return peaks
        gpus = sum(n * self.owned[k].gpus_per_unit for k, n in alloc.purchase.units.items())
        capacity = sum(capacities(alloc, self.owned, self.width).values())
        if capacity <= 0:
            return peaks
        return [max(peak, busy * gpus / capacity) for peak, busy in zip(peaks, waits.owned_peak, strict=True)]


def _of(values: np.ndarray, before: list[float], outside: list[int]) -> list[float]:
    """Per-period figures as the loop over blocks left them: numpy scalars where a block added to the period,
    `before`'s values in periods outside every block."""
    out: list[float] = list(values)
    for p in outside:
        out[p] = before[p]
    return out


def _kept(hours: list[tuple[Any, np.ndarray]], place: dict[Any, str], n_periods: int,
          outside: list[int]) -> list[dict[str, float]]:
    """Each period's hours above 1e-9 by the line's place, rounded to 3 digits as `round` rounds a numpy scalar
    (all of them in one `np.round`), in the order of `hours`: none in a period outside every block."""
    out: list[dict[str, float]] = [{} for _ in range(n_periods)]
    if not hours:
        return out
    table = np.array([v for _, v in hours], dtype=np.float64)
    worked = table > 1e-9
    worked[:, outside] = False
    for (key, _), digits, kept in zip(hours, np.round(table, 3).tolist(), worked.tolist(), strict=True):
        if any(kept):  # key by key, so each period's dict takes them in the order of `hours`
            name = place[key]
            for p in compress(range(n_periods), kept):
                out[p][name] = digits[p]
    return out


def _machines(c: CloudOption) -> int:
    """Host machines a marketplace row stands for: its quota (a Vast aggregate's listing count), else one."""
    return 1 if c.max_instances is None or not math.isfinite(c.max_instances) else max(int(c.max_instances), 1)


def _busy_jobs(instances: np.ndarray, used: np.ndarray, slots: int) -> np.ndarray:
    """Jobs running at once on an offer's instances, per cell, for the peak of rented GPUs. Whole instances run the
    jobs they serve (`used`). Packed instances (work that may wait: a fraction of an instance over the cell's hours)
    are rented whole, and the work waits until it fills them: ceil(instances) instances run all their slots at
    once (0.125 of a 4-GPU instance over a month is 4 GPUs at once for an eighth of its hours, not 0.5 GPUs)."""
    packed = np.abs(instances - np.round(instances)) > 1e-6
    return np.where(packed, np.ceil(instances - 1e-6) * slots, used)


# Why adapters: a list of plan lines validated in one pydantic-core call costs about half of one model call per line
# (the same validation, the same models and fields set); a plan has some 36 period lines and 37 cash-flow rows.
_PERIOD_LINES = TypeAdapter(list[PeriodLine])
_LINE_FIELDS = ("month", "start", "days", "demand_reference_gpu_hours", "delivered_reference_gpu_hours",
                "owned_gpu_hours", "cloud_hours", "electricity_usd", "cloud_usd", "commitments_usd", "opex_usd",
                "peak_owned_gpus", "peak_rented_gpus", "unused_rented_gpu_hours", "waited_gpu_hours", "max_wait_hours",
                "served_every_hour")
