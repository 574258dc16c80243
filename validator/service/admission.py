"""A bounded share of a worker for expensive requests: each client's, and all clients'.

`POST /v1/check-formats` judges a deck in every format (22 of them), and a large decklist
(past the inline limits of app.judge) is judged in the threadpool: 16 clients each sending
check-formats with 4,999 unknown names pushed every other client's answer past 1 s (worst
2.75 s), the judging threads taking the interpreter from the event loop. At most
`per_client` such requests of one client address and `total` of all clients are judged at
once per worker; one more is answered at once, 429 `too-many-requests` (that client's share
is taken) or 503 `server-busy` (all of it is), with `Retry-After`, while ordinary validations
(judged inline) go on. A slot is held until the judging thread ends, even when its client
has gone away.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool

from validator.service.problems import ProblemError

#: Expensive requests judged at once per worker, in all and per client address. The
#: interpreter runs one thread at a time: more at once would only slow each down, and the
#: event loop (which answers every other request) with them.
HEAVY_TOTAL = 4
HEAVY_PER_CLIENT = 2
RETRY_AFTER = 1


class HeavyGate:
    def __init__(self, total: int = HEAVY_TOTAL, per_client: int = HEAVY_PER_CLIENT) -> None:
        self.total, self.per_client = total, per_client
        self._lock = threading.Lock()
        self.in_flight = 0
        self.by_client: Counter[str] = Counter()

    def _admit(self, client: str) -> None:
        retry = {"retry-after": str(RETRY_AFTER)}
        with self._lock:
            if self.by_client[client] >= self.per_client:
                raise ProblemError(
                    "too-many-requests",
                    f"this address already has {self.per_client} expensive requests "
                    "(check-formats, or a large decklist) being judged; send the next when "
                    f"one is answered, or retry in {RETRY_AFTER} s",
                    headers=retry,
                )
            if self.in_flight >= self.total:
                raise ProblemError(
                    "server-busy",
                    f"the server is judging {self.total} expensive requests (check-formats, "
                    f"or a large decklist) already; retry in {RETRY_AFTER} s",
                    headers=retry,
                )
            self.in_flight += 1
            self.by_client[client] += 1

    def _release(self, client: str) -> None:
        with self._lock:
            self.in_flight -= 1
            left = self.by_client[client] - 1
            if left > 0:
                self.by_client[client] = left
            else:
                del self.by_client[client]

    async def run(self, client: str | None, fn: Callable[..., Any], *args: Any) -> Any:
        """`fn(*args)` in the threadpool once admitted for `client` (an address; None: no
        address known, counted as one client); ProblemError when its share is taken."""
        key = client or ""
        self._admit(key)

        def call() -> Any:
            try:
                return fn(*args)
            finally:
                self._release(key)

        return await run_in_threadpool(call)
