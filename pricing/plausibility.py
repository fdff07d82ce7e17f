"""Prices no market has: the limits every stored price is checked against, and the reference check for imports.

Why two checks beside the refresh guards (which compare a source with its own last good snapshot):
- absurd values: a parser that reads 1e308 (or a unit mix-up) passes "finite and positive"; no GPU-hour is rented
  for more than `MAX_USD_PER_GPU_HOUR` and no GPU sells for more than `MAX_USD_PER_GPU`. These apply always, even
  with `--accept-implausible`, like non-positive prices.
- imports have no history the first time: a vendor quote cut short (92000 -> 92 for an 8x L40S server) is checked
  against what the GPU is known to cost. A purchase cheaper than `MIN_RENT_HOURS` of renting the same GPU at its
  cheapest cloud price, or under (1 - max_drop) of the cheapest known hardware price per GPU, is refused unless
  the operator accepts it (`gpuplan import-prices FILE --accept-implausible`).
"""

from __future__ import annotations

from collections.abc import Iterable

from pricing.catalog import Catalog
from pricing.observation import PriceObservation

# limits far above the bundled snapshot's dearest rows (about 16 USD per GPU-hour for cloud, 41,217 USD per GPU for
# hardware, pricing/data/*.csv): a value beyond them is a parse or unit error, not a price
MAX_USD_PER_GPU_HOUR = 1_000.0
MAX_USD_PER_GPU = 1_000_000.0
# a GPU bought outright costs thousands of hours of its rent (e.g. H100 SXM ~25,000 USD vs ~2 USD/h; DOMAIN.md's
# worked example: a 2,200 USD desktop vs 2.14 USD/h, about 1,000 hours); 100 hours is far below any real purchase
MIN_RENT_HOURS = 100.0


def _per_gpu(obs: PriceObservation) -> float:
    return obs.usd / max(obs.gpu_count, 1)


def _describe(obs: PriceObservation) -> str:
    return " ".join(p for p in (obs.provider, obs.name, obs.region) if p)


def absurd(observations: Iterable[PriceObservation]) -> str | None:
    """A reason when some price is beyond any market (see the limits above), else None."""
    bad = [o for o in observations
           if _per_gpu(o) > (MAX_USD_PER_GPU_HOUR if o.kind == "cloud" else MAX_USD_PER_GPU)]
    if not bad:
        return None
    first = bad[0]
    unit = "per GPU-hour" if first.kind == "cloud" else "per GPU"
    return (f"{len(bad)} absurd prices, e.g. {_describe(first)} at {_per_gpu(first):g} USD {unit} (limits: "
            f"{MAX_USD_PER_GPU_HOUR:g} USD per GPU-hour, {MAX_USD_PER_GPU:g} USD per GPU)")


def below_reference(observations: Iterable[PriceObservation], reference: Catalog, max_drop: float) -> str | None:
    """A reason when a hardware price is implausibly low for its GPU against `reference` (the bundled catalog):
    below `MIN_RENT_HOURS` of its cheapest cloud rent, or more than `max_drop` under its cheapest known hardware
    price per GPU. GPUs the reference has no price for are not judged."""
    cloud, hardware = reference.cloud, reference.hardware
    rent = (cloud["usd_per_hour"] / cloud["gpu_count"].clip(lower=1)).groupby(cloud["gpu"]).min().to_dict()
    bought = (hardware["unit_price_usd"] / hardware["gpus_per_unit"].clip(lower=1)).groupby(hardware["gpu"]).min()
    cheapest = bought.to_dict()
    problems = []
    for obs in observations:
        if obs.kind == "cloud":
            continue
        price = _per_gpu(obs)
        floors = []
        if obs.gpu in rent:
            floors.append((MIN_RENT_HOURS * rent[obs.gpu], f"{MIN_RENT_HOURS:g} hours of its cheapest cloud rent "
                                                           f"({rent[obs.gpu]:.2f} USD/h)"))
        if obs.gpu in cheapest:
            floors.append(((1 - max_drop) * cheapest[obs.gpu], f"{1 - max_drop:.0%} of its cheapest known price "
                                                                f"({cheapest[obs.gpu]:,.0f} USD)"))
        for floor, what in floors:
            if price < floor:
                problems.append(f"{_describe(obs)} at {price:,.2f} USD per GPU is below {what}")
                break
    if not problems:
        return None
    return f"{len(problems)} implausibly low prices: " + "; ".join(problems[:3])
