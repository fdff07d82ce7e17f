"""The bundled GPU facts and price snapshot: complete, sourced, dated, and joined on canonical names."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from pricing.catalog import bundled_catalog, parse_hosts
from pricing.gpus import GpuTable, bundled_gpus, parse_gpu_rows

REQUIRED = [
    "H100 SXM", "H100 PCIe", "H200", "A100 40GB", "A100 80GB", "L4", "L40", "L40S", "A10", "T4", "V100",
    "RTX 6000 Ada", "RTX A6000", "RTX 4090", "RTX 4080", "RTX 4070 Ti", "RTX 3090", "RTX 3080", "RTX 3070",
    "RTX 2080 Ti", "RTX 2070", "RTX 2060", "Titan RTX", "Quadro RTX 6000", "Quadro RTX 8000", "RTX 2080",
    "RTX 2060 Super",
]


def test_gpu_table_has_every_required_gpu_with_source_and_specs() -> None:
    gpus = bundled_gpus()
    for name in REQUIRED:
        spec = gpus[name]
        assert spec.source, name
        assert spec.memory_gb > 0 and spec.memory_bandwidth_gbs > 0 and spec.tdp_w > 0, name
        assert spec.tensor_cores, name


def test_domain_figures_are_honoured() -> None:
    gpus = bundled_gpus()
    assert gpus["A100 40GB"].memory_bandwidth_gbs == 1555
    assert gpus["RTX 3090"].memory_bandwidth_gbs == 936 and gpus["RTX 3090"].tdp_w == 350
    assert gpus["RTX 3080"].tdp_w == 320 and gpus["RTX 4090"].tdp_w == 450
    assert gpus["RTX 4090"].fp8 and gpus["H100 SXM"].fp8 and not gpus["RTX 3090"].fp8
    assert gpus["RTX 2080 Ti"].memory_gb == 11


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [("NVIDIA GeForce RTX 4090", "RTX 4090"), ("rtx_3090", "RTX 3090"), ("RTX3090", "RTX 3090"),
     ("nvidia-l4", "L4"), ("A10G", "A10G"), ("H100 SXM", "H100 SXM")],
)
def test_provider_spellings_resolve(spelling: str, canonical: str) -> None:
    assert bundled_gpus().canonical(spelling) == canonical


def test_unknown_spelling_is_not_guessed() -> None:
    assert bundled_gpus().canonical("GeForce GTX 980 Ti Turbo") is None
    assert bundled_gpus().canonical("A100 SXM4") is None  # 40 or 80 GB: ambiguous, so unknown


def test_an_alias_naming_two_gpus_is_rejected() -> None:
    rows = [
        {"name": "A", "aliases": "X", "architecture": "Ampere", "memory_gb": "1", "memory_bandwidth_gbs": "1",
         "tdp_w": "1"},
        {"name": "B", "aliases": "x", "architecture": "Ampere", "memory_gb": "1", "memory_bandwidth_gbs": "1",
         "tdp_w": "1"},
    ]
    with pytest.raises(ValueError, match="names both"):
        GpuTable(parse_gpu_rows(iter(rows)))


def test_every_price_row_has_source_and_iso_date() -> None:
    catalog = bundled_catalog()
    for frame in (catalog.cloud, catalog.hardware):
        assert (frame["source"].str.len() > 0).all()
        assert pd.to_datetime(frame["as_of"], format="%Y-%m-%d").notna().all()


def test_snapshot_covers_the_required_providers_and_pricing_models() -> None:
    cloud = bundled_catalog().cloud
    assert {"aws", "azure", "gcp", "lambda", "runpod", "vast"} <= set(cloud["provider"])
    assert {"on_demand", "spot"} == set(cloud["pricing"])
    assert (cloud["usd_per_hour"] > 0).all()


def test_hardware_has_new_and_used_prices() -> None:
    hw = bundled_catalog().hardware
    assert {"new", "used"} == set(hw["condition"])
    assert {"RTX 3090", "RTX 4090"} <= set(hw[hw["condition"] == "used"]["gpu"])


def test_hosts_without_a_documented_cost_are_left_out_not_free() -> None:
    text = ("name,slots,base_cost_usd,psu_watts,idle_watts,source,as_of,notes\n"
            "a,2,701,1600,50,s,2020-09-07,\n"
            "b,8,,8000,150,s,2020-09-07,\n")
    hosts = parse_hosts(text)
    assert [h.slots for h in hosts] == [2]
    assert all(h.base_cost_usd > 0 for h in bundled_catalog().hosts)


SNAPSHOT_BUILT = pd.Timestamp("2026-11-28")  # when the bundled cloud snapshot was last rebuilt
NEWEST_GPUS = ["RTX 5090", "RTX PRO 6000", "B200", "B300", "GB200", "H200", "MI300X", "MI325X", "L40S", "L4"]


def test_bundled_cloud_snapshot_is_fresh_and_broad() -> None:
    """Issue 15's done criteria on the shipped files: a median row under six months old at the rebuild,
    at least ten providers, and cloud rows for the newest GPUs (planned on, or held back by the catalog audit with
    its reason: the only MI325X row is a research note's per-GPU quote, issue 30)."""
    catalog = bundled_catalog()
    cloud = catalog.cloud
    age_days = (SNAPSHOT_BUILT - pd.to_datetime(cloud["as_of"], format="%Y-%m-%d")).dt.days
    assert age_days.median() < 183
    assert cloud["provider"].nunique() >= 10
    assert set(NEWEST_GPUS) - {"MI325X"} <= set(cloud["gpu"])
    assert set(NEWEST_GPUS) <= set(cloud["gpu"]) | set(catalog.held.cloud["gpu"])


def test_marketplace_rows_are_aggregates_with_a_quota() -> None:
    cloud = bundled_catalog().cloud
    vast = cloud[cloud["provider"] == "vast"]
    assert len(vast) > 0 and (vast["listings"] >= 3).all()  # thinner markets are not planned on
    assert (vast["max_instances"] == vast["listings"]).all()  # no more machines than are listed
    assert (vast["p10_usd_per_hour"] <= vast["usd_per_hour"]).all()
    assert cloud.loc[cloud["provider"] != "vast", "listings"].isna().all()


def test_commitment_rows_carry_term_and_payment() -> None:
    commitments = bundled_catalog().commitments
    assert {"aws", "azure", "gcp"} <= set(commitments["provider"])
    assert set(commitments["term_months"]) >= {12, 36}
    assert (commitments["usd_per_hour"] > 0).all() and (commitments["source"].str.len() > 0).all()


# A path on the machine that built the data: an absolute local path (not the path part of a URL, which follows a
# host name), a relative path out of the repository, a file URL, or the project's own notes named as a source.
LOCAL_PATH = re.compile(r"(?<![\w.:/-])/(?:work|home|root|tmp|mnt|Users)/|\.\./|file://|\bDOMAIN\.md\b|\bseeds/")


def test_local_path_pattern_catches_paths_but_not_urls() -> None:
    for local in ("via /work/shared/DOMAIN.md", "`/work/shared/reference/x.csv`", "../shared/y", "/home/me/f",
                  "file:///tmp/a", "DOMAIN.md section 3", "seeds/000_abc.txt"):
        assert LOCAL_PATH.search(local), local
    for public in ("https://example.com/work/shared/page", "https://timdettmers.com/2020/09/07/which-gpu-for-deep-learning/",
                   "lambdal/deeplearning-benchmark pytorch/results/3090/x.txt@e167f02", "DOMAIN section 3"):
        assert not LOCAL_PATH.search(public), public


def test_no_bundled_data_or_sources_file_names_a_local_path() -> None:
    """The developers' guide: a source names the public document, never a path on this machine."""
    data = Path(__file__).resolve().parents[2] / "pricing" / "data"
    files = sorted(p for p in data.iterdir() if p.suffix in {".csv", ".md", ".json"})
    files.append(data.parents[1] / "solvers" / "base" / "defaults.py")  # the table of defaults and their sources
    assert len(files) > 10
    offenders = [f"{path.name}:{n}: {m.group(0)}" for path in files
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 for m in [LOCAL_PATH.search(line)] if m]
    assert offenders == []
