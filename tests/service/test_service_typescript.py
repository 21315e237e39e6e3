"""A TypeScript client generated from /openapi.json (openapi-typescript, through npx) types both server-sent
event streams well enough that a consumer of them (tests/service/typescript/consumer.ts) compiles with
``tsc --strict``, and then plays an action and seeks, against the service, with node.

Skipped where node and npx are not installed; the npm packages are cached in a directory of the system's
temporary directory, so only the first run downloads them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from clients.ladder import LadderClient

HERE = Path(__file__).resolve().parent / "typescript"
ROOT = Path(__file__).resolve().parents[2]
OPENAPI_TYPESCRIPT = "openapi-typescript@7.13.0"
TYPESCRIPT = "typescript@5.9.3"

pytestmark = pytest.mark.skipif(not (shutil.which("node") and shutil.which("npx")), reason="node and npx are not installed")


def npx(*args: str, cwd: Path) -> str:
    cache = Path(tempfile.gettempdir()) / "typhoon-npm-cache"
    done = subprocess.run(["npx", "--yes", *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, npm_config_cache=str(cache), npm_config_update_notifier="false",
                                   npm_config_fund="false", npm_config_audit="false"))
    assert done.returncode == 0, f"npx {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done.stdout


def test_a_generated_typescript_client_reads_both_streams(service, http, client, tmp_path):
    (tmp_path / "openapi.json").write_text(json.dumps(http.get("/openapi.json").json()))
    npx(OPENAPI_TYPESCRIPT, "openapi.json", "-o", "api.ts", cwd=tmp_path)
    shutil.copy(HERE / "consumer.ts", tmp_path / "consumer.ts")
    npx("-p", TYPESCRIPT, "tsc", "--strict", "--target", "es2022", "--module", "es2022", "--moduleResolution",
        "bundler", "--lib", "es2022,dom,dom.asynciterable", "--outDir", "out", "consumer.ts", cwd=tmp_path)
    (tmp_path / "out" / "package.json").write_text('{"type": "module"}')

    match, tokens = client.create_match(seats=["german", "soviet"], time_control="blitz")
    with LadderClient(service.target) as ladder:
        key = ladder.register_with_owner(f"typescript-{os.urandom(4).hex()}").api_key
    ran = subprocess.run(["node", "out/consumer.js", service.base_url, match.match_id, tokens["german"], "german", key],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    report = json.loads(ran.stdout)
    watched = report["watched"]
    assert watched["submitted"] == watched["version"] == 1  # it played from the stream, and saw its move's update
    assert watched["statuses"] == ["MATCH_STATUS_ACTIVE", "MATCH_STATUS_ACTIVE"]
    assert report["sought"] == {"playing": 0}
    assert client.get_match(match.match_id).match.version == 1


#: What the Node gRPC example needs (tests/service/typescript/grpc_reason.ts), pinned.
NODE_GRPC = {"@grpc/grpc-js": "1.14.7", "@grpc/proto-loader": "0.8.1", "protobufjs": "7.6.6",
             "@types/node": "20.19.43", "typescript": TYPESCRIPT.split("@")[1]}


def npm_install(packages: dict[str, str], cwd: Path) -> None:
    cache = Path(tempfile.gettempdir()) / "typhoon-npm-cache"
    (cwd / "package.json").write_text(json.dumps({"type": "module", "private": True, "dependencies": packages}))
    done = subprocess.run(["npm", "install", "--prefer-offline", "--no-package-lock"], cwd=cwd, capture_output=True,
                          text=True, timeout=600, env=dict(os.environ, npm_config_cache=str(cache),
                                                           npm_config_update_notifier="false",
                                                           npm_config_fund="false", npm_config_audit="false"))
    assert done.returncode == 0, f"npm install: {done.stdout[-2000:]}{done.stderr[-2000:]}"


def test_a_node_grpc_client_reads_the_reason_of_a_refusal(service, client, tmp_path):
    """The reason of a refusal, its metadata and the sentence, read over gRPC from Node with the google.rpc
    protos shipped in proto/google/rpc/ (the example docs/API.md shows)."""
    npm_install(NODE_GRPC, tmp_path)
    shutil.copy(HERE / "grpc_reason.ts", tmp_path / "grpc_reason.ts")
    tsc = subprocess.run(["node", "node_modules/typescript/bin/tsc", "--strict", "--target", "es2022", "--module",
                          "nodenext", "--moduleResolution", "nodenext", "--types", "node", "grpc_reason.ts"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert tsc.returncode == 0, tsc.stdout[-3000:]
    match, tokens = client.create_match(seats=["german"])
    ran = subprocess.run(["node", "grpc_reason.js", str(ROOT / "proto"), service.target, match.match_id,
                          tokens["german"]], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr[-2000:]
    report = json.loads(ran.stdout)
    assert report["stale"] == {"code": "ABORTED", "domain": "typhoon.v1", "reason": "STALE_VERSION",
                               "message": report["stale"]["message"],
                               "metadata": {"current_version": "0", "expected_version": "7"}}
    assert report["illegal"]["code"] == "INVALID_ARGUMENT" and report["illegal"]["reason"] == "WRONG_PHASE"
    assert report["illegal"]["message"] == "move is not an action of the setup phase"
    assert (report["stranger"]["code"], report["stranger"]["reason"]) == ("UNAUTHENTICATED", "TOKEN_INVALID")
    assert client.get_match(match.match_id).match.version == 0  # each refusal changed nothing
