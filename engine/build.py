"""``python -m engine.build`` (``make engine``): compile the engine's hot modules with mypyc for these sources.

The build goes to the directory :mod:`engine.builds` names for the sources as they are (the hash of every
engine source), never beside them, and is published whole: compiled into a temporary directory next to it,
then renamed into place with its ``BUILT.json`` written last, under a lock so that two builds at once (two
test workers, say) make it once. A build that is already there is kept. Without a C compiler, the Python
headers or mypy, nothing is built and the engine runs pure; that is not an error (``--require`` makes it
one). Older builds than the last few are removed.

    .venv/bin/python -m engine.build            # build when missing; print where it is
    .venv/bin/python -m engine.build --check    # say whether the build of these sources is there
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stdout
from pathlib import Path

from .builds import BUILT, COMPILED, GROUP, SOURCES, build_dir, builds_root, source_key

#: Builds kept besides the one of the sources now (others' checkouts or branches of the same installation).
KEEP = 5


def missing_tools() -> str | None:
    """What a build needs and this machine lacks (a C compiler, the Python headers, mypy), or None."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler})"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file():
        return "no Python headers (Python.h)"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "no mypy (mypyc comes with it: pip install mypy)"
    return None


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _compile(out: Path, work: Path) -> None:
    """Compile :data:`COMPILED` into ``out`` (a directory holding the ``engine`` package's extensions)."""
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped]
    from setuptools.command.build_ext import build_ext  # type: ignore[import-untyped]

    here = os.getcwd()
    os.chdir(SOURCES.parent)  # module names come from the paths: engine/game.py is engine.game
    try:
        extensions = mypycify([f"engine/{name}.py" for name in COMPILED], group_name=GROUP,
                              target_dir=str(work / "c"), opt_level="3", debug_level="0")
        command = build_ext(Distribution({"ext_modules": extensions, "script_name": "engine.build"}))
        command.build_lib = str(out)
        command.build_temp = str(work / "objects")
        command.ensure_finalized()
        command.run()
    finally:
        os.chdir(here)


def _prune(root: Path, keep: Path) -> None:
    """Remove all but the :data:`KEEP` most recent other builds, and what interrupted builds left (called
    under the lock: no other build is under way)."""
    others = sorted((p for p in root.iterdir() if p.is_dir() and p != keep), key=lambda p: p.stat().st_mtime)
    leftovers = [p for p in others if p.name.startswith("building-")]
    builds = [p for p in others if not p.name.startswith("building-")]
    for old in leftovers + builds[:-KEEP]:
        shutil.rmtree(old, ignore_errors=True)


def build(quiet: bool = False) -> Path | None:
    """The build of these sources, made when missing; None when this machine cannot compile it."""
    target = build_dir()
    if (target / BUILT).is_file():
        return target
    missing = missing_tools()
    if missing:
        if not quiet:
            print(f"engine build: {missing}; the engine runs pure", file=sys.stderr)
        return None
    root = builds_root()
    key = source_key()
    with _locked(root):
        if (target / BUILT).is_file():  # built by another process while this one waited
            return target
        started = time.monotonic()
        work = Path(tempfile.mkdtemp(prefix="building-", dir=root))
        try:
            out = work / "out"
            with open(os.devnull, "w") as devnull, redirect_stdout(devnull if quiet else sys.stderr):
                _compile(out, work)
            from mypy.version import __version__ as mypy_version

            built = out / "engine"
            (built / BUILT).write_text(json.dumps({
                "key": key, "modules": list(COMPILED), "mypy": mypy_version, "python": sys.version.split()[0],
                "seconds": round(time.monotonic() - started, 1)}, indent=1) + "\n")
            os.rename(out, target.parent)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        _prune(root, target.parent)
    if not quiet:
        print(f"engine build: compiled {len(COMPILED)} modules in {time.monotonic() - started:.0f} s into "
              f"{target}", file=sys.stderr)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.build", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the build of these sources is there")
    parser.add_argument("--require", action="store_true", help="fail when this machine cannot build it")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    if args.check:
        there = (build_dir() / BUILT).is_file()
        print(build_dir() if there else f"not built: {build_dir()}")
        return 0 if there else 1
    made = build(quiet=args.quiet)
    if made is None:
        return 1 if args.require else 0
    if not args.quiet:
        print(made)
    return 0


if __name__ == "__main__":
    sys.exit(main())
