"""Run the catalog audit and split a catalog into what plans may use and what is held back.

A row a check finds out of band or implausible is quarantined unless a second, independent source confirms it:
another row of the catalog from another document (same provider, GPU and kind of rent; or same card and
condition) within `CONFIRM_TOLERANCE` of its price and `CONFIRM_DAYS` of its date, or a row of
`pricing/data/audit_confirmations.csv`, where a person recorded such a second source. A quarantined row is kept
(`Catalog.held`), shown with its flags by `/v1/prices` and `gpuplan catalog audit`, and never reaches a plan: the
catalog the planner reads is assembled here, before any option is built.
"""

from __future__ import annotations

import csv
import datetime as dt
from dataclasses import replace
from functools import lru_cache
from importlib import resources
from io import StringIO

import pandas as pd

from pricing.audit.cloud import (
    Priced,
    band_flags,
    cloud_rows,
    commitment_rows,
    fresher_flags,
    per_gpu_quote_flags,
)
from pricing.audit.hardware import Bought, hardware_rows, new_used_flags, sold_new_flags, stale_used_flags
from pricing.audit.model import Audit, Flag, RowAudit
from pricing.catalog import Catalog, HeldRows

STALE_DAYS = 365
CONFIRM_TOLERANCE = 0.15
CONFIRM_DAYS = 365


@lru_cache(maxsize=1)
def bundled_confirmations() -> tuple[tuple[str, str, float, str, str], ...]:
    """(table, key part, price per GPU, source, as_of) rows a person recorded from a second source."""
    text = resources.files("pricing").joinpath("data/audit_confirmations.csv").read_text(encoding="utf-8")
    return tuple((r["table"], r["row"], float(r["usd_per_gpu"]), r["source"], r["as_of"])
                 for r in csv.DictReader(StringIO(text)))


def _age(as_of: str, on: dt.date) -> int:
    return (on - dt.date.fromisoformat(as_of[:10])).days


def _near(a: float, b: float) -> bool:
    return abs(a / b - 1.0) <= CONFIRM_TOLERANCE


def _confirm_rented(r: Priced, rows: list[Priced], curated: tuple[tuple[str, str, float, str, str], ...]) -> str:
    for o in rows:
        if (o.source != r.source and o.provider == r.provider and o.gpu == r.gpu and o.kind == r.kind
                and _near(o.per_gpu, r.per_gpu) and abs(_age(o.as_of, dt.date.fromisoformat(r.as_of))) <= CONFIRM_DAYS):
            return f"{o.label} at {o.per_gpu:.4g} USD per GPU-hour of {o.as_of} ({o.source})"
    return _confirm_curated(r.table, r.key, r.per_gpu, r.source, curated)


def _confirm_bought(r: Bought, rows: list[Bought], curated: tuple[tuple[str, str, float, str, str], ...]) -> str:
    for o in rows:
        if (o.source != r.source and o.gpu == r.gpu and o.condition == r.condition and o.card == r.card
                and _near(o.per_gpu, r.per_gpu) and abs(_age(o.as_of, dt.date.fromisoformat(r.as_of))) <= CONFIRM_DAYS):
            return f"{o.name} at {o.per_gpu:,.0f} USD of {o.as_of} ({o.source})"
    return _confirm_curated("hardware", r.key, r.per_gpu, r.source, curated)


def _confirm_curated(table: str, key: str, per_gpu: float, source: str,
                     curated: tuple[tuple[str, str, float, str, str], ...]) -> str:
    for c_table, part, price, c_source, as_of in curated:
        if c_table == table and part in key and c_source != source and _near(price, per_gpu):
            return f"{price:.4g} USD per GPU of {as_of} ({c_source})"
    return ""


def _resolve(check: str, reason: str, confirmed_by: str) -> Flag:
    if confirmed_by:
        return Flag(check, reason, "confirmed", confirmed_by)
    return Flag(check, reason, "quarantined")


def audit_catalog(catalog: Catalog, on: dt.date,
                  curated: tuple[tuple[str, str, float, str, str], ...] | None = None) -> Audit:
    """Every row of `catalog` (its planner frames and its held rows) with its age and flags on day `on`."""
    curated = bundled_confirmations() if curated is None else curated
    full = with_held(catalog)
    audit = Audit(on)
    rented = cloud_rows(full.cloud) + commitment_rows(full.commitments)
    checks: dict[str, list[tuple[str, str]]] = {}
    for found in (band_flags(rented), fresher_flags(rented), per_gpu_quote_flags(rented, catalog.gpus)):
        for key, flag in found.items():
            checks.setdefault(key, []).append(flag)
    for r in rented:
        row = audit.rows.setdefault(r.key, RowAudit(r.table, r.key, r.label, r.as_of, _age(r.as_of, on), r.source))
        row.flags += [_resolve(check, reason, _confirm_rented(r, rented, curated))
                      for check, reason in checks.get(r.key, [])]
        _notes(row, r.aggregator, bool(_confirm_rented(r, [o for o in rented if o.key != r.key], ())))
    bought = hardware_rows(full.hardware)
    hw_checks: dict[str, list[tuple[str, str, str]]] = {}
    for found_hw in (new_used_flags(bought), stale_used_flags(bought, on),
                     sold_new_flags(bought, catalog.gpus, catalog.sold_new, on)):
        for key, flags in found_hw.items():
            hw_checks.setdefault(key, []).extend(flags)
    in_force = _cards_in_force(bought, hw_checks)
    for b in bought:
        row = audit.rows.setdefault(b.key, RowAudit("hardware", b.key, f"{b.name} ({b.condition} {b.gpu})", b.as_of,
                                                    _age(b.as_of, on), b.source))
        for check, reason, action in hw_checks.get(b.key, []):
            row.flags.append(_resolve(check, reason, _confirm_bought(b, bought, curated)) if action == "quarantine"
                             else Flag(check, reason, action))
        if b.key in in_force:
            _notes(row, b.aggregator, bool(_confirm_bought(b, [o for o in bought if o.key != b.key], ())))
    return audit


def _cards_in_force(bought: list[Bought], checks: dict[str, list[tuple[str, str, str]]]) -> set[str]:
    """Keys of the rows plans buy at: the newest price of each card and condition, and every system."""
    newest: dict[tuple[str, str], Bought] = {}
    for b in bought:
        if not b.card:
            continue
        if any(action in ("quarantine", "withdrawn") for _, _, action in checks.get(b.key, [])):
            continue
        group = (b.gpu, b.condition)
        if group not in newest or b.as_of > newest[group].as_of:
            newest[group] = b
    return {b.key for b in newest.values()} | {b.key for b in bought if not b.card}


def _notes(row: RowAudit, aggregator: bool, confirmed: bool) -> None:
    """The flags that explain themselves: a row's age beyond a year, and a price read only from an aggregator."""
    if row.age_days > STALE_DAYS:
        row.flags.append(Flag("stale", f"{row.age_days} days old (as of {row.as_of}): no fresher reading of it in the "
                                       "sources read; plans using it say their prices are old", "noted"))
    if aggregator and not confirmed:
        row.flags.append(Flag("aggregator_only", "read from an aggregator of other sellers' prices, not from the "
                                                 "seller itself, and no other source confirms it", "noted"))


def with_held(catalog: Catalog) -> Catalog:
    """The catalog with its held (quarantined) rows back in its frames: every row the sources gave."""
    held = catalog.held
    if held.empty():
        return catalog
    return replace(catalog, cloud=_concat(catalog.cloud, held.cloud), hardware=_concat(catalog.hardware, held.hardware),
                   commitments=_concat(catalog.commitments, held.commitments), held=HeldRows(), audit=None)


def _concat(frame: pd.DataFrame, extra: pd.DataFrame) -> pd.DataFrame:
    return frame if extra.empty else pd.concat([frame, extra], ignore_index=True)


def audited(catalog: Catalog, on: dt.date) -> Catalog:
    """`catalog` audited on `on`: quarantined rows moved from the planner's frames to `held`, the audit attached."""
    full = with_held(catalog)
    audit = audit_catalog(full, on)
    held_keys = audit.quarantined_keys()
    cloud_keep = _keep(full.cloud, cloud_rows(full.cloud), held_keys)
    commit_keep = _keep(full.commitments, commitment_rows(full.commitments), held_keys)
    hw_keep = _keep(full.hardware, hardware_rows(full.hardware), held_keys)
    return replace(full, cloud=full.cloud[cloud_keep].reset_index(drop=True),
                   commitments=full.commitments[commit_keep].reset_index(drop=True),
                   hardware=full.hardware[hw_keep].reset_index(drop=True),
                   held=HeldRows(full.cloud[~cloud_keep].reset_index(drop=True),
                                 full.hardware[~hw_keep].reset_index(drop=True),
                                 full.commitments[~commit_keep].reset_index(drop=True)),
                   audit=audit)


def _keep(frame: pd.DataFrame, rows: list[Priced] | list[Bought], held: set[str]) -> pd.Series:
    return pd.Series([r.key not in held for r in rows], index=frame.index, dtype=bool)
