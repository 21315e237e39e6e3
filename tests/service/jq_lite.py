"""What the documented commands ask of ``jq``, for machines without it: ``jq [-r] [-c] PATH [FILE]`` with a
PATH such as ``.player.player_id`` or ``'.legal_actions.actions[0]'``, reading one JSON document on stdin
or from FILE
(tests/service/test_docs_commands.py puts it in place of jq when jq is not installed).

>>> select({"a": {"b": [1, {"c": "x"}]}}, ".a.b[1].c")
'x'
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any


def select(document: Any, path: str) -> Any:
    for name, index in re.findall(r"\.([A-Za-z_][A-Za-z_0-9]*)|\[(\d+)\]", path):
        document = document[name] if name else document[int(index)]
    return document


def main(argv: list[str]) -> int:
    raw = "-r" in argv
    path, *files = [a for a in argv if not a.startswith("-")]
    if files:
        with open(files[0]) as source:
            document = json.load(source)
    else:
        document = json.load(sys.stdin)
    value = select(document, path)
    print(value if raw and isinstance(value, str) else json.dumps(value, separators=(",", ":")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
