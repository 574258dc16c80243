"""HTTP errors as RFC 9457 problem details (`application/problem+json`).

Every error the service answers has a stable `type` (a URN built from a code that is only ever
added, never renamed, like problem codes in reports), a `title`, the HTTP `status` and a
`detail` saying what was wrong and what to do next. Client input never produces a 500, and no
response ever carries a stack trace: unexpected exceptions are logged on the server and answered
with a bare `internal-error` problem.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from validator.errors import DeckcheckError

MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:deckcheck:problem:"

log = logging.getLogger("uvicorn.error.deckcheck")  # shown with the server's own log

#: code -> (HTTP status, title). The README's "Error types" table lists the same codes.
PROBLEM_TYPES: dict[str, tuple[int, str]] = {
    "malformed-body": (400, "The request body could not be read"),
    "malformed-request": (400, "The request is not valid HTTP"),
    "cors-refused": (400, "Cross-origin request refused"),
    "unknown-format": (400, "Unknown format"),
    "bad-decklist": (400, "The input is not a decklist"),
    "bad-condition": (400, "A house rule could not be read"),
    "bad-input": (400, "Bad input"),
    "bad-as-of": (400, "The as-of date is not a date, or is before the legality history"),
    "unknown-card": (404, "No card by that name"),
    "ambiguous-printed-name": (404, "A printed name of several cards: ask by the English name"),
    "not-found": (404, "No such resource"),
    "method-not-allowed": (405, "Method not allowed"),
    "body-too-large": (413, "Request body too large"),
    "uri-too-long": (414, "Request target too long"),
    "unsupported-media-type": (415, "Unsupported content type"),
    "invalid-field": (422, "A field has the wrong type or value"),
    "too-many-connections": (429, "Too many connections from this address"),
    "too-many-requests": (429, "Too many expensive requests from this address"),
    "head-too-large": (431, "Request head too large"),
    "not-ready": (503, "The card data is not loaded yet"),
    "database-unavailable": (503, "The card database is unavailable"),
    "server-busy": (503, "The server is busy"),
    "internal-error": (500, "Internal error"),
}

#: Library error codes (validator.errors) -> service problem codes, where they differ.
_LIBRARY_CODES = {"bad-format": "unknown-format"}


#: The detail of every `database-unavailable` answer (the cause is in the server's log).
DATABASE_UNAVAILABLE = (
    "the card database cannot be read right now; retry later (the cause is logged on the server)"
)


class ProblemError(Exception):
    """Raise in a route to answer with a problem: `ProblemError("unknown-card", "...")`."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code, self.detail, self.extra = code, detail, extra


def problem_body(
    code: str, detail: str, instance: str | None = None, **extra: Any
) -> dict[str, Any]:
    # A library error code the table does not list yet (they are stable too) is a 400.
    status, title = PROBLEM_TYPES.get(code, PROBLEM_TYPES["bad-input"])
    body: dict[str, Any] = {
        "type": TYPE_PREFIX + code,
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
    }
    if instance and len(instance) <= 256:  # a request path is echoed back only when short
        body["instance"] = instance
    body.update(extra)
    return body


def problem_response(
    code: str,
    detail: str,
    instance: str | None = None,
    *,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    body = problem_body(code, detail, instance, **extra)
    return JSONResponse(body, status_code=body["status"], media_type=MEDIA_TYPE, headers=headers)


def from_library_error(exc: DeckcheckError) -> ProblemError:
    """A library error about the client's input as a problem (the message names what to fix),
    keeping the library's stable code (e.g. `bad-as-of`) as the problem's code.
    DatabaseError is the server's trouble, not the client's: 503."""
    code = _LIBRARY_CODES.get(exc.code, exc.code) or "bad-input"
    return ProblemError(code, str(exc) or code)


def error_response(exc: BaseException, instance: str | None) -> JSONResponse | None:
    """The problem answer to a ProblemError or a library error (the JSON fast path answers
    with it too); None for any other exception."""
    if isinstance(exc, ProblemError):
        extra = dict(exc.extra)
        headers = extra.pop("headers", None)  # e.g. Retry-After: not part of the body
        return problem_response(
            exc.code, exc.detail, extra.pop("instance", instance), headers=headers, **extra
        )
    if isinstance(exc, DeckcheckError):
        if exc.code == "database-unavailable":
            # The cause (a file path, the CLI's advice) is for the operator: logged here,
            # never handed to an anonymous client.
            log.error("card database: %s", exc)
            return problem_response("database-unavailable", DATABASE_UNAVAILABLE, instance)
        problem = from_library_error(exc)
        return problem_response(problem.code, problem.detail, instance)
    return None


def _field_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    """Pydantic's errors without the submitted values (they can be a megabyte of decklist)."""
    return [
        {
            "field": ".".join(str(p) for p in e.get("loc", ()) if p != "body"),
            "message": e.get("msg", ""),
        }
        for e in exc.errors()
    ]


_HTTP_CODES = {
    404: "not-found",
    405: "method-not-allowed",
    413: "body-too-large",
    415: "unsupported-media-type",
    400: "malformed-body",
    422: "invalid-field",
}


def install(app: FastAPI) -> None:
    """Route every error through problem+json."""

    @app.exception_handler(ProblemError)
    @app.exception_handler(DeckcheckError)
    async def _problem(request: Request, exc: Exception) -> JSONResponse:
        response = error_response(exc, request.url.path)
        assert response is not None  # registered for exactly the errors it answers
        return response

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = _field_errors(exc)
        where = "; ".join(f"{e['field'] or 'body'}: {e['message']}" for e in errors[:5])
        return problem_response(
            "invalid-field", where or "invalid request", request.url.path, errors=errors
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code)
        if code is None:
            body = {"type": "about:blank", "title": str(exc.detail), "status": exc.status_code}
            return JSONResponse(body, status_code=exc.status_code, media_type=MEDIA_TYPE)
        detail = exc.detail if isinstance(exc.detail, str) else PROBLEM_TYPES[code][1]
        return problem_response(
            code, detail, request.url.path, headers=getattr(exc, "headers", None)
        )

    @app.exception_handler(ClientDisconnect)
    async def _gone(request: Request, exc: ClientDisconnect) -> JSONResponse:
        # The client closed the connection before sending its whole body: not a server error
        # (no traceback, one line); the answer goes nowhere (uvicorn drops it).
        log.info(
            "client went away before sending its whole body: %s %s",
            request.method,
            request.url.path,
        )
        return problem_response("malformed-body", "the request body ended early", request.url.path)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # Logged with its traceback on the server; the client gets no internals.
        log.exception("unexpected error answering %s %s", request.method, request.url.path)
        return problem_response(
            "internal-error",
            "the server failed to answer; the error is logged on the server",
            request.url.path,
        )


class ProblemCORSMiddleware(CORSMiddleware):
    """Starlette's CORS, its refused preflight (`400 Disallowed CORS origin`, text/plain)
    answered as a problem like every other error."""

    def preflight_response(self, request_headers: Headers) -> Response:
        response = super().preflight_response(request_headers)
        if response.status_code != 400:
            return response
        refused = bytes(response.body).decode("latin-1")  # "Disallowed CORS origin, method"
        body = problem_body(
            "cors-refused",
            f"{refused}: this server answers browsers from the origins it was started with "
            "(deckcheck serve --cors-origin), for GET and POST with a Content-Type header",
        )
        headers = {
            k: v for k, v in response.headers.items() if k not in ("content-length", "content-type")
        }
        return JSONResponse(body, status_code=400, media_type=MEDIA_TYPE, headers=headers)
