"""Before the model: money inputs to USD, electricity by place, purchase taxes, and a carbon price folded into costs.

Why here and not in the model: the mixed-integer program (`solvers/model/build.py`) prices owned energy per kWh and
cloud
hours per instance-hour; every option of this issue changes those inputs and nothing else, so the model keeps its
structure. The steps, each on a copy (the caller's profile and catalog are not touched):

1. every money input is converted to USD with the ECB rates in force (`catalog.fx`): owned, cloud and commitment
   quotes, the electricity price, the capex budget, the carbon price, owned opex and cloud storage/egress prices;
2. `electricity.location` fills the rate from the bundled table (`pricing.place`: a business's rate, or with
   `electricity.consumer = residential` a household's) unless a rate is given (`electricity_usd_per_kwh` wins over
   `electricity.price_per_kwh`, which wins over the location), with the VAT the place charges where it is paid
   (`_vat`: a household always, a business only when it does not reclaim VAT, i.e. pays VAT on its purchases);
3. VAT and import duty multiply every purchase price (catalog hardware, hosts, owned quotes): the model's resale
   credit is a share of the purchase price, so the resale value is of the gross (tax-inclusive) price, as second-hand
   buyers pay tax-inclusive market prices; a lab that reclaims VAT leaves `vat_percent` at 0;
4. a carbon price adds price x intensity to the electricity rate (owned energy, at the profile's location) and
   price x (GPU board power x GPUs x cloud PUE) x region intensity to each cloud offer's hourly price, and the same
   per-hour figure to every reserved / committed instance (catalog rows get a `carbon_usd_per_hour` column, the
   profile's quotes carry it as a private attribute; `solvers.offers.options.commitment_options` adds it to the hourly
   part, never to an upfront fee).

Which hours of a commitment emit: every hour of every term it is held (`paid_hours`, the same hours it is paid
for, including the rest of a last term that ends after the horizon), at GPU board power, as a rented on-demand
instance-hour is counted. A reserved instance is the lab's every hour of its term: the provider keeps it running for
the lab and cannot hand those hours to anyone else, so the lab owns those emissions whether a job runs or not; counting
only the hours a job uses would make idle reserved capacity carbon-free and let a carbon price favour reserving over
renting on demand, which is the bias this rule removes. Board power for idle hours is an upper bound (an idle GPU
draws less), the same simplification the rented hours already make.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Literal, TypeVar

import pandas as pd

from pricing.catalog import Catalog
from pricing.fx import ExchangeRates, UnknownCurrency
from pricing.place import (
    CONSUMERS,
    PlaceFigure,
    carbon_intensity,
    electricity_price,
    known_locations,
    region_location,
    world_carbon_intensity,
)
from solvers.base import defaults
from solvers.base.errors import ProfileError
from solvers.base.plan_options import CloudData, OwnedOpex
from solvers.base.price_inputs import CloudPriceItem, CommitmentPriceItem, OwnedPriceItem
from solvers.base.profile import Profile


@dataclass(frozen=True)
class ElectricityVat:
    """The VAT added to the electricity rate, and why (`_vat`)."""

    percent: float
    source: str  # the table row's VAT source, "electricity.vat_percent", or why none was added
    consumer: Literal["business", "residential"]
    unknown: bool = False  # VAT is paid but the table has no rate for the place


@dataclass
class Prepared:
    """The USD profile and catalog the planner solves, and what the readout needs to report."""

    profile: Profile
    catalog: Catalog
    rates: ExchangeRates
    currency: str
    input_currencies: list[str]
    electricity_usd_per_kwh: float  # VAT included where added, before the carbon price
    electricity_location: str | None
    electricity_source: PlaceFigure | None  # None: the profile gave the rate (or the default was used)
    owned_intensity: PlaceFigure | None
    carbon_usd_per_kg: float | None
    cloud_pue: float
    tax_factor: float
    notes: list[str] = field(default_factory=list)
    electricity_vat: ElectricityVat | None = None  # None: no VAT question arose (the default rate)


def _usd(rates: ExchangeRates, amount: float, currency: str, where: str) -> float:
    try:
        return rates.convert(amount, currency, "USD")
    except UnknownCurrency:
        raise ProfileError(where, "known_currency", f"{currency!r} is not a currency of the ECB reference rates of "
                           f"{rates.as_of.isoformat()}; known: {', '.join(rates.currencies())}") from None


_M = TypeVar("_M", OwnedOpex, CloudData)


def _in_usd(rates: ExchangeRates, amounts: _M, where: str) -> _M:
    """Opex or cloud-data amounts (their `*_usd*` fields, in `currency`) in USD."""
    if amounts.currency.upper() == "USD":
        return amounts
    money = {name: _usd(rates, getattr(amounts, name), amounts.currency, where)
             for name in type(amounts).model_fields if "_usd" in name}
    return amounts.model_copy(update={**money, "currency": "USD"})


def gpu_kw(catalog: Catalog, gpu: str) -> float | None:
    """Board power of one GPU in kW (gpus.csv `tdp_w`), None for a GPU the table does not know."""
    return catalog.gpus[gpu].tdp_w / 1000.0 if gpu in catalog.gpus else None


@lru_cache(maxsize=4096)
def cloud_intensity(provider: str, region: str) -> PlaceFigure | None:
    """The grid intensity at a region's location; the world average (marked as a fallback) where none is known.
    Cached: the place tables are read once (`pricing.place`), a figure is frozen, and a plan's read-out asks for
    each of its cloud lines and regions (a fallback's `dataclasses.replace` costs some 3 us)."""
    location = region_location(provider, region)
    found = carbon_intensity(location) if location else None
    return found or world_carbon_intensity(f"{provider} {region}".strip())


def _electricity(profile: Profile, rates: ExchangeRates) -> tuple[float, str | None, PlaceFigure | None,
                                                                    ElectricityVat | None]:
    """The rate owned energy is priced at (VAT included), its location, its table row and its VAT."""
    given = profile.electricity
    location = given.location if given else None
    consumer = given.consumer if given else "business"
    if location is not None and not any(electricity_price(location, c) for c in CONSUMERS) and \
            carbon_intensity(location) is None:
        raise ProfileError("electricity.location", "known_location",
                           f"no electricity price or carbon intensity for {location!r}; known: "
                           f"{', '.join(known_locations())}")
    if profile.electricity_usd_per_kwh is not None:
        rate, row = profile.electricity_usd_per_kwh, None
    elif given is not None and given.price_per_kwh is not None:
        rate, row = _usd(rates, given.price_per_kwh, given.currency, "electricity.currency"), None
    elif location is not None:
        row = electricity_price(location, consumer)
        if row is None:
            field_name, what = (("electricity.consumer", "household") if consumer == "residential" and
                                electricity_price(location) is not None else ("electricity.location", "electricity"))
            raise ProfileError(field_name, "known_location",
                               f"no {what} price for {location!r} in the bundled table (its carbon intensity or "
                               f"another consumer's price is known): give electricity.price_per_kwh")
        rate = _usd(rates, row.value, row.currency, "electricity.location")
    else:
        return defaults.ELECTRICITY_USD_PER_KWH, None, None, None
    vat = _vat(profile, row, consumer)
    return rate * (1.0 + vat.percent / 100.0), location, row, vat


def _vat(profile: Profile, row: PlaceFigure | None, consumer: Literal["business", "residential"]) -> ElectricityVat:
    """VAT on electricity where the place charges it. A rate from the table excludes VAT (and the other taxes a
    VAT-registered business recovers): a household pays the place's household rate; a business pays its rate only
    when it does not reclaim VAT, which the profile says by paying VAT on its purchases (options.vat_percent > 0).
    A rate the profile gives is what it pays, unless electricity.vat_percent says to add VAT to it."""
    given = profile.electricity
    if given is not None and given.vat_percent is not None:
        return ElectricityVat(given.vat_percent, "electricity.vat_percent", consumer)
    if row is None:
        return ElectricityVat(0.0, "the profile's own rate, taken as it is", consumer)
    if consumer == "business" and profile.options.vat_percent == 0:
        return ElectricityVat(0.0, "reclaimed: a business paying no VAT on its purchases (options.vat_percent 0) "
                                   "reclaims it on electricity too", consumer)
    if row.vat_percent is None:
        return ElectricityVat(0.0, row.vat_source, consumer, unknown=True)
    return ElectricityVat(row.vat_percent, row.vat_source, consumer)


@lru_cache(maxsize=1024)
def _owned_intensity(location: str | None) -> PlaceFigure | None:
    """The grid intensity owned energy is counted at: the location's, else the world average (marked as a
    fallback). Cached as `cloud_intensity` is: static tables, frozen figures, and the fallback's
    `dataclasses.replace` is most of it."""
    return (carbon_intensity(location) if location else None) or world_carbon_intensity(
        location or "no electricity.location")


def prepare(profile: Profile, catalog: Catalog) -> Prepared:
    rates = catalog.fx
    opts = profile.options
    notes: list[str] = []
    _usd(rates, 1.0, profile.currency, "currency")
    rate, location, row, vat = _electricity(profile, rates)
    tax_factor = 1.0 + (opts.vat_percent + opts.import_duty_percent) / 100.0
    owned_intensity = _owned_intensity(location)
    carbon_usd_per_kg = None
    if opts.carbon_price_per_tonne is not None:
        carbon_usd_per_kg = _usd(rates, opts.carbon_price_per_tonne, opts.carbon_price_currency,
                                 "options.carbon_price_currency") / 1000.0
    # 1-3: money inputs in USD, purchases with their taxes
    owned = _owned_in_usd(profile.prices.owned, rates, tax_factor)
    cloud = _cloud_in_usd(profile.prices.cloud, rates, carbon_usd_per_kg, catalog, opts.cloud_pue)
    commitments = [quote.model_copy(update={
        "usd_per_hour": _usd(rates, quote.usd_per_hour, quote.currency, f"prices.commitments[{i}].currency"),
        "upfront_usd": None if quote.upfront_usd is None else _usd(rates, quote.upfront_usd, quote.currency,
                                                                   f"prices.commitments[{i}].currency"),
        "currency": "USD"}).with_carbon(_carbon_per_hour(carbon_usd_per_kg, catalog, quote.provider, quote.region,
                                                         quote.gpu, quote.gpu_count, opts.cloud_pue))
        for i, quote in enumerate(profile.prices.commitments)]
    max_capex = opts.max_capex_usd
    if max_capex is not None:
        max_capex = _usd(rates, max_capex, opts.max_capex_currency, "options.max_capex_currency")
    opex = _in_usd(rates, opts.opex, "options.opex.currency")
    cloud_data = None if opts.cloud_data is None else _in_usd(rates, opts.cloud_data, "options.cloud_data.currency")
    # 4: the carbon price on owned energy
    priced_rate = rate
    if carbon_usd_per_kg is not None and owned_intensity is not None:  # None only without the WORLD row
        priced_rate += carbon_usd_per_kg * owned_intensity.value / 1000.0
    given = profile.electricity
    explicit = profile.electricity_usd_per_kwh is not None or (
        given is not None and (given.price_per_kwh is not None or given.location is not None))
    used_profile = profile.model_copy(update={
        # None keeps the planner's own default and its warning when the profile says nothing about electricity
        "electricity_usd_per_kwh": priced_rate if explicit or priced_rate != rate else None,
        "prices": profile.prices.model_copy(update={"owned": owned, "cloud": cloud, "commitments": commitments}),
        "options": opts.model_copy(update={"max_capex_usd": max_capex, "max_capex_currency": "USD",
                                           "opex": opex, "cloud_data": cloud_data,
                                           "carbon_price_currency": "USD"}),
    })
    used_catalog = _catalog(catalog, tax_factor, carbon_usd_per_kg, opts.cloud_pue)
    quotes: list[OwnedPriceItem | CloudPriceItem | CommitmentPriceItem] = [
        *profile.prices.owned, *profile.prices.cloud, *profile.prices.commitments]
    inputs = sorted({code.upper() for code in {q.currency for q in quotes}} | {opts.opex.currency.upper()}
                    | ({opts.cloud_data.currency.upper()} if opts.cloud_data else set())
                    | ({profile.electricity.currency.upper()} if profile.electricity else set())
                    | ({row.currency} if row else set()) | {opts.max_capex_currency.upper(),
                                                            opts.carbon_price_currency.upper()})
    return Prepared(used_profile, used_catalog, rates, profile.currency, inputs, rate, location, row, owned_intensity,
                    carbon_usd_per_kg, opts.cloud_pue, tax_factor, notes, vat)


def _owned_in_usd(items: list[OwnedPriceItem], rates: ExchangeRates, tax_factor: float) -> list[OwnedPriceItem]:
    """Each owned quote in USD with its purchase taxes. A quote already in USD without taxes is kept as it is (its
    price times 1.0 is the same float): a copy of each of 200 quotes was most of this step (issue 31)."""
    return [item if item.currency == "USD" and tax_factor == 1.0 else item.model_copy(update={
        "unit_price_usd": _usd(rates, item.unit_price_usd, item.currency, f"prices.owned[{i}].currency") * tax_factor,
        "currency": "USD"}) for i, item in enumerate(items)]


def _cloud_in_usd(quotes: list[CloudPriceItem], rates: ExchangeRates, usd_per_kg: float | None, catalog: Catalog,
                  pue: float) -> list[CloudPriceItem]:
    """Each cloud quote in USD with the carbon price of its hours. A quote already in USD that no carbon price
    changes is kept as it is, and the carbon price is found once per instance and region: a copy of each of 10,000
    quotes and a lookup per row took about 130 ms of a plan (issue 31). Each converted figure is the same float as
    before (one `_usd` per quote, the same sum)."""
    if usd_per_kg is None and all(quote.currency == "USD" for quote in quotes):
        return list(quotes)
    adders: dict[tuple[str, str, str, int], float] = {}
    out: list[CloudPriceItem] = []
    for i, quote in enumerate(quotes):
        where = (quote.provider, quote.region, quote.gpu, quote.gpu_count)
        adder = adders.get(where)
        if adder is None:
            adder = adders[where] = _carbon_per_hour(usd_per_kg, catalog, *where, pue)
        if quote.currency == "USD" and adder == 0.0:
            out.append(quote)
            continue
        usd = _usd(rates, quote.usd_per_hour, quote.currency, f"prices.cloud[{i}].currency")
        out.append(quote.model_copy(update={"usd_per_hour": usd + adder, "currency": "USD"}))
    return out


def _carbon_per_hour(usd_per_kg: float | None, catalog: Catalog, provider: str, region: str, gpu: str, count: int,
                     pue: float) -> float:
    if usd_per_kg is None:
        return 0.0
    kw, intensity = gpu_kw(catalog, gpu), cloud_intensity(provider, region)
    if kw is None or intensity is None:
        return 0.0
    return usd_per_kg * kw * count * pue * intensity.value / 1000.0


def _catalog(catalog: Catalog, tax_factor: float, usd_per_kg: float | None, pue: float) -> Catalog:
    if tax_factor == 1.0 and usd_per_kg is None:
        return catalog
    hardware = catalog.hardware.assign(unit_price_usd=catalog.hardware["unit_price_usd"] * tax_factor)
    hosts = [replace(h, base_cost_usd=h.base_cost_usd * tax_factor) for h in catalog.hosts]
    cloud = catalog.cloud
    if usd_per_kg is not None and not cloud.empty:
        cloud = cloud.assign(usd_per_hour=cloud["usd_per_hour"] + _adders(cloud, catalog, usd_per_kg, pue))
    commitments = catalog.commitments
    if usd_per_kg is not None and not commitments.empty:  # paid every held hour, beside the provider's price
        commitments = commitments.assign(carbon_usd_per_hour=_adders(commitments, catalog, usd_per_kg, pue))
    return replace(catalog, hardware=hardware, hosts=hosts, cloud=cloud, commitments=commitments)


def _adders(frame: pd.DataFrame, catalog: Catalog, usd_per_kg: float, pue: float) -> pd.Series:
    """The carbon price of one instance-hour of each row of a cloud or commitment frame."""
    return pd.Series([_carbon_per_hour(usd_per_kg, catalog, p, r, g, int(n), pue)
                      for p, r, g, n in zip(frame["provider"], frame["region"], frame["gpu"], frame["gpu_count"],
                                            strict=True)], index=frame.index, dtype=float)


def carbon_usd_per_hour(prep: Prepared, provider: str, region: str, gpu: str, count: int) -> float:
    """What the plan's carbon price adds to one instance-hour of this instance (0 without a price)."""
    return _carbon_per_hour(prep.carbon_usd_per_kg, prep.catalog, provider, region, gpu, count, prep.cloud_pue)


def carbon_adder_usd_per_kwh(prep: Prepared) -> float:
    """What the carbon price added to each kWh of owned energy (0 without a price or a known intensity)."""
    if prep.carbon_usd_per_kg is None or prep.owned_intensity is None:
        return 0.0
    return prep.carbon_usd_per_kg * prep.owned_intensity.value / 1000.0

