"""The catalog's cloud offers as plain numpy columns, converted once per catalog.

Why: every plan filters the same few hundred (or ten thousand) offers by the profile's rules, prices them per job
and prunes them. On a pandas DataFrame each of those steps pays pandas' fixed cost per operation (indexing,
`assign`, `sort_values`, `itertuples`), which made options building about a quarter of a plan. The columns here
are the DataFrame's own values (same dtypes, same index labels), so every figure computed from them is the same
float the DataFrame gave; only the per-operation overhead is gone. The catalog is fixed between refreshes, so the
table is computed once per catalog frame (identified by `is`, as `solvers.offers.options` does for the hardware table).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, fields, replace

import numpy as np
import pandas as pd

from solvers.base import defaults

_TRUE = ("true", "1", "yes")


@dataclass(frozen=True)
class CloudTable:
    """One row per offer. `label` is the row's index label in the catalog frame (an option's key names it);
    `max_instances` is NaN when unknown; the derived columns (`ref_hours_per_hour` on) are NaN until priced."""

    label: np.ndarray
    provider: np.ndarray  # object (str)
    name: np.ndarray
    gpu: np.ndarray
    region: np.ndarray
    pricing: np.ndarray
    source: np.ndarray
    as_of: np.ndarray
    feed: np.ndarray
    gpu_count: np.ndarray  # int
    usd_per_hour: np.ndarray  # float
    max_instances: np.ndarray  # float, NaN = no quota
    listing: np.ndarray  # bool: a marketplace listing (one host machine)
    verified: np.ndarray  # bool: the listing's host is verified
    ref_hours_per_hour: np.ndarray
    usd_per_ref_hour: np.ndarray
    slots: np.ndarray
    speed: np.ndarray
    usd_per_job_hour: np.ndarray
    load_per_gpu: np.ndarray  # float: load one GPU carries (always-on divisible load: its throughput; else 1)
    width: np.ndarray  # int: GPUs one job takes on the offer (set when priced)
    offer: np.ndarray  # the offer's own label: copies of one offer at several job widths share it

    def __len__(self) -> int:
        return len(self.label)

    @property
    def empty(self) -> bool:
        return len(self.label) == 0

    def take(self, rows: np.ndarray) -> CloudTable:
        """The rows selected by a boolean mask or an index array, in that order."""
        return CloudTable(**{f.name: getattr(self, f.name)[rows] for f in fields(self)})

    def priced(self, **columns: np.ndarray) -> CloudTable:
        return replace(self, **columns)

    @staticmethod
    def of(frame: pd.DataFrame) -> CloudTable:
        n = len(frame)
        listing = frame["provider"].isin(defaults.MARKETPLACE_PROVIDERS).to_numpy()
        # a row's own mark (a profile's quote), else the rule by feed: feeds that list verified hosts only
        verified = frame["feed"].isin(defaults.VERIFIED_HOST_FEEDS).to_numpy()
        if "verified" in frame:
            verified = verified | frame["verified"].astype(str).str.lower().isin(_TRUE).to_numpy()
        nan = np.full(n, np.nan)
        return CloudTable(
            label=frame.index.to_numpy(),
            provider=frame["provider"].to_numpy(dtype=object),
            name=frame["name"].to_numpy(dtype=object),
            gpu=frame["gpu"].to_numpy(dtype=object),
            region=frame["region"].to_numpy(dtype=object),
            pricing=frame["pricing"].to_numpy(dtype=object),
            source=frame["source"].to_numpy(dtype=object),
            as_of=frame["as_of"].to_numpy(dtype=object),
            feed=frame["feed"].to_numpy(dtype=object),
            gpu_count=frame["gpu_count"].to_numpy(),
            usd_per_hour=frame["usd_per_hour"].to_numpy(),
            max_instances=frame["max_instances"].to_numpy(dtype=float),
            listing=listing,
            verified=verified,
            ref_hours_per_hour=nan, usd_per_ref_hour=nan, slots=np.zeros(n, dtype=np.int64), speed=nan,
            usd_per_job_hour=nan, load_per_gpu=np.ones(n), width=np.ones(n, dtype=np.int64),
            offer=frame.index.to_numpy(),
        )

    @staticmethod
    def concat(tables: list[CloudTable]) -> CloudTable:
        """Rows of all tables, relabelled 0..n-1 (as `pd.concat(..., ignore_index=True)` numbers them)."""
        joined = {f.name: np.concatenate([getattr(t, f.name) for t in tables]) for f in fields(CloudTable)}
        joined["label"] = np.arange(len(joined["label"]))
        joined["offer"] = joined["label"]
        return CloudTable(**joined)


_lock = threading.Lock()
_last: tuple[pd.DataFrame, CloudTable] | None = None


def cloud_table(frame: pd.DataFrame) -> CloudTable:
    """The table of a catalog's cloud frame, converted once per frame (the last one is kept: one catalog is in
    force at a time, and a refresh makes a new frame)."""
    global _last
    cached = _last
    if cached is not None and cached[0] is frame:
        return cached[1]
    table = CloudTable.of(frame)
    with _lock:
        _last = (frame, table)
    return table
