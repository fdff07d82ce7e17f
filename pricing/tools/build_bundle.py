"""Rebuild the bundled cloud snapshot (`pricing/data/cloud_offers.csv`, `commitments.csv`) from the extracts.

Run by hand (`python -m pricing.tools.build_bundle`), not by CI. The extracts under `extracts/` are verbatim
copies of public files (rows or columns selected, values untouched); `pricing/data/cloud_offers.SOURCES.md`
names each one with its repository, path and commit and says why rows were kept or left out. Every rule
that drops a row is counted in the summary this script prints, so nothing disappears silently; the rows left
out because a fresher reading of the same offer exists (`pricing.tools.freshest`) are listed one by one.
"""

from __future__ import annotations

import csv
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pricing.gpus import GpuTable, bundled_gpus
from pricing.tools.freshest import Superseded, freshest

HERE = Path(__file__).resolve().parent
EXTRACTS = HERE / "extracts"
DATA = HERE.parent / "data"

MONITOR_FILE = EXTRACTS / "koen-nebius-price-monitor-history-2026-08-18.csv"
MONITOR_SOURCE = ("https://github.com/koen-nebius/price-monitor/blob/0208d04f564064b60251242613e3a7813237a836/"
                  "store/history.csv")
AGGREGATOR_SOURCE = " (rows the monitor read from the computeprices.com aggregator)"
MONITOR_DATE = "2026-08-18"  # the newest snapshot_date in the file; older dated rows of it are read too
VAST_FILE = EXTRACTS / "skypilot-catalog-v8-vast-vms.csv"
VAST_SOURCE = ("https://github.com/skypilot-org/skypilot-catalog/blob/01b8cdda287814b30ff0acb49746cca19fbd4355/"
               "catalogs/v8/vast/vms.csv")
VAST_AS_OF = "2025-06-01"
PREVIOUS_FILE = EXTRACTS / "previous-bundle-cloud_offers.csv"
# prices quoted on dated public pages, for GPUs no machine-readable dated source prices (AMD Instinct)
PAGE_QUOTES_FILE = EXTRACTS / "page-quotes.csv"
# AWS list prices after the June 2025 P4/P5 cut, as instances.vantage.sh published them (tsaol/aws-gpu data files)
AWS_FILE = EXTRACTS / "tsaol-aws-gpu-vantage-2026-08-26.csv"
AWS_REPO = "https://github.com/tsaol/aws-gpu/blob"
AWS_GPUS = {"p4d.24xlarge": "A100 40GB", "p4de.24xlarge": "A100 80GB", "p3.2xlarge": "V100", "p3.8xlarge": "V100",
            "p3.16xlarge": "V100", "p3dn.24xlarge": "V100 32GB"}
STALE_BEFORE = "2025-11-28"  # a year before the snapshot was rebuilt (2026-11-28)
PREFERRED_REGIONS = ("us-east-1", "eastus", "us-central1", "US")

CLOUD_HEADER = ["provider", "name", "gpu", "gpu_count", "usd_per_hour", "region", "pricing", "max_instances",
                "p10_usd_per_hour", "listings", "reliability", "source", "as_of", "notes"]
COMMITMENT_HEADER = ["provider", "name", "gpu", "gpu_count", "usd_per_hour", "region", "pricing", "term_months",
                     "payment", "source", "as_of", "notes"]

# the monitor's provider slugs -> the provider names used in this catalog
PROVIDER_NAMES = {
    "oracle": "oci", "cp_cudo-compute": "cudo", "cp_jarvis": "jarvislabs", "cp_1legion-com": "1legion",
    "cp_atmoscompute-com": "atmoscompute", "cp_thundercompute-com": "thundercompute",
    "cp_zettabytecloud-com": "zettabytecloud", "cp_theta-edgecloud": "theta-edgecloud",
}
# consumption types the catalog does not model (yet): capacity blocks are dated reservations of a fixed
# window, "committed_short_term" has no stated term
UNMODELLED = {"capacity_block", "committed_short_term"}
TERMS = {"9mo": 9, "18mo": 18, "1yr": 12, "2yr": 24, "3yr": 36}
# the monitor's early rows (May 2026) name some instances in its own words and give no form factor: (provider,
# instance) -> (the provider's own instance name, canonical GPU, region). Lambda bills the same price in every
# region (the previous bundle's catalog repeats one Price for all 17), so its rows are `global`.
MONITOR_ALIASES = {("lambda", "lambda-h100-8x"): ("gpu_8x_h100_sxm5", "H100 SXM", "global")}
# Vast instance types (SkyPilot's names) -> canonical GPU; memory per GPU read from the file's GpuInfo
VAST_GPUS = {
    "H200": "H200", "H100_NVL": "H100 NVL", "H100_SXM": "H100 SXM", "RTX_5090": "RTX 5090", "RTX_4090": "RTX 4090",
    "RTX_6000Ada": "RTX 6000 Ada", "RTX_3090": "RTX 3090", "RTX_PRO_6000_S": "RTX PRO 6000",
    "A100_SXM4": "A100 40GB", "A100_PCIE": "A100 80GB PCIe", "L40S": "L40S", "RTX_A6000": "RTX A6000",
    "B200": "B200", "Tesla_V100": "V100", "A40": "A40", "RTX_3080": "RTX 3080", "RTX_3070": "RTX 3070",
}


@dataclass
class Build:
    cloud: list[dict[str, str]] = field(default_factory=list)
    commitments: list[dict[str, str]] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    superseded: list[Superseded] = field(default_factory=list)


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def monitor_gpu(row: dict[str, str]) -> str | None:
    """The canonical spelling of the monitor's GPU, or None where the row does not say which part it is."""
    model, name, form = row["gpu_model"], row["instance_type"].lower(), row["form_factor"]
    if model == "H100":
        if "pcie" in name or form == "PCIe":
            return "H100 PCIe"
        return {"NVL": "H100 NVL", "SXM": "H100 SXM"}.get(form)
    if model == "H200":
        return None if "nvl" in name else "H200"  # H200 NVL (PCIe, 141 GB) is not a GPU in the table
    if model == "RTX6000":
        return "RTX PRO 6000" if "rtxpro6000" in name else None  # "rtx6000" alone: Ada or Blackwell?
    return {"B200": "B200", "B300": "B300", "GB200": "GB200", "L40S": "L40S", "L4": "L4"}.get(model)


def from_monitor(rows: Iterable[dict[str, str]], gpus: GpuTable, build: Build) -> None:
    """Every dated row of the monitor's file (the freshest per offer wins later, `freshest`)."""
    rows = list(rows)
    on_demand = {(r["snapshot_date"], r["provider"], r["gpu_model"], r["price_per_hour_usd"])
                 for r in rows if r["consumption_type"] == "on_demand"}
    for row in rows:
        kind = row["consumption_type"]
        if row["data_source"] == "manual":
            build.skipped["monitor: typed in by hand (data_source manual)"] += 1
            continue
        if kind in UNMODELLED:
            build.skipped[f"monitor: {kind} not modelled"] += 1
            continue
        alias = MONITOR_ALIASES.get((row["provider"], row["instance_type"]))
        instance, region = (alias[0], alias[2]) if alias else (row["instance_type"], row["region"])
        spelling = alias[1] if alias else monitor_gpu(row)
        gpu = gpus.canonical(spelling) if spelling else None
        if gpu is None:
            build.skipped[f"monitor: GPU not in the table ({row['gpu_model']} {row['instance_type']})"] += 1
            continue
        if kind in ("spot", "preemptible") and (
                row["snapshot_date"], row["provider"], row["gpu_model"], row["price_per_hour_usd"]) in on_demand:
            build.skipped["monitor: spot price equal to on-demand (placeholder)"] += 1
            continue
        provider = PROVIDER_NAMES.get(row["provider"], row["provider"].removeprefix("cp_"))
        via = (f"data_source {row['data_source'] or 'not recorded'}, confidence {row['confidence'] or 'not recorded'}"
               + ("; the monitor read it from the computeprices.com aggregator, not the provider" if
                  row["data_source"] == "aggregator" else "")
               + (f"; the monitor's instance {row['instance_type']} ({row['region']})" if alias else ""))
        date = row["snapshot_date"]
        # the audit tells an aggregator's price from the provider's own by this mark (pricing/audit/keys.py)
        source = MONITOR_SOURCE + (AGGREGATOR_SOURCE if row["data_source"] == "aggregator" else "")
        common = {
            "provider": provider, "name": instance, "gpu": gpu, "gpu_count": row["gpu_count"],
            "usd_per_hour": row["price_per_hour_usd"], "region": region, "source": source, "as_of": date,
        }
        if kind in ("on_demand", "spot", "preemptible"):
            build.cloud.append({**common, "pricing": "spot" if kind == "preemptible" else kind,
                                "notes": f"snapshot_date {date}, consumption_type {kind}; {via}"})
            continue
        model, _, term = kind.partition("_")
        if model in ("reserved", "committed") and term in TERMS:
            build.commitments.append({**common, "pricing": model, "term_months": str(TERMS[term]), "payment": "",
                                      "notes": f"snapshot_date {date}, consumption_type {kind}; payment "
                                               f"option not stated by the source; {via}"})
        else:
            build.skipped[f"monitor: consumption type {kind}"] += 1


def from_vast(rows: Iterable[dict[str, str]], gpus: GpuTable, build: Build) -> None:
    """One row per GPU and size: median, 10th percentile and count of the listed offers (quota = count)."""
    groups: dict[tuple[str, int], list[float]] = defaultdict(list)
    for row in rows:
        kind = row["InstanceType"].split("-", 1)[1].rsplit("-32-65536", 1)[0]
        count = int(row["AcceleratorCount"])
        spelling = VAST_GPUS.get(kind)
        gpu = gpus.canonical(spelling) if spelling else None
        if gpu is None:
            build.skipped[f"vast: GPU not in the table ({kind})"] += 1
            continue
        groups[(gpu, count)].append(float(row["Price"]))
    for (gpu, count), prices in sorted(groups.items()):
        build.cloud.append({
            "provider": "vast", "name": gpu if count == 1 else f"{count}x {gpu}", "gpu": gpu,
            "gpu_count": str(count), "usd_per_hour": f"{statistics.median(prices):.4g}", "region": "global",
            "pricing": "on_demand", "max_instances": str(len(prices)),
            "p10_usd_per_hour": f"{float(np.quantile(prices, 0.10)):.4g}", "listings": str(len(prices)),
            "source": VAST_SOURCE, "as_of": VAST_AS_OF,
            "notes": f"median of {len(prices)} listed offers (SkyPilot catalog rows); as_of is a lower bound "
                     "(commit date unknown): the file lists RTX PRO 6000 Server Edition offers",
        })


def from_page_quotes(rows: Iterable[dict[str, str]], gpus: GpuTable, build: Build) -> None:
    for row in rows:
        if gpus.canonical(row["gpu"]) != row["gpu"]:
            build.skipped[f"page quotes: GPU not in the table ({row['gpu']})"] += 1
            continue
        build.cloud.append({k: row.get(k, "") for k in CLOUD_HEADER})


def from_aws(rows: Iterable[dict[str, str]], gpus: GpuTable, build: Build) -> None:
    """AWS on-demand list prices after the June 2025 cut (instances.vantage.sh data as committed to tsaol/aws-gpu)."""
    for row in rows:
        gpu = gpus.canonical(AWS_GPUS.get(row["name"], ""))
        if gpu is None:
            build.skipped[f"aws: instance not mapped ({row['name']})"] += 1
            continue
        build.cloud.append({
            "provider": "aws", "name": row["name"], "gpu": gpu, "gpu_count": row["gpu_count"],
            "usd_per_hour": row["on_demand"], "region": row["region"], "pricing": "on_demand",
            "source": f"{AWS_REPO}/{row['commit']}/{row['file']}", "as_of": row["last_updated"],
            "notes": f"'onDemand' of {row['region']} in a file generated from instances.vantage.sh data, 'Last "
                     f"updated: {row['last_updated']}'; after AWS's June 2025 P4/P5 price cut",
        })


def previous_rows(rows: Iterable[dict[str, str]], build: Build) -> list[dict[str, str]]:
    """The previous bundle's rows that may still price something (the freshest rule decides which do).

    Vast single offers are replaced by the per-size aggregates, and RunPod rows of a GPU the fresh RunPod rows
    price are dropped (RunPod renamed its instances, so the offer key cannot match them)."""
    fresh_gpu = {(r["provider"], r["gpu"], r["pricing"]) for r in build.cloud if r["provider"] == "runpod"}
    out = []
    for row in rows:
        if row["provider"] == "vast":
            build.skipped["previous: Vast single offers replaced by per-size aggregates"] += 1
        elif row["provider"] == "runpod" and (row["provider"], row["gpu"], row["pricing"]) in fresh_gpu:
            build.skipped["previous: RunPod GPU priced by a fresher row"] += 1
        else:
            out.append({k: row.get(k, "") for k in CLOUD_HEADER})
    return out


def stale_rules(rows: list[dict[str, str]], build: Build) -> list[dict[str, str]]:
    """Two rules for rows older than a year (`STALE_BEFORE`) that no fresher reading superseded: a spot price is
    a market's quote of the day (AWS spot moves daily), so a stale one is left out rather than planned on; and of
    an instance's regional variants only the first of `PREFERRED_REGIONS` (else the alphabetically first region)
    is kept, since stale regional copies add rows but no information; none is kept where a row of the last year
    prices the instance in another region (AWS's 2024 p5 list price in us-west-2 beside its 2026 price in
    us-east-1 would be the pre-cut price planned on). Live sources bring every region and today's spot."""
    out: list[dict[str, str]] = []
    stale_kept: dict[tuple[str, str, str], dict[str, str]] = {}
    fresh = {(r["provider"], r["name"], r["pricing"]) for r in rows if r["as_of"] >= STALE_BEFORE}
    for row in rows:
        ident = (row["provider"], row["name"], row["pricing"])
        if row["as_of"] >= STALE_BEFORE:
            out.append(row)
        elif ident in fresh:
            build.skipped["regional copy older than a year of an instance priced in the last year"] += 1
        elif row["pricing"] == "spot":
            build.skipped["spot quote older than a year"] += 1
        else:
            kept = stale_kept.get(ident)
            if kept is None or _region_rank(row["region"]) < _region_rank(kept["region"]):
                if kept is not None:
                    build.skipped["regional copy of a price older than a year"] += 1
                stale_kept[ident] = row
            else:
                build.skipped["regional copy of a price older than a year"] += 1
    return out + list(stale_kept.values())


def _region_rank(region: str) -> tuple[int, str]:
    return (PREFERRED_REGIONS.index(region) if region in PREFERRED_REGIONS else len(PREFERRED_REGIONS), region)


def build_all() -> Build:
    """Every source's rows, then one row per offer (the freshest), then the stale-row rules."""
    gpus = bundled_gpus()
    build = Build()
    from_monitor(_read(MONITOR_FILE), gpus, build)
    from_vast(_read(VAST_FILE), gpus, build)
    from_page_quotes(_read(PAGE_QUOTES_FILE), gpus, build)
    from_aws(_read(AWS_FILE), gpus, build)
    candidates = build.cloud + previous_rows(_read(PREVIOUS_FILE), build)
    kept, superseded = freshest(candidates)
    build.cloud = stale_rules(kept, build)
    # a commitment's offer includes its term: `pricing` is keyed as reserved/12 etc. for the rule only
    keyed = [{**c, "pricing": f"{c['pricing']}/{c['term_months']}"} for c in build.commitments]
    kept_c, superseded_c = freshest(keyed)
    build.commitments = [{**c, "pricing": c["pricing"].partition("/")[0]} for c in kept_c]
    build.superseded = superseded + superseded_c
    build.skipped["superseded by a fresher reading of the same offer"] = len(build.superseded)
    return build


def write(path: Path, header: list[str], rows: list[dict[str, str]]) -> None:
    rows = sorted(rows, key=lambda r: (r["provider"], r["gpu"], r["name"], r["region"], r["pricing"]))
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: row.get(k, "") for k in header} for row in rows)


def main() -> None:
    build = build_all()
    write(DATA / "cloud_offers.csv", CLOUD_HEADER, build.cloud)
    write(DATA / "commitments.csv", COMMITMENT_HEADER, build.commitments)
    print(f"cloud rows {len(build.cloud)}, commitment rows {len(build.commitments)}")
    for reason, count in sorted(build.skipped.items()):
        print(f"  left out {count:4d}: {reason}")
    print("superseded (one row per offer, the freshest wins):")
    for line in build.superseded:
        print(f"  {line.describe()}")


if __name__ == "__main__":
    main()
