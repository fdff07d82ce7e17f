"""After the model: the plan's carbon, the rates, electricity and taxes it used, and its money in its currency.

Carbon (issue 16): owned kgCO2e = owned energy (kWh, PUE applied, as billed) x the grid intensity at the profile's
location; rented kgCO2e = per cloud line, GPU board power (gpus.csv `tdp_w`) x GPUs x instance-hours x cloud PUE x
the intensity of the region's location; committed (reserved) instances the same for every hour of every term they
are held (count x paid_hours: see solvers/offers/place_inputs.py for why held, not used, hours). A figure whose
intensity is
unknown is left out and said so, never guessed.
The owned energy is read back from the plan's electricity cost at the rate it was priced at (the rate with any
carbon price folded in), so it is exactly the energy the objective paid for.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from pricing.place import region_location
from solvers.base.inputs_used import (
    CarbonReport,
    CoolingUsed,
    ElectricityUsed,
    ExchangeRatesUsed,
    PurchaseTax,
    RateUsed,
    RegionCarbon,
)
from solvers.base.notices import Notice, classified, notice, texts
from solvers.base.plan_lines import CloudLine, CommitmentLine
from solvers.base.result import PlanResult
from solvers.money.currency import convert_model, usd_to
from solvers.offers.place_inputs import Prepared, carbon_adder_usd_per_kwh, carbon_usd_per_hour, cloud_intensity, gpu_kw
from solvers.offers.pue import pue_by_kind

PUE_SOURCE = ("desktop and workstation: an office machine, no metered cooling (gpuplan planning assumption); server: "
              "Uptime Institute Global Data Center Survey 2025, average annual PUE 1.54 (solvers/base/defaults.py)")
RESALE_NOTE = ("taxes are added to every purchase price; the resale credit is a share of that gross price (used "
               "buyers pay tax-inclusive prices)")


def carbon_report(plan: PlanResult, prep: Prepared) -> CarbonReport:
    notes: list[Notice] = []
    priced_rate = prep.electricity_usd_per_kwh + carbon_adder_usd_per_kwh(prep)
    owned_kwh = plan.costs.electricity_usd / priced_rate if priced_rate > 0 else None
    if owned_kwh is None and plan.costs.electricity_usd == 0 and not plan.buy:
        owned_kwh = 0.0
    elif owned_kwh is None:
        notes.append(notice("carbon_owned_unknown"))
    intensity = prep.owned_intensity
    owned_kg = owned_kwh * intensity.value / 1000.0 if owned_kwh is not None and intensity is not None else None
    if intensity is not None and intensity.fallback_from:
        notes.append(notice("carbon_owned_fallback", location=intensity.fallback_from, fallback=intensity.name))
    hours: dict[tuple[str, str], float] = defaultdict(float)
    kwh: dict[tuple[str, str], float] = defaultdict(float)
    unknown_power = 0.0
    committed: dict[tuple[str, str], float] = defaultdict(float)
    committed_kg = 0.0
    held: list[tuple[CloudLine | CommitmentLine, float]] = [(line, line.hours) for line in plan.cloud]
    held += [(line, line.count * line.paid_hours) for line in plan.commitments]
    for line, line_hours in held:
        key = (line.provider, line.region)
        line.carbon_usd_per_hour = round(carbon_usd_per_hour(prep, line.provider, line.region, line.gpu,
                                                             line.gpu_count), 6)
        if isinstance(line, CommitmentLine):
            committed[key] += line_hours
        else:
            hours[key] += line_hours
        kw = gpu_kw(prep.catalog, line.gpu)
        if kw is None:
            unknown_power += line_hours
            continue
        line_kwh = kw * line.gpu_count * line_hours * prep.cloud_pue
        kwh[key] += line_kwh
        grid = cloud_intensity(line.provider, line.region)
        line.kg_co2e = None if grid is None else round(line_kwh * grid.value / 1000.0, 3)
        if grid is not None and isinstance(line, CommitmentLine):
            committed_kg += line_kwh * grid.value / 1000.0
    regions, rented_kg, unknown_hours = [], 0.0, unknown_power
    fallbacks: list[str] = []
    for (provider, region) in sorted(set(hours) | set(committed)):
        h = hours.get((provider, region), 0.0) + committed.get((provider, region), 0.0)
        grid = cloud_intensity(provider, region)
        energy = kwh[(provider, region)]
        kg = energy * grid.value / 1000.0 if grid is not None else None
        if kg is None:
            unknown_hours += h
        else:
            rented_kg += kg
        if grid is not None and grid.fallback_from:
            fallbacks.append(f"{provider} {region}")
        regions.append(RegionCarbon(provider=provider, region=region, location=region_location(provider, region),
                                    g_co2e_per_kwh=grid.value if grid else None,
                                    instance_hours=round(hours.get((provider, region), 0.0), 3),
                                    committed_instance_hours=round(committed.get((provider, region), 0.0), 3),
                                    kwh=round(energy, 3), kg_co2e=None if kg is None else round(kg, 3),
                                    source=grid.source if grid else None))
    if fallbacks:
        notes.append(notice("carbon_region_fallback",
                            regions=", ".join(fallbacks[:5]) + (" ..." if len(fallbacks) > 5 else "")))
    if unknown_hours:
        notes.append(notice("carbon_unknown_power", hours=unknown_hours))
    cost = owned_cost = None
    if prep.carbon_usd_per_kg is not None:
        owned_priced = owned_kg if owned_kg is not None and carbon_adder_usd_per_kwh(prep) > 0 else 0.0
        cost = round(prep.carbon_usd_per_kg * (rented_kg + owned_priced), 2)
        owned_cost = round(prep.carbon_usd_per_kg * owned_priced, 2)
    return CarbonReport(
        owned_kwh=None if owned_kwh is None else round(owned_kwh, 3),
        owned_g_co2e_per_kwh=intensity.value if intensity else None,
        owned_location=prep.electricity_location, owned_source=intensity.source if intensity else None,
        owned_kg_co2e=None if owned_kg is None else round(owned_kg, 3), rented_kg_co2e=round(rented_kg, 3),
        committed_kg_co2e=round(committed_kg, 3), owned_carbon_cost=owned_cost,
        rented_unknown_instance_hours=round(unknown_hours, 3), cloud_pue=prep.cloud_pue, regions=regions,
        carbon_price_per_tonne=None if prep.carbon_usd_per_kg is None else prep.carbon_usd_per_kg * 1000.0,
        carbon_cost=cost, notes=texts(notes) + prep.notes, notices=notes + [classified(n, []) for n in prep.notes])


@dataclass(frozen=True)
class _OnDemand:
    """An on-demand offer a commitment may discount, at the provider's price (without any carbon price)."""

    provider: str
    name: str
    region: str
    gpu: str
    gpu_count: int
    usd_per_hour: float

    @property
    def label(self) -> str:
        return f"{self.provider} {self.name} ({self.region})"


def _on_demand_offers(prep: Prepared) -> list[_OnDemand]:
    """The catalog's on-demand offers, then the profile's own on-demand quotes, which replace a catalog offer of
    the same instance (provider, name, region, GPUs)."""
    found: dict[tuple[str, str, str, int], _OnDemand] = {}
    cloud = prep.catalog.cloud
    if not cloud.empty:
        on_demand = cloud[cloud["pricing"] == "on_demand"]
        for p, n, r, g, c, price in zip(on_demand["provider"], on_demand["name"], on_demand["region"],
                                        on_demand["gpu"], on_demand["gpu_count"], on_demand["usd_per_hour"],
                                        strict=True):
            offer = _OnDemand(str(p), str(n), str(r), str(g), int(c),
                              float(price) - carbon_usd_per_hour(prep, str(p), str(r), str(g), int(c)))
            kept = found.get((offer.provider, offer.name, offer.region, offer.gpu_count))
            if kept is None or offer.usd_per_hour < kept.usd_per_hour:
                found[(offer.provider, offer.name, offer.region, offer.gpu_count)] = offer
    gpus = prep.catalog.gpus
    for q in prep.profile.prices.cloud:
        if q.pricing == "on_demand":
            gpu = gpus.canonical(q.gpu) or q.gpu
            found[(q.provider, q.name, q.region, q.gpu_count)] = _OnDemand(
                q.provider, q.name, q.region, gpu, q.gpu_count,
                q.usd_per_hour - carbon_usd_per_hour(prep, q.provider, q.region, q.gpu, q.gpu_count))
    return list(found.values())


def counterpart(line: CommitmentLine, offers: list[_OnDemand]) -> _OnDemand | None:
    """The on-demand offer a commitment discounts: the same instance (provider, name, region, GPUs) where it has
    one, else the cheapest offer of the same provider with the same GPU and GPU count in the same region, else in
    any region. By name alone, a reservation quoted under another name than the on-demand listing (a profile's
    own quote, a provider's term SKU) found none, and its saving read zero without a word."""
    same = [o for o in offers if (o.provider, o.gpu, o.gpu_count) == (line.provider, line.gpu, line.gpu_count)]
    exact = [o for o in same if (o.name, o.region) == (line.name, line.region)]
    in_region = [o for o in same if o.region == line.region]
    for tier in (exact, in_region, same):
        if tier:
            return min(tier, key=lambda o: o.usd_per_hour)
    return None


def _on_demand_prices(plan: PlanResult, prep: Prepared) -> None:
    """Each commitment's list price (FOCUS ListUnitPrice in the exports): its on-demand counterpart's price, the
    provider's without any carbon price, and which offer that is; None where no counterpart is known."""
    if not plan.commitments:
        return
    offers = _on_demand_offers(prep)
    for line in plan.commitments:
        found = counterpart(line, offers)
        line.on_demand_usd_per_hour = None if found is None else round(found.usd_per_hour, 6)
        line.on_demand_offer = None if found is None else found.label


def finish(plan: PlanResult, prep: Prepared) -> PlanResult:
    """The USD plan with its carbon, rates, electricity and taxes reported, then converted to the plan's currency."""
    rates = prep.rates
    shown = sorted({prep.currency, "USD", *prep.input_currencies})
    plan.exchange_rates = ExchangeRatesUsed(
        as_of=rates.as_of.isoformat(), source=rates.source, origin=rates.origin,
        rates=[RateUsed(currency=c, units_per_eur=rates.units_per_eur(c), usd_per_unit=round(rates.usd_per_unit(c), 8),
                        fixed_rate_source=fixed.source if (fixed := rates.fixed(c)) else None)
               for c in shown])
    row, vat = prep.electricity_source, prep.electricity_vat
    plan.electricity = ElectricityUsed(
        price_per_kwh=prep.electricity_usd_per_kwh, location=prep.electricity_location,
        source=row.source if row else "profile" if prep.profile.electricity_usd_per_kwh is not None else
        "default: the guide's 2023 figure", as_of=row.as_of if row else None, period=row.period if row else None,
        consumer=vat.consumer if vat else "business", vat_percent=vat.percent if vat else 0.0,
        vat_source=vat.source if vat else None)
    if vat is not None and vat.unknown:
        unknown = notice("electricity_vat_unknown", location=prep.electricity_location or "")
        plan.warnings.append(unknown.text)
        plan.notices.append(unknown)
    pue = prep.profile.options.pue
    plan.cooling = CoolingUsed(pue_by_host_kind=pue_by_kind(pue),
                               source="options.pue" if pue is not None else PUE_SOURCE)
    plan.carbon = carbon_report(plan, prep)
    _on_demand_prices(plan, prep)
    if prep.tax_factor != 1.0:
        opts = prep.profile.options
        plan.purchase_tax = PurchaseTax(vat_percent=opts.vat_percent, import_duty_percent=opts.import_duty_percent,
                                        note=RESALE_NOTE)
    plan.currency = prep.currency  # type: ignore[assignment]  # a PlanCurrency, validated on the profile
    if prep.currency != "USD":
        convert_model(plan, usd_to(rates, prep.currency))
    return plan
