"""The `gpuplan` command: serve the API, refresh and import prices, plan from a profile file, list GPUs and
prices, migrate. Every command works on the configured database (GPUPLAN_DATABASE_URL), so a plan made
here uses the same prices as the service."""

from __future__ import annotations

import datetime as dt
import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, Optional

import typer
from rich.console import Console
from rich.table import Table

# Only what the commands' signatures need is imported at the top: `gpuplan --help` (and a typo) must answer at
# once, and the planner (highspy), pandas, SQLAlchemy and matplotlib took about 3.5 s to import. Each command
# imports what it uses; tests/service/test_cli_imports.py keeps it that way.
if TYPE_CHECKING:
    from sqlalchemy import Engine

    from pricing.catalog import Catalog
    from pricing.refresh import RefreshOutcome
    from pricing.sources.base import Source
    from service.core.settings import Settings

app = typer.Typer(help="gpuplan: buy GPUs or rent cloud GPU hours?", no_args_is_help=True)
# piped output (logs, cron mail, tests) gets wide tables instead of Rich's 80-column default
console = Console(width=None if sys.stdout.isatty() else 160)


@app.command()
def serve(host: Annotated[Optional[str], typer.Option(help="address to bind")] = None,  # noqa: UP045
          port: Annotated[Optional[int], typer.Option(help="port")] = None,  # noqa: UP045
          plan_workers: Annotated[Optional[int], typer.Option(  # noqa: UP045
              min=1, help="plan worker processes (default: GPUPLAN_PLAN_WORKERS, else the machine's cores)")] = None,
          inline: Annotated[bool, typer.Option(
              help="solve plans in the request threads (one core) instead of a pool of worker processes")] = False,
          ) -> None:
    """Start the HTTP API (migrates the database first). Plans are solved in a pool of worker processes unless
    `--inline` or GPUPLAN_PLAN_EXECUTOR=inline says otherwise."""
    import uvicorn

    from service.app import create_app
    from service.core.settings import Settings
    from service.core.slow_clients import protocol_with_read_timeout

    settings = Settings()
    if inline:
        settings.plan_executor = "inline"
    elif "plan_executor" not in settings.model_fields_set:
        settings.plan_executor = "process"  # the server uses every core; the library and tests stay inline
    if plan_workers is not None:
        settings.plan_workers = plan_workers
    # create_app set up logging (JSON with request ids, service/core/logs.py): uvicorn must not replace it
    uvicorn.run(create_app(settings), host=host or settings.host, port=port or settings.port,
                log_level=settings.log_level, log_config=None, access_log=False,
                http=protocol_with_read_timeout(settings.read_timeout_s))


@app.command()
def plan(profile_file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="profile JSON")],
         as_json: Annotated[bool, typer.Option("--json", help="print the plan as JSON")] = False) -> None:
    """Plan a profile on the prices in force (bundled snapshot plus refreshed prices) and print it."""
    from pydantic import ValidationError

    from pricing.sources import build_sources
    from service.core.errors import validation_errors
    from service.core.settings import Settings
    from service.plans.render import render_plan
    from service.plans.staleness import with_stale_warnings
    from solvers.base.errors import InfeasibleProfile, ProfileError
    from solvers.base.profile import Profile
    from solvers.plan import make_plan

    try:
        profile = Profile.model_validate(json.loads(profile_file.read_text()))
        settings = Settings()
        engine = _engine(settings)
        sources = build_sources(settings.sources)
        now = dt.datetime.now(dt.UTC)
        result = with_stale_warnings(make_plan(profile, _catalog(engine, sources), now.date()), engine, sources, now,
                                     dt.timedelta(days=settings.snapshot_max_age_days))
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
    from pricing.catalog import bundled_catalog

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
    from pricing.sources import build_sources
    from service.core.settings import Settings

    settings = Settings()
    catalog = _catalog(_engine(settings), build_sources(settings.sources))
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
def refresh(source: Annotated[Optional[list[str]], typer.Option("--source", "-s",  # noqa: UP045
                                                                help="only this source (repeatable)")] = None,
            accept_implausible: Annotated[bool, typer.Option(
                help="store the answer even if prices moved > 70%/300% or many rows vanished (a real change)")] = False,
            ) -> None:
    """Fetch current prices from every enabled source and store them (a bad source never blocks the others)."""
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from pricing.catalog import bundled_catalog
    from pricing.refresh import Guards, refresh_all
    from pricing.sources import build_sources
    from service.core.settings import Settings

    settings = Settings()
    engine = _engine(settings)
    everything = build_sources(settings.sources)
    if source:
        unknown = sorted(set(source) - {s.key for s in everything})
        if unknown:
            _fail(f"unknown source(s) {unknown}; known: {[s.key for s in everything]}")
        chosen = [s for s in everything if s.key in source]
        for s in chosen:
            if not s.enabled:
                _fail(f"source {s.key} is disabled" + (f" (needs {', '.join(s.missing_credentials())})"
                                                       if s.missing_credentials() else ""))
    else:
        chosen = [s for s in everything if s.enabled]
    columns = (SpinnerColumn(), TextColumn("{task.description:<10}"), BarColumn(), TextColumn("{task.fields[state]}"),
               TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        tasks = {s.key: progress.add_task(s.key, total=1, state="waiting") for s in chosen}

        def started(s: Source) -> None:
            progress.update(tasks[s.key], state="fetching")

        def done(o: RefreshOutcome) -> None:
            progress.update(tasks[o.source], completed=1, state=o.outcome)

        outcomes = refresh_all(engine, chosen, bundled_catalog().gpus, lambda: dt.datetime.now(dt.UTC), on_done=done,
                               on_start=started, guards=Guards(accept_implausible=accept_implausible))
    table = Table(title="Refresh")
    for col in ("source", "outcome", "rows fetched", "rows changed", "unknown SKUs", "error"):
        table.add_column(col)
    for o in outcomes:
        colour = {"ok": "green", "skipped": "yellow"}.get(o.outcome, "red")
        top = sorted(o.unknown_skus.items(), key=lambda kv: -kv[1])[:3]
        unknown_text = str(sum(o.unknown_skus.values())) + (f" ({', '.join(k for k, _ in top)}…)" if top else "")
        table.add_row(o.source, f"[{colour}]{o.outcome}[/{colour}]", str(o.rows_fetched), str(o.rows_changed),
                      unknown_text, o.error or "")
    console.print(table)
    if any(o.outcome == "ok" for o in outcomes):
        from pricing.audit.report import summary

        audit = _catalog(engine, everything).audit
        if audit is not None:
            console.print(f"catalog audit: {summary(audit)} (details: gpuplan catalog audit)")
    skipped = [s.key for s in everything if not s.enabled and not source]
    if skipped:
        console.print(f"disabled (need credentials or turned off): {', '.join(skipped)}")
    if any(o.outcome in ("failed", "rejected") for o in outcomes):
        raise typer.Exit(1)


@app.command("estimate")
def estimate_command(
    workload_file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="workload JSON")],
    gpu: Annotated[Optional[list[str]], typer.Option("--gpu", "-g", help="only these GPUs")] = None,  # noqa: UP045
    as_json: Annotated[bool, typer.Option("--json", help="print the estimate as JSON")] = False,
) -> None:
    """The workload compiler alone: this job on each GPU type, how many GPUs and how many hours."""
    from pydantic import ValidationError

    from pricing.catalog import bundled_catalog
    from service.core.errors import validation_errors
    from solvers.workload import Workload
    from solvers.workload import estimate as compile_workload

    try:
        work = Workload.model_validate(json.loads(workload_file.read_text()))
    except json.JSONDecodeError as exc:
        _fail(f"{workload_file}: not valid JSON ({exc})")
    except ValidationError as exc:
        _fail("\n".join(f"{e['field']}: {e['message']} ({e['rule']})" for e in validation_errors(exc.errors())))
    catalog = bundled_catalog()
    specs = list(catalog.gpus)
    if gpu:
        names = [catalog.gpus.canonical(g) for g in gpu]
        unknown = [g for g, n in zip(gpu, names, strict=True) if n is None]
        if unknown:
            _fail(f"gpu: unknown GPU {unknown[0]!r} (known_gpu)")
        specs = [catalog.gpus[n] for n in dict.fromkeys(n for n in names if n is not None)]
    result = compile_workload(work, specs)
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
        return
    t = Table(title=f"{work.kind}: {result.params / 1e9:g}B parameters"
                    + (f", {result.flops:.3g} FLOPs" if result.flops else ""))
    for col in ("GPU", "GPUs/job", "hours/job", "GPU-hours", "GB/GPU", "sharding or why left out", "extrapolated"):
        t.add_column(col)
    for row in result.gpus:
        if row.fits:
            t.add_row(row.gpu, str(row.gpus_per_job), f"{row.hours_per_job:,.1f}", f"{row.gpu_hours:,.1f}",
                      f"{row.memory_per_gpu_gb:.1f}", row.sharding or "", "yes" if row.extrapolated else "no")
        else:
            t.add_row(row.gpu, "-", "-", "-", "-", row.excluded_reason or "", "yes" if row.extrapolated else "no")
    console.print(t)
    for note in result.assumptions:
        console.print(f"- {note}")


@app.command("import-prices")
def import_prices(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="CSV or JSON price table")],
    label: Annotated[Optional[str], typer.Option(help="name of this quote set (default: file name)")] = None,  # noqa: UP045
    vendor: Annotated[str, typer.Option(help="vendor for rows that name none")] = "vendor quote",
    accept_implausible: Annotated[bool, typer.Option(
        help="store the quotes even if prices moved > 70%/300% against the set's last import, many rows vanished, "
             "or a price is far below what the GPU is known to cost (a real deal)")] = False,
) -> None:
    """Load a vendor's hardware quotes (columns: see pricing/sources/FEED_FORMAT.md); replaces the set's last import.

    The quotes pass the same checks as a refresh (against the set's last import) and, since a first import has
    no history, a check against the bundled prices of each GPU; `--accept-implausible` overrides both."""
    import time

    from pricing.catalog import bundled_catalog
    from pricing.freshness import IMPORT_PREFIX
    from pricing.locks import try_lock
    from pricing.observation import SourceError
    from pricing.plausibility import below_reference
    from pricing.refresh import ACCEPT_HINT, Guards, ingest
    from pricing.sources.feed import parse_price_table

    key = f"{IMPORT_PREFIX}{label or file.stem}"
    if len(key) > 64:
        _fail(f"label {key!r} is longer than 64 characters; pass a shorter --label")
    now = dt.datetime.now(dt.UTC)
    started = time.monotonic()
    try:
        result = parse_price_table(file.read_bytes(), filename_or_content_type=file.name, source=key,
                                   gpus=bundled_catalog().gpus, now=now, default_vendor=vendor)
    except SourceError as exc:
        _fail(f"{file}: {exc.reason}")
    guards = Guards(accept_implausible=accept_implausible)
    hint = f"; if the prices are right: gpuplan import-prices {file} --accept-implausible"
    too_low = None if accept_implausible else below_reference(result.observations, bundled_catalog(), guards.max_drop)
    if too_low:
        _fail(f"{file}: {too_low}{hint}")
    engine = _engine()
    with try_lock(engine, f"refresh:{key}") as got:
        if not got:
            _fail(f"another import of {key!r} is running")
        outcome = ingest(engine, key, result, now, str(file), guards, started)
    if outcome.outcome != "ok":
        reason = (outcome.error or "").replace(ACCEPT_HINT.format(source=key), "")
        _fail(f"{file}: {reason}" + (hint if reason != outcome.error else ""))
    unknown = ", ".join(f"{k} ({v})" for k, v in sorted(outcome.unknown_skus.items()))
    console.print(f"imported {outcome.rows_fetched} prices as {key!r} ({outcome.rows_changed} changed)"
                  + (f"; rows naming unknown GPUs skipped: {unknown}" if unknown else ""))


class UsageLogFormat(StrEnum):
    auto = "auto"
    slurm = "slurm"
    nvidia_smi = "nvidia-smi"
    prometheus = "prometheus"


@app.command("import-usage")
def import_usage(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="sacct, nvidia-smi or Prometheus log")],
    log_format: Annotated[UsageLogFormat, typer.Option("--format", help="log format")] = UsageLogFormat.auto,
    tz: Annotated[str, typer.Option(help="time zone of sacct and nvidia-smi timestamps (IANA name)")] = "UTC",
    busy_threshold: Annotated[float, typer.Option(
        help="utilisation % at or above which a GPU sample counts as busy (nvidia-smi, DCGM)")] = 5.0,
    fractional: Annotated[bool, typer.Option(
        help="count a GPU sample by its utilisation fraction instead of the threshold")] = False,
    until: Annotated[Optional[dt.datetime], typer.Option(  # noqa: UP045
        help="end of still-running Slurm jobs, UTC (default: the latest time in the file)")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the hourly series and the summary as JSON")] = False,
) -> None:
    """Read a usage log into GPUs busy per hour; print peak, percentiles, monthly load-duration curves and trend.
    Nothing is stored."""
    from service.usage.render import render_usage
    from solvers.usage import UsageFormatError, parse_usage, summarise

    if not fractional and not 0 <= busy_threshold <= 100:
        _fail(f"--busy-threshold: {busy_threshold:g} is not a percentage from 0 to 100")
    try:
        series = parse_usage(file.read_bytes(), format=log_format.value, tz=tz,
                             busy_threshold=None if fractional else busy_threshold,
                             until=None if until is None else until.replace(tzinfo=dt.UTC))
    except UsageFormatError as exc:
        _fail(f"{file}: {exc}")
    summary = summarise(series)
    if as_json:
        typer.echo(json.dumps({"series": series.to_dict(), "summary": summary.to_dict()}, indent=2))
    else:
        render_usage(series, summary, console)


@app.command()
def alerts(deliver: Annotated[bool, typer.Option(help="also send what is due from the outbox")] = True) -> None:
    """Evaluate stored price changes against the alert subscriptions and send due alerts (for set-ups where no
    service runs the scheduler, e.g. cron: `gpuplan refresh; gpuplan alerts`)."""
    from pricing.catalog import bundled_catalog
    from pricing.freshness import active_sources
    from pricing.live import LiveCatalog
    from pricing.sources import build_sources
    from service.alerts.worker import AlertWorker, channels_from, policy_from
    from service.core.settings import Settings

    settings = Settings()
    engine = _engine(settings)
    sources = build_sources(settings.sources)
    worker = AlertWorker(engine, LiveCatalog(engine, bundled_catalog(), active_sources(sources)),
                         channels_from(settings), policy_from(settings))
    report = worker.evaluate()
    if report.skipped:
        _fail(report.skipped)
    console.print(f"evaluated {len(report.snapshots)} price snapshot(s): {report.price_changes} price change(s), "
                  f"{report.events} alert event(s); {report.profiles_replanned} saved profile(s) re-planned")
    if deliver:
        sent = worker.deliver()
        failed = [r for r in sent if not r.ok]
        console.print(f"sent {len(sent) - len(failed)} alert(s)" + (f", {len(failed)} failed (retried later): "
                      + "; ".join(f"{r.event_id}: {r.error or r.status_code}" for r in failed[:5]) if failed else ""))


snapshot_app = typer.Typer(help="The bundled price snapshot (package data the service plans on with no network).")
app.add_typer(snapshot_app, name="snapshot")


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
    catalog = _catalog(_engine(settings), build_sources(settings.sources))
    try:
        summary = write_snapshot(catalog, out or package_data_dir(), dt.datetime.now(dt.UTC).date())
    except (OSError, ValueError) as exc:
        _fail(f"snapshot not written: {exc}")
    console.print(f"wrote {summary.cloud_rows} cloud rows ({summary.providers} providers, median age "
                  f"{summary.median_cloud_age_days:g} days), {summary.commitment_rows} commitment rows and "
                  f"{summary.hardware_rows} hardware rows to {summary.directory}")


catalog_app = typer.Typer(help="The price catalog: its audit.", no_args_is_help=True)
app.add_typer(catalog_app, name="catalog")


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
        catalog = _catalog(_engine(settings), build_sources(settings.sources))
    audit = catalog.audit
    if audit is None:
        _fail("the catalog in force was not audited")
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


@app.command()
def migrate() -> None:
    """Bring the database to the newest schema."""
    from service.core.db import migrate as run
    from service.core.settings import Settings

    settings = Settings()
    run(settings.database_url)
    console.print(f"database at {settings.database_url} is up to date")


@app.command()
def scheduler() -> None:
    """Run price refreshes, alert evaluation and alert delivery without the API (several may run: one leads)."""
    from service.scheduler_process import main

    main()


labs_app = typer.Typer(help="labs: the accounts API keys belong to", no_args_is_help=True)
keys_app = typer.Typer(help="API keys of a lab (shown once, stored as a hash)", no_args_is_help=True)
app.add_typer(labs_app, name="labs")
app.add_typer(keys_app, name="keys")


@labs_app.command("create")
def labs_create(name: Annotated[str, typer.Argument(help="the lab's name, unique")]) -> None:
    """Create a lab; give it keys with `gpuplan keys create NAME`."""
    from service.labs.repository import AccountError, create_lab

    try:
        lab_id = create_lab(_engine(), name, dt.datetime.now(dt.UTC))
    except AccountError as exc:
        _fail(str(exc))
    console.print(f"lab {name!r} created (id {lab_id})")


@labs_app.command("list")
def labs_list() -> None:
    from service.labs.repository import list_labs

    table = Table(title="Labs")
    for col in ("name", "id", "created (UTC)"):
        table.add_column(col)
    for lab_id, name, created in list_labs(_engine()):
        table.add_row(name, lab_id, f"{created:%Y-%m-%d %H:%M}")
    console.print(table)


@keys_app.command("create")
def keys_create(lab: Annotated[str, typer.Argument(help="lab name or id")],
                read_only: Annotated[bool, typer.Option("--read-only", help="may only read")] = False,
                name: Annotated[str, typer.Option(help="what the key is for")] = "api key") -> None:
    """Create an API key and print it once: it is stored only as a hash and cannot be shown again."""
    from service.labs.repository import AccountError, create_key

    try:
        info, token = create_key(_engine(), lab, name, read_only, dt.datetime.now(dt.UTC))
    except AccountError as exc:
        _fail(str(exc))
    console.print(f"key {info.id} for lab {info.lab_name!r}{' (read-only)' if read_only else ''}; "
                  f"store it now, it is not shown again:")
    print(token)


@keys_app.command("list")
def keys_list(lab: Annotated[str, typer.Argument(help="lab name or id")]) -> None:
    from service.labs.repository import AccountError, list_keys

    try:
        keys = list_keys(_engine(), lab)
    except AccountError as exc:
        _fail(str(exc))
    table = Table(title=f"Keys of {lab}")
    for col in ("id", "name", "access", "created (UTC)", "revoked (UTC)"):
        table.add_column(col)
    for k in keys:
        table.add_row(k.id, k.name, "read-only" if k.read_only else "read-write", f"{k.created_at:%Y-%m-%d %H:%M}",
                      f"{k.revoked_at:%Y-%m-%d %H:%M}" if k.revoked_at else "")
    console.print(table)


@keys_app.command("revoke")
def keys_revoke(key_id: Annotated[str, typer.Argument(help="the key's id (gpuplan keys list LAB)")]) -> None:
    """Revoke a key: the next request that carries it is refused."""
    from service.labs.repository import AccountError, revoke_key

    try:
        revoke_key(_engine(), key_id, dt.datetime.now(dt.UTC))
    except AccountError as exc:
        _fail(str(exc))
    console.print(f"key {key_id} revoked")


def _engine(settings: Settings | None = None) -> Engine:
    """The configured database, migrated to the newest schema (as the service does on start). Not pooled: a command
    is one short run, and a pool would keep its connections open after it, in a process that goes on (a test's
    CliRunner, on a shared PostgreSQL server), until the engine is collected."""
    from service.core.db import make_engine
    from service.core.db import migrate as run
    from service.core.settings import Settings

    settings = settings or Settings()
    run(settings.database_url)
    return make_engine(settings.database_url, pooled=False)


def _catalog(engine: Engine, sources: list[Source]) -> Catalog:
    """The prices in force, exactly as the service sees them: bundled snapshot overlaid with live snapshots."""
    from pricing.catalog import bundled_catalog
    from pricing.freshness import active_sources
    from pricing.live import LiveCatalog

    return LiveCatalog(engine, bundled_catalog(), active_sources(sources))()


def _fail(message: str) -> NoReturn:
    console.print(f"[red]error:[/red] {message}")
    raise typer.Exit(2)


if __name__ == "__main__":  # `python -m service.cli`, where the console script is not on PATH
    app()
