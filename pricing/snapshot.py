"""Write the bundled snapshot files from a catalog: how `gpuplan snapshot build` renews the package data.

The catalog given is normally the live one (bundled rows overlaid with every refreshed source), so the
written files hold the freshest price of everything priced, each row keeping its own source and date; rows
no source refreshed keep their bundled source and date. The files are written in the bundled layout
(pricing/data/README.md) and read back through the same validation the service applies at start-up
(`normalise_*`), so a snapshot the service could not load is never left in place.
"""

from __future__ import annotations

import os
import statistics
import tempfile
from dataclasses import dataclass
from datetime import date
from importlib import resources
from pathlib import Path

import pandas as pd

from pricing.catalog import Catalog, normalise_cloud, normalise_commitments, normalise_hardware

CLOUD_FILE_COLUMNS = ["provider", "name", "gpu", "gpu_count", "usd_per_hour", "region", "pricing", "max_instances",
                      "p10_usd_per_hour", "listings", "reliability", "source", "as_of", "notes"]
COMMITMENT_FILE_COLUMNS = ["provider", "name", "gpu", "gpu_count", "usd_per_hour", "region", "pricing",
                           "term_months", "payment", "source", "as_of", "notes"]
HARDWARE_FILE_COLUMNS = ["name", "gpu", "condition", "gpus_per_unit", "unit_price_usd", "includes_host", "watts",
                         "idle_watts", "vendor", "source", "as_of", "notes"]


@dataclass(frozen=True)
class SnapshotSummary:
    """What was written, with the figures issue 15 judges a snapshot by."""

    directory: Path
    cloud_rows: int
    commitment_rows: int
    hardware_rows: int
    providers: int
    median_cloud_age_days: float


def package_data_dir() -> Path:
    """Where the bundled files live in this installation (the source tree for an editable install)."""
    return Path(str(resources.files("pricing").joinpath("data")))


def _day(as_of: str) -> str:
    """ISO date of an `as_of` that may be a timestamp (live rows: "2026-11-21T18:00:00Z")."""
    return str(as_of)[:10]


def _note(frame: pd.DataFrame) -> list[str]:
    return [f"refreshed by source {feed}" if not str(feed).startswith("snapshot/") else ""
            for feed in frame["feed"]]


def _file_frame(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    out = frame.copy()
    out["as_of"] = [_day(a) for a in out["as_of"]]
    out["notes"] = _note(out)
    for column in columns:
        if column not in out:
            out[column] = ""
    out = out[columns].astype(object).where(out[columns].notna(), "")
    return out.sort_values(columns[:7]).reset_index(drop=True)


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    """Write next to the target and rename over it, so a reader never sees half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        frame.to_csv(tmp, index=False, lineterminator="\n", float_format="%.10g")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_snapshot(catalog: Catalog, directory: Path, today: date) -> SnapshotSummary:
    """Write cloud_offers.csv, commitments.csv and hardware_prices.csv for `catalog` into `directory`.

    Every frame is validated as the service would read it before any file is replaced; `today` is the
    date the ages in the summary are measured from."""
    cloud = _file_frame(catalog.cloud, CLOUD_FILE_COLUMNS)
    commitments = _file_frame(catalog.commitments, COMMITMENT_FILE_COLUMNS)
    hardware = _file_frame(catalog.hardware, HARDWARE_FILE_COLUMNS)
    text = {name: frame.astype(str) for name, frame in
            (("cloud", cloud), ("commitments", commitments), ("hardware", hardware))}
    normalise_cloud(text["cloud"], catalog.gpus, "snapshot", "cloud_offers.csv")
    normalise_commitments(text["commitments"], catalog.gpus, "snapshot", "commitments.csv")
    normalise_hardware(text["hardware"], catalog.gpus, "snapshot", "hardware_prices.csv")
    directory.mkdir(parents=True, exist_ok=True)
    _write_csv(cloud, directory / "cloud_offers.csv")
    _write_csv(commitments, directory / "commitments.csv")
    _write_csv(hardware, directory / "hardware_prices.csv")
    ages = [(today - date.fromisoformat(a)).days for a in cloud["as_of"]]
    return SnapshotSummary(
        directory=directory, cloud_rows=len(cloud), commitment_rows=len(commitments), hardware_rows=len(hardware),
        providers=int(cloud["provider"].nunique()),
        median_cloud_age_days=float(statistics.median(ages)) if ages else 0.0,
    )
