"""AWS EC2 on-demand prices from the public Price List bulk files, one CSV per region, read as a stream.

API: https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/using-ppslong.html (bulk API, no
credentials). Each region's file `/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv` is hundreds of
megabytes: it is parsed row by row as it arrives (`requests` stream -> `io.TextIOWrapper` -> `csv.reader`),
so memory stays bounded whatever the file size. The file starts with 5 metadata rows ("FormatVersion",
"Disclaimer", "Publication Date", "Version", "OfferCode"), then the header, then one row per price
dimension (gpuhunt `providers/aws.py` skips the same 5 rows; SkyPilot's `fetch_aws.py` reads the same
per-region files).

The CSV carries a GPU *count* (`GPU` column) but no GPU *model*, so the model comes from the instance
family table below (`AWS_GPU_FAMILIES`), shared with the spot source (`pricing.sources.aws_spot`).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterator
from typing import ClassVar, Literal

import requests

from pricing.gpus import GpuTable
from pricing.observation import FetchResult, PriceObservation, SourceError
from pricing.sources.base import Source

# The regions of the bundled snapshot's aws rows (pricing/data/cloud_offers.csv), used when none are configured.
DEFAULT_REGIONS: tuple[str, ...] = ("us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "eu-west-2")

# Instance family (the part of the instance type before the ".") -> GPU spelling for `GpuTable.canonical`.
# None: a GPU family whose GPU model we do not price (counted as an unknown SKU, never guessed).
# Sources: AWS "Accelerated computing instance specifications"
# (https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html) and the GpuInfo names of the SkyPilot AWS
# catalog (skypilot-org/skypilot-catalog catalogs/v7/aws/vms.csv, as in the bundled snapshot); p4de is
# A100 80 GB (gpuhunt `providers/aws.py` `preview_gpus`), p3dn is V100 32 GB (AWS: 8x V100 32 GiB).
AWS_GPU_FAMILIES: dict[str, str | None] = {
    "p6-b200": "B200",        # 8x NVIDIA B200
    "p5": "H100 SXM",         # NVIDIA H100 80 GB SXM
    "p5e": "H200",            # NVIDIA H200 141 GB
    "p5en": "H200",
    "p4d": "A100 40GB",       # NVIDIA A100 40 GB SXM4
    "p4de": "A100 80GB",      # NVIDIA A100 80 GB SXM4
    "p3": "V100",             # NVIDIA V100 16 GB SXM2
    "p3dn": "V100 32GB",      # NVIDIA V100 32 GB SXM2
    "g6e": "L40S",
    "g6": "L4",
    "gr6": "L4",
    "g5": "A10G",
    "g4dn": "T4",
    # GPU families whose GPU is not in pricing/data/gpus.csv: counted as unknown SKUs
    "p2": None,               # NVIDIA K80
    "g3": None,               # NVIDIA M60
    "g3s": None,              # NVIDIA M60
    "g4ad": None,             # AMD Radeon Pro V520
    "g5g": None,              # NVIDIA T4G (Arm host)
    "p6e-gb200": None,        # NVIDIA GB200 superchip
    "p6-b300": None,          # NVIDIA B300
}

# Families that sell a fraction of one GPU (g6f/gr6f: 1/8 to 1/2 of an L4); a fraction cannot be priced
# per whole GPU, so these are skipped on purpose, not counted as unknown.
FRACTIONAL_GPU_FAMILIES = frozenset({"g6f", "gr6f"})

# Accelerators that are not GPUs (Inferentia, Trainium, Gaudi, Qualcomm AI 100, FPGAs, video transcoders):
# skipped even when the price list fills its GPU column.
NON_GPU_ACCELERATOR_FAMILIES = frozenset({
    "inf1", "inf2", "trn1", "trn1n", "trn2", "trn2u", "dl1", "dl2q", "f1", "f2", "vt1",
})

# GPU count per instance type, for sources whose answer has no GPU column (DescribeSpotPriceHistory).
# Same source as AWS_GPU_FAMILIES (AWS accelerated computing specifications).
AWS_GPU_COUNTS: dict[str, int] = {
    "p6-b200.48xlarge": 8,
    "p5.4xlarge": 1, "p5.48xlarge": 8, "p5e.48xlarge": 8, "p5en.48xlarge": 8,
    "p4d.24xlarge": 8, "p4de.24xlarge": 8,
    "p3.2xlarge": 1, "p3.8xlarge": 4, "p3.16xlarge": 8, "p3dn.24xlarge": 8,
    **{f"g6e.{size}": 1 for size in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge")},
    "g6e.12xlarge": 4, "g6e.24xlarge": 4, "g6e.48xlarge": 8,
    **{f"g6.{size}": 1 for size in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge")},
    "g6.12xlarge": 4, "g6.24xlarge": 4, "g6.48xlarge": 8,
    "gr6.4xlarge": 1, "gr6.8xlarge": 1,
    **{f"g5.{size}": 1 for size in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge")},
    "g5.12xlarge": 4, "g5.24xlarge": 4, "g5.48xlarge": 8,
    **{f"g4dn.{size}": 1 for size in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "16xlarge")},
    "g4dn.12xlarge": 4, "g4dn.metal": 8,
}


def instance_family(instance_type: str) -> str:
    """'p4de.24xlarge' -> 'p4de', 'p6-b200.48xlarge' -> 'p6-b200'."""
    return instance_type.split(".", 1)[0]


def family_gpu(instance_type: str) -> tuple[bool, str | None]:
    """(is a priced-GPU family, GPU spelling or None). Non-GPU and fractional families give (False, None)."""
    family = instance_family(instance_type)
    if family in NON_GPU_ACCELERATOR_FAMILIES or family in FRACTIONAL_GPU_FAMILIES:
        return False, None
    return True, AWS_GPU_FAMILIES.get(family)


# Header columns the parser needs; a file without them is not an EC2 price list we understand.
REQUIRED_COLUMNS = (
    "TermType", "Unit", "PricePerUnit", "Currency", "Tenancy", "Operating System", "Pre Installed S/W",
    "CapacityStatus", "Product Family", "Instance Type", "Region Code", "GPU",
)
METADATA_ROWS = 5
CHUNK_BYTES = 1 << 20


class _ChunkStream(io.RawIOBase):
    """A read-only file over `response.iter_content` chunks, so `csv` can read a download as it arrives.

    Reading through `iter_content` (not `response.raw`) keeps `requests` in charge of errors: a body cut
    short surfaces as `requests.exceptions.ChunkedEncodingError`, a stalled one as a `ConnectionError`.
    """

    def __init__(self, chunks: Iterator[bytes]) -> None:
        super().__init__()
        self._chunks = chunks
        self._view = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while not self._view:
            chunk = next(self._chunks, None)
            if chunk is None:
                return 0
            self._view = memoryview(chunk)
        n = min(len(buffer), len(self._view))
        buffer[:n] = self._view[:n]
        self._view = self._view[n:]
        return n


class _Columns:
    """Header positions of the columns used, so each row is read by index (fast on 10^6 rows)."""

    def __init__(self, header: list[str], what: str) -> None:
        index = {name: i for i, name in enumerate(header)}
        missing = [name for name in REQUIRED_COLUMNS if name not in index]
        if missing:
            raise SourceError(f"{what}: header lacks column(s) {', '.join(missing)}")
        self.width = len(header)
        self.term = index["TermType"]
        self.unit = index["Unit"]
        self.price = index["PricePerUnit"]
        self.currency = index["Currency"]
        self.tenancy = index["Tenancy"]
        self.os = index["Operating System"]
        self.software = index["Pre Installed S/W"]
        self.capacity = index["CapacityStatus"]
        self.family = index["Product Family"]
        self.instance = index["Instance Type"]
        self.region = index["Region Code"]
        self.gpu = index["GPU"]
        self.market = index.get("MarketOption")  # absent in older files
        self.rate_code = index.get("RateCode")


def _is_linux_on_demand(row: list[str], c: _Columns) -> bool:
    """Shared-tenancy Linux on-demand hourly USD price with no pre-installed software (gpuhunt's filter)."""
    return (
        row[c.term] == "OnDemand" and row[c.unit] == "Hrs" and row[c.tenancy] == "Shared"
        and row[c.os] == "Linux" and row[c.software] in ("NA", "") and row[c.capacity] == "Used"
        and row[c.currency] == "USD" and row[c.family].startswith("Compute Instance")
        and (c.market is None or row[c.market] in ("OnDemand", ""))
    )


def _gpu_count(cell: str) -> float:
    cell = cell.strip()
    if cell in ("", "NA"):
        return 0.0
    try:
        return float(cell)
    except ValueError:
        return float("nan")


class AwsPriceListSource(Source):
    """On-demand Linux prices of GPU instances, per region, from the EC2 Price List bulk CSV files."""

    key: ClassVar[str] = "aws"
    kind: ClassVar[Literal["cloud", "hardware"]] = "cloud"
    default_base_url: ClassVar[str] = "https://pricing.us-east-1.amazonaws.com"
    credentials: ClassVar[tuple[str, ...]] = ()
    description: ClassVar[str] = "AWS EC2 on-demand GPU instances (Price List bulk CSV per region, no credentials)"
    # AWS republishes EC2 prices a few times a month and each region file is hundreds of MB: daily is enough
    default_interval_hours: ClassVar[float] = 24.0

    @property
    def regions(self) -> list[str]:
        return list(self.config.regions or DEFAULT_REGIONS)

    def region_url(self, region: str) -> str:
        return f"{self.base_url}/offers/v1.0/aws/AmazonEC2/current/{region}/index.csv"

    def fetch(self, http: requests.Session, gpus: GpuTable, now: dt.datetime) -> FetchResult:
        result = FetchResult()
        seen: set[str] = set()
        for region in self.regions:
            url = self.region_url(region)
            with http.get(url, stream=True) as response:
                response.raise_for_status()
                lines = io.TextIOWrapper(
                    io.BufferedReader(_ChunkStream(response.iter_content(CHUNK_BYTES)), CHUNK_BYTES),
                    encoding="utf-8-sig", newline="",
                )
                try:
                    self._parse_region(csv.reader(lines, strict=True), region, url, gpus, now, result, seen)
                except csv.Error as exc:
                    raise SourceError(f"AWS price list {region}: malformed CSV ({exc})") from None
                except UnicodeDecodeError as exc:
                    raise SourceError(f"AWS price list {region}: not UTF-8 text ({exc.reason})") from None
        if not result.observations:
            raise SourceError("AWS price list: no GPU instance prices in any region")
        return result

    def _parse_region(self, reader: Iterator[list[str]], region: str, url: str, gpus: GpuTable,
                      now: dt.datetime, result: FetchResult, seen: set[str]) -> None:
        what = f"AWS price list {region}"
        metadata = [next(reader, None) for _ in range(METADATA_ROWS)]
        if not metadata[0] or metadata[0][0] != "FormatVersion":
            raise SourceError(f"{what}: not an EC2 price list CSV (no FormatVersion row first)")
        header = next(reader, None)
        if header is None:
            raise SourceError(f"{what}: file ends before the header")
        columns = _Columns(header, what)
        rows = gpu_rows = 0
        for row in reader:
            rows += 1
            if len(row) != columns.width:
                raise SourceError(f"{what}: row {rows} has {len(row)} columns, header has {columns.width} "
                                  "(file cut short or malformed)")
            if not _is_linux_on_demand(row, columns) or row[columns.region] != region:
                continue
            count = _gpu_count(row[columns.gpu])
            if count == 0:
                continue
            gpu_rows += 1
            observation = self._observation(row, columns, count, url, gpus, now, result)
            if observation is not None and observation.key() not in seen:
                seen.add(observation.key())
                result.observations.append(observation)
        result.rows_seen += rows
        if rows == 0:
            raise SourceError(f"{what}: no price rows after the header")
        if gpu_rows == 0:
            raise SourceError(f"{what}: {rows} rows but no GPU instance on-demand price")

    def _observation(self, row: list[str], c: _Columns, count: float, url: str, gpus: GpuTable,
                     now: dt.datetime, result: FetchResult) -> PriceObservation | None:
        """The row's observation, None for skipped families; unknown GPUs and odd counts are counted."""
        instance = row[c.instance]
        is_gpu, spelling = family_gpu(instance)
        if not is_gpu:
            return None
        canonical = gpus.canonical(spelling) if spelling else None
        if canonical is None or not count.is_integer():
            result.unknown_skus[instance] += 1
            return None
        try:
            usd = float(row[c.price])
        except ValueError:
            raise SourceError(f"AWS price list: {instance} has a non-numeric price {row[c.price]!r}") from None
        reference = f"{url}#{row[c.rate_code]}" if c.rate_code is not None else url
        return PriceObservation(
            source=self.key, kind="cloud", gpu=canonical, gpu_count=int(count), name=instance, usd=usd,
            observed_at=now, provider="aws", region=row[c.region], pricing="on_demand", reference=reference,
        )
