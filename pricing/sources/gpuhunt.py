"""dstack's gpuhunt offline catalog: one zip of per-provider CSVs, rebuilt by gpuhunt's CI and published keyless.

Where it lives (gpuhunt `_internal/catalog.py`): `GET {base}/v2/version` answers the current version, e.g.
`20260914-19524` (build date and CI run); `GET {base}/v2/{version}/catalog.zip` is a zip holding one
`<provider>.csv` per offline provider (aws, azure, gcp, lambdalabs, nebius, oci, runpod, verda, cloudrift).
Base: https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com.

CSV columns (gpuhunt `CatalogItem`, the header its catalog scripts write): `instance_name, location, price,
cpu, memory, gpu_count, gpu_name, gpu_memory, spot, disk_size, gpu_vendor, flags` (newer builds add columns;
they are ignored). `price` is USD per instance-hour, `spot` "True"/"False", `gpu_memory` GB per GPU.

The version's date is the date of the prices, so rows are stamped with it (`as_of`), not with the time of
the download: a catalog the CI stopped rebuilding shows its age.

GPU names: `gpu_name` ("H100", "A100", "RTX4090") qualified by `gpu_memory` ("A100 80GB") first, then
bare, through the GPU table; a name that maps to no known GPU is counted under gpuhunt's spelling. A provider
file that is not a gpuhunt CSV makes the whole answer a SourceError (the zip is one answer).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import math
import re
import zipfile
from typing import ClassVar, Literal

import requests

from pricing.gpus import GpuTable
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import Source
from pricing.sources.skypilot import pcie_variant

VERSION = re.compile(r"^(\d{8})-\d+$")
COLUMNS = ("instance_name", "location", "price", "gpu_count", "gpu_name", "gpu_memory", "spot")
# gpuhunt provider names -> the provider names of this catalog
PROVIDERS = {"lambdalabs": "lambda", "datacrunch": "verda"}
GPU_NAMES = {"RTX6000Ada": "RTX 6000 Ada", "A6000": "RTX A6000", "A5000": "RTX A5000", "RTX6000": "Quadro RTX 6000",
             "RTXPRO6000": "RTX PRO 6000"}


def version_date(version: str) -> dt.datetime:
    match = VERSION.match(version)
    if match is None:
        raise SourceError(f"gpuhunt version answer {version[:60]!r} is not a catalog version (YYYYMMDD-N)")
    try:
        return dt.datetime.strptime(match.group(1), "%Y%m%d").replace(tzinfo=dt.UTC)
    except ValueError as exc:
        raise SourceError(f"gpuhunt version {version!r} has no valid date") from exc


def gpu_of(name: str, memory: str, gpus: GpuTable) -> str | None:
    spelling = GPU_NAMES.get(name, name)
    try:
        gb = round(float(memory))
    except ValueError:
        gb = 0
    if gb > 0:
        qualified = gpus.canonical(f"{spelling} {gb}GB")
        if qualified is not None:
            return qualified
    return gpus.canonical(spelling)


def _number(cell: str | None, what: str) -> float:
    try:
        value = float(cell or "")
    except ValueError as exc:
        raise SourceError(f"{what} {cell!r} is not a number") from exc
    if not math.isfinite(value):
        raise SourceError(f"{what} {cell!r} is not a finite number")
    return value


class GpuHuntSource(Source):
    key: ClassVar[str] = "gpuhunt"
    kind: ClassVar[Literal["cloud", "hardware"]] = "cloud"
    default_base_url: ClassVar[str] = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com"
    default_interval_hours: ClassVar[float] = 24.0
    description: ClassVar[str] = ("dstack gpuhunt offline catalog (AWS, Azure, GCP, Lambda, Nebius, OCI, RunPod, "
                                  "Verda, CloudRift), keyless; rows dated by the catalog version")
    min_kept_ratio: ClassVar[float] = 0.5  # providers add and drop instance types from one build to the next

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        answer = http.get(f"{self.base_url}/v2/version")
        answer.raise_for_status()
        version = answer.text.strip().strip('"')
        observed = min(version_date(version), now)
        url = f"{self.base_url}/v2/{version}/catalog.zip"
        archive = http.get(url)
        archive.raise_for_status()
        try:
            with zipfile.ZipFile(io.BytesIO(archive.content)) as zipped:
                files = {name: zipped.read(name) for name in zipped.namelist() if name.endswith(".csv")}
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            raise SourceError(f"gpuhunt catalog {version}: not a whole zip ({exc})") from exc
        if not files:
            raise SourceError(f"gpuhunt catalog {version}: the zip holds no provider CSV")
        result = FetchResult()
        for name in sorted(files):
            provider = name.rsplit("/", 1)[-1].removesuffix(".csv")
            self._provider(files[name], PROVIDERS.get(provider, provider), gpus, observed, url, result)
        if not result.observations:
            raise SourceError(f"gpuhunt catalog {version}: no priced GPU among {result.rows_seen} rows")
        return result

    def _provider(self, data: bytes, provider: str, gpus: GpuTable, observed: dt.datetime, url: str,
                  result: FetchResult) -> None:
        what = f"gpuhunt {provider}.csv"
        try:
            reader = csv.DictReader(io.StringIO(data.decode("utf-8")), strict=True)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise SourceError(f"{what}: not a gpuhunt catalog (columns {', '.join(missing)} missing)")
            rows = list(reader)
        except (csv.Error, UnicodeDecodeError) as exc:
            raise SourceError(f"{what}: malformed CSV ({exc})") from exc
        result.rows_seen += len(rows)
        for number, row in enumerate(rows, start=2):
            if None in row.values():
                raise SourceError(f"{what}: row {number} is cut short")
            name = (row["gpu_name"] or "").strip()
            count = _number(row["gpu_count"] or "0", f"{what} row {number}: gpu_count")
            if not name or count < 1 or count != int(count):
                continue
            instance = (row["instance_name"] or "").strip()
            gpu = pcie_variant(gpu_of(name, row["gpu_memory"] or "", gpus), instance, gpus)
            if gpu is None:
                result.unknown_skus[name] += 1
                continue
            spot = (row["spot"] or "").strip().lower() in ("true", "1", "yes")
            result.observations.append(PriceObservation(
                source=self.key, kind="cloud", gpu=gpu, gpu_count=int(count), name=instance,
                usd=_number(row["price"], f"{what} row {number}: price"), observed_at=observed, provider=provider,
                region=(row["location"] or "").strip(), pricing="spot" if spot else "on_demand", reference=url,
            ))
