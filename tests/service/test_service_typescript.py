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
