"""How the service serves the page (issue 28, speed and small things): compressed answers (never the
event stream), the page's files under versioned URLs kept for a year and revalidated under their plain
ones, the document naming the real gRPC port and, when set, the API's other origin."""

from __future__ import annotations

import re
import subprocess
import sys

from service.api import web
from service.processes import ROOT
from service_helpers import ServiceProcess


def test_the_document_names_versioned_files_and_the_real_grpc_port(service, http):
    page = http.get("/")
    assert page.status_code == 200 and page.headers["cache-control"] == "no-cache"
    version = web.version()
    assert f'src="/web/v/{version}/app.js"' in page.text and f'href="/web/v/{version}/style.css"' in page.text
    assert re.search(rf'<meta name="typhoon-grpc-port" content="{service.grpc_port}">', page.text), page.text
    assert "connect-src" not in page.headers["content-security-policy"]  # its own origin only

    versioned = http.get(f"/web/v/{version}/match.js", headers={"Accept-Encoding": "gzip"})
    assert versioned.status_code == 200 and versioned.headers["content-encoding"] == "gzip"
    assert versioned.headers["cache-control"] == web.IMMUTABLE
    assert "export function showMatch" in versioned.text  # httpx decodes it

    plain = http.get("/web/match.js")
    assert plain.headers["cache-control"] == "no-cache" and plain.headers["etag"]
    again = http.get("/web/match.js", headers={"If-None-Match": plain.headers["etag"]})
    assert again.status_code == 304
    assert http.get("/web/v/000000000000/match.js").status_code == 404  # an old version is gone, not stale


def test_api_answers_are_compressed_and_the_event_stream_is_not(service, http, client):
    match, tokens = client.create_match("standard", seats=[("german", "Bock"), ("soviet", "Zhukov")])
    legal = http.get(f"/v1/matches/{match.match_id}/legal-actions", headers={"Accept-Encoding": "gzip"})
    assert legal.headers["content-encoding"] == "gzip" and legal.json()["actions"]
    small = http.get("/healthz", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in small.headers  # too small to gain
    with http.stream("GET", f"/v1/matches/{match.match_id}/watch", headers={"Accept-Encoding": "gzip"},
                     params={"heartbeat_seconds": 1}) as stream:
        assert "content-encoding" not in stream.headers
        lines = stream.iter_lines()
        assert next(line for line in lines if line.startswith("event:")) == "event: match_event"  # sent at once


def test_the_page_told_of_an_api_on_another_origin_and_a_public_grpc_address(redis_url):
    api = "https://api.example.org:8443"
    process = ServiceProcess("--redis-url", redis_url, "--page-api-origin", api,
                             "--public-grpc-address", "play.example.org:443").start()
    try:
        with process.http() as http:
            page = http.get("/")
        assert f'<meta name="typhoon-api" content="{api}">' in page.text
        assert '<meta name="typhoon-grpc-address" content="play.example.org:443">' in page.text
        assert f"connect-src 'self' {api};" in page.headers["content-security-policy"]
    finally:
        process.stop()


def test_a_page_setting_that_is_not_an_origin_is_refused_at_start():
    for flag, value in (("--page-api-origin", "https://api.example.org/path"),
                        ("--page-api-origin", "javascript:alert(1)"), ("--public-grpc-address", "no port")):
        run = subprocess.run([sys.executable, "-m", "clients.cli", "serve", flag, value], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 2 and "typhoon serve:" in run.stdout and "Traceback" not in run.stderr, run
