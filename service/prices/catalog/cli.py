"""The `gpuplan` commands that show or write the price catalog: `gpus` (GPU facts), `prices` (the prices in
force), `snapshot build` (the bundled snapshot) and `catalog audit` (the audit of the prices in force).

Registered by service/cli.py, the entry point; separate from the commands that fetch prices
(`service/prices/sources/cli.py`): these read the catalog, those write new prices into it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from service.core.cli_common import catalog_in_force, console, fail, open_engine


def gpus() -> None:
    """The GPU facts plans use."""
    from pricing.catalog import bundled_catalog

    t = Table(title="GPUs")
    for col in ("name", "arch", "memory GB", "bandwidth GB/s", "TDP W", "FP16 TFLOPS", "FP8", "launch USD"):
        t.add_column(col)
    for g in bundled_catalog().gpus:
        t.add_row(g.name, g.architecture, f"{g.memory_gb:g}", f"{g.memory_bandwidth_gbs:g}", f"{g.tdp_w:g}",
                  "-" if g.fp16_tensor_tflops is None else f"{g.fp16_tensor_tflops:g}", "yes" if g.fp8 else "no",
                  "-" if g.launch_price_usd is None else f"{g.launch_price_usd:,.0f}")
    console.print(t)


def prices(gpu: Annotated[Optional[str], typer.Option(help="only this GPU")] = None,  # noqa: UP045
           provider: Annotated[Optional[str], typer.Option(help="only this cloud provider")] = None) -> None:  # noqa: UP045
    """The prices in force: cheapest cloud offers and hardware prices, with source dates."""
    from pricing.sources import build_sources
    from service.core.settings import Settings

    settings = Settings()
    catalog = catalog_in_force(open_engine(settings), build_sources(settings.sources))
    name = catalog.gpus.canonical(gpu) if gpu else None
    if gpu and name is None:
        fail(f"unknown GPU {gpu!r}")
    cloud = catalog.cloud
    hardware = catalog.hardware
    if name:
        cloud, hardware = cloud[cloud["gpu"] == name], hardware[hardware["gpu"] == name]
    if provider:
        cloud = cloud[cloud["provider"] == provider.lower()]
    t = Table(title="Cloud offers (USD per instance-hour)")
    for col in ("provider", "instance", "GPUs", "region", "pricing", "USD/h", "USD/GPU-h", "as of"):
        t.add_column(col)
    for r in cloud.assign(per_gpu=cloud["usd_per_hour"] / cloud["gpu_count"]).sort_values("per_gpu").itertuples():
        t.add_row(r.provider, r.name, f"{r.gpu_count} x {r.gpu}", r.region, r.pricing, f"{r.usd_per_hour:g}",
                  f"{r.per_gpu:.3f}", r.as_of)
    console.print(t)
    if not provider:
        t = Table(title="Hardware (USD per unit)")
        for col in ("item", "GPU", "condition", "GPUs/unit", "USD", "vendor", "as of"):
            t.add_column(col)
        for r in hardware.sort_values(["gpu", "condition"]).itertuples():
            t.add_row(r.name, r.gpu, r.condition, str(r.gpus_per_unit), f"{r.unit_price_usd:,.2f}", r.vendor, r.as_of)
        console.print(t)


snapshot_app = typer.Typer(help="The bundled price snapshot (package data the service plans on with no network).")


@snapshot_app.command("build")
def snapshot_build(out: Annotated[Optional[Path], typer.Option(  # noqa: UP045
        help="directory to write into (default: the installed package's pricing/data)", file_okay=False)] = None,
) -> None:
    """Write the prices in force (bundled rows overlaid with every refreshed source) as the bundled files:
    cloud_offers.csv, commitments.csv, hardware_prices.csv. Refresh first (`gpuplan refresh`)."""
    from pricing.snapshot import package_data_dir, write_snapshot
    from pricing.sources import build_sources
    from service.core.settings import Settings

    settings = Settings()
    catalog = catalog_in_force(open_engine(settings), build_sources(settings.sources))
    try:
        summary = write_snapshot(catalog, out or package_data_dir(), dt.datetime.now(dt.UTC).date())
    except (OSError, ValueError) as exc:
        fail(f"snapshot not written: {exc}")
    console.print(f"wrote {summary.cloud_rows} cloud rows ({summary.providers} providers, median age "
                  f"{summary.median_cloud_age_days:g} days), {summary.commitment_rows} commitment rows and "
                  f"{summary.hardware_rows} hardware rows to {summary.directory}")


catalog_app = typer.Typer(help="The price catalog: its audit.", no_args_is_help=True)


@catalog_app.command("audit")
def catalog_audit(
    bundled: Annotated[bool, typer.Option(
        "--bundled", help="audit the bundled snapshot alone (no database): what CI runs")] = False,
    show_all: Annotated[bool, typer.Option("--all", help="every row with its age, not only the flagged ones")] = False,
    notes: Annotated[bool, typer.Option(
        help="also the flags that explain themselves (stale, aggregator_only, used_above_new)")] = False,
) -> None:
    """Audit the prices in force: per row its age, its price against its GPU's band of other providers, new
    against used, per-GPU quotes entered as instances, cards no longer sold new. A row out of band or
    implausible is quarantined from plans unless a second source confirms it. Exits 1 on an unexplained flag."""
    from pricing.audit.report import flagged_rows, summary
    from pricing.catalog import bundled_catalog
    from pricing.sources import build_sources
    from service.core.settings import Settings

    if bundled:
        catalog = bundled_catalog()
    else:
        settings = Settings()
        catalog = catalog_in_force(open_engine(settings), build_sources(settings.sources))
    audit = catalog.audit
    if audit is None:
        fail("the catalog in force was not audited")
    only = () if notes or show_all else ("quarantined", "confirmed", "withdrawn", "unexplained")
    rows = sorted(audit.rows.values(), key=lambda r: (r.table, r.label)) if show_all else flagged_rows(audit, only)
    t = Table(title="Catalog audit")
    for col in ("row", "as of", "age (days)", "flags"):
        t.add_column(col)
    for r in rows:
        shown = [f for f in r.flags if not only or f.action in only]
        t.add_row(r.label, r.as_of, str(r.age_days), "\n".join(f.text() for f in shown) or "-")
    console.print(t)
    console.print(summary(audit))
    if audit.counts()["unexplained"]:
        raise typer.Exit(1)
