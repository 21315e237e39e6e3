"""The lock files agree with pyproject.toml: every dependency it names is locked at a version it allows,
and nothing is locked as a direct dependency that it no longer names.

``requirements-dev.lock`` is what ``make install`` (and so CI) installs, ``requirements.lock`` what the
image installs; ``make lock`` writes both (uv), annotating each package with what needs it ("via typhoon
(pyproject.toml)" for a direct dependency), which is what this test reads. It asks no registry.
"""

from __future__ import annotations

import re
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
FIX = "run `make lock` and commit requirements.lock and requirements-dev.lock"
DIRECT = "typhoon (pyproject.toml)"


@dataclass
class Locked:
    version: Version
    hashes: int = 0
    via: list[str] = field(default_factory=list)


def read_lock(path: Path) -> dict[str, Locked]:
    """The packages of a lock written by ``uv pip compile --generate-hashes``: each one's version, how many
    hashes it has, and what needs it (the ``# via`` lines under it)."""
    packages: dict[str, Locked] = {}
    current: Locked | None = None
    for line in path.read_text().splitlines():
        if match := re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^ ;\\]+)", line):
            current = packages[canonicalize_name(match[1])] = Locked(Version(match[2]))
        elif current and line.strip().startswith("--hash="):
            current.hashes += 1
        elif current and (match := re.match(r"^\s+#\s+(?:via\s+)?(.+?)\s*$", line)) and match[1] != "via":
            current.via.append(match[1])
    return packages


def requirements(*extras: str) -> list[Requirement]:
    """pyproject.toml's requirements with ``extras``; an extra that names the project's own (``typhoon[rl]``
    in ``dev``) brings in that extra's requirements."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    listed = [Requirement(r) for r in project["dependencies"]]
    wanted, seen = list(extras), set()
    while wanted:
        extra = wanted.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for requirement in map(Requirement, project["optional-dependencies"][extra]):
            if canonicalize_name(requirement.name) == canonicalize_name(project["name"]):
                wanted.extend(requirement.extras)
            else:
                listed.append(requirement)
    return listed


def disagreements(lock: Path, wanted: list[Requirement]) -> list[str]:
    """What differs between ``wanted`` (pyproject.toml's requirements) and ``lock``, one sentence each."""
    locked = read_lock(lock)
    problems = []
    names = set()
    for requirement in wanted:
        name = canonicalize_name(requirement.name)
        names.add(name)
        if name not in locked:
            problems.append(f"pyproject.toml asks for {requirement}; {lock.name} has no {name}")
        elif not requirement.specifier.contains(locked[name].version, prereleases=True):
            problems.append(f"pyproject.toml asks for {requirement}; {lock.name} has {name}=={locked[name].version}")
        elif DIRECT not in locked[name].via:
            problems.append(f"pyproject.toml asks for {requirement}; {lock.name} has {name} only for another package")
    for name, package in sorted(locked.items()):
        if DIRECT in package.via and name not in names:
            problems.append(f"{lock.name} locks {name} for pyproject.toml, which no longer asks for it")
        if package.hashes == 0:
            problems.append(f"{lock.name} has no hash for {name}")
    return problems


@pytest.mark.parametrize("lock, extras", [("requirements.lock", ()), ("requirements-dev.lock", ("dev",))])
def test_the_lock_agrees_with_pyproject(lock, extras):
    problems = disagreements(ROOT / lock, requirements(*extras))
    assert not problems, "\n".join(problems) + f"\nTo fix: {FIX}."


def test_the_image_gets_the_versions_the_tests_ran_with():
    service, dev = read_lock(ROOT / "requirements.lock"), read_lock(ROOT / "requirements-dev.lock")
    differing = {name: (str(p.version), str(dev[name].version) if name in dev else None)
                 for name, p in service.items() if name not in dev or dev[name].version != p.version}
    assert differing == {}, f"requirements.lock differs from requirements-dev.lock (service, dev): {differing}; {FIX}"


def test_a_dependency_missing_from_the_lock_is_named_with_the_fix(tmp_path):
    lock = tmp_path / "requirements.lock"
    lock.write_text("redis==5.0.0 \\\n    --hash=sha256:00\n    # via typhoon (pyproject.toml)\n"
                    "six==1.16.0 \\\n    --hash=sha256:11\n    # via typhoon (pyproject.toml)\n")
    problems = disagreements(lock, [Requirement("redis>=5.3"), Requirement("limits>=3.13")])
    assert problems == ["pyproject.toml asks for redis>=5.3; requirements.lock has redis==5.0.0",
                        "pyproject.toml asks for limits>=3.13; requirements.lock has no limits",
                        "requirements.lock locks six for pyproject.toml, which no longer asks for it"]


def _plan(target: str, venv: Path) -> str:
    """What ``make TARGET`` would run for a virtual environment not made yet (``make -n``: nothing runs)."""
    done = subprocess.run(["make", "-n", "--no-print-directory", "-C", str(ROOT), target, f"VENV={venv}"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_demo_installs_the_service_lock_alone_and_test_everything_the_development_lock_holds(tmp_path):
    demo, test = _plan("demo", tmp_path / "venv"), _plan("test", tmp_path / "venv")
    assert "--require-hashes -r requirements.lock" in demo and "requirements-dev.lock" not in demo
    assert "--no-deps --no-build-isolation -e ." in demo
    assert "--require-hashes -r requirements-dev.lock" in test  # all of it: every extra the lock was made with
    assert test.index("-r requirements.lock") < test.index("-r requirements-dev.lock") < test.index("-m pytest")
    for plan in (demo, test):  # pip is quiet: each step says what it does
        assert 'echo "make: installing the service into' in plan
    assert 'echo "make: adding the tests\' and tools\' packages' in test


def test_make_demo_on_a_fresh_checkout_installs_and_runs_on_the_service_lock_alone(tmp_path):
    """What a newcomer's first command does, in a copy of the checkout: one line of progress, the service's
    packages only, and the demo played to its dice check."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    checkout = tmp_path / "checkout"
    for name in filter(None, files):
        source = ROOT / name.decode()
        if source.is_file():
            (checkout / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, checkout / name.decode())
    newcomer = {name: value for name, value in os.environ.items() if name not in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS")}
    done = subprocess.run(["make", "demo", f"PYTHON={sys.executable}"], cwd=checkout, capture_output=True, text=True,
                          timeout=1800, env=newcomer)  # as from a shell, not as a sub-make of `make test`
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    first = done.stdout.splitlines()[0]
    assert first.startswith("make: installing the service into .venv: ") and "packages of requirements.lock" in first, first
    assert "dice check: seed matches its commitment" in done.stdout
    installed = subprocess.run([str(checkout / ".venv/bin/python"), "-m", "pip", "list", "--format", "freeze"],
                               capture_output=True, text=True, check=True).stdout
    names = {canonicalize_name(line.split("==")[0]) for line in installed.splitlines() if "==" in line}
    assert names <= set(read_lock(ROOT / "requirements.lock")) | {"typhoon", "pip"}
    assert "pytest" not in names and "locust" not in names


def test_install_and_the_image_install_from_the_locks():
    makefile = (ROOT / "Makefile").read_text()
    assert "--require-hashes -r requirements-dev.lock" in makefile
    assert "--no-deps --no-build-isolation -e ." in makefile
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    assert "--require-hashes -r requirements.lock" in dockerfile
    assert "--no-deps" in dockerfile


@pytest.mark.parametrize("lock", ["requirements.lock", "requirements-dev.lock"])
def test_the_locks_hold_the_build_backend(lock):
    """The project is built without build isolation (make install, the image), by the locked setuptools."""
    locked = read_lock(ROOT / lock)
    for requirement in map(Requirement, tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]):
        name = canonicalize_name(requirement.name)
        assert name in locked and requirement.specifier.contains(locked[name].version), \
            f"{lock} lacks {requirement}, which builds the project: add it to pyproject.toml's dependencies; {FIX}"
