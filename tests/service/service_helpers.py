"""Helpers of the service tests: service processes, random play, waiting."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from clients.client import TyphoonClient
from service.processes import stop_process

ROOT = Path(__file__).resolve().parents[2]


class ServiceProcess:
    """`typhoon serve` in a child process; its JSON log lines are collected in ``logs``."""

    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.args = list(args)
        self.env = env
        self.process: subprocess.Popen | None = None
        self.logs: list[dict] = []
        self.grpc_port = 0
        self.http_port = 0
        self._serving = threading.Event()

    def start(self, timeout: float = 30.0) -> "ServiceProcess":
        environment = dict(os.environ, PYTHONUNBUFFERED="1", **(self.env or {}))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "clients.cli", "serve", "--grpc-port", "0", "--http-port", "0", *self.args],
            cwd=ROOT, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True)
        threading.Thread(target=self._read, daemon=True).start()
        if not self._serving.wait(timeout):
            self.stop()
            raise RuntimeError(f"the service did not start: {self.logs[-5:]}")
        return self

    def _read(self) -> None:
        for line in self.process.stdout:
            try:
                entry = json.loads(line)
            except ValueError:
                entry = {"event": "raw", "line": line.rstrip()}
            self.logs.append(entry)
            if entry.get("event") == "serving":
                self.grpc_port, self.http_port = entry["grpc_port"], entry["http_port"]
                self._serving.set()

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def stop(self, timeout: float = 30.0) -> int:
        return stop_process(self.process, timeout) if self.process else 0

    def client(self) -> TyphoonClient:
        return TyphoonClient(self.target, timeout=20)

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=20)


def play_random(client: TyphoonClient, match_id: str, tokens: dict[str, str], seed: str = "test",
                max_actions: int | None = None) -> int:
    """Play random legal actions for both seats until the end (or ``max_actions``); return how many."""
    chooser = random.Random(seed)
    played = 0
    while max_actions is None or played < max_actions:
        legal = client.legal_actions(match_id)
        if not legal.side_to_act:
            break
        client.submit(match_id, tokens[legal.side_to_act], chooser.choice(legal.actions),
                      expected_version=legal.version)
        played += 1
    return played


def wait_for(condition, timeout: float = 10.0, interval: float = 0.02):
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(interval)
