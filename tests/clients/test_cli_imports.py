"""``typhoon --help`` imports none of the commands, and the client commands import no part of the service
that runs it (Redis, the servers, logging): each is checked in a fresh interpreter, as the installed
``typhoon`` script runs it, by the modules it has loaded once it has parsed its arguments."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: What only the service itself needs: a client command loading any of these starts slowly for nothing.
SERVICE_ONLY = ("redis", "fastapi", "starlette", "structlog", "service.store", "service.run.server", "service.api",
                "service.guard", "service.upkeep", "service.match.core", "service.ladder.core")

LOADED = """
import contextlib, io, json, sys
from clients.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main(sys.argv[1:])
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)))
"""


def loaded_by(*argv: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", LOADED, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=True)
    return json.loads(done.stdout.splitlines()[-1])


def of(modules: list[str], packages: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)]


def test_the_help_imports_no_command():
    loaded = loaded_by("--help")
    assert of(loaded, ("service", "engine", "clients.client", "grpc")) == []


@pytest.mark.parametrize("command", ["bot", "ladder", "replay", "match"])
def test_a_client_command_imports_no_part_of_the_service(command):
    loaded = loaded_by(command, "--help")
    assert f"clients.{'bot_cli' if command == 'bot' else 'runner' if command == 'match' else command}" in loaded
    assert of(loaded, SERVICE_ONLY) == []


def test_the_service_command_still_imports_the_service():
    """The check above can fail: ``serve`` loads what the clients must not."""
    assert of(loaded_by("serve", "--help"), SERVICE_ONLY)
