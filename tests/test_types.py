"""Typed code stays typed: ``mypy --strict`` passes on the engine and the other modules listed in
pyproject.toml's ``[tool.mypy]`` (the engine is one typed source, run as it is or compiled by mypyc).

A module whose code is new or reworked joins the list once ``mypy --strict`` passes on it.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_strict_passes_on_the_typed_modules():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert config["strict"] is True and "engine" in config["files"]
    assert [name for name in config["files"] if not (ROOT / name).exists()] == []
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=540)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.startswith("Success: no issues found")
