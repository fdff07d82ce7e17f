"""The planner's stages import only the stages below them (pyproject.toml, [tool.importlinter]; CI runs
`lint-imports` too): checked here on the import graph grimp builds from the source, and shown able to fail by
adding one upward import to that graph."""

from __future__ import annotations

import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]


def _contract() -> dict[str, object]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return next(c for c in config["contracts"] if c.get("containers") == ["solvers"])


def _layers(graph: grimp.ImportGraph) -> list[set[str]]:
    """The contract's layers, top first; an optional layer "(name)" counts only when its package exists."""
    layers = []
    for entry in _contract()["layers"]:  # type: ignore[attr-defined]
        names = {name.strip() for name in str(entry).split("|")}
        names = {n.strip("()") for n in names if not n.startswith("(") or f"solvers.{n.strip('()')}" in graph.modules}
        if names:
            layers.append(names)
    return layers


def _illegal(graph: grimp.ImportGraph) -> set[tuple[str, str]]:
    found = graph.find_illegal_dependencies_for_layers(layers=tuple(grimp.Layer(*layer) for layer in _layers(graph)),
                                                       containers={"solvers"})
    return {(d.importer, d.imported) for d in found}


def test_no_stage_imports_one_above_it() -> None:
    graph = grimp.build_graph("solvers", "pricing")
    assert _illegal(graph) == set()


def test_an_upward_import_is_caught() -> None:
    graph = grimp.build_graph("solvers", "pricing")
    graph.add_import(importer="solvers.replay.hourly", imported="solvers.model.build", line_number=1,
                     line_contents="from solvers.model.build import build")
    graph.add_import(importer="solvers.base.profile", imported="solvers.demand.periods", line_number=1,
                     line_contents="from solvers.demand.periods import build_periods")
    assert _illegal(graph) == {("solvers.replay", "solvers.model"), ("solvers.base", "solvers.demand")}


def test_every_stage_is_in_the_contract() -> None:
    """A new package under solvers/ must take its place in the pipeline (else no contract looks at it)."""
    packages = {p.name for p in (ROOT / "solvers").iterdir() if (p / "__init__.py").exists()}
    modules = {p.stem for p in (ROOT / "solvers").glob("*.py") if p.stem != "__init__"}
    listed = {n.strip().strip("()") for entry in _contract()["layers"] for n in str(entry).split("|")}  # type: ignore[attr-defined]
    assert packages | modules <= listed


def test_the_uncertainty_stage_is_below_explain_and_plan() -> None:
    """The uncertainty stage is handed today's plan as values: an import of the plan's core or of the explanation
    stage from it would be caught."""
    graph = grimp.build_graph("solvers", "pricing")
    assert "solvers.uncertainty.decide" in graph.modules
    for imported in ("solvers.plan", "solvers.explain.alternatives"):
        graph.add_import(importer="solvers.uncertainty.decide", imported=imported, line_number=1,
                         line_contents=f"import {imported}")
    assert _illegal(graph) == {("solvers.uncertainty", "solvers.plan"), ("solvers.uncertainty", "solvers.explain")}
