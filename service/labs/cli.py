"""`gpuplan labs` and `gpuplan keys`: labs and their API keys, created, listed and revoked on the configured
database (a key is printed once, stored as a hash).

Registered by service/cli.py, the entry point; the labs domain's commands (there is no HTTP route for them:
accounts are made by whoever runs the service).
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

import typer
from rich.table import Table

from service.core.cli_common import console, fail, open_engine

labs_app = typer.Typer(help="labs: the accounts API keys belong to", no_args_is_help=True)
keys_app = typer.Typer(help="API keys of a lab (shown once, stored as a hash)", no_args_is_help=True)


@labs_app.command("create")
def labs_create(name: Annotated[str, typer.Argument(help="the lab's name, unique")]) -> None:
    """Create a lab; give it keys with `gpuplan keys create NAME`."""
    from service.labs.repository import AccountError, create_lab

    try:
        lab_id = create_lab(open_engine(), name, dt.datetime.now(dt.UTC))
    except AccountError as exc:
        fail(str(exc))
    console.print(f"lab {name!r} created (id {lab_id})")


@labs_app.command("list")
def labs_list() -> None:
    from service.labs.repository import list_labs

    table = Table(title="Labs")
    for col in ("name", "id", "created (UTC)"):
        table.add_column(col)
    for lab_id, name, created in list_labs(open_engine()):
        table.add_row(name, lab_id, f"{created:%Y-%m-%d %H:%M}")
    console.print(table)


@keys_app.command("create")
def keys_create(lab: Annotated[str, typer.Argument(help="lab name or id")],
                read_only: Annotated[bool, typer.Option("--read-only", help="may only read")] = False,
                name: Annotated[str, typer.Option(help="what the key is for")] = "api key") -> None:
    """Create an API key and print it once: it is stored only as a hash and cannot be shown again."""
    from service.labs.repository import AccountError, create_key

    try:
        info, token = create_key(open_engine(), lab, name, read_only, dt.datetime.now(dt.UTC))
    except AccountError as exc:
        fail(str(exc))
    console.print(f"key {info.id} for lab {info.lab_name!r}{' (read-only)' if read_only else ''}; "
                  f"store it now, it is not shown again:")
    print(token)


@keys_app.command("list")
def keys_list(lab: Annotated[str, typer.Argument(help="lab name or id")]) -> None:
    from service.labs.repository import AccountError, list_keys

    try:
        keys = list_keys(open_engine(), lab)
    except AccountError as exc:
        fail(str(exc))
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
        revoke_key(open_engine(), key_id, dt.datetime.now(dt.UTC))
    except AccountError as exc:
        fail(str(exc))
    console.print(f"key {key_id} revoked")
