"""What the probes answer when all is well (a 503 problem document says what is not)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class Health(BaseModel):
    status: Literal["ok"]


class Migrations(BaseModel):
    current: list[str]
    head: list[str]


class Ready(BaseModel):
    status: Literal["ready"]
    database: Literal["ok"]
    migrations: Migrations
