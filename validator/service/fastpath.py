"""`POST /v1/validate` with a JSON body answered as a plain ASGI layer: the request deck sites
send for nearly every upload, without the framework's per-request machinery.

FastAPI's path for a request (routing, the endpoint's dependency solving, the exception and
exit-stack layers, each wrapping `send` again) costs about 0.07 ms of CPU per request: with
the judging stubbed out the app took ~0.09 ms a request, this layer ~0.02 ms, uvicorn's own
HTTP handling and the socket calls ~0.04 ms (bench/bench_serve.py has the whole figures).
This layer answers the common
case itself and in the same way: the body read within the body limit, the options checked by
the same pydantic model (`ValidateRequest`), the deck judged by the same `Service.validate`
(`app.judge`: inline for a small body), the report written with orjson, with the headers the
framework's `Response` would send. Every other request, and every request that does not end
in a report (a wrong field, an unknown format, a body over the limit, data not loaded yet...),
goes to the full app with the body bytes it has read replayed: the app's handlers answer
those exactly as before (RFC 9457 problem details). A client error found while judging (an
unknown format, say) is answered here with the same problem the app's handler gives, so the
deck is not judged twice. The route itself stays in the app, so the
OpenAPI document and the multipart and text/plain bodies are unchanged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from pydantic import BaseModel
from starlette.datastructures import QueryParams

from validator.service.bodylimit import MAX_BODY_BYTES, ASGIApp, Message, Receive, Scope, Send
from validator.service.problems import error_response

PATH = "/v1/validate"


def is_json(media: str) -> bool:
    """`application/json` or any `application/...+json` (the media type, lower case)."""
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def media_type(value: str) -> str:
    """The media type of a Content-Type header value, without parameters, lower case."""
    return value.split(";")[0].strip().lower()


def declared_charset(content_type: str) -> str | None:
    """The `charset` parameter of a Content-Type value (lower case), or None."""
    for param in content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip('"').lower()
    return None


def is_utf8(charset: str | None) -> bool:
    return charset in (None, "utf-8", "utf8")


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value
    return None


def _route_path(scope: Scope) -> str:
    """The path the app routes on: without the `--root-path` prefix uvicorn puts in front."""
    path, root = scope.get("path", ""), scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


class ValidateFastPath:
    """`app` with POST /v1/validate JSON bodies answered by `answer(model(**body), scope)`."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        model: type[BaseModel],
        answer: Callable[[Any, Scope], Awaitable[dict[str, Any]]],
        max_bytes: int = MAX_BODY_BYTES,
        query_options: frozenset[str] = frozenset(),
    ) -> None:
        self.app, self.model, self.answer, self.max_bytes = app, model, answer, max_bytes
        #: query parameters the app refuses beside a JSON body (the text/plain body's options)
        self.query_options = query_options

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        content_type = (_header(scope, b"content-type") or b"").decode("latin-1")
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or _route_path(scope) != PATH
            or not is_json(media_type(content_type))
            # a body in another declared charset is decoded (or refused) by the app, even
            # when its bytes happen to read as UTF-8: both paths read it the same way
            or not is_utf8(declared_charset(content_type))
            # refused by the app (415 / 400): a compressed body, an option in the query
            # beside it (any other query parameter, `?_=...`, is no concern of the answer)
            or _header(scope, b"content-encoding") is not None
            or self._option_in_query(scope.get("query_string", b""))
        ):
            await self.app(scope, receive, send)
            return
        read: list[Message] = []  # every message taken from `receive`, to replay if need be
        body = await self._read(scope, receive, read)
        options = None
        if body is not None:
            try:
                options = self._options(body)
            except Exception:  # noqa: BLE001 - not valid options: the app answers (problem+json)
                options = None
        if options is None:
            await self.app(scope, _replay(read, receive), send)
            return
        try:
            answer = orjson.dumps(await self.answer(options, scope))
        except Exception as exc:
            # A client error found while judging (an unknown format or commander, a bad as-of
            # date...) is answered here as the app's handlers answer it, not judged again
            # by the app; anything else (a bug) goes to the app, which logs it and answers 500.
            problem = error_response(exc, scope.get("path"))
            if problem is None:
                await self.app(scope, _replay(read, receive), send)
            else:
                await problem(scope, receive, send)  # type: ignore[arg-type]  # ASGI send
            return
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-length", b"%d" % len(answer)),
                    (b"content-type", b"application/json"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": answer})

    def _option_in_query(self, query: bytes) -> bool:
        """Whether the query string names an option (parsed as the app parses it)."""
        return bool(query) and not self.query_options.isdisjoint(QueryParams(query).keys())

    async def _read(self, scope: Scope, receive: Receive, read: list[Message]) -> bytes | None:
        """The whole body, or None when it is over the limit (declared or counted) or the
        client went away: the app then refuses it, never reading more than the limit."""
        declared = _header(scope, b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            return None
        size = 0
        while True:
            message = await receive()
            read.append(message)
            if message["type"] != "http.request":
                return None
            size += len(message.get("body", b""))
            if size > self.max_bytes:
                return None
            if not message.get("more_body", False):
                break
        return (
            read[0].get("body", b"")
            if len(read) == 1
            else b"".join(m.get("body", b"") for m in read)
        )

    def _options(self, body: bytes) -> BaseModel | None:
        """The request's options, or None (or an exception) when the body is not a JSON
        object the model accepts."""
        data = orjson.loads(body)
        if not isinstance(data, dict):
            return None
        return self.model.model_validate(data)


def _replay(read: list[Message], receive: Receive) -> Receive:
    """`receive` that first gives back the messages already read, then reads on."""
    pending = list(read)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed
