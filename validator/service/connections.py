"""What one client may hold of a worker, and the answers the HTTP layer gives itself.

uvicorn bounds the connections of a worker as a whole (`limit_concurrency`): one client
holding them all (1,001 connections, slowloris at 1,200, 2,000 idle keep-alives) made every
other client's request a `503` (text/plain), and each refusal logged a line of its own. Its
request parser (httptools) puts no bound on a request head: a 20 MB header value was read
whole and answered 200. This mixin, put in front of uvicorn's HTTP protocol (protocol.py),
bounds both where the connection is made and where its bytes arrive:

* a client address holds at most `Limits.per_client` connections at once (a connection past
  it is answered 429 `too-many-connections` and closed); a trusted proxy's address
  (`Limits.trusted_proxies`, the only peers whose `X-Forwarded-For` is believed) is not
  bounded so, since it carries many clients;
* near the worker's cap (`Limits.connections`) the connections idle the longest between two
  requests of a keep-alive are closed first, and only when none is idle is a new connection
  answered 503 `server-busy`;
* refused connections are counted and logged in one line per `LOG_SECONDS`, not one each;
* a request head is at most `MAX_HEAD_BYTES` in all, each header line `MAX_LINE_BYTES` and
  the request target `MAX_TARGET_BYTES` (431 `head-too-large` / 414 `uri-too-long`): the
  worker holds at most that plus one read of the socket per connection;
* what the parser refuses (a malformed framing: `Content-Length: -1`, two Content-Lengths,
  Transfer-Encoding beside a Content-Length, a control character) is a 400
  `malformed-request` problem, a Content-Length too large for any counter a 413
  `body-too-large`, instead of uvicorn's text/plain `Invalid HTTP request received.`.

Every one of these answers is `application/problem+json` (RFC 9457) with `Connection: close`.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sys
from collections import Counter, OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network
from typing import Any

import orjson

from validator.service.bodylimit import MAX_BODY_BYTES, too_large_detail
from validator.service.problems import MEDIA_TYPE, PROBLEM_TYPES, problem_body

log = logging.getLogger("uvicorn.error.deckcheck")

#: A request head in all (request line and headers) and each header line: common servers'
#: figures (nginx: 8 KB per line in 4 buffers; Apache 8,190 bytes a line). A browser's head
#: is under 2 KB, a deck site's API call under 1 KB.
MAX_HEAD_BYTES = 64 * 1024
MAX_LINE_BYTES = 8 * 1024
#: The request target may be longer than a header line: a text/plain body takes its options
#: (house rules among them, percent-encoded) from the query string.
MAX_TARGET_BYTES = 32 * 1024
#: Connections one worker holds at once (each costs a file descriptor and buffers); a deck is
#: answered in about a millisecond: far more than it can use at any useful rate.
MAX_CONNECTIONS = 1000
#: Connections one client address holds at once on one worker. A browser opens at most 6 per
#: host; a venue's players behind one NAT address take a few each, briefly. Behind a reverse
#: proxy, list it in `trusted_proxies`.
MAX_CLIENT_CONNECTIONS = 100
#: From this share of MAX_CONNECTIONS on, each new connection first closes the connection idle
#: the longest between two requests (a keep-alive the client may reopen at no cost).
SHED_FROM = 0.9
#: Refused connections are logged once per this many seconds, counted.
LOG_SECONDS = 10.0
#: How long a refused connection is kept to read what the client sends before it is closed
#: (closing with its request unread makes the kernel reset it, and the answer can be lost).
REFUSED_LINGER_SECONDS = 0.25
#: Retry-After of a refused connection (seconds).
RETRY_AFTER = 1


@dataclass(frozen=True)
class Limits:
    """What a worker's connections are bounded by (`deckcheck serve` options)."""

    connections: int = MAX_CONNECTIONS
    per_client: int = MAX_CLIENT_CONNECTIONS
    #: addresses or networks (`10.0.0.0/8`) of reverse proxies whose X-Forwarded-For is
    #: believed; a proxy's own connections are not bounded per address
    trusted_proxies: tuple[str, ...] = ()

    def trusts(self, host: str) -> bool:
        return is_trusted(host, self.trusted_proxies)


def check_trusted(entries: Sequence[str]) -> tuple[str, ...]:
    """`--trusted-proxy` values, each an address or network, or a UsageError naming it."""
    from validator.errors import UsageError

    for entry in entries:
        try:
            ip_network(entry, strict=False)
        except ValueError:
            raise UsageError(
                f"--trusted-proxy {entry!r} is not an IP address or network (10.0.0.1, "
                "10.0.0.0/8, ::1)"
            ) from None
    return tuple(entries)


def is_trusted(host: str, trusted: Sequence[str]) -> bool:
    """Whether `host` (a peer's address) is one of `trusted` (addresses or networks)."""
    if not trusted:
        return False
    try:
        address = ip_address(host)
    except ValueError:
        return host in trusted  # a Unix socket path, say
    return any(network is not None and address in network for network in map(_network, trusted))


@functools.lru_cache(maxsize=256)
def _network(entry: str) -> IPv4Network | IPv6Network | None:
    """A `--trusted-proxy` entry as a network, parsed once (every connection asks)."""
    try:
        return ip_network(entry, strict=False)
    except ValueError:
        return None


def problem_bytes(
    code: str, detail: str, *, retry_after: int | None = None, close: bool = True
) -> bytes:
    """A whole HTTP/1.1 problem+json answer, for the protocol layer to write itself."""
    body = orjson.dumps(problem_body(code, detail))
    status, title = PROBLEM_TYPES[code]
    lines = [
        f"HTTP/1.1 {status} {title}".encode("latin-1", "replace"),
        b"content-type: " + MEDIA_TYPE.encode(),
        b"content-length: %d" % len(body),
    ]
    if retry_after is not None:
        lines.append(b"retry-after: %d" % retry_after)
    if close:
        lines.append(b"connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


@dataclass
class Guard:
    """The connections of one worker (one per uvicorn server state)."""

    limits: Limits
    per_address: Counter[str] = field(default_factory=Counter)
    #: keep-alive connections between two requests, the longest idle first
    idle: OrderedDict[Any, None] = field(default_factory=OrderedDict)
    refused_by_client: Counter[str] = field(default_factory=Counter)
    refused_busy: int = 0
    shed: int = 0
    #: requests the protocol answered itself (malformed, head too large...), by problem code
    protocol_errors: Counter[str] = field(default_factory=Counter)
    _timer: asyncio.TimerHandle | None = None

    def count_refusal(self, loop: asyncio.AbstractEventLoop, client: str | None) -> None:
        if client is None:
            self.refused_busy += 1
        elif client in self.refused_by_client or len(self.refused_by_client) < 1000:
            self.refused_by_client[client] += 1
        else:  # addresses counted per line are bounded; the rest counted under one key
            self.refused_by_client["other addresses"] += 1
        self.schedule_flush(loop)

    def count_protocol_error(self, loop: asyncio.AbstractEventLoop, code: str) -> None:
        self.protocol_errors[code] += 1
        self.schedule_flush(loop)

    def schedule_flush(self, loop: asyncio.AbstractEventLoop) -> None:
        """The next `flush` in LOG_SECONDS, unless one is already due: one line per period."""
        if self._timer is None:
            self._timer = loop.call_later(LOG_SECONDS, self.flush)

    def flush(self) -> None:
        """The one line saying what was refused since the last."""
        self._timer = None
        by_client = sum(self.refused_by_client.values())
        if by_client:
            worst, most = self.refused_by_client.most_common(1)[0]
            log.warning(
                "refused %d connections in the last %.0f s from %d client addresses over "
                "%d connections each (most from %s: %d)",
                by_client,
                LOG_SECONDS,
                len(self.refused_by_client),
                self.limits.per_client,
                worst,
                most,
            )
        if self.refused_busy or self.shed:
            log.warning(
                "at the cap of %d connections in the last %.0f s: closed %d idle keep-alive "
                "connections, refused %d connections",
                self.limits.connections,
                LOG_SECONDS,
                self.shed,
                self.refused_busy,
            )
        if self.protocol_errors:
            log.warning(
                "answered %d requests that were not valid or too large in the last %.0f s (%s)",
                sum(self.protocol_errors.values()),
                LOG_SECONDS,
                ", ".join(f"{code}: {n}" for code, n in sorted(self.protocol_errors.items())),
            )
        self.refused_by_client.clear()
        self.protocol_errors.clear()
        self.refused_busy = self.shed = 0


def guard_of(server_state: Any, limits: Limits) -> Guard:
    guard = getattr(server_state, "deckcheck_guard", None)
    if guard is None:
        guard = Guard(limits)
        server_state.deckcheck_guard = guard
    return guard


class HeadTooLarge(Exception):
    """Raised from a parser callback: the parser stops, and the protocol answers 431/414."""


class ConnectionGuard:
    """Mixed in before a uvicorn HTTP protocol class (httptools or h11; the head bounds need
    httptools' callbacks: h11 bounds a head itself, at 16 KB, answered 400)."""

    limits: Limits = Limits()
    #: whether the parser calls on_url / on_header / on_message_begin (httptools)
    head_bounded = True

    _guard: Guard
    _counted: str | None = None  # the address this connection is counted under
    _refused = False
    _head_done = False
    _head_pending = 0  # bytes fed while the current head is incomplete
    _head_size = 0  # bytes of the current head's parsed lines
    _too_large: str | None = None  # the problem code, once a bound is passed

    # -------------------------------------------------------------- connections
    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._guard = guard_of(self.server_state, self.limits)  # type: ignore[attr-defined]
        limits, guard = self.limits, self._guard
        host = self.client[0] if self.client else None  # type: ignore[attr-defined]
        if host is not None and not limits.trusts(host):
            if guard.per_address[host] >= limits.per_client:
                guard.count_refusal(self.loop, host)  # type: ignore[attr-defined]
                self._refuse(
                    "too-many-connections",
                    f"this address already holds {limits.per_client} connections to the "
                    "server; reuse one (keep-alive) or close some, then retry",
                )
                return
            guard.per_address[host] += 1
            self._counted = host
        connections = self.connections  # type: ignore[attr-defined]
        soft = int(limits.connections * SHED_FROM)
        closing = 0
        while len(connections) - closing > soft and guard.idle:
            idle, _ = guard.idle.popitem(last=False)
            if not idle.transport.is_closing():
                idle.transport.close()
                closing += 1
                guard.shed += 1
        if closing:
            guard.schedule_flush(self.loop)  # type: ignore[attr-defined]
        if len(connections) - closing > limits.connections:
            guard.count_refusal(self.loop, None)  # type: ignore[attr-defined]
            self._refuse(
                "server-busy",
                f"the server holds {limits.connections} connections, none of them idle; "
                f"retry in {RETRY_AFTER} s",
            )

    def _refuse(self, code: str, detail: str) -> None:
        """Answer `code` at once and close shortly: the connection counts for nothing."""
        self._refused = True
        self._uncount()
        self.connections.discard(self)  # type: ignore[attr-defined]
        transport = self.transport  # type: ignore[attr-defined]
        transport.write(problem_bytes(code, detail, retry_after=RETRY_AFTER))
        self.loop.call_later(REFUSED_LINGER_SECONDS, transport.close)  # type: ignore[attr-defined]

    def _uncount(self) -> None:
        if self._counted is not None:
            left = self._guard.per_address[self._counted] - 1
            if left > 0:
                self._guard.per_address[self._counted] = left
            else:
                del self._guard.per_address[self._counted]
            self._counted = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._uncount()
        if hasattr(self, "_guard"):
            self._guard.idle.pop(self, None)
        super().connection_lost(exc)  # type: ignore[misc]

    def on_response_complete(self) -> None:
        super().on_response_complete()  # type: ignore[misc]
        transport = self.transport  # type: ignore[attr-defined]
        if not transport.is_closing() and not getattr(self, "pipeline", None):
            self._guard.idle[self] = None  # waiting for the next request of a keep-alive

    # ---------------------------------------------------------------- the head
    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # read and dropped until the answer's linger closes the connection
        self._guard.idle.pop(self, None)
        super().data_received(data)  # type: ignore[misc]
        if not self.head_bounded or self._head_done or self._refused or self.transport.is_closing():  # type: ignore[attr-defined]
            return
        # The head is still incomplete after this read: all of it was head.
        self._head_pending += len(data)
        if self._head_pending > MAX_HEAD_BYTES:
            self._too_large = "head-too-large"
            self.send_400_response("")

    def on_message_begin(self) -> None:
        self._head_done, self._head_pending, self._head_size = False, 0, 0
        super().on_message_begin()  # type: ignore[misc]

    def on_url(self, url: bytes) -> None:
        super().on_url(url)  # type: ignore[misc]
        if len(self.url) > MAX_TARGET_BYTES:  # type: ignore[attr-defined]
            self._too_large = "uri-too-long"
            raise HeadTooLarge()
        self._head_size += len(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        line = len(name) + len(value) + 4  # ": " and CRLF
        self._head_size += line
        if line > MAX_LINE_BYTES or self._head_size > MAX_HEAD_BYTES:
            self._too_large = "head-too-large"
            raise HeadTooLarge()
        super().on_header(name, value)  # type: ignore[misc]

    def on_headers_complete(self) -> None:
        self._head_done = True
        super().on_headers_complete()  # type: ignore[misc]

    def send_400_response(self, msg: str) -> None:
        """What uvicorn answers for a request its parser refused, as a problem: the bound
        passed (431/414), a Content-Length over any counter (413), else a malformed request."""
        if self.transport.is_closing():  # type: ignore[attr-defined]
            return
        reason = str(sys.exc_info()[1] or "")
        code = self._too_large or (
            "body-too-large" if "Content-Length overflow" in reason else "malformed-request"
        )
        self._guard.count_protocol_error(self.loop, code)  # type: ignore[attr-defined]
        if code == "head-too-large":
            answer = problem_bytes(
                "head-too-large",
                f"the request head is over {MAX_HEAD_BYTES:,} bytes, or a header line over "
                f"{MAX_LINE_BYTES:,} bytes",
            )
        elif code == "uri-too-long":
            answer = problem_bytes(
                "uri-too-long",
                f"the request target is over {MAX_TARGET_BYTES:,} bytes; send the options "
                "in a JSON or form body",
            )
        elif code == "body-too-large":
            answer = problem_bytes("body-too-large", too_large_detail(MAX_BODY_BYTES))
        else:
            why = f" ({reason})" if reason and reason.isprintable() and len(reason) < 100 else ""
            answer = problem_bytes(
                "malformed-request",
                f"the request is not valid HTTP/1.1{why}: check its framing "
                "(Content-Length, Transfer-Encoding) and that its head has no control characters",
            )
        self.transport.write(answer)  # type: ignore[attr-defined]
        self.transport.close()  # type: ignore[attr-defined]
