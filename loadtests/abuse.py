"""Attacks on a local service, bounded, and what each one got: the abuse benchmark.

    .venv/bin/python -m loadtests.abuse                       # every attack against a fresh local service
    .venv/bin/python -m loadtests.abuse --only flood,slow     # some of them
    .venv/bin/python -m loadtests.abuse --serve-arg=--max-watch-streams-per-client=50 ...
    .venv/bin/python -m loadtests.abuse --json out.json

It starts ``typhoon serve`` with its defaults (its own embedded Redis, in a temporary directory), trusting
127.0.0.1 as a proxy (``--trusted-proxy``, as a deployment behind the documented proxy does: an attack
may stand for several clients by sending ``X-Forwarded-For``; one that sends none is 127.0.0.1), then
runs each attack of :data:`loadtests.attacks.ATTACKS` one after the other, each for a bounded time,
and prints one table: per attack, what it tried and what it got (refusals by reason, the farmer's
rank, memory before and after, sockets closed, keys refused...). It is a benchmark, not a test: it
prints figures and judges nothing; its figures are quoted in the closing notes of the issue that made
the service safe to expose (before and after). An attack is a module of ``loadtests/attacks/`` with a
``NAME``, a ``SUMMARY`` and ``run(target, seconds) -> dict`` (see :class:`loadtests.attacks.Target`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from typing import Any

from tabulate import tabulate

from loadtests.attacks import ATTACKS, Target
from service.processes import ServeProcess


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m loadtests.abuse", description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated attack names (default: all): "
                                                   + ", ".join(attack.NAME for attack in ATTACKS))
    parser.add_argument("--seconds", type=float, default=20.0, help="at most this long per attack (default 20)")
    parser.add_argument("--serve-arg", action="append", default=[], help="an extra typhoon serve argument")
    parser.add_argument("--json", metavar="FILE", help="write every figure as JSON")
    args = parser.parse_args(argv)
    chosen = [a for a in ATTACKS if not args.only or a.NAME in args.only.split(",")]
    unknown = set(filter(None, args.only.split(","))) - {a.NAME for a in ATTACKS}
    if unknown:
        parser.error(f"no such attack: {', '.join(sorted(unknown))}")
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="typhoon-abuse-") as data_dir:
        service = ServeProcess("--data-dir", data_dir, "--trusted-proxy", "127.0.0.1", *args.serve_arg, remember=2000).start()
        try:
            target = Target(grpc=f"127.0.0.1:{service.grpc_port}", http=f"http://127.0.0.1:{service.http_port}",
                            service=service)
            for attack in chosen:
                started = time.monotonic()
                print(f"{attack.NAME}: {attack.SUMMARY}", file=sys.stderr, flush=True)
                try:
                    figures = attack.run(target, args.seconds)
                except Exception as error:  # noqa: BLE001 - a benchmark reports an attack that broke, and goes on
                    figures = {"error": repr(error)}
                figures["seconds"] = round(time.monotonic() - started, 1)
                results[attack.NAME] = figures
        finally:
            service.stop()
    rows = [[name, "; ".join(f"{key} {value}" for key, value in figures.items())] for name, figures in results.items()]
    print(tabulate(rows, headers=["attack", "what it got"], maxcolwidths=[None, 100]))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=2, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
