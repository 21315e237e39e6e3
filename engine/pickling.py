"""Copying and pickling the engine's values the same in both builds (see engine/builds.py).

A compiled class has no ``__dict__``, and a compiled frozen dataclass refuses the attribute-by-attribute
restore ``pickle`` and ``copy`` do by default; so each value class is rebuilt by calling it with its fields
(a fresh value equal to the first), which both builds do alike. (The game itself is pickled as its
position: see engine/position.py.)

>>> import copy, pickle
>>> from engine.sequence import PHASES_BY_NAME
>>> phase = PHASES_BY_NAME["german_combat"]
>>> pickle.loads(pickle.dumps(phase)) == phase, copy.deepcopy(phase) == phase
(True, True)
"""

from __future__ import annotations

import copyreg
import dataclasses
from typing import Any, Callable


def _by_fields(value: Any) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    return type(value), tuple(getattr(value, f.name) for f in dataclasses.fields(value) if f.init)


def rebuilt_by_fields(*classes: type) -> None:
    """Copy and pickle instances of the dataclasses ``classes`` by calling each with its fields."""
    for cls in classes:
        copyreg.pickle(cls, _by_fields)
