"""Running a benchmark's worker on another commit: a git worktree in a temporary directory.

``with worktree("c671d70") as tree:`` checks the commit out beside this one (detached, removed on
leaving); :func:`run_worker` runs a piece of Python in a child process whose ``import engine`` (and
``clients``, ``service``) resolve to the given tree, pinned to one core, and returns the JSON object the
child prints last. Alternating such children between two trees in one run lets a benchmark compare two
commits under the same load.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parent.parent

#: What a worker runs first: pin itself to the core named by the environment.
PIN = ("import os\n"
       "if hasattr(os, 'sched_setaffinity') and os.environ.get('BENCH_CORE'):\n"
       "    os.sched_setaffinity(0, {int(os.environ['BENCH_CORE'])})\n")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()


def short(rev: str) -> str:
    """The abbreviated commit of ``rev``, with ``+ changes`` for this tree when it has uncommitted ones."""
    return git("rev-parse", "--short", rev)


def describe_here() -> str:
    dirty = git("status", "--porcelain", "--", "engine", "clients")
    return short("HEAD") + (" + changes" if dirty else "")


@contextmanager
def worktree(rev: str) -> Iterator[Path]:
    """Commit ``rev`` checked out in a temporary directory, removed afterwards."""
    temp = Path(tempfile.mkdtemp(prefix="typhoon-baseline-"))
    tree = temp / "tree"
    git("worktree", "add", "--detach", "--quiet", str(tree), short(rev))
    try:
        yield tree
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
        shutil.rmtree(temp, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=False)


def one_core() -> int:
    """The core the workers are pinned to: the first this process may run on."""
    return min(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 0


def run_worker(tree: Path, code: str, *args: str, core: int | None = None, env: dict[str, str] | None = None) -> dict:
    """Run ``code`` (after :data:`PIN`) with ``sys.argv[1:] = args`` against the packages of ``tree`` (``env``:
    more environment, such as ``TYPHOON_PURE_ENGINE`` to choose the engine's build)."""
    # PYTHONHASHSEED: the bots iterate sets of names; a fixed seed makes both trees play the same games
    env = dict(os.environ, **(env or {}), PYTHONPATH=str(tree), PYTHONHASHSEED="0",
               BENCH_CORE=str(one_core() if core is None else core))
    out = subprocess.run([sys.executable, "-c", PIN + code, *args], cwd=tree, env=env, check=True,
                         capture_output=True, text=True)
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    where = figures.get("engine")
    if where and not Path(where).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"the worker in {tree} imported the engine from {where}")
    return figures
