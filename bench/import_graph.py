"""The shape of solvers/ in this tree and in a git ref: modules per folder, the longest file, import circles, the
import depth (the longest chain of imports between solvers' own modules) and what one plan visits.

Why a script: issue 33 asks for the before and after of its regrouping in figures, and a figure that can be
measured again is one a later change can be held to. The graph is grimp's (import-linter's graph library), built
from the source without importing it; depth is the longest path in the graph of its strongly connected
components, so a circle counts once however often it is walked. What a plan visits is traced at run time
(`sys.setprofile` over one `make_plan` of the guide's worked example, its alternatives done inline so that one
thread runs all of it): the solvers modules whose functions run, and how often a call enters a module the plan had
already left for another.

Run: python bench/import_graph.py [--ref REF]   (default ref: `git merge-base main HEAD`, the tree before a branch)
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

# Runs in the tree given as argv[1] and prints one JSON line: the measurements below, taken there.
_RUNNER = r"""
import datetime as dt, json, sys
from collections import Counter
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import grimp
root = Path(sys.argv[1])
graph = grimp.build_graph("solvers", "pricing")
mods = sorted(m for m in graph.modules if m.startswith("solvers"))
edges = {m: sorted(i for i in graph.find_modules_directly_imported_by(m) if i.startswith("solvers") and i != m)
         for m in mods}
# Tarjan's strongly connected components, then the longest path over the components
index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = counter[0]; counter[0] += 1; stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v: break
        comps.append(comp)
for m in mods:
    if m not in index: visit(m)
comp_of = {m: i for i, c in enumerate(comps) for m in c}
longest = {}
def depth(c):
    if c not in longest:
        nxt = {comp_of[w] for m in comps[c] for w in edges[m]} - {c}
        longest[c] = 1 + max((depth(n) for n in nxt), default=0)
    return longest[c]
deepest = max(range(len(comps)), key=depth)
chain, c = [], deepest
while True:
    chain.append(sorted(comps[c])[0] + (f" (+{len(comps[c]) - 1} in a circle)" if len(comps[c]) > 1 else ""))
    nxt = {comp_of[w] for m in comps[c] for w in edges[m]} - {c}
    if not nxt: break
    c = max(nxt, key=depth)
files = sorted(p for p in (root / "solvers").rglob("*.py"))
lines = {str(p.relative_to(root)): len(p.read_text().splitlines()) for p in files}
folders = Counter(str(Path(f).parent) for f in lines if not f.endswith("__init__.py"))
big = sorted(((n, f) for f, n in lines.items() if n > 400), reverse=True)
# one plan, traced
from pricing.catalog import bundled_catalog
from solvers.plan import make_plan
try:
    from solvers.base.profile import Profile
except ImportError:
    from solvers.profile import Profile
sys.path.insert(0, str(root))
from service.plans.examples import WORKED_EXAMPLE
catalog = bundled_catalog()
profile = Profile.model_validate(WORKED_EXAMPLE)
make_plan(profile, catalog, dt.date(2026, 11, 21))  # warm: imports, caches
visited, returns, left = set(), 0, set()
frames = []
def profile_hook(frame, event, arg):
    global returns
    if event not in ("call", "return"):
        return
    name = frame.f_globals.get("__name__", "")
    if not name.startswith("solvers"):
        return
    if event == "call":
        visited.add(name)
        if frames and frames[-1] != name and name in left:
            returns += 1
        if frames and frames[-1] != name:
            left.add(frames[-1])
        frames.append(name)
    elif frames:
        frames.pop()
# the alternatives inline, on this thread (their thread held busy), so the trace sees all of the plan, every run
try:
    from solvers.base.deferred import _ALTERNATIVES_IDLE as idle
except ImportError:
    try:
        from solvers.explain.alternatives import _ALTERNATIVES_IDLE as idle
    except ImportError:
        from solvers.plan import _ALTERNATIVES_IDLE as idle
assert idle.acquire(blocking=False)
try:
    sys.setprofile(profile_hook)
    make_plan(profile, catalog, dt.date(2026, 11, 21))
    sys.setprofile(None)
finally:
    idle.release()
print(json.dumps({
    "modules": sum(folders.values()),
    "lines": sum(lines.values()),
    "per_folder": dict(sorted(folders.items())),
    "longest": max((n, f) for f, n in lines.items()),
    "over_400": big,
    "circles": [sorted(c) for c in comps if len(c) > 1],
    "depth": depth(deepest),
    "chain": chain,
    "plan_visits": len(visited),
    "plan_returns": returns,
}))
"""


def measure(tree: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", _RUNNER, str(tree)], text=True, capture_output=True, check=True,
                          cwd=tree)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def report(name: str, m: dict[str, Any]) -> None:
    print(f"{name}: {m['modules']} files, {m['lines']} lines; longest {m['longest'][1]} ({m['longest'][0]} lines); "
          f"{len(m['over_400'])} above 400 lines")
    print("  per folder: " + ", ".join(f"{k} {v}" for k, v in m["per_folder"].items()))
    if m["over_400"]:
        print("  above 400: " + ", ".join(f"{f} {n}" for n, f in m["over_400"]))
    print(f"  import circles: {len(m['circles'])}" + "".join(f"\n    {' <-> '.join(c)}" for c in m["circles"]))
    print(f"  import depth: {m['depth']} ({' -> '.join(m['chain'])})")
    print(f"  one make_plan (worked example) runs code in {m['plan_visits']} solvers modules and comes back into a "
          f"module it had left {m['plan_returns']} times")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default=None, help="git ref of the 'before' tree (default: merge-base of main, HEAD)")
    args = parser.parse_args()
    if args.ref is None:
        args.ref = subprocess.run(["git", "merge-base", "main", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                                  check=True).stdout.strip()
    archive = subprocess.run(["git", "archive", args.ref], cwd=ROOT, capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        before = measure(Path(tmp))
    report(f"before ({args.ref[:12]})", before)
    report("after (this tree)", measure(ROOT))


if __name__ == "__main__":
    main()
