"""The `gpuplan` commands that bring new prices in: `refresh` (every enabled source, with progress and a
table of outcomes) and `import-prices` (a vendor's quote file).

Registered by service/cli.py, the entry point; separate from the catalog commands
(`service/prices/catalog/cli.py`) because these write snapshots through the refresh guards.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.table import Table

from service.core.cli_common import catalog_in_force, console, fail, open_engine

if TYPE_CHECKING:
    from pricing.refresh import RefreshOutcome
    from pricing.sources.base import Source


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
    engine = open_engine(settings)
    everything = build_sources(settings.sources)
    if source:
        unknown = sorted(set(source) - {s.key for s in everything})
        if unknown:
            fail(f"unknown source(s) {unknown}; known: {[s.key for s in everything]}")
        chosen = [s for s in everything if s.key in source]
        for s in chosen:
            if not s.enabled:
                fail(f"source {s.key} is disabled" + (f" (needs {', '.join(s.missing_credentials())})"
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

        audit = catalog_in_force(engine, everything).audit
        if audit is not None:
            console.print(f"catalog audit: {summary(audit)} (details: gpuplan catalog audit)")
    skipped = [s.key for s in everything if not s.enabled and not source]
    if skipped:
        console.print(f"disabled (need credentials or turned off): {', '.join(skipped)}")
    if any(o.outcome in ("failed", "rejected") for o in outcomes):
        raise typer.Exit(1)


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
        fail(f"label {key!r} is longer than 64 characters; pass a shorter --label")
    now = dt.datetime.now(dt.UTC)
    started = time.monotonic()
    try:
        result = parse_price_table(file.read_bytes(), filename_or_content_type=file.name, source=key,
                                   gpus=bundled_catalog().gpus, now=now, default_vendor=vendor)
    except SourceError as exc:
        fail(f"{file}: {exc.reason}")
    guards = Guards(accept_implausible=accept_implausible)
    hint = f"; if the prices are right: gpuplan import-prices {file} --accept-implausible"
    too_low = None if accept_implausible else below_reference(result.observations, bundled_catalog(), guards.max_drop)
    if too_low:
        fail(f"{file}: {too_low}{hint}")
    engine = open_engine()
    with try_lock(engine, f"refresh:{key}") as got:
        if not got:
            fail(f"another import of {key!r} is running")
        outcome = ingest(engine, key, result, now, str(file), guards, started)
    if outcome.outcome != "ok":
        reason = (outcome.error or "").replace(ACCEPT_HINT.format(source=key), "")
        fail(f"{file}: {reason}" + (hint if reason != outcome.error else ""))
    unknown = ", ".join(f"{k} ({v})" for k, v in sorted(outcome.unknown_skus.items()))
    console.print(f"imported {outcome.rows_fetched} prices as {key!r} ({outcome.rows_changed} changed)"
                  + (f"; rows naming unknown GPUs skipped: {unknown}" if unknown else ""))
