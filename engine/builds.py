"""Which build of the engine runs: its modules compiled by mypyc for these very sources, or the ``.py`` files.

The engine is one typed source. ``make engine`` (``python -m engine.build``) compiles its hot modules
(:data:`COMPILED`) with mypyc, where a C compiler is present, into a directory of the installation named by
the hash of every engine source (:func:`source_key`); nothing is written beside the sources. ``import
engine`` looks for the build of the sources as they are now and, when it is there, puts it first on the
package's path, so ``engine.game`` and the others load compiled; otherwise they load from their ``.py``
files. An edit to any engine source changes the hash, so a compiled module never stands in for a newer
edit: until ``make engine`` runs again the engine is pure.

``TYPHOON_PURE_ENGINE=1`` runs the pure engine even when a build is there; ``TYPHOON_PURE_ENGINE=0``
insists on the compiled one (``import engine`` fails when it is not built). ``engine.BUILD`` says which
runs (``"compiled"`` or ``"pure"``). ``TYPHOON_ENGINE_BUILDS`` moves the directory of builds (by default
``typhoon-engine/`` under the installation's prefix, e.g. ``.venv/typhoon-engine/``).

>>> len(source_key()), choose([], {"TYPHOON_PURE_ENGINE": "1"})
(24, 'pure')
"""

from __future__ import annotations

import hashlib
import os
import sys
import sysconfig
from pathlib import Path
from typing import Mapping, MutableSequence

#: The engine modules mypyc compiles: everything the play of a game runs through. The others stay Python:
#: the package itself and this selection, the data loaders (pydantic models), the action and event values
#: (dataclasses made by a decorator), options, errors, positions, the catalog and self-play.
COMPILED: tuple[str, ...] = (
    "board", "combat", "combat_phase", "dice", "game", "hexgrid", "movement", "movement_phase", "phase_state",
    "replacement_phase", "retreat", "scenario", "seat_entropy", "sequence", "setup_phase", "state", "supply",
    "supply_phase", "victory", "zones",
)

#: The shared library mypyc makes of the compiled modules (each module's own extension loads it).
GROUP = "engine._native"

#: The file a complete build holds (written last): what was built, from which sources, with which mypy.
BUILT = "BUILT.json"

SOURCES = Path(__file__).resolve().parent


def source_key(sources: Path = SOURCES) -> str:
    """The hash naming the build of these sources: every ``.py`` file of the engine (a compiled module's
    types come from the modules it imports, compiled or not) and the Python it is built for."""
    digest = hashlib.sha256(f"{sys.implementation.cache_tag} {sysconfig.get_config_var('EXT_SUFFIX')}".encode())
    for path in sorted(sources.glob("*.py")):
        digest.update(f"\0{path.name}\0".encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:24]


def builds_root(environ: Mapping[str, str] = os.environ) -> Path:
    """The directory holding the builds (one subdirectory per source key)."""
    chosen = environ.get("TYPHOON_ENGINE_BUILDS")
    return Path(chosen) if chosen else Path(sys.prefix) / "typhoon-engine"


def build_dir(environ: Mapping[str, str] = os.environ, sources: Path = SOURCES) -> Path:
    """Where the build of these sources is (or would be): the ``engine`` package directory of its modules."""
    return builds_root(environ) / source_key(sources) / "engine"


def choose(package_path: MutableSequence[str], environ: Mapping[str, str] = os.environ,
           sources: Path = SOURCES) -> str:
    """Put the compiled build of these sources first on ``package_path`` (the engine's ``__path__``) when it
    is there and wanted; return which build the engine's modules will load from. (A build is made for one
    Python and links nothing but the C library, so one that is there loads.)"""
    wanted = environ.get("TYPHOON_PURE_ENGINE", "")
    if wanted == "1":
        return "pure"
    built = build_dir(environ, sources)
    if (built / BUILT).is_file():
        package_path.insert(0, str(built))
        return "compiled"
    if wanted == "0":
        raise ImportError(f"TYPHOON_PURE_ENGINE=0 asks for the compiled engine, and none is built for these "
                          f"sources (looked in {built}; `make engine` builds it)")
    return "pure"
