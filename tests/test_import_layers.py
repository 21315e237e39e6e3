"""Imports run one way: engine ← service ← clients ← loadtests. Nothing lower imports anything higher."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["engine", "service", "clients", "loadtests"]


def imported_packages(path: Path) -> set[str]:
    """The top-level packages a module imports, wherever the import statement stands."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("layer", LAYERS[:-1])
def test_a_layer_imports_nothing_above_it(layer):
    higher = set(LAYERS[LAYERS.index(layer) + 1:])
    offenders = {str(path.relative_to(ROOT)): sorted(imported_packages(path) & higher)
                 for path in sorted((ROOT / layer).rglob("*.py"))}
    assert {path: names for path, names in offenders.items() if names} == {}
