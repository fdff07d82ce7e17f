"""The saved-profile API's bodies."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from solvers.base.profile import Profile

Tag = Annotated[str, Field(min_length=1, max_length=50, pattern=r"^[^,\s][^,]*$")]


class ProfileIn(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=200)
    tags: list[Tag] = Field(default_factory=list, max_length=20, description="labels to filter lists by")
    profile: Profile


class PlanSummary(BaseModel):
    """What a plan-change alert compares: the purchases and the total cost."""

    total_cost_usd: float
    currency: str = "USD"
    purchases: list[str]
    cloud: list[str]


class ProfileOut(BaseModel):
    id: str
    name: str
    tags: list[str]
    version: int = Field(description="the current version; every PUT makes a new one")
    profile: Profile = Field(description="the profile as saved (every field, defaults filled in, and a utilisation "
                             "demand's start pinned when it had none)")
    created_at: str
    updated_at: str
    plan: PlanSummary | None = Field(None, description="the best plan at the prices in force now (or when saved)")


class ProfileVersionOut(BaseModel):
    version: int
    name: str
    tags: list[str]
    profile: Profile = Field(description="the profile as this version saved it")
    created_at: str
