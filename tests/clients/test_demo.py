"""`typhoon demo` runs a whole match through the service and checks its dice."""

from __future__ import annotations

import io

from clients.cli import main
from clients.demo import run_demo


def test_the_demo_plays_a_match_to_the_end(tmp_path):
    out = io.StringIO()
    assert run_demo(str(tmp_path / "demo"), bot_seed="7", out=out) == 0
    text = out.getvalue().splitlines()
    assert text[2].startswith("#1 ") and "match created" in text[2]
    assert any(line.startswith("result: ") for line in text)
    assert any("replaying the log gives the same game" in line for line in text)
    assert text[-1].startswith("service stopped cleanly")


def test_the_cli_has_serve_and_demo(capsys):
    for command in ("serve", "demo"):
        try:
            main([command, "--help"])
        except SystemExit as exit_:
            assert exit_.code == 0
    assert "--redis-url" in capsys.readouterr().out
