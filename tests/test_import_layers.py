"""Imports run one way, and never in a circle.

- Between the project's layers: engine ← service ← clients ← loadtests. Nothing lower imports anything higher.
- Inside a layer, between its packages, from higher to lower (:data:`PACKAGE_ORDER`): in ``service/``, the
  modules at its top level (errors, metrics, tasks, processes, the generated code) sit under the store,
  the store under the match core, the match core under the ladder, the ladder under the upkeep sweeps,
  those under the guard (rate limits, the store's capacity), it under the
  two transports and the page, and those under the process that runs them all.
- No import circle among the project's modules, whether the import stands at the top of a module or
  inside a function (a lazy import hides a circle, it does not break it). Imports under
  ``if TYPE_CHECKING:`` are left out (they never run), except in ``engine/``: the engine is one typed
  source compiled as a whole (mypyc), and a circle among its modules is one whatever the kind of import
  (its game and phases were once such a circle, the phases importing the game for their annotations).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["engine", "service", "clients", "loadtests"]

#: Packages inside a layer, lowest first: a module may import from its own package or a lower one.
#: A module belongs to the longest package of the list its name starts with.
PACKAGE_ORDER = {
    "service": ["service", "service.gen", "service.store", "service.match", "service.ladder", "service.upkeep",
                "service.guard", "service.api", "service.run"],
    "clients": ["clients.strategies", "clients", "clients.rl"],
}


def module_name(path: Path) -> str:
    """``service/match/core.py`` -> ``service.match.core``; a package's ``__init__.py`` is the package."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {module_name(path): path for layer in LAYERS for path in sorted((ROOT / layer).rglob("*.py"))}


MODULES = project_modules()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    """The nodes under ``if TYPE_CHECKING:`` (imports for annotations only, never run)."""
    hidden: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            hidden.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return hidden


def _known(name: str) -> str | None:
    """The project module ``name`` is, or the nearest package above it that is one."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


#: The layers whose imports for annotations only (under ``if TYPE_CHECKING:``) count as imports.
TYPED_AS_A_WHOLE = ("engine",)


def imports_of(name: str) -> Iterator[str]:
    """The project modules that module ``name`` imports (each ``from package import module`` is the module)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    yield from imports_in(ast.parse(path.read_text(), str(path)), package,
                          for_types=name.split(".")[0] in TYPED_AS_A_WHOLE)


def imports_in(tree: ast.AST, package: str, for_types: bool = False) -> Iterator[str]:
    """The project modules a module of ``package`` whose syntax is ``tree`` imports; ``for_types``: those
    imported under ``if TYPE_CHECKING:`` too."""
    hidden = set() if for_types else _type_checking_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (found := _known(alias.name)) is not None:
                    yield found
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                if (found := _known(f"{base}.{alias.name}")) is not None:
                    yield found


GRAPH = {name: {other for other in imports_of(name) if other != name} for name in MODULES}


def test_the_graph_sees_the_project():
    assert "service.match.core" in GRAPH and "engine.game" in GRAPH
    assert "service.store.match_store" in GRAPH["service.match.core"]


@pytest.mark.parametrize("layer", LAYERS[:-1])
def test_a_layer_imports_nothing_above_it(layer):
    higher = LAYERS[LAYERS.index(layer) + 1:]
    offenders = {name: sorted(other for other in imported if other.split(".")[0] in higher)
                 for name, imported in GRAPH.items() if name.split(".")[0] == layer}
    assert {name: others for name, others in offenders.items() if others} == {}


def package_rank(name: str) -> tuple[str, int] | None:
    """(layer, rank of the module's package in :data:`PACKAGE_ORDER`), None where the layer has no order."""
    order = PACKAGE_ORDER.get(name.split(".")[0])
    if order is None:
        return None
    owners = [package for package in order if name == package or name.startswith(package + ".")]
    return name.split(".")[0], order.index(max(owners, key=len))


@pytest.mark.parametrize("layer", sorted(PACKAGE_ORDER))
def test_a_package_imports_nothing_above_it(layer):
    offenders = {}
    for name, imported in GRAPH.items():
        rank = package_rank(name)
        if rank is None or rank[0] != layer:
            continue
        upward = sorted(other for other in imported if (r := package_rank(other)) and r[0] == layer and r[1] > rank[1])
        if upward:
            offenders[name] = upward
    assert offenders == {}


def test_every_package_of_an_ordered_layer_is_placed():
    """A new package of service/ or clients/ has to be given its place (a line in PACKAGE_ORDER)."""
    for layer, order in PACKAGE_ORDER.items():
        packages = {module_name(path.parent) for path in (ROOT / layer).glob("*/__init__.py")}
        assert sorted(packages - set(order)) == [], f"place these packages in PACKAGE_ORDER[{layer!r}]"


def import_circles() -> list[list[str]]:
    """Every strongly connected set of more than one module (Tarjan), each sorted: an import circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(GRAPH[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            members = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                members.append(member)
                if member == node:
                    break
            if len(members) > 1:
                circles.append(sorted(members))

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    return circles


def test_no_import_circles():
    assert import_circles() == []


def test_a_circle_is_found(monkeypatch):
    """The circle finder finds one where there is one (the check above would pass on a finder that never does)."""
    monkeypatch.setitem(GRAPH, "engine.dice", GRAPH["engine.dice"] | {"engine.game"})
    assert any({"engine.dice", "engine.game"} <= set(circle) for circle in import_circles())


def test_an_import_for_annotations_counts_in_the_engine():
    """Inside engine/ an import under ``if TYPE_CHECKING:`` is an edge of the graph; elsewhere it is not."""
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .game import Game\n")
    assert list(imports_in(tree, "engine", for_types=True)) == ["engine.game"]
    assert list(imports_in(tree, "service.match", for_types=False)) == []
    assert all(name.split(".")[0] != "engine" or "engine.game" not in GRAPH[name]
               for name in ("engine.movement_phase", "engine.combat_phase", "engine.state"))
