"""Fit the resale curves (`pricing/data/resale_curves.csv`) from the used series across years.

Run by hand (`python -m pricing.tools.fit_resale`), like the bundle builder; a test re-runs the fit and checks
the bundled table equals it. A point is one used price of a card at an age: the card's price (used, single card)
divided by its reference new price, at its age in years since launch (`gpus.csv` launch_date). Sources:
- eBay monthly average sold prices of August 2022 to August 2023 (`extracts/buttke-ebay-gpu-time-series.csv`,
  rows of `buttke/ebay-2021-2023-gpu-prices` `gpu_time_series.csv`@883c310, values verbatim) and of October 2023
  and 2026 (the used rows of `pricing/data/hardware_prices.csv`, each with its own source);
- the reference new price: the launch MSRP of `gpus.csv`, else (data-centre parts, which have none) the
  card's earliest new single-card price in `hardware_prices.csv`.
Left out, and why: sales before August 2022 (the crypto-mining boom priced used cards above their launch
prices; Ethereum's move to proof of stake in September 2022 ended it), and cards still sold new as their
vendor's current product (`sold_new.csv` status `current`: an RTX 5090 resold at 2.4 times its MSRP in 2026 is
priced by the new market's shortage, not by its age).

Two models per family (the card's `segment`), fitted by least squares on log(price / reference):
- `exponential`: price = reference x exp(-k x age), the card worth its new price at launch;
- `step`: price = reference x a x exp(-k x age), a one-time drop `a` <= 1 when it leaves the shop, then
  exponential (piecewise: new at age 0, `a x exp(-k x age)` after; a fitted `a` above 1 is held at 1).
The family takes the model with the lower leave-one-card-out error (every point of one card held out at a time),
so a second parameter must earn its place on cards the fit did not see. Workstation cards have no used series:
they take the consumer curve (the same retail channel), and so does a card of no family.
"""

from __future__ import annotations

import csv
import datetime as dt
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data"
EBAY_SERIES = HERE / "extracts" / "buttke-ebay-gpu-time-series.csv"
EBAY_SOURCE = "buttke/ebay-2021-2023-gpu-prices gpu_time_series.csv@883c310998d274a7f8dbf6ca3321033b69505d90"
FIRST_MONTH = dt.date(2022, 8, 1)
FAMILIES = ("consumer", "datacenter")
HEADER = ["family", "model", "level", "decline_rate", "equivalent_yearly_decline", "points", "cards", "rmse_log",
          "loo_rmse_log", "median_abs_pct_error", "other_model", "other_loo_rmse_log", "sources"]


@dataclass(frozen=True)
class Point:
    gpu: str
    family: str
    age: float
    ratio: float
    source: str


@dataclass(frozen=True)
class Fit:
    model: str
    level: float
    rate: float

    def ratio(self, age: float) -> float:
        return self.level * math.exp(-self.rate * age)


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _launch(text: str) -> dt.date | None:
    return dt.date.fromisoformat(f"{text}-01") if len(text) == 7 else None


def _years(day: dt.date, launch: dt.date) -> float:
    return (day - launch).days / 365.25


def _month(text: str) -> dt.date:
    return dt.datetime.strptime(f"15 {text}", "%d %B %Y").date()


def _usd(text: str) -> float:
    return float(text.replace("$", "").replace(",", ""))


def collect_points(data: Path = DATA, series: Path = EBAY_SERIES) -> list[Point]:
    gpus = {r["name"]: r for r in _read(data / "gpus.csv")}
    current = {r["gpu"] for r in _read(data / "sold_new.csv") if r["status"] == "current"}
    hardware = _read(data / "hardware_prices.csv")
    cards = [r for r in hardware if r["gpus_per_unit"] == "1" and r["includes_host"] == "false"]
    earliest_new: dict[str, float] = {}
    for r in sorted((r for r in cards if r["condition"] == "new"), key=lambda r: r["as_of"], reverse=True):
        earliest_new[r["gpu"]] = float(r["unit_price_usd"])
    observations = [(r["GPU"].removeprefix("GeForce "), _month(r["Month"]), _usd(r["eBay Price"]), EBAY_SOURCE)
                    for r in _read(series)]
    observations += [(r["gpu"], dt.date.fromisoformat(r["as_of"]), float(r["unit_price_usd"]), r["source"])
                     for r in cards if r["condition"] == "used"]
    points = []
    for gpu, day, price, source in observations:
        spec = gpus.get(gpu)
        if spec is None or gpu in current or day < FIRST_MONTH:
            continue
        launch = _launch(spec["launch_date"])
        reference = float(spec["launch_price_usd"]) if spec["launch_price_usd"] else earliest_new.get(gpu)
        if launch is None or reference is None or spec["segment"] not in FAMILIES:
            continue
        points.append(Point(gpu, spec["segment"], _years(day, launch), price / reference, source))
    return points


def fit(points: list[Point], model: str) -> Fit:
    ages = np.array([p.age for p in points])
    logs = np.log([p.ratio for p in points])
    if model == "exponential":
        rate = -float(ages @ logs) / float(ages @ ages)  # least squares through log ratio 0 at age 0
        return Fit(model, 1.0, rate)
    slope, intercept = np.polyfit(ages, logs, 1)
    if intercept > 0:  # leaving the shop never adds value: the constrained step is the exponential
        return Fit(model, 1.0, fit(points, "exponential").rate)
    return Fit(model, math.exp(float(intercept)), -float(slope))


def _rmse(points: list[Point], f: Fit) -> float:
    return float(np.sqrt(np.mean([(math.log(p.ratio) - math.log(f.ratio(p.age))) ** 2 for p in points])))


def loo_rmse(points: list[Point], model: str) -> float:
    """Root mean square log error of each card's points under the fit of every other card's."""
    errors = []
    for gpu in sorted({p.gpu for p in points}):
        held = [p for p in points if p.gpu == gpu]
        f = fit([p for p in points if p.gpu != gpu], model)
        errors += [(math.log(p.ratio) - math.log(f.ratio(p.age))) ** 2 for p in held]
    return float(np.sqrt(np.mean(errors)))


def fit_family(points: list[Point]) -> dict[str, str]:
    scores = {m: loo_rmse(points, m) for m in ("exponential", "step")}
    best = min(scores, key=lambda m: (scores[m], m != "exponential"))  # a tie keeps the one-parameter model
    other = "step" if best == "exponential" else "exponential"
    f = fit(points, best)
    pct = float(np.median([abs(f.ratio(p.age) / p.ratio - 1.0) for p in points]))
    return {"family": points[0].family, "model": best, "level": f"{f.level:.4f}", "decline_rate": f"{f.rate:.4f}",
            "equivalent_yearly_decline": f"{1.0 - math.exp(-f.rate):.4f}", "points": str(len(points)),
            "cards": "|".join(sorted({p.gpu for p in points})), "rmse_log": f"{_rmse(points, f):.4f}",
            "loo_rmse_log": f"{scores[best]:.4f}", "median_abs_pct_error": f"{pct:.4f}", "other_model": other,
            "other_loo_rmse_log": f"{scores[other]:.4f}",
            "sources": " | ".join(sorted({p.source for p in points}))}


def fit_all(data: Path = DATA, series: Path = EBAY_SERIES) -> list[dict[str, str]]:
    points = collect_points(data, series)
    return [fit_family([p for p in points if p.family == family]) for family in FAMILIES
            if any(p.family == family for p in points)]


def main() -> None:
    rows = fit_all()
    with (DATA / "resale_curves.csv").open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=HEADER, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    for r in rows:
        print(f"{r['family']}: {r['model']} level {r['level']} rate {r['decline_rate']}/year "
              f"({float(r['equivalent_yearly_decline']):.1%} a year), {r['points']} points, LOO RMSE(log) "
              f"{r['loo_rmse_log']} ({r['other_model']}: {r['other_loo_rmse_log']}), median |error| "
              f"{float(r['median_abs_pct_error']):.1%}")


if __name__ == "__main__":
    main()
