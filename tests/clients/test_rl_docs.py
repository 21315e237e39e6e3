"""docs/RL.md says what the code does: its Python examples run as written (the quick starts, the training
loop, OpenSpiel's MCTS, the trained policy as a bot), and its tables of action numbers and observation
planes are the encoding's and the observer's. (Its shell commands run in tests/service/test_docs_commands.py.)"""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import engine
from clients.arena import play_game
from clients.rl import ActionEncoding
from clients.rl.encoding import SINGLETONS
from clients.rl.observation import PLANES
from clients.strategies import imported_strategy, make_strategy

DOC = Path(__file__).resolve().parents[2] / "docs" / "RL.md"


def python_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", DOC.read_text(), flags=re.S | re.M)


def test_the_python_examples_run_and_the_trained_policy_plays(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    blocks = python_blocks()
    assert len(blocks) == 5
    for block in blocks:
        if "np.load(" in block:  # the bot module: a file of its own, imported as typhoon bot imports it
            (tmp_path / "mybot.py").write_text(block)
            continue
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            exec(compile(block, str(DOC), "exec"), {"__name__": "docs"})
        if "theta" in block:
            assert len(printed.getvalue().splitlines()) == 10  # one line an episode
    assert (tmp_path / "theta.npy").exists()
    bot = imported_strategy("mybot:strategy")
    record = play_game(bot, make_strategy("random", seed=1), seed="docs")
    assert record.illegal == 0 and record.german == "mybot"
    assert os.getcwd() == str(tmp_path)


def test_the_tables_are_the_encoding_and_the_planes():
    text = DOC.read_text()
    encoding = ActionEncoding(engine.load_scenario("standard"))
    for block, (start, size) in encoding.blocks.items():
        name = "singletons" if block == "singleton" else f"`{block}`"
        assert f"| {start} – {start + size - 1} | {name} |" in text, block
    for number, action in enumerate(SINGLETONS):
        assert f"{encoding.blocks['singleton'][0] + number} `{action.type}`" in text
    units = ", ".join(f"{i} {unit}" for i, unit in enumerate(encoding.units))
    assert units == " ".join(re.search(r"^> (0 3rd.*?)\n\n", text, flags=re.S | re.M)[1].replace("\n> ", " ").split())
    rows = re.findall(r"^\| (\d+) \| `(\w+)` \| (.*) \|$", text, flags=re.M)
    assert [(int(i), name, meaning) for i, name, meaning in rows] == [(i, n, m) for i, (n, m) in enumerate(PLANES)]
    assert f"Discrete({encoding.size})" in text and "`(82, 10, 14)`" in text and len(PLANES) == 82
