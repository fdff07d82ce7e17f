"""Turn a solution in model terms (units, hours per block) into plan lines, costs and monthly figures.

Blocks merge periods with the same demand per hour, so a block's hours are spread over its
periods in proportion to their hours: an optimal split, since costs are linear in hours.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from solvers.blocks import Block
from solvers.evaluate import Purchase
from solvers.options import CloudOption, HostOption, OwnedOption
from solvers.periods import Period
from solvers.result import Alternative, BuyLine, CloudLine, Costs, HostLine, PeriodLine


@dataclass
class Allocation:
    purchase: Purchase
    owned_hours: dict[tuple[str, int], float] = field(default_factory=dict)
    cloud_hours: dict[tuple[str, int], float] = field(default_factory=dict)


@dataclass
class Accounts:
    buy: list[BuyLine]
    hosts: list[HostLine]
    cloud: list[CloudLine]
    costs: Costs
    periods: list[PeriodLine]
    period_running_usd: list[float]   # electricity + cloud per period, for the cumulative curves

    def alternative(self) -> Alternative:
        return Alternative(total_cost_usd=self.costs.total_usd, costs=self.costs, buy=self.buy,
                           hosts=self.hosts, cloud=self.cloud)


def cloud_label(c: CloudOption) -> str:
    return f"{c.provider}/{c.name}/{c.region}/{c.pricing}"


@dataclass
class Ledger:
    """Everything needed to price an allocation: the options by key, blocks, periods and the rate."""

    owned: dict[str, OwnedOption]
    cloud: dict[str, CloudOption]
    hosts: dict[int, HostOption]
    blocks: list[Block]
    periods: list[Period]
    usd_per_kwh: float

    def account(self, alloc: Allocation) -> Accounts:
        rate = self.usd_per_kwh
        n_periods = len(self.periods)
        electricity = [0.0] * n_periods
        cloud_cost = [0.0] * n_periods
        owned_gpu_hours: list[dict[str, float]] = [{} for _ in range(n_periods)]
        cloud_hours: list[dict[str, float]] = [{} for _ in range(n_periods)]
        delivered = [0.0] * n_periods
        idle_kwh_per_hour = sum(n * self.owned[k].idle_kwh_per_unit_hour for k, n in alloc.purchase.units.items())
        idle_kwh_per_hour += sum(n * self.hosts[s].idle_kwh_per_hour for s, n in alloc.purchase.hosts.items())
        for p, period in enumerate(self.periods):
            electricity[p] = rate * idle_kwh_per_hour * period.hours
        cloud_totals: dict[str, tuple[float, float]] = {}
        for (key, b), hours in alloc.owned_hours.items():
            o = self.owned[key]
            for p in self.blocks[b].periods:
                share = hours * self.periods[p].hours / self.blocks[b].hours
                electricity[p] += rate * o.marginal_kwh_per_gpu_hour * share
                owned_gpu_hours[p][o.name] = owned_gpu_hours[p].get(o.name, 0.0) + share
                delivered[p] += share * o.throughput
        for (key, b), hours in alloc.cloud_hours.items():
            c = self.cloud[key]
            label = cloud_label(c)
            for p in self.blocks[b].periods:
                share = hours * self.periods[p].hours / self.blocks[b].hours
                cloud_cost[p] += c.usd_per_hour * share
                cloud_hours[p][label] = cloud_hours[p].get(label, 0.0) + share
                delivered[p] += share * c.ref_hours_per_hour
            h, cost = cloud_totals.get(key, (0.0, 0.0))
            cloud_totals[key] = (h + hours, cost + hours * c.usd_per_hour)

        buy = [
            BuyLine(name=o.name, gpu=o.gpu, condition=o.condition, count=n, gpus_per_unit=o.gpus_per_unit,  # type: ignore[arg-type]
                    includes_host=o.includes_host, unit_price_usd=o.unit_price_usd,
                    resale_usd_per_unit=round(o.resale_usd, 2), source=o.source, price_as_of=o.as_of)
            for k, n in sorted(alloc.purchase.units.items()) if n > 0 for o in [self.owned[k]]
        ]
        hosts = [
            HostLine(name=h.host.name, slots=s, count=n, unit_price_usd=h.host.base_cost_usd,
                     psu_watts=h.host.psu_watts, idle_watts=h.host.idle_watts, source=h.host.source,
                     price_as_of=h.host.as_of)
            for s, n in sorted(alloc.purchase.hosts.items()) if n > 0 for h in [self.hosts[s]]
        ]
        cloud = [
            CloudLine(provider=c.provider, name=c.name, gpu=c.gpu, gpu_count=c.gpu_count, region=c.region,
                      pricing=c.pricing, usd_per_hour=c.usd_per_hour, hours=round(h, 3),  # type: ignore[arg-type]
                      cost_usd=round(cost, 2), source=c.source, price_as_of=c.as_of)
            for k, (h, cost) in sorted(cloud_totals.items(), key=lambda kv: -kv[1][1]) for c in [self.cloud[k]]
        ]
        capex = sum(line.count * line.unit_price_usd for line in buy) + sum(h.count * h.unit_price_usd for h in hosts)
        resale = sum(n * self.owned[k].resale_usd for k, n in alloc.purchase.units.items())
        costs = Costs(
            capex_usd=round(capex, 2),
            electricity_usd=round(sum(electricity), 2),
            cloud_usd=round(sum(cloud_cost), 2),
            resale_credit_usd=round(resale, 2),
            total_usd=round(capex + sum(electricity) + sum(cloud_cost) - resale, 2),
        )
        lines = [
            PeriodLine(month=period.label, start=period.start.isoformat(), days=period.days,
                       demand_reference_gpu_hours=round(period.demand, 3),
                       delivered_reference_gpu_hours=round(delivered[p], 3),
                       owned_gpu_hours={k: round(v, 3) for k, v in owned_gpu_hours[p].items()},
                       cloud_hours={k: round(v, 3) for k, v in cloud_hours[p].items()},
                       electricity_usd=round(electricity[p], 2), cloud_usd=round(cloud_cost[p], 2))
            for p, period in enumerate(self.periods)
        ]
        return Accounts(buy, hosts, cloud, costs, lines, [e + c for e, c in zip(electricity, cloud_cost, strict=True)])
