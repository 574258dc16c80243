"""Deadlines uvicorn does not have: for a request's head and for its body.

uvicorn closes a keep-alive connection idle after a response (`timeout_keep_alive`), but a
connection that never completes a request head (opened and left silent, or a header sent a
byte at a time) and a body trickled a byte every half second are held for as long as the
client likes (1,100 connections held with partial headers, or a 200-byte body sent over
100 s, would hold as many workers' slots). These protocols (uvicorn's own, with a timer per request) close the
connection when

* the request head has not arrived HEAD_SECONDS after the connection was opened or the
  request's first byte came in, or
* the body has not arrived BODY_SECONDS after that.

Closing mid-body tells the app the client went away (`http.disconnect`), which it answers
as a client that left: one INFO line (problems.py). A request being answered is never cut:
the deadlines end when the body is complete.
"""

from __future__ import annotations

import asyncio
from typing import Any

HEAD_SECONDS = 10.0  # a request head is under 8 KB: seconds even on a poor phone connection
BODY_SECONDS = (
    20.0  # the body (at most the body limit, ~5 MB; a decklist is ~10 KB) after the head deadline
)


class RequestDeadlines:
    """Mixed in before a uvicorn HTTP protocol class (httptools or h11: both keep the request
    in flight as `self.cycle`, with `more_body` and `response_complete`)."""

    head_seconds = HEAD_SECONDS
    body_seconds = BODY_SECONDS
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self._arm()

    #: The request after which the head deadline was last set (None: the connection's open).
    _armed_after: Any = None

    def data_received(self, data: bytes) -> None:
        cycle = self.cycle  # type: ignore[attr-defined]
        if cycle is not None and cycle.response_complete and cycle is not self._armed_after:
            # The first bytes of the next request on a kept-alive connection: its head has
            # HEAD_SECONDS from now, not what is left of a timer set when the connection
            # opened (which, having seen a request complete, closed nothing and let the next
            # head take up to twice as long).
            if self._deadline is not None:
                self._deadline.cancel()
            self._arm()
        super().data_received(data)  # type: ignore[misc]

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        super().connection_lost(exc)  # type: ignore[misc]

    def _arm(self) -> None:
        self._armed_after = self.cycle  # type: ignore[attr-defined]
        self._deadline = self.loop.call_later(  # type: ignore[attr-defined]
            self.head_seconds,
            self._head_due,
            self.cycle,  # type: ignore[attr-defined]
        )

    def _head_due(self, before: Any) -> None:
        self._deadline = None
        cycle = self.cycle  # type: ignore[attr-defined]
        if cycle is before:  # no new request head completed since the deadline was set
            self._close()
        elif cycle.more_body and not cycle.response_complete:
            self._deadline = self.loop.call_later(  # type: ignore[attr-defined]
                self.body_seconds, self._body_due, cycle
            )

    def _body_due(self, cycle: Any) -> None:
        self._deadline = None
        if self.cycle is cycle and cycle.more_body and not cycle.response_complete:  # type: ignore[attr-defined]
            self._close()

    def _close(self) -> None:
        transport = self.transport  # type: ignore[attr-defined]
        if transport is not None and not transport.is_closing():
            transport.close()
