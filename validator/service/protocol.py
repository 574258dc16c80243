"""The HTTP protocol `deckcheck serve` runs: uvicorn's (httptools where installed, as its
"auto" picks, else h11) with the connection guard (connections.py: what one client may hold,
the request head's bounds, problem+json for the protocol's own answers) and the request
deadlines (deadlines.py)."""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from validator.service.connections import ConnectionGuard, Limits
from validator.service.deadlines import RequestDeadlines


class ServiceH11Protocol(ConnectionGuard, RequestDeadlines, H11Protocol):
    head_bounded = False  # h11 bounds a head itself (16 KB, answered 400)


try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # no httptools (not CPython): uvicorn's "auto" picks h11 too
    HttpToolsProtocol = None  # type: ignore[misc, assignment]
else:
    import httptools

    class _CountedErrorsHttpTools(HttpToolsProtocol):
        """uvicorn's httptools protocol, a request its parser refuses answered without a log
        line of its own (a client sending 40 a second made 40 lines a second): the guard
        counts it in its periodic line (connections.py)."""

        def data_received(self, data: bytes) -> None:
            self._unset_keepalive_if_required()
            try:
                self.parser.feed_data(data)
            except httptools.HttpParserError:
                self.send_400_response("Invalid HTTP request received.")
            except httptools.HttpParserUpgrade:  # as uvicorn's
                if self._should_upgrade():
                    self.handle_websocket_upgrade()
                else:
                    self._unsupported_upgrade_warning()

    class ServiceHttpToolsProtocol(ConnectionGuard, RequestDeadlines, _CountedErrorsHttpTools):
        pass


def http_protocol_name() -> str:
    """The protocol as an import string (a multi-process uvicorn hands it to each worker by
    name): the default limits."""
    name = "ServiceH11Protocol" if HttpToolsProtocol is None else "ServiceHttpToolsProtocol"
    return f"{__name__}:{name}"


def http_protocol(limits: Limits | None = None) -> Any:
    """The `http=` for uvicorn.Config: the protocol uvicorn's "auto" would pick, bounded by
    `limits` (None: the default limits, as an import string)."""
    if limits is None:
        return http_protocol_name()
    base = ServiceH11Protocol if HttpToolsProtocol is None else ServiceHttpToolsProtocol
    return type(base.__name__, (base,), {"limits": limits})
