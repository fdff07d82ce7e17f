"""The `gpuplan` command: serve the API, plan from a profile file, list GPUs and prices, migrate."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from pricing.catalog import bundled_catalog
from service.problems import validation_errors
from service.render import render_plan
from service.settings import Settings
from solvers.errors import InfeasibleProfile, ProfileError
from solvers.plan import make_plan
from solvers.profile import Profile

app = typer.Typer(help="gpuplan: buy GPUs or rent cloud GPU hours?", no_args_is_help=True)
console = Console()


@app.command()
def serve(host: Annotated[Optional[str], typer.Option(help="address to bind")] = None,  # noqa: UP045
          port: Annotated[Optional[int], typer.Option(help="port")] = None) -> None:  # noqa: UP045
    """Start the HTTP API (migrates the database first)."""
    import uvicorn

    from service.app import create_app

    settings = Settings()
    uvicorn.run(create_app(settings), host=host or settings.host, port=port or settings.port,
                log_level=settings.log_level)


@app.command()
def plan(profile_file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="profile JSON")],
         as_json: Annotated[bool, typer.Option("--json", help="print the plan as JSON")] = False) -> None:
    """Plan a profile on the bundled catalog and print it as tables (or JSON)."""
    try:
        profile = Profile.model_validate(json.loads(profile_file.read_text()))
        result = make_plan(profile, bundled_catalog(), dt.datetime.now(dt.UTC).date())
    except json.JSONDecodeError as exc:
        _fail(f"{profile_file}: not valid JSON ({exc})")
    except ValidationError as exc:
        _fail("\n".join(f"{e['field']}: {e['message']} ({e['rule']})" for e in validation_errors(exc.errors())))
    except ProfileError as exc:
        _fail(f"{exc.field}: {exc.message} ({exc.rule})")
    except InfeasibleProfile as exc:
        _fail(f"no plan meets this profile ({exc.constraint}): {exc.message}")
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        render_plan(result, console)


@app.command()
def gpus() -> None:
    """The GPU facts plans use."""
    t = Table(title="GPUs")
    for col in ("name", "arch", "memory GB", "bandwidth GB/s", "TDP W", "FP16 TFLOPS", "FP8", "launch USD"):
        t.add_column(col)
    for g in bundled_catalog().gpus:
        t.add_row(g.name, g.architecture, f"{g.memory_gb:g}", f"{g.memory_bandwidth_gbs:g}", f"{g.tdp_w:g}",
                  "-" if g.fp16_tensor_tflops is None else f"{g.fp16_tensor_tflops:g}", "yes" if g.fp8 else "no",
                  "-" if g.launch_price_usd is None else f"{g.launch_price_usd:,.0f}")
    console.print(t)


@app.command()
def prices(gpu: Annotated[Optional[str], typer.Option(help="only this GPU")] = None,  # noqa: UP045
           provider: Annotated[Optional[str], typer.Option(help="only this cloud provider")] = None) -> None:  # noqa: UP045
    """The prices in force: cheapest cloud offers and hardware prices, with source dates."""
    catalog = bundled_catalog()
    name = catalog.gpus.canonical(gpu) if gpu else None
    if gpu and name is None:
        _fail(f"unknown GPU {gpu!r}")
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


@app.command()
def migrate() -> None:
    """Bring the database to the newest schema."""
    from service.db import migrate as run

    settings = Settings()
    run(settings.database_url)
    console.print(f"database at {settings.database_url} is up to date")


def _fail(message: str) -> None:
    console.print(f"[red]error:[/red] {message}")
    raise typer.Exit(2)
