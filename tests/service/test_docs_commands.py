"""Every command in README.md and docs/*.md runs, against a real service.

The commands are read from the markdown: each line of a ```sh / ```bash block (a ``\\`` continues a
line; ``# ...`` comments go), each ``$ command`` line of an unlabelled block, and each `` `typhoon ...` ``
in the first column of a table. One test per block (its commands run in order, in one context) and per
table command; a failure names the file, the line and the command as the document writes it.

How a command runs is decided by the first rule of RULES whose pattern matches it; a command that no
rule matches fails the test (add a rule). Before it runs, the example values in it are replaced
(SUBSTITUTIONS): the ports of the example service by the test's service, ``ID`` and ``TOKEN`` by a
match (and a seat token) made for it, and the sizes of long runs (50 games, a search budget) by small
ones. To add a document, add it to DOCUMENTS; to add a kind of command, add a rule.
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from clients.client import TyphoonClient
from service_helpers import play_random

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
BIN = Path(sys.executable).parent


@dataclass
class Command:
    document: str
    line: int
    text: str  # as the document writes it (continuations joined)
    expect_error: bool = False  # the document says the answer is an error (a "# → 4xx" after it)
    answer: str = ""  # the answer the document shows after it ("# → ..." and the comment lines that follow)

    def __str__(self) -> str:
        return f"{self.document}:{self.line}: {self.text}"


# --- reading the markdown -------------------------------------------------------------------------------

def _strip_comment(line: str) -> str:
    """The line without a trailing ``# comment`` (a ``#`` outside quotes, after a space)."""
    quote = None
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def blocks(document: str) -> list[list[Command]]:
    """The commands of each code block, and each table command as a block of its own."""
    text = (ROOT / document).read_text()
    found: list[list[Command]] = []
    for match in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
        language, body = match.group(1), match.group(2)
        first_line = text[:match.start()].count("\n") + 2
        if language not in ("sh", "bash", "shell", "console", ""):
            continue
        commands: list[Command] = []
        pending, pending_line = "", 0
        for offset, raw in enumerate(body.splitlines()):
            line = raw.rstrip()
            if not language:  # an unlabelled block: output, except "$ command" lines
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            if not pending and re.match(r"\s*# → 4\d\d", line) and commands:
                commands[-1].expect_error = True
            if not pending and commands and (re.match(r"\s*# → ", line) or
                                             commands[-1].answer and re.match(r"\s*#\s\s", line)):
                commands[-1].answer += line.strip().lstrip("#").strip().removeprefix("→").strip() + " "
                continue
            code = _strip_comment(line) if not pending else line.rstrip()
            if not code.strip():
                continue
            if not pending:
                pending_line = first_line + offset
            if code.endswith("\\"):
                pending += code[:-1].rstrip() + " "
                continue
            commands.append(Command(document, pending_line, (pending + code.strip()).strip()))
            pending = ""
        if commands:
            found.append(commands)
    for number, row in enumerate(text.splitlines(), 1):
        cell = re.match(r"^\| `(typhoon [^`]*)`", row)
        if cell:
            found.append([Command(document, number, cell.group(1))])
    return found


def all_blocks() -> list[list[Command]]:
    return [block for document in DOCUMENTS for block in blocks(document)]


# --- what a command needs -------------------------------------------------------------------------------

@dataclass
class Context:
    grpc: str
    http: str
    redis_url: str
    workdir: Path
    values: dict[str, str]
    helpers: list = field(default_factory=list)  # what a block started, stopped after it (``.stop()``)


SUBSTITUTIONS: list[tuple[str, Callable[[Context, re.Match], str]]] = [
    (r"\[(--[^\]]*)\]", lambda c, m: m.group(1)),  # [--optional parts] are given
    (r"--grpc-port 50051 --http-port 8080", lambda c, m: "--grpc-port 0 --http-port 0"),
    (r"\blocalhost:8080\b", lambda c, m: c.http),
    (r"\b(127\.0\.0\.1|host|localhost):50051\b", lambda c, m: c.grpc),
    (r"--server ADDR\b", lambda c, m: f"--server {c.grpc}"),
    (r"redis://(host|localhost):6379/0", lambda c, m: c.redis_url),
    (r"--redis-url URL\b", lambda c, m: f"--redis-url {c.redis_url}"),
    (r"--data-dir \.typhoon\b", lambda c, m: f"--data-dir {c.workdir / 'data'}"),
    (r"--games (\d+|N)\b", lambda c, m: "--games 1"),
    (r"--seed S\b", lambda c, m: "--seed 1"),
    (r"budget=[\d.]+", lambda c, m: "budget=0.02"),
    (r"--ratings FILE\b", lambda c, m: f"--ratings {c.workdir / 'ladder.json'}"),
    (r"\| less\b", lambda c, m: "| head -n 40"),
    # the example service's default address (a command without --server) -> the test's
    (r"^typhoon (bot|replay \w+)\b(?!.*--server)(.*?)( \| .*)?$", lambda c, m: f"{m.group(0).split(' | ')[0]} "
     f"--server {c.grpc}{m.group(3) or ''}"),
    (r"^\.venv/bin/python -m (loadtests\.\w+)", lambda c, m: f"cd {ROOT} && {sys.executable} -m {m.group(1)}"),
    # the ladder on one machine, small: one match; "your own strategy" a module:callable that exists
    (r"^make ladder\b", lambda c, m: f"make -C {ROOT} --no-print-directory ladder MATCHES=1 PY={sys.executable}"),
    (r"\bmy_bot:choose\b", lambda c, m: "clients.strategies.random_strategy:RandomStrategy"),
    (r"--matches 100\b", lambda c, m: "--matches 1"),  # the ladder run, small: two random bots, one match
    (r"--bots [\w:,]+", lambda c, m: "--bots random:2"),
    (r"--verify \d+", lambda c, m: "--verify 1"),
    (r'--serve-args "--workers 2"', lambda c, m: '--serve-args "--workers 1"'),
    (r"^typhoon play\b(?!.*--no-browser)", lambda c, m: "typhoon play --no-browser"),  # no browser to open here
    (r"--ladder ADDR\b", lambda c, m: f"--ladder {c.grpc}"),
    (r"--concurrency N\b", lambda c, m: "--concurrency 1"),
    (r"\bmy-bot\b", lambda c, m: c.values.get("BOT_NAME", "my-bot")),
    (r"\bmy-team\b", lambda c, m: c.values.get("OWNER_NAME", "my-team")),
    (r"(?<![$\w])OWNER_KEY\b(?!=)", lambda c, m: c.values.get("OWNER_KEY", "OWNER_KEY")),
    (r"(?<!\$)\bKEY\b(?!=)", lambda c, m: c.values.get("KEY", "KEY")),
    (r"(?<!\$)\bID\b(?!=)", lambda c, m: c.values["ID"]),
    (r"(?<!\$)\bTOKEN\b(?!=)", lambda c, m: c.values["TOKEN"]),
    # jq, where the machine has none: what the documents ask of it
    (r"\bjq ((?:-[rc] )*)", lambda c, m: m.group(0) if shutil.which("jq") else
     f"{sys.executable} {ROOT / 'tests/service/jq_lite.py'} {m.group(1)}"),
]


def substitute(text: str, context: Context) -> str:
    for pattern, value in SUBSTITUTIONS:
        text = re.sub(pattern, lambda match: value(context, match), text)
    return text


def _environment(context: Context) -> dict[str, str]:
    return dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", REDIS_URL="", **context.values)


# --- how a command runs -----------------------------------------------------------------------------------

def run_to_end(command: Command, context: Context, timeout: float = 600) -> str:
    """Runs the command to its end: exit status 0, and for curl a JSON answer that is not an error
    (unless the document says it is)."""
    text = substitute(command.text, context)
    done = subprocess.run(["bash", "-c", text], cwd=context.workdir, env=_environment(context),
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{command}\n  ran as: {text}\n  exit {done.returncode}: {done.stderr[-800:]}"
    if text.startswith("curl"):
        is_error = '"error"' in done.stdout[:40]
        assert is_error == command.expect_error, f"{command}\n  ran as: {text}\n  answered: {done.stdout[:500]}"
        if command.answer:
            problems = answer_problems(command.answer, done.stdout)
            assert not problems, f"{command}\n  ran as: {text}\n  documented: {command.answer}\n  answered: " \
                                 f"{done.stdout[:1500]}\n  " + "\n  ".join(problems)
    return done.stdout


def _values_of(document: object, key: str) -> list[object]:
    """Every value of ``key`` anywhere in a JSON document."""
    found: list[object] = []
    if isinstance(document, dict):
        for name, value in document.items():
            if name == key:
                found.append(value)
            found += _values_of(value, key)
    elif isinstance(document, list):
        for item in document:
            found += _values_of(item, key)
    return found


def answer_problems(documented: str, output: str) -> list[str]:
    """How an answer differs from the one the document shows (which elides with ``...``): every key the
    document names is in the answer; every enum value or reason (``"status": "MATCH_STATUS_OPEN"``), every
    error ``code`` and every whole ``message`` it shows is the answer's own.

    >>> answer_problems('400 {"error": {"code": 400, "reason": "X_Y", "message": "no"}}',
    ...                 '{"error": {"code": 400, "reason": "X_Z", "message": "no"}}')
    ["reason is 'X_Y' in the document, never in the answer"]
    """
    import json

    try:
        answer = json.loads(output)
    except ValueError:
        return [f"the answer is not JSON: {output[:200]!r}"]
    problems = [f"{key!r} is not in the answer" for key in dict.fromkeys(re.findall(r'"(\w+)":', documented))
                if not _values_of(answer, key)]
    shown = re.findall(r'"(\w+)": "([A-Z][A-Z0-9_]+)"', documented) + re.findall(r'"(code)": (\d+)', documented) \
        + [("message", m) for m in re.findall(r'"message": "([^"]*)"', documented) if "..." not in m]
    for key, value in shown:
        if value not in {str(v) for v in _values_of(answer, key)}:
            problems.append(f"{key} is {value!r} in the document, never in the answer")
    return problems


def run_for_a_while(seconds: float, must_print: str = "") -> Callable[[Command, Context], str]:
    """Long or endless commands (a live stream, a bot waiting for its opponent, a series of matches):
    they must not fail within ``seconds`` (exit 0 then, or still running), and print ``must_print``
    (waited for up to five minutes: a loaded machine may take longer than ``seconds`` to start Python)."""

    def runner(command: Command, context: Context) -> str:
        text = substitute(command.text, context)
        process = subprocess.Popen(["bash", "-c", text], cwd=context.workdir, env=_environment(context),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                   start_new_session=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
        reader.start()
        started = time.monotonic()
        while process.poll() is None and (time.monotonic() - started < seconds
                                          or must_print not in "".join(lines) and time.monotonic() - started < 300):
            time.sleep(0.1)
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
            reader.join(30)
            output = "".join(lines)
        else:
            reader.join(30)
            output = "".join(lines)
            assert process.returncode == 0, f"{command}\n  ran as: {text}\n  exit {process.returncode}: {output[-800:]}"
        assert "Traceback" not in output, f"{command}\n  ran as: {text}\n  {output[-800:]}"
        assert must_print in output, f"{command}\n  ran as: {text}\n  printed: {output[-800:]}"
        return output

    return runner


def serve_until_serving(command: Command, context: Context) -> str:
    """``typhoon serve ...``: on free ports, until it logs ``serving``; then a clean stop (SIGTERM)."""
    text = substitute(command.text, context).rstrip(" &")
    process = subprocess.Popen([*shlex.split(text), "--workers", "1"], cwd=context.workdir,
                               env=_environment(context), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    serving = threading.Event()

    def read() -> None:
        for line in process.stdout:
            lines.append(line)
            if '"serving"' in line:
                serving.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        while not serving.wait(0.1):
            assert process.poll() is None, f"{command}\n  ran as: {text}\n  exited: {''.join(lines)[-800:]}"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(60)
    assert process.returncode == 0, f"{command}\n  stopped with {process.returncode}"
    return "".join(lines)


def capture(command: Command, context: Context, timeout: float = 120) -> str:
    """``NAME=$(...)`` (several, with ``;``): runs it, checks every variable got a value, and keeps the
    values for the block's next commands (as the reader's shell would). A seek waits for a match: an
    opponent seeks meanwhile (a random LadderBot, which plays on until the test ends)."""
    text = substitute(command.text, context)
    names = re.findall(r"(?:^|;\s*)([A-Z_]+)=\$\(", text)
    if "/v1/ladder/seek" in text:
        context.helpers.append(_opponent(context))
    script = text + "\n" + "".join(f'printf "%s\\0" "${name}"\n' for name in names)
    done = subprocess.run(["bash", "-c", script], cwd=context.workdir, env=_environment(context),
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{command}\n  ran as: {text}\n  exit {done.returncode}: {done.stderr[-800:]}"
    values = done.stdout.split("\0")[:len(names)]
    for name, value in zip(names, values):
        assert value and value != "null", f"{command}\n  ran as: {text}\n  left {name} empty: {done.stderr[-800:]}"
        context.values[name] = value
    return done.stdout


def _opponent(context: Context):
    """A ladder player seeking (and playing at random) in a thread, once earlier blocks' seekers are gone."""
    from clients.ladder import LadderBot, LadderClient

    time.sleep(6)  # a player counts as seeking 5 s after its stream last looked: let earlier blocks' lapse
    with LadderClient(context.grpc) as ladder:
        key = ladder.register_with_owner(f"docs-opponent-{secrets.token_hex(6)}").api_key
    bot = LadderBot("random", context.grpc, key, seed="docs")
    threading.Thread(target=bot.run, daemon=True).start()
    return bot


def covered_by(test_file: str) -> Callable[[Command, Context], str]:
    """A command a test of its own runs (too long to run twice)."""

    def runner(command: Command, context: Context) -> str:
        assert (ROOT / test_file).exists(), f"{command}: {test_file}, said to run it, is gone"
        return ""

    return runner


def not_run(reason: str) -> Callable[[Command, Context], str]:
    def runner(command: Command, context: Context) -> str:
        return reason

    return runner


#: (pattern, how it runs, what ID and TOKEN stand for: "empty" a match with no seat taken, "open" one with
#: the German seat taken (TOKEN its token), "seated" both seats taken (TOKEN the Soviet one), "finished" a
#: match played and over; "" whatever the rest of the block needs)
RULES: list[tuple[str, Callable[[Command, Context], str], str]] = [
    (r"^make test\b", not_run("it is the run this test is part of"), ""),
    (r"^(make demo|typhoon demo)\b", covered_by("tests/clients/test_demo.py"), ""),
    (r"^make ladder\b", run_to_end, ""),
    (r"^typhoon replay show / render / export$", not_run("names the subcommands below, each run"), ""),
    (r"^typhoon serve \.\.\.$", not_run("stands for the typhoon serve commands above, each run"), ""),
    (r"^typhoon serve\b", serve_until_serving, ""),
    (r"^typhoon ladder register / leaderboard / player$", not_run("names the ladder commands, each run below"), ""),
    (r"^typhoon ladder\b", run_to_end, "ladder"),
    (r"^typhoon bot --ladder\b", run_for_a_while(5, "seeks ladder matches"), "ladder"),
    (r"^\.venv/bin/python -m loadtests\.ladder_run\b", run_to_end, ""),
    (r"^nice -n [0-9]+ \.venv/bin/python benchmarks/bot_strength\.py\b",
     covered_by("tests/clients/test_bot_strength.py"), ""),
    (r"^nice -n [0-9]+ \.venv/bin/python -m clients\.strategies\.fit_evaluation\b",
     covered_by("tests/clients/test_evaluation.py"), ""),
    (r"^grpcurl\b", not_run("grpcurl is a tool of the reader's (the REST twins of these calls are run)"), ""),
    (r"^typhoon play\b", run_for_a_while(20, "open http://"), ""),
    (r"^typhoon bot .*--token", run_for_a_while(5, ""), "seated"),
    (r"^typhoon bot", run_for_a_while(5, ""), "empty"),
    (r"^typhoon match run\b", run_for_a_while(10, ""), ""),
    (r"^typhoon (replay|selfplay)\b", run_to_end, "finished"),
    (r"^typhoon admin abort\b", run_to_end, "seated"),
    (r"^typhoon admin backup FILE\b", covered_by("tests/service/test_service_backup.py"), ""),
    (r"^curl -N\b.*(/v1/ladder|\$KEY|\$MATCH)", run_for_a_while(3, "event: "), "ladder"),
    (r"^curl\b.*(/v1/ladder|\$KEY|\$MATCH|\$PLAYER|\$SEAT_TOKEN)", run_to_end, "ladder"),
    (r"^curl -N\b", run_for_a_while(3, "event: "), "open"),
    (r"^curl\b", run_to_end, "open"),
    (r"^[A-Z_]+=\$\(", capture, "ladder"),
]


def rule_for(command: Command) -> tuple[Callable[[Command, Context], str], str]:
    for pattern, runner, needs in RULES:
        if re.search(pattern, command.text):
            return runner, needs
    raise AssertionError(f"{command}\n  no rule of tests/service/test_docs_commands.py RULES runs this command: "
                         f"add one")


def _values(needs: str, client: TyphoonClient) -> dict[str, str]:
    if needs == "empty":
        match, _ = client.create_match()
        return {"ID": match.match_id, "TOKEN": "no-token-needed"}
    if needs == "ladder":  # a registered player (KEY, PLAYER), a fresh name, and a match to play (MATCH)
        from clients.ladder import LadderClient

        with LadderClient(client.target) as ladder:
            registered = ladder.register_with_owner(f"docs-{secrets.token_hex(6)}")
            player, key = registered.player, registered.api_key
        match, tokens = client.create_match(seats=["german"])
        return {"KEY": key, "PLAYER": player.player_id, "BOT_NAME": f"my-bot-{secrets.token_hex(6)}",
                "OWNER_KEY": registered.owner_key, "OWNER": registered.owner.owner_id,
                "OWNER_NAME": f"me-{secrets.token_hex(6)}",
                "MATCH": match.match_id, "SEAT_TOKEN": tokens["german"], "ID": match.match_id,
                "TOKEN": tokens["german"]}
    if needs in ("open", ""):
        match, tokens = client.create_match(seats=["german"])
        return {"ID": match.match_id, "TOKEN": tokens["german"]}
    match, tokens = client.create_match(seats=["german", "soviet"])
    if needs == "seated":
        return {"ID": match.match_id, "TOKEN": tokens["soviet"]}
    play_random(client, match.match_id, tokens, seed="docs", max_actions=125)  # past --step 120
    client.resign(match.match_id, tokens["german"])
    return {"ID": match.match_id, "TOKEN": tokens["german"]}


BLOCKS = all_blocks()


@pytest.mark.parametrize("block", BLOCKS, ids=[f"{b[0].document}:{b[0].line}" for b in BLOCKS])
def test_the_documented_commands_run(block: list[Command], service, redis_url, tmp_path):
    needs = next((rule_for(c)[1] for c in block if rule_for(c)[1]), "")
    with TyphoonClient(service.target) as client:
        context = Context(grpc=service.target, http=service.base_url.removeprefix("http://"), redis_url=redis_url,
                          workdir=tmp_path, values=_values(needs, client))
        if needs == "finished":  # the export the next commands read
            subprocess.run([BIN / "typhoon", "replay", "export", context.values["ID"], "--server", service.target,
                            "-o", str(tmp_path / f"{context.values['ID']}.jsonl")], check=True, capture_output=True,
                           timeout=600)
        try:
            for command in block:
                runner, wanted = rule_for(command)
                if wanted not in ("", needs):  # this command needs a match of another kind than the block's
                    context.values = _values(wanted, client)
                runner(command, context)
        finally:
            for helper in context.helpers:
                helper.stop()


def test_the_commands_are_found():
    texts = [c.text for block in BLOCKS for c in block]
    assert any(t.startswith("curl -s -X POST localhost:8080/v1/matches ") for t in texts)
    assert any(t.startswith("typhoon replay verify ID") for t in texts)
    assert len(texts) > 30


def test_the_api_tour_lists_every_section_in_order():
    text = (ROOT / "docs/API.md").read_text()
    listed = re.findall(r"^- \[([^\]]+)\]\(#([^)]+)\)$", text, re.M)
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert [title for title, _ in listed] == headings
    assert [anchor for _, anchor in listed] == [re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings]


#: Reasons the service gives only to itself (never in an answer to a client), so not in the errors table.
_INTERNAL_REASONS = {"CLOCK_RUNNING",  # a time forfeit the service tried a moment early: it tries again
                     "CLIENT_GONE"}  # the end of a call whose client closed its connection: nobody reads it


def test_every_reason_the_service_gives_is_in_the_errors_table():
    text = (ROOT / "docs/API.md").read_text()
    table = text[text.index("\n## Errors\n"):]
    table = table[:table.index("\n## ", 1)]
    given = {match.group(1) for path in (ROOT / "service").rglob("*.py") if "gen" not in path.parts
             for match in re.finditer(r'StatusCode\.\w+,\s*"([A-Z][A-Z0-9_]+)"', path.read_text())}
    assert len(given) > 40
    assert sorted(reason for reason in given - _INTERNAL_REASONS if f"`{reason}`" not in table) == []
