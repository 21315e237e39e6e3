"""A server-sent event stream as an ASGI response, that leaves nothing behind when its client goes.

Starlette's ``StreamingResponse`` runs the stream and a wait for the client's disconnect in an anyio task
group; when the client goes, the group's cancellation leaves a reference cycle per stream (anyio's
``task_done`` keeps the ``CancelledError``, whose traceback holds its own frame, which holds the task and
through it the whole stream: the watch, its queue, its events, the connection's objects). Only a full
collection of the garbage collector frees them, and a serving process seldom makes one
(service.run.server.GC_THRESHOLDS): 5,000 watchers closing kept ~200 MB. This response runs the stream
in one plain task and cancels it when the client goes; the task and everything it holds are freed as
soon as it ends.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator

from starlette.types import Receive, Scope, Send


class EventStreamResponse:
    """``text/event-stream`` made of the byte frames ``frames`` yields, until it ends or the client goes
    (then it is closed: its ``finally`` blocks run)."""

    media_type = "text/event-stream"

    def __init__(self, frames: AsyncIterator[bytes], headers: dict[str, str] | None = None) -> None:
        self.frames = frames
        self.headers = [(b"content-type", self.media_type.encode())]
        self.headers += [(name.lower().encode("latin-1"), value.encode("latin-1"))
                         for name, value in (headers or {}).items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.headers})
        pump = asyncio.ensure_future(self._pump(send))
        gone = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait((pump, gone), return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (pump, gone):
                task.cancel()
            # Wait without re-raising: `await task` would add this frame to the traceback of the
            # task's own exception, a cycle (task -> exception -> frame -> task) that only the
            # garbage collector frees, once for every stream a client closed mid-send.
            await asyncio.wait((pump, gone))
            for task in (pump, gone):
                if not task.cancelled() and not isinstance(task.exception(), (OSError, type(None))):
                    raise task.exception()  # type: ignore[misc]

    async def _pump(self, send: Send) -> None:
        frames = self.frames
        try:
            async for frame in frames:
                await send({"type": "http.response.body", "body": frame, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            await frames.aclose()  # type: ignore[attr-defined]


async def _disconnected(receive: Receive) -> None:
    """Returns when the client has gone (the request's body, if any, is read and dropped)."""
    while True:
        message: Any = await receive()
        if message["type"] == "http.disconnect":
            return


__all__ = ["EventStreamResponse"]
