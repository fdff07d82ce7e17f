"""Same output before and after a speed change: plans for a fixed set of profiles, made by this tree and by a git
ref (default: where this branch left `main`), must be identical in every field but the solver's own timings.

The ref's code is exported with `git archive` into a temporary directory and run in a subprocess, so the
"before" is the real old code, not figures copied from it. The profiles cover what the planner's speed paths
touch: the bundled catalog with filters (spot, used, providers), a monthly series, an hourly usage log, owned
quote items, wide jobs, availability below one (maintenance to packed cloud hours), a capex budget, patience,
request cloud prices (replace and extend) and the guide's worked example.

Run: python bench/same_output.py [--ref REF]   (exit status 1 when any plan differs)
The default ref is where this branch left `main` (`git merge-base main HEAD`): `main` itself may have moved on
with changes that are meant to change plans.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# Runs in the tree given as argv[1]: plans every profile of bench.same_output.profiles() (the profiles come from
# this tree, passed as JSON on stdin, so both sides plan the same inputs) and prints their JSON.
_RUNNER = r"""
import datetime as dt, json, sys
sys.path.insert(0, sys.argv[1])
from pricing.catalog import bundled_catalog
from solvers.plan import make_plan
try:  # the stage layout (issue 33); before it the profile and errors sat at solvers/ root
    from solvers.base.errors import ProfileError
    from solvers.base.profile import Profile
except ImportError:
    from solvers.errors import ProfileError
    from solvers.profile import Profile
catalog = bundled_catalog()
out = {}
for name, data in json.load(sys.stdin).items():
    try:
        result = make_plan(Profile.model_validate(data), catalog, dt.date(2026, 11, 21))
        out[name] = json.loads(result.model_dump_json())
    except ProfileError as exc:
        out[name] = {"error": str(exc)}
print("\n" + json.dumps(out))
"""

TIMINGS = ("solve_ms", "build_ms")


def profiles() -> dict[str, dict[str, Any]]:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    from plan_latency import SERIES, hourly_log, quote_items

    from service.plans.examples import (
        CATALOG_EXAMPLE,
        FINANCE_EXAMPLE,
        PLACE_EXAMPLE,
        SERIES_EXAMPLE,
        WORKED_EXAMPLE,
        WORKLOAD_EXAMPLE,
    )

    def variant(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
        data = json.loads(json.dumps(base))
        for path, value in changes.items():
            node = data
            *parents, leaf = path.split("__")
            for key in parents:
                node = node.setdefault(key, {})
            node[leaf] = value
        return data

    return {
        "worked_example": WORKED_EXAMPLE,
        "catalog_example": CATALOG_EXAMPLE,
        "series_example": SERIES_EXAMPLE,
        "bursty_series": SERIES,
        "hourly_log": hourly_log(),
        "quote_items": quote_items(),
        "quote_items_40": quote_items(40, seed=11),
        "catalog_busy": variant(CATALOG_EXAMPLE, demand__gpus=6, demand__utilisation=0.7),
        "catalog_no_used_spot": variant(CATALOG_EXAMPLE, demand__gpus=3, demand__utilisation=0.5,
                                        options__allow_used=False, options__allow_spot=True),
        "catalog_providers": variant(CATALOG_EXAMPLE, demand__gpus=2, demand__utilisation=0.4,
                                     options__providers=["aws", "lambda"]),
        "catalog_availability": variant(CATALOG_EXAMPLE, demand__gpus=4, demand__utilisation=0.9,
                                        options__availability=0.9),
        "catalog_capex": variant(CATALOG_EXAMPLE, demand__gpus=8, demand__utilisation=0.8,
                                 options__max_capex_usd=6000),
        "wide_jobs": variant(CATALOG_EXAMPLE, demand__gpus=8, demand__utilisation=0.6, jobs__gpus_per_job=4),
        "patience": variant(SERIES, jobs__patience="week"),
        "no_power_given": variant(CATALOG_EXAMPLE, electricity_usd_per_kwh=None, demand__gpus=2),
        "extend_cloud": variant(CATALOG_EXAMPLE, demand__gpus=2, demand__utilisation=0.5, prices__mode="extend",
                                prices__cloud=[{"provider": "mycloud", "name": "x1", "gpu": "RTX 4090",
                                                "usd_per_hour": 0.31, "region": "eu"}]),
        # the alternatives' paths: commitments (cloud-only is then a MIP), a discounted basis with cloud data costs
        # (a fixed cost when renting), the workload form (alternatives after the widths), always-on load, a cloud
        # whose quotas cannot carry the peak alone, no purchase option, no cloud offer
        "workload_example": WORKLOAD_EXAMPLE,
        "place_example": PLACE_EXAMPLE,
        "finance_example": FINANCE_EXAMPLE,
        "cloud_data_discounted": variant(SERIES, options__discount_rate=0.1, options__cloud_data={
            "dataset_gb": 500, "storage_usd_per_gb_month": 0.02}),
        "always_on": variant(CATALOG_EXAMPLE, demand__gpus=2, demand__utilisation=1.0, jobs__runs="continuously"),
        "quota_cloud_only": variant(WORKED_EXAMPLE, demand__gpus=3, demand__utilisation=0.5,
                                    prices__cloud=[{"provider": "host", "name": "box", "gpu": "RTX 3090",
                                                    "usd_per_hour": 0.3, "region": "eu", "max_instances": 2}]),
        "nothing_to_buy": variant(WORKED_EXAMPLE, prices__owned=[]),
        "no_cloud": variant(WORKED_EXAMPLE, demand__gpus=2, prices__cloud=[]),
        "hourly_patience_day": variant(hourly_log(24 * 120, seed=4), jobs__patience="day"),
    }


def plans(tree: Path, inputs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _RUNNER, str(tree)], input=json.dumps(inputs), text=True,
                          capture_output=True, check=True, cwd=tree)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))  # HiGHS prints a banner first


def without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def differences(before: Any, after: Any, where: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        found = []
        for key in sorted(set(before) | set(after)):
            found += differences(before.get(key), after.get(key), f"{where}.{key}")
        return found
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        pairs = enumerate(zip(before, after, strict=True))
        return [d for i, (b, a) in pairs for d in differences(b, a, f"{where}[{i}]")]
    return [] if before == after else [f"{where}: {before!r} -> {after!r}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ref", default=None, help="git ref of the 'before' code (default: merge-base of main, HEAD)")
    args = parser.parse_args()
    if args.ref is None:
        args.ref = subprocess.run(["git", "merge-base", "main", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                  check=True).stdout.strip()
    inputs = profiles()
    archive = subprocess.run(["git", "archive", args.ref], cwd=ROOT, capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        before = without_timings(plans(Path(tmp), inputs))
    after = without_timings(plans(ROOT, inputs))
    failed = 0
    for name in inputs:
        found = differences(before[name], after[name])
        print(f"{name}: {'identical' if not found else f'{len(found)} differences'}")
        for line in found[:10]:
            print(f"    {line}")
        failed += bool(found)
    print(f"{len(inputs) - failed} of {len(inputs)} plans identical to {args.ref}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
