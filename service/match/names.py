"""Names people read (players, seats, owners): printable text, told apart as people tell them apart.

A name with a control or invisible character (a NUL, an escape, a zero-width space) is refused: it
would print as garbage, or pass for another name on a leaderboard ("bot\u200bone" for "botone").
Two names are the same name when they differ only in case or in compatibility forms: the key a
name is looked up by is its NFKC form, case-folded ("Straße" and "STRASSE" are one name).

>>> check_name("name", "Typhoon Bot")
>>> check_name("name", "bot\u200bone")
Traceback (most recent call last):
    ...
service.errors.ServiceError: name has an invisible or control character (U+200B at position 4); only printable text is accepted
>>> name_key("Straße") == name_key("STRASSE") == name_key("strasse")
True
>>> name_key("Ｂｏｔ")  # full-width letters
'bot'
"""

from __future__ import annotations

import unicodedata

from grpc import StatusCode

from service.errors import ServiceError

#: Besides printable characters, what a longer text (a description) may hold.
TEXT_LAYOUT = "\n\t"


def check_name(label: str, value: str, allowed: str = "") -> None:
    """Refuse (INVALID_ARGUMENT, ``BAD_NAME``) ``value`` if it holds a character of Unicode's "other"
    categories (control, format, surrogate, private use, unassigned), but those in ``allowed``."""
    for position, char in enumerate(value, 1):
        if char not in allowed and unicodedata.category(char).startswith("C"):
            raise ServiceError(StatusCode.INVALID_ARGUMENT, "BAD_NAME",
                               f"{label} has an invisible or control character (U+{ord(char):04X} at position "
                               f"{position}); only printable text is accepted")


def name_key(name: str) -> str:
    """What ``name`` is looked up and kept unique by."""
    return unicodedata.normalize("NFKC", name.strip()).casefold()
