"""The page: plain HTML, CSS and JavaScript modules from ``service/api/web/`` (package data; no build step,
nothing from another site), served at ``/`` with its files under ``/web/``.

The page is a client of the REST API like any other: lobby (ListMatches), match (GetScenario, GetMatch,
the WatchMatch SSE stream), replay (GetEventLog, GetMatch at a version, VerifyMatch) and play
(ListLegalActions, PreviewBattle, SubmitAction with a seat token). Its routes live in the URL's fragment
(``/#/match/<id>``, ``/#/replay/<id>``, ``/#/play/<id>``), so the server serves one document.

Caching: the document names its files under ``/web/v/<version>/``, the version being a digest of the
files themselves, and those answers may be kept for a year (``immutable``): a new page is new URLs.
The same files under ``/web/`` (for people and tests) are revalidated each time (ETag).

What the service tells the page, in ``<meta>`` tags of the document (:class:`PageSettings`): where its
API is (its own origin unless ``typhoon serve --page-api-origin``) and the gRPC address a bot is told to
connect to (the page's host and the service's real gRPC port unless ``--public-grpc-address``).
"""

from __future__ import annotations

import hashlib
import html
import re
from dataclasses import dataclass
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

WEB_DIR = Path(__file__).resolve().parent / "web"

#: A year: what a versioned file may be kept for (its URL changes with its content).
IMMUTABLE = "public, max-age=31536000, immutable"


@dataclass(frozen=True)
class PageSettings:
    """What the page is told. ``grpc_port``: the service's gRPC port (the invitation's bot command names
    it); ``grpc_address``: ``host:port`` to name instead (a proxy's, a load balancer's); ``api_origin``: the
    origin of the API the page calls (``https://api.example.org``) when it is not the page's own (that
    API must allow the page's origin: ``--cors-origin``)."""

    grpc_port: int = 0
    grpc_address: str = ""
    api_origin: str = ""

    def __post_init__(self) -> None:
        if self.api_origin and not re.fullmatch(r"https?://[A-Za-z0-9.\-]+(:[0-9]{1,5})?|https?://\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?",
                                                self.api_origin):
            raise ValueError(f"the page's API origin must be a scheme, a host and an optional port, such as "
                             f"https://api.example.org, not {self.api_origin!r}")
        if self.grpc_address and not re.fullmatch(r"[A-Za-z0-9.\-\[\]:]+:[0-9]{1,5}", self.grpc_address):
            raise ValueError(f"the public gRPC address must be host:port, not {self.grpc_address!r}")


def version() -> str:
    """A digest of the page's files: their URLs change when any of them does.

    >>> len(version())
    12
    """
    digest = hashlib.sha256()
    for path in sorted(WEB_DIR.iterdir()):
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


class _Files(StaticFiles):
    """The page's files with a Cache-Control header (StaticFiles gives ETag and Last-Modified)."""

    def __init__(self, cache_control: str) -> None:
        super().__init__(directory=WEB_DIR)
        self.cache_control = cache_control

    def file_response(self, full_path, stat_result, scope: Scope, status_code: int = 200) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = self.cache_control
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response


def document(settings: PageSettings, static: str) -> str:
    """index.html with its files' versioned prefix and the settings in its meta tags."""
    text = (WEB_DIR / "index.html").read_text()
    meta = (f'<meta name="typhoon-api" content="{html.escape(settings.api_origin)}">\n'
            f'<meta name="typhoon-grpc-port" content="{settings.grpc_port or ""}">\n'
            f'<meta name="typhoon-grpc-address" content="{html.escape(settings.grpc_address)}">')
    return text.replace("/web/", f"{static}/").replace("<!-- settings -->", meta)


def headers(settings: PageSettings) -> dict[str, str]:
    """The document's headers: it loads nothing from elsewhere, and calls only its API."""
    connect = f" connect-src 'self' {settings.api_origin};" if settings.api_origin else ""
    return {"Content-Security-Policy": f"default-src 'self';{connect} img-src 'self' data: blob:; "
                                       "style-src 'self' 'unsafe-inline'",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"}


def add_page(app: FastAPI, settings: PageSettings | None = None) -> None:
    settings = settings or PageSettings()
    static = f"/web/v/{version()}"
    body, answer_headers = document(settings, static), headers(settings)

    async def index() -> Response:
        return HTMLResponse(body, headers=answer_headers)

    app.add_api_route("/", index, methods=["GET", "HEAD"], include_in_schema=False)
    app.mount(static, _Files(IMMUTABLE), name="web-versioned")
    app.mount("/web", _Files("no-cache"), name="web")
