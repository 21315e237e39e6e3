"""The page: plain HTML, CSS and JavaScript modules from ``service/api/web/`` (package data; no build step,
nothing from another site), served at ``/`` with its files under ``/web/``.

The page is a client of the REST API like any other: lobby (ListMatches), match (GetScenario, GetMatch,
the WatchMatch SSE stream), replay (GetEventLog, GetMatch at a version, VerifyMatch) and play
(ListLegalActions, SubmitAction with a seat token). Its routes live in the URL's fragment
(``/#/match/<id>``, ``/#/replay/<id>``, ``/#/play/<id>``), so the server serves one document.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, Response
from starlette.staticfiles import StaticFiles

WEB_DIR = Path(__file__).resolve().parent / "web"

#: The page loads nothing from elsewhere; the API it calls is on its own origin.
_HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


def add_page(app: FastAPI) -> None:
    async def index() -> Response:
        return FileResponse(WEB_DIR / "index.html", media_type="text/html", headers=_HEADERS)

    app.add_api_route("/", index, methods=["GET", "HEAD"], include_in_schema=False)
    app.mount("/web", StaticFiles(directory=WEB_DIR), name="web")
