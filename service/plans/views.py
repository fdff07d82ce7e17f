"""What is derived from a stored plan (its sensitivity, its recompute), made once in the plan pool and kept with it.

Why (issue 31): a sensitivity is some twenty re-plans, and four of a large hourly plan kept both workers busy for
180 s; each read made them all again (a few kept per process). A stored plan never changes, and neither does what
the same planner derives from it at the prices it recorded, so the first answer is stored beside the plan
(`plan_views`) and read back by every later request, on every replica. `planner` is a fingerprint of the planner's
code: after an upgrade the view is made again, which is what a recompute is for. Making one runs in the plan pool
under its time budget like any plan; an answer past the budget is not kept, so a quieter moment may make it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy import Engine, insert, select, update
from sqlalchemy.exc import IntegrityError

from service.core.db import JsonText, writing
from service.plans.tables import PlanViewRecord

M = TypeVar("M", bound=BaseModel)


@cache
def planner_version() -> str:
    """A fingerprint of the planner's code (every module of `solvers`): what a kept view was derived with."""
    digest = hashlib.sha256()
    root = resources.files("solvers")
    for path in sorted(_modules(root), key=str):
        digest.update(str(path).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


def _modules(folder: Any, prefix: str = "") -> list[Any]:
    found = []
    for entry in folder.iterdir():
        if entry.is_dir() and entry.name != "__pycache__":
            found += _modules(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(".py"):
            found.append(entry)
    return found


def kept_view(engine: Engine, plan_id: str, view: str, model: type[M]) -> M | None:
    """The view kept for this plan by this planner, or None."""
    t = PlanViewRecord.__table__
    with engine.connect() as conn:
        row = conn.execute(select(t.c.answer).where(t.c.plan_id == plan_id, t.c.view == view,
                                                    t.c.planner == planner_version())).first()
    return None if row is None else model.model_validate(row.answer)


def keep_view(engine: Engine, plan_id: str, view: str, answer: BaseModel, now: dt.datetime) -> None:
    """Keep `answer` as this plan's view (replacing one an older planner made)."""
    t = PlanViewRecord.__table__
    values = {"planner": planner_version(), "answer": JsonText(answer.model_dump_json()), "created_at": now}
    with writing(engine) as conn:
        updated = conn.execute(update(PlanViewRecord).where(t.c.plan_id == plan_id, t.c.view == view)
                               .values(**values))
        if updated.rowcount:
            return
        try:
            with conn.begin_nested():
                conn.execute(insert(PlanViewRecord).values(plan_id=plan_id, view=view, **values))
        except IntegrityError:  # another request kept the same view at the same moment: either answer is it
            pass


def derived(engine: Engine, plan_id: str, view: str, model: type[M], make: Callable[[], M],
            now: Callable[[], dt.datetime]) -> M:
    """The kept view, or `make()` (in the plan pool, under its budget) kept for the next request."""
    found = kept_view(engine, plan_id, view, model)
    if found is not None:
        return found
    made = make()
    keep_view(engine, plan_id, view, made, now())
    return made
