"""Creating labs and keys (the operator's CLI), revoking keys, and finding the key a request carries."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
import uuid
from dataclasses import dataclass

from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from service.labs.tables import ApiKey, Lab

KEY_PREFIX = "gpk_"


@dataclass(frozen=True)
class KeyInfo:
    id: str
    lab_id: str
    lab_name: str
    name: str
    read_only: bool
    created_at: dt.datetime
    revoked_at: dt.datetime | None


class AccountError(ValueError):
    """An operator mistake (unknown lab, duplicate name): the CLI prints it."""


def key_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_lab(engine: Engine, name: str, now: dt.datetime) -> str:
    lab_id = str(uuid.uuid4())
    try:
        with engine.begin() as conn:
            conn.execute(insert(Lab).values(id=lab_id, name=name, created_at=now))
    except IntegrityError:
        raise AccountError(f"a lab named {name!r} exists already") from None
    return lab_id


def find_lab(engine: Engine, name_or_id: str) -> tuple[str, str]:
    """(id, name) of the lab with this name or id."""
    t = Lab.__table__
    with engine.connect() as conn:
        row = conn.execute(select(t.c.id, t.c.name).where((t.c.name == name_or_id) | (t.c.id == name_or_id))).first()
    if row is None:
        raise AccountError(f"no lab named {name_or_id!r} (gpuplan labs list)")
    return str(row.id), str(row.name)


def list_labs(engine: Engine) -> list[tuple[str, str, dt.datetime]]:
    t = Lab.__table__
    with engine.connect() as conn:
        return [(r.id, r.name, r.created_at) for r in conn.execute(select(t).order_by(t.c.name))]


def create_key(engine: Engine, lab: str, name: str, read_only: bool, now: dt.datetime) -> tuple[KeyInfo, str]:
    """A new key for `lab` (name or id); the token is returned here only and stored as a hash."""
    lab_id, lab_name = find_lab(engine, lab)
    key_id = secrets.token_hex(6)
    token = f"{KEY_PREFIX}{key_id}_{secrets.token_urlsafe(32)}"
    with engine.begin() as conn:
        conn.execute(insert(ApiKey).values(id=key_id, lab_id=lab_id, name=name, key_hash=key_hash(token),
                                           read_only=read_only, created_at=now, revoked_at=None))
    return KeyInfo(key_id, lab_id, lab_name, name, read_only, now, None), token


def revoke_key(engine: Engine, key_id: str, now: dt.datetime) -> None:
    t = ApiKey.__table__
    with engine.begin() as conn:
        done = conn.execute(update(ApiKey).where(t.c.id == key_id, t.c.revoked_at.is_(None)).values(revoked_at=now))
    if done.rowcount != 1:
        raise AccountError(f"no active key with id {key_id!r} (gpuplan keys list LAB)")


def list_keys(engine: Engine, lab: str) -> list[KeyInfo]:
    lab_id, _ = find_lab(engine, lab)
    k, labs = ApiKey.__table__, Lab.__table__
    query = select(k, labs.c.name.label("lab_name")).join(labs, labs.c.id == k.c.lab_id) \
        .where(k.c.lab_id == lab_id).order_by(k.c.created_at)
    with engine.connect() as conn:
        return [KeyInfo(r.id, r.lab_id, r.lab_name, r.name, r.read_only, r.created_at, r.revoked_at)
                for r in conn.execute(query)]


def authenticate(engine: Engine, token: str) -> KeyInfo | None:
    """The active key this token is, or None (unknown or revoked: revocation counts from the next request)."""
    k, labs = ApiKey.__table__, Lab.__table__
    query = select(k, labs.c.name.label("lab_name")).join(labs, labs.c.id == k.c.lab_id) \
        .where(k.c.key_hash == key_hash(token), k.c.revoked_at.is_(None))
    with engine.connect() as conn:
        r = conn.execute(query).first()
    return None if r is None else KeyInfo(r.id, r.lab_id, r.lab_name, r.name, r.read_only, r.created_at, None)
