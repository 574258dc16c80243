"""A request body limit enforced while the body is read, never by buffering it first.

A declared `Content-Length` over the limit is refused before a byte of the body is read; a
chunked (or lying) body is counted as it arrives and refused the moment it passes the limit.
Either way the client gets a 413 problem and the server holds at most limit + one chunk.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from validator.decklist import MAX_BYTES as DECKLIST_MAX_BYTES
from validator.service.problems import MEDIA_TYPE, problem_body

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


#: What a request may add around a decklist of the library's limit (`MAX_BYTES`): the
#: options, a form's framing, and JSON's escapes (each newline and quote of a list sent as a
#: JSON string is two bytes: a JSON export sent inside JSON grows by a tenth or more).
BODY_OVERHEAD = DECKLIST_MAX_BYTES // 4 + 64 * 1024
#: The request limit follows the decklist limit, whatever its value: a decklist the library
#: takes is never refused for the size of the request carrying it.
MAX_BODY_BYTES = DECKLIST_MAX_BYTES + BODY_OVERHEAD


class BodyTooLarge(Exception):
    pass


def too_large_detail(max_bytes: int) -> str:
    """The 413 problem's detail, whichever layer refuses the body."""
    return (
        f"the request body is over {max_bytes:,} bytes; the limit of a decklist is "
        f"{DECKLIST_MAX_BYTES:,} bytes (the body may add {max_bytes - DECKLIST_MAX_BYTES:,} "
        "for the options and the JSON or form around it)"
    )


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(scope, send)
            return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge()
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self._refuse(scope, send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        body = json.dumps(
            problem_body("body-too-large", too_large_detail(self.max_bytes), scope.get("path"))
        ).encode()
        # Connection: close - the rest of the body is never read.
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", MEDIA_TYPE.encode()),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None
