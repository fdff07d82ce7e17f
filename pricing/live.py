"""The catalog the planner reads once live prices exist: the bundled snapshot overlaid with stored snapshots.

Overlay rules (why: a fresher price for the same thing must win, and nothing should vanish because a
source happens not to cover it):
- cloud: live rows of provider P with pricing model M replace every bundled row of (P, M); an instance a
  provider no longer lists is gone from its live answer, so it must not linger from the old snapshot;
- hardware: live rows replace bundled rows of the same (vendor, condition, GPU); vendor quotes and feeds
  with a new vendor simply add rows;
- commitments: live rows of provider P with pricing model M (reserved/committed) replace every bundled
  commitment row of (P, M), like cloud rows; they go to `Catalog.commitments`, never to the planner's view;
- exchange rates (kind `fx`, the `ecb` source): the live publication replaces the bundled one whole;
- quarantined rows (held back by the refresh as far below every other offer) are left out altogether;
- the result is audited again when the base was (`pricing.audit.run.audited`): the bundled rows the audit held
  back come back into the comparison, and a live row can be quarantined, or confirm a bundled one.
The view is rebuilt only when some source's snapshot in force changes.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from dataclasses import replace

import pandas as pd
from sqlalchemy import Engine, select

from pricing.audit.run import audited, with_held
from pricing.catalog import (
    CLOUD_COLUMNS,
    COMMITMENT_COLUMNS,
    COMMITMENT_MODELS,
    HARDWARE_COLUMNS,
    MARKET_COLUMNS,
    Catalog,
    planner_offers,
)
from pricing.fx import ExchangeRates
from pricing.storage import PriceObservationRow, PriceSnapshot, SourceStatus


def snapshots_in_force(engine: Engine) -> tuple[tuple[str, int], ...]:
    t = SourceStatus.__table__
    with engine.connect() as conn:
        rows = conn.execute(select(t.c.source, t.c.snapshot_id).where(t.c.snapshot_id.is_not(None))
                            .order_by(t.c.source))
        return tuple((r[0], int(r[1])) for r in rows)


def load_observations(engine: Engine, snapshot_ids: list[int]) -> pd.DataFrame:
    o, s = PriceObservationRow.__table__, PriceSnapshot.__table__
    query = (select(o, s.c.origin).join(s, s.c.id == o.c.snapshot_id)
             .where(o.c.snapshot_id.in_(snapshot_ids), o.c.quarantined.is_(False)))
    with engine.connect() as conn:
        result = conn.execute(query)
        return pd.DataFrame(result.fetchall(), columns=list(result.keys()))


def _as_of(frame: pd.DataFrame) -> list[str]:
    return [t.strftime("%Y-%m-%dT%H:%M:%SZ") for t in frame["observed_at"]]


def _reference(frame: pd.DataFrame) -> list[str]:
    return [ref or origin for ref, origin in zip(frame["reference"], frame["origin"], strict=True)]


def live_cloud(obs: pd.DataFrame) -> pd.DataFrame:
    """On-demand and spot rows; a marketplace aggregate's quota is the number of listings it summarises."""
    cloud = obs[(obs["kind"] == "cloud") & ~obs["pricing"].isin(COMMITMENT_MODELS)]
    listings = cloud["listings"].astype(float)
    return pd.DataFrame({
        "provider": cloud["provider"].str.lower(), "name": cloud["name"], "gpu": cloud["gpu"],
        "gpu_count": cloud["gpu_count"].astype(int), "usd_per_hour": cloud["usd"].astype(float),
        "region": cloud["region"], "pricing": cloud["pricing"], "source": _reference(cloud), "as_of": _as_of(cloud),
        "feed": cloud["source"], "max_instances": listings,
        "p10_usd_per_hour": cloud["p10_usd"].astype(float), "listings": listings,
        "reliability": cloud["reliability"].astype(float),
    }, columns=CLOUD_COLUMNS + MARKET_COLUMNS)


def live_commitments(obs: pd.DataFrame) -> pd.DataFrame:
    rows = obs[(obs["kind"] == "cloud") & obs["pricing"].isin(COMMITMENT_MODELS)]
    return pd.DataFrame({
        "provider": rows["provider"].str.lower(), "name": rows["name"], "gpu": rows["gpu"],
        "gpu_count": rows["gpu_count"].astype(int), "usd_per_hour": rows["usd"].astype(float),
        "region": rows["region"], "pricing": rows["pricing"], "term_months": rows["term_months"].astype(int),
        "payment": rows["payment"], "source": _reference(rows), "as_of": _as_of(rows), "feed": rows["source"],
    }, columns=COMMITMENT_COLUMNS)


def live_hardware(obs: pd.DataFrame) -> pd.DataFrame:
    hw = obs[obs["kind"].isin(["new", "used"])]
    return pd.DataFrame({
        "name": hw["name"], "gpu": hw["gpu"], "condition": hw["kind"], "gpus_per_unit": hw["gpu_count"].astype(int),
        "unit_price_usd": hw["usd"].astype(float), "includes_host": hw["includes_host"].astype(bool),
        "watts": hw["watts"].astype(float), "idle_watts": hw["idle_watts"].astype(float), "vendor": hw["provider"],
        "source": _reference(hw), "as_of": _as_of(hw), "feed": hw["source"],
    }, columns=HARDWARE_COLUMNS)


def overlay(base: Catalog, obs: pd.DataFrame) -> Catalog:
    """`base` with the live rows laid over it by the rules in the module docstring."""
    if obs.empty:
        return base
    audit_day = base.audit.on if base.audit is not None else None
    base = with_held(base)
    cloud_live, hw_live = live_cloud(obs), live_hardware(obs)
    cloud = _replace_by_provider(base.cloud, planner_offers(cloud_live))
    commitments = _replace_by_provider(base.commitments, live_commitments(obs))
    hardware = base.hardware
    if not hw_live.empty:
        replaced_hw = set(zip(hw_live["vendor"].str.lower(), hw_live["condition"], hw_live["gpu"], strict=True))
        keep = [(v.lower(), c, g) not in replaced_hw
                for v, c, g in zip(hardware["vendor"], hardware["condition"], hardware["gpu"], strict=True)]
        hardware = pd.concat([hardware[keep], hw_live], ignore_index=True)
    merged = replace(base, cloud=cloud, hardware=hardware, commitments=commitments, fx=live_fx(obs, base.fx))
    return audited(merged, audit_day) if audit_day is not None else merged


def live_fx(obs: pd.DataFrame, bundled: ExchangeRates) -> ExchangeRates:
    """The stored ECB publication (rows of kind fx: `usd` per unit of currency `name`, the ECB date in the
    reference's fragment) as rates per euro; the bundled set when none is stored or it lacks the euro row."""
    rows = obs[obs["kind"] == "fx"]
    usd = dict(zip(rows["name"], rows["usd"].astype(float), strict=True))
    if rows.empty or "EUR" not in usd:
        return bundled
    reference = str(rows["reference"].iloc[0])
    try:
        as_of = dt.date.fromisoformat(reference.rpartition("#")[2])
    except ValueError:
        return bundled
    per_eur = {currency: usd["EUR"] / value for currency, value in usd.items()}
    return ExchangeRates(as_of=as_of, per_eur=per_eur, source=f"ECB euro reference rates of {as_of.isoformat()}, "
                         f"{reference.partition('#')[0]}", origin="live")


def _replace_by_provider(bundled: pd.DataFrame, live: pd.DataFrame) -> pd.DataFrame:
    """Live rows of (provider, pricing model) in place of every bundled row of that pair."""
    if live.empty:
        return bundled
    replaced = set(zip(live["provider"], live["pricing"], strict=True))
    keep = [(p, m) not in replaced for p, m in zip(bundled["provider"], bundled["pricing"], strict=True)]
    return pd.concat([bundled[keep], live], ignore_index=True)


class LiveCatalog:
    """A callable returning the current catalog; cheap when nothing changed (one small status query)."""

    def __init__(self, engine: Engine, base: Catalog, active: Callable[[str], bool] | None = None) -> None:
        """`active(source)` says whether a source's snapshot counts: a source switched off in the
        configuration gives its rows back to the bundled snapshot (its history stays)."""
        self._engine = engine
        self._base = base
        self._active = active or (lambda _: True)
        self._lock = threading.Lock()
        self._key: tuple[tuple[str, int], ...] | None = None
        self._catalog = base

    def __call__(self) -> Catalog:
        return self.current()[0]

    def current(self) -> tuple[Catalog, dict[str, int]]:
        """The catalog and the snapshot in force per source it was built from (what recomputes a plan)."""
        key = tuple((source, sid) for source, sid in snapshots_in_force(self._engine) if self._active(source))
        with self._lock:
            if key != self._key:
                self._catalog = catalog_at(self._engine, self._base, dict(key))
                self._key = key
            return self._catalog, dict(key)


def catalog_at(engine: Engine, base: Catalog, snapshots: dict[str, int]) -> Catalog:
    """The catalog as it was with these snapshots in force: snapshots are append-only, so this is exact."""
    obs = load_observations(engine, sorted(snapshots.values())) if snapshots else pd.DataFrame()
    return overlay(base, obs)
