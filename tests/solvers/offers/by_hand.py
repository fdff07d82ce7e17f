"""Rules of the offers stage written option by option, as they were before the one-pass code of issue 31: the
references `tests/solvers/offers` holds the production code equal to (written apart from it, sharing data types,
`evolved` and the PUE table's look-up `pue_of` only)."""

from __future__ import annotations

from collections.abc import Sequence

from pricing.catalog import Host
from solvers.base.evolve import evolved
from solvers.base.options import OwnedOption
from solvers.offers.pue import pue_of


def dominates(a: OwnedOption, b: OwnedOption) -> bool:
    """Rule 2 (`solvers.offers.pruning`): True if `a` is at least as good as `b` in everything the model sees."""
    return (
        a.gpus_per_unit == b.gpus_per_unit
        and a.includes_host == b.includes_host
        and set(b.accepting_hosts) <= set(a.accepting_hosts)  # a bare card only dominates where it fits too
        and a.kind == b.kind  # a commitment is neither capex nor an owned GPU under the profile's limits
        and a.opex_usd_per_unit_hour <= b.opex_usd_per_unit_hour
        and a.paid_hours == b.paid_hours
        # paid no earlier: a smaller fee at the same term starts and a smaller hourly part (present value, issue 16)
        and a.upfront_usd <= b.upfront_usd and a.hourly_usd <= b.hourly_usd
        and (a.term_months == b.term_months or not (a.upfront_usd or b.upfront_usd))
        and a.throughput >= b.throughput
        and a.unit_price_usd <= b.unit_price_usd
        and a.net_price_usd <= b.net_price_usd
        and a.idle_kwh_per_unit_hour <= b.idle_kwh_per_unit_hour
        and a.width <= b.width  # a narrower job fits every host a wider one fits
        and (a.usd_per_job_hour(1.0, 1) <= b.usd_per_job_hour(1.0, 1) if a.width == b.width
             else a.usd_per_job_hour(1.0) <= b.usd_per_job_hour(1.0))
        and a.slots_per_unit >= b.slots_per_unit
        and a.load_per_gpu >= b.load_per_gpu
        and a.card_watts <= b.card_watts
    )


def by_place(option: OwnedOption, hosts: Sequence[Host], explicit: float | None, kind: str) -> list[OwnedOption]:
    """`option` (priced at PUE 1) at the PUE of where it stands (`solvers.offers.pue`): a whole machine at its
    `kind`'s; bare cards at their hosts', once per PUE those hosts give, each copy taking only the hosts of its PUE
    (a card that fits a desktop and a server pays the server room's cooling only when the plan puts it in the
    server)."""
    if option.includes_host:
        return [_at(option, pue_of(kind, explicit))]
    groups: dict[float, list[int]] = {}
    for k in option.accepting_hosts:
        groups.setdefault(pue_of(hosts[k].kind, explicit), []).append(k)
    if len(groups) <= 1:
        return [_at(option, next(iter(groups), pue_of(kind, explicit)))]
    return [evolved(_at(option, pue), key=f"{option.key}@pue{pue:g}", accepting_hosts=tuple(ks))
            for pue, ks in sorted(groups.items())]


def _at(option: OwnedOption, pue: float) -> OwnedOption:
    return evolved(option, marginal_kwh_per_gpu_hour=option.marginal_kwh_per_gpu_hour * pue,
                   idle_kwh_per_unit_hour=option.idle_kwh_per_unit_hour * pue)
