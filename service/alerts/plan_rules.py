"""Plan-change subscriptions matched against the changed prices: each watched saved profile that a changed price
could touch is re-planned once, however many subscriptions watch it, and its new best plan is compared with the
one its subscriptions last saw.

Separate from the price rules (`price_rules.py`) because it re-plans instead of comparing prices: it is the slow
part of an evaluation (timed in `replan_s`), and what a plan summary holds is `plan_watch.py`'s.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
from sqlalchemy import select
from sqlalchemy.engine import Connection

from pricing.catalog import Catalog
from service.alerts.event_records import Writes, event, price_line
from service.alerts.plan_watch import Replan, affected, cost_change_pct, plan_changes, public_summary
from service.alerts.tables import Subscription
from service.profiles.tables import SavedProfile
from solvers.base.profile import Profile

MAX_CAUSES_PER_PLAN_EVENT = 20


@dataclass
class PlanWatch:
    """What the plan-change rule did, for the evaluation's report."""

    subscriptions_matched: int = 0
    profiles_replanned: int = 0
    profiles_unaffected: int = 0  # no changed price could enter their plans: not re-planned
    replan_s: float = 0.0


def plan_events(conn: Connection, changes: pd.DataFrame, catalog: Callable[[], Catalog], dedupe_key: str,
                now: dt.datetime, writes: Writes, replan: Replan) -> PlanWatch:
    """Events for the `plan_change` subscriptions whose profile's best plan changed, and their new baselines."""
    done = PlanWatch()
    s, p = Subscription.__table__, SavedProfile.__table__
    subs = conn.execute(
        select(s.c.id, s.c.name, s.c.condition, s.c.baseline, s.c.profile_id, p.c.name.label("profile_name"),
               p.c.profile).join(p, p.c.id == s.c.profile_id)
        .where(s.c.status == "active", s.c.kind == "plan_change")).mappings().all()
    if not subs:
        return done
    started = time.perf_counter()
    current = catalog()
    summaries = {}
    for profile_id, body in {r["profile_id"]: r["profile"] for r in subs}.items():
        profile = Profile.model_validate(body)
        if affected(profile, changes, current.gpus):
            replanned = replan(profile, current, now.date())
            if replanned is not None:  # None: not solved this time (the pool's budget); no news, baseline kept
                summaries[profile_id] = replanned
        else:
            done.profiles_unaffected += 1
    done.profiles_replanned = len(summaries)
    done.replan_s = time.perf_counter() - started
    for sub in subs:
        if sub["profile_id"] not in summaries:
            continue
        old, new = sub["baseline"] or {}, summaries[sub["profile_id"]]
        reasons = plan_changes(old, new, sub["condition"].get("cost_move_pct")) if old else []
        if not reasons:
            continue
        gpus = set(old.get("gpus", [])) | set(new.get("gpus", []))
        causes = changes[changes["gpu"].isin(gpus)]
        causes = causes.reindex(causes["change_pct"].abs().sort_values(ascending=False, na_position="first").index)
        moved = cost_change_pct(old, new)
        summary = f"The best plan for profile {sub['profile_name']!r} changed: {'; '.join(reasons)}"
        if moved is not None:
            summary += f"; total {old['total_cost_usd']:,.0f} -> {new['total_cost_usd']:,.0f} USD"
        data = {"profile": {"id": sub["profile_id"], "name": sub["profile_name"]}, "old": public_summary(old),
                "new": public_summary(new), "cost_change_pct": moved, "reasons": reasons,
                "prices": [price_line(r) for r in causes.head(MAX_CAUSES_PER_PLAN_EVENT).to_dict(orient="records")]}
        writes.events.append(event(sub["id"], sub["name"], "plan.change", summary, data, dedupe_key, now))
        writes.plan_baselines[sub["id"]] = new
        done.subscriptions_matched += 1
    return done
