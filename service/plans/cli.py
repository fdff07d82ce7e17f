"""`gpuplan plan`: a profile file planned on the prices in force and printed as tables (`render.py`) or JSON.

Registered by service/cli.py, the entry point; the plans domain's own command, beside its HTTP routes.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Annotated

import typer

from service.core.cli_common import catalog_in_force, console, fail, open_engine


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
        engine = open_engine(settings)
        sources = build_sources(settings.sources)
        now = dt.datetime.now(dt.UTC)
        result = with_stale_warnings(make_plan(profile, catalog_in_force(engine, sources), now.date()), engine,
                                     sources, now, dt.timedelta(days=settings.snapshot_max_age_days))
    except json.JSONDecodeError as exc:
        fail(f"{profile_file}: not valid JSON ({exc})")
    except ValidationError as exc:
        fail("\n".join(f"{e['field']}: {e['message']} ({e['rule']})" for e in validation_errors(exc.errors())))
    except ProfileError as exc:
        fail(f"{exc.field}: {exc.message} ({exc.rule})")
    except InfeasibleProfile as exc:
        fail(f"no plan meets this profile ({exc.constraint}): {exc.message}")
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        render_plan(result, console)
