"""The HTTP side of a sync: Scryfall's bulk-data index, and the download of a bulk file.

Every request carries Scryfall's required headers and is throttled to its rate limit; network
errors, timeouts and 5xx are retried with backoff, a 429 waits for Retry-After (at most
`DownloadLimits.max_retry_after`). The bulk-data index and the bulk-file download share one
retry policy (`RetryPolicy`, attached by `make_session`), counted by urllib3's `Retry`. A download always ends: it has a deadline derived from a minimum
transfer rate and a stall timeout, and every answer from the server a deadline of its own
however its bytes trickle (`DownloadLimits`, enforced by a `_Watchdog` that shuts the
connection down).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from validator import __version__
from validator.sync.errors import SyncError, _env_number

log = logging.getLogger("deckcheck.sync")

DEFAULT_API = "https://api.scryfall.com"
ENV_API = "DECKCHECK_SCRYFALL_API"
USER_AGENT = f"deckcheck/{__version__} (+https://pypi.org/project/deckcheck/)"
#: Scryfall's API allows 10 requests a second (docs "Rate Limits").
MIN_REQUEST_INTERVAL = 0.1
#: When a 429 carries no Retry-After, Scryfall's own message says "try again after 60 seconds".
RATE_LIMIT_WAIT = 60.0

#: What to do without a connection to Scryfall (a venue without internet).
OFFLINE_HINT = (
    "without a connection to Scryfall, import a bulk file downloaded elsewhere: "
    "`deckcheck sync --from FILE`, or point DECKCHECK_SCRYFALL_API at a mirror"
)


#: Sent on every request, whatever session the caller passes (Scryfall rejects library-default
#: User-Agents with 400 "generic_user_agent" and requires an Accept header).
HEADERS = {"User-Agent": USER_AGENT, "Accept": "application/json;q=0.9,*/*;q=0.8"}
#: Statuses worth another try: rate limiting and server-side failures.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


def api_base() -> str:
    return os.environ.get(ENV_API, DEFAULT_API).rstrip("/")


ENV_MIN_RATE = "DECKCHECK_SYNC_MIN_RATE"
ENV_STALL_TIMEOUT = "DECKCHECK_SYNC_STALL_TIMEOUT"
ENV_REQUEST_TIMEOUT = "DECKCHECK_SYNC_REQUEST_TIMEOUT"
ENV_MAX_RETRY_AFTER = "DECKCHECK_SYNC_MAX_RETRY_AFTER"
#: 32 KiB/s (256 kbit/s): Scryfall's 170 MB file still finishes (in 90 minutes) on a line that
#: slow; a venue line of 1 Mbit/s takes 23 minutes and is far above it.
DEFAULT_MIN_RATE = 32 * 1024
#: No byte for this long: the connection is dead (and the rate applies after this grace).
DEFAULT_STALL_TIMEOUT = 60.0
#: The whole of one API answer (headers and the small bulk-data object), and the headers of a
#: download, must arrive within this many seconds: Scryfall answers in well under one. A server
#: trickling bytes never trips a per-read timeout; this deadline ends it.
DEFAULT_REQUEST_TIMEOUT = 60.0
#: A bulk-data object is about 1 KB; an answer this big is not one (and is not read into memory).
DEFAULT_INDEX_MAX_BYTES = 1 << 20
#: The longest wait a Retry-After header (429, 503) gets, in seconds: twice the minute Scryfall
#: asks for when it rate-limits. A longer one (`Retry-After: 999999`) waits this long and tries
#: again, so a sync never hangs for hours on one header.
DEFAULT_MAX_RETRY_AFTER = 120.0


@dataclass(frozen=True)
class DownloadLimits:
    """When a download is given up: no byte for `stall_timeout` seconds, or, once that grace
    has passed, fewer than `min_rate` bytes a second on average. A file of S bytes therefore
    has the deadline stall_timeout + S / min_rate, and a trickle ends soon after the grace."""

    min_rate: float = DEFAULT_MIN_RATE  # bytes per second
    stall_timeout: float = DEFAULT_STALL_TIMEOUT  # seconds
    #: Every request's headers, and an API answer's whole body, arrive within this (seconds).
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    #: A bulk-data index answer larger than this (bytes) is refused.
    index_max_bytes: int = DEFAULT_INDEX_MAX_BYTES
    #: The longest wait a Retry-After header gets (seconds).
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER

    @classmethod
    def from_env(
        cls,
        min_rate_kib: float | None = None,
        stall_timeout: float | None = None,
        request_timeout: float | None = None,
        max_retry_after: float | None = None,
    ) -> DownloadLimits:
        """Explicit values (the CLI's --min-rate in KiB/s, --stall-timeout, --request-timeout
        and --max-retry-after in seconds), else $DECKCHECK_SYNC_MIN_RATE (KiB/s),
        $DECKCHECK_SYNC_STALL_TIMEOUT, $DECKCHECK_SYNC_REQUEST_TIMEOUT and
        $DECKCHECK_SYNC_MAX_RETRY_AFTER, else defaults."""
        rate = (
            min_rate_kib * 1024
            if min_rate_kib is not None
            else _env_number(ENV_MIN_RATE, DEFAULT_MIN_RATE, 1024)
        )
        stall = (
            stall_timeout
            if stall_timeout is not None
            else _env_number(ENV_STALL_TIMEOUT, DEFAULT_STALL_TIMEOUT)
        )
        answer = (
            request_timeout
            if request_timeout is not None
            else _env_number(ENV_REQUEST_TIMEOUT, DEFAULT_REQUEST_TIMEOUT)
        )
        longest = (
            max_retry_after
            if max_retry_after is not None
            else _env_number(ENV_MAX_RETRY_AFTER, DEFAULT_MAX_RETRY_AFTER)
        )
        if not (rate > 0 and stall > 0 and answer > 0):
            raise SyncError(
                "the minimum rate, the stall timeout and the request timeout must be greater than 0"
            )
        if not longest >= 0:
            raise SyncError("the longest Retry-After wait must not be negative")
        return cls(
            min_rate=rate, stall_timeout=stall, request_timeout=answer, max_retry_after=longest
        )

    def deadline(self, size: int | None) -> float | None:
        """Seconds a download of `size` bytes may take (None: size unknown)."""
        return None if size is None else self.stall_timeout + size / self.min_rate


@dataclass
class RetryPolicy:
    """How a sync retries. Attached to the session by `make_session`; tests pass zero waits.

    One policy for the bulk-data index and the bulk-file download: each gets `attempts` tries
    in all (a download's attempts also count the tries after a connection dropped mid-body or
    a truncated file), counted by urllib3's `Retry` (`tries`)."""

    attempts: int = 6  # tries per request: the first one and 5 retries
    backoff: float = 1.0  # waits backoff, 2*backoff, 4*backoff... after errors and 5xx
    backoff_max: float = 60.0
    rate_limit_wait: float = RATE_LIMIT_WAIT  # after a 429 without Retry-After
    min_interval: float = MIN_REQUEST_INTERVAL
    sleep: Callable[[float], None] | None = None  # default: time.sleep, looked up at call time

    def wait(self, seconds: float) -> None:
        if seconds > 0:
            (time.sleep if self.sleep is None else self.sleep)(seconds)

    def tries(self, url: str, max_retry_after: float = DEFAULT_MAX_RETRY_AFTER) -> _Tries:
        """The retry state of one request (or one download, all its attempts) of `url`."""
        return _Tries(self, url, max_retry_after)


_retry_class: Any = None


def _retry(**kwargs: Any) -> Any:
    """A urllib3 `Retry` whose backoff starts with the first failure (backoff, 2*backoff,
    4*backoff...): urllib3's own retries the first failure at once, which after a 5xx from
    Scryfall only asks it again while it is failing. (A subclass made on first use: urllib3
    is imported only when a sync goes to the network.)"""
    global _retry_class
    if _retry_class is None:
        from urllib3.util.retry import Retry

        class BackoffRetry(Retry):
            def get_backoff_time(self) -> float:
                failures = len(self.history)
                if failures == 0:
                    return 0.0
                return float(min(self.backoff_factor * 2 ** (failures - 1), self.backoff_max))

        _retry_class = BackoffRetry
    return _retry_class(**kwargs)


class _Tries:
    """The attempts of one request: urllib3's `Retry` (immutable), advanced by `increment` at
    each failure until it is exhausted; and how long to wait before the next attempt."""

    def __init__(self, policy: RetryPolicy, url: str, max_retry_after: float) -> None:
        self.policy, self.url = policy, url
        self.max_retry_after = max_retry_after
        self.retry = _retry(
            total=policy.attempts - 1,
            backoff_factor=policy.backoff,
            backoff_max=policy.backoff_max,
            status_forcelist=RETRY_STATUSES,
            raise_on_status=False,
            respect_retry_after_header=True,
            retry_after_max=max_retry_after,
        )

    @property
    def attempt(self) -> int:
        """The number of the attempt under way (1 for the first)."""
        return len(self.retry.history) + 1

    @property
    def attempts(self) -> int:
        return self.policy.attempts

    def failed(self, response: Any = None) -> bool:
        """Count the attempt under way as failed (`response`: the answer, a retried status);
        False when it was the last one."""
        from urllib3.exceptions import MaxRetryError

        raw = getattr(response, "raw", None)
        try:
            self.retry = self.retry.increment(
                "GET", self.url, response=raw if hasattr(raw, "get_redirect_location") else None
            )
        except MaxRetryError:
            return False
        return True

    def backoff(self) -> float:
        """The wait after an error or a 5xx without Retry-After (call after `failed`)."""
        return float(self.retry.get_backoff_time())

    def retry_after(self, resp: Any) -> tuple[float, float] | None:
        """(the wait, what the server asked for) from the answer's Retry-After header (seconds
        or an HTTP date), the wait capped at `max_retry_after`; None without a valid one."""
        from urllib3.exceptions import InvalidHeader

        value = (resp.headers.get("Retry-After") or "").strip()
        if not value:
            return None
        try:
            capped = float(self.retry.parse_retry_after(value))
            asked = float(_retry(total=0, retry_after_max=1 << 62).parse_retry_after(value))
        except (InvalidHeader, OverflowError, ValueError):
            return None
        return capped, asked


def make_session(
    retries: int = 5,
    backoff: float = 1.0,
    rate_limit_wait: float = RATE_LIMIT_WAIT,
    *,
    min_interval: float = MIN_REQUEST_INTERVAL,
    sleep: Callable[[float], None] | None = None,
):
    """A requests session with Scryfall's required headers and a `RetryPolicy`: connection
    errors, timeouts and 5xx are retried with exponential backoff; a 429 waits for Retry-After
    when present (at most `DownloadLimits.max_retry_after`), else the RATE_LIMIT_WAIT Scryfall
    asks for.

    urllib3's `Retry` counts the attempts, but the loop is ours (`_get`, `download`), not the
    connection pool's: every attempt gets its own deadline (`_Watchdog`), a download's retries
    include a body that broke off or came short, and it behaves the same under the
    `responses` test mock."""
    import requests

    session = requests.Session()
    session.headers.update(HEADERS)
    # Connections that a `_Watchdog` can shut down: every request gets an overall deadline.
    adapter = _watched_adapter()
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    session.deckcheck_policy = RetryPolicy(  # type: ignore[attr-defined]
        attempts=retries + 1,
        backoff=backoff,
        rate_limit_wait=rate_limit_wait,
        min_interval=min_interval,
        sleep=sleep,
    )
    return session


def _policy(session: Any) -> RetryPolicy:
    return getattr(session, "deckcheck_policy", None) or RetryPolicy()


class _Throttle:
    """At most one API request per MIN_REQUEST_INTERVAL (Scryfall: 10 requests/s)."""

    def __init__(self) -> None:
        self.last = 0.0

    def wait(self, policy: RetryPolicy) -> None:
        delay = self.last + policy.min_interval - time.monotonic()
        policy.wait(delay)
        self.last = time.monotonic()


_throttle = _Throttle()


class _DeadlinePassed(Exception):
    """A request's watchdog fired: the answer did not arrive in time (not retried: a server
    that trickles keeps trickling)."""


class _Watchdog:
    """An overall deadline for a request: when it passes, the request's socket is shut down,
    which ends a read blocked on it at once.

    requests' and urllib3's timeouts bound each read, not the answer: a server sending a byte a
    second, in the headers or the body, never trips them (urllib3's `Timeout` documentation says
    so and suggests a watcher thread to cut a request off after a wall-clock time). The sockets
    are registered by the connections of `make_session`'s adapter while this watchdog is the
    thread's current one; a duplicate of each descriptor is kept, so a TLS handshake in progress
    (on a socket already handed to the ssl module) can be cut off too, and shutdown(2) acts on
    the connection itself, whichever descriptor names it."""

    _local = threading.local()

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.expired = False
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        self._timer: threading.Timer | None = None
        self._outer: _Watchdog | None = None
        self._closed = False

    @classmethod
    def current(cls) -> _Watchdog | None:
        return getattr(cls._local, "current", None)

    def __enter__(self) -> _Watchdog:
        self._outer = self.current()
        self._local.current = self
        self.rearm(self.seconds)
        return self

    def __exit__(self, *exc: object) -> None:
        self._local.current = self._outer
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            for sock in self._socks:
                sock.close()
            self._socks.clear()

    def rearm(self, seconds: float | None) -> None:
        """From now on, fire after `seconds` (None: never)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self.seconds = seconds
            if seconds is not None and not self.expired:
                self._timer = threading.Timer(seconds, self._fire)
                self._timer.daemon = True
                self._timer.start()

    def watch_rate(self, received: Callable[[], int], min_rate: float, grace: float) -> None:
        """From now on, instead of a fixed deadline: fire when, after `grace` seconds, fewer
        than `min_rate` bytes a second have arrived on average by `received()`. Checked in the
        watchdog's thread, so a read that never returns is cut off too (urllib3's `read1` keeps
        reading while its decoder yields nothing: a gzip header trickled without end)."""
        started = time.monotonic()
        step = min(max(grace / 4, 0.05), 1.0)

        def check() -> None:
            elapsed = time.monotonic() - started
            if elapsed > grace and received() < min_rate * (elapsed - grace):
                self._fire()
                return
            schedule()

        def schedule() -> None:
            with self._lock:
                if self._closed or self.expired:
                    return
                self._timer = threading.Timer(step, check)
                self._timer.daemon = True
                self._timer.start()

        self.rearm(None)
        schedule()

    def watch(self, sock: Any) -> None:
        """Shut `sock` down when the deadline passes (at once when it has passed)."""
        try:
            fd = os.dup(sock.fileno())
        except (OSError, AttributeError, ValueError):
            return  # already closed (or not a socket): nothing left to cut off
        try:
            dup = socket.socket(fileno=fd)
        except OSError:
            os.close(fd)
            return
        with self._lock:
            self._socks.append(dup)
            if self.expired:
                _shutdown(dup)

    def _fire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._socks:
                _shutdown(sock)


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed by the other side or by us


_adapter_class: Any = None


def _watched_adapter() -> Any:
    """A requests HTTPAdapter whose connections register their sockets with the current
    `_Watchdog`: on a new connection the socket is registered before any TLS handshake, and on
    every request (also over a kept-alive connection) before its answer is read.

    The hooks are urllib3's documented override points: a PoolManager's own
    `pool_classes_by_scheme`, and a pool's `ConnectionCls`."""
    global _adapter_class
    if _adapter_class is None:
        from requests.adapters import HTTPAdapter
        from urllib3.connection import HTTPConnection, HTTPSConnection
        from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

        def watched(base: Any) -> Any:
            class Watched(base):
                def _new_conn(self) -> Any:
                    sock = super()._new_conn()
                    dog = _Watchdog.current()
                    if dog is not None:
                        dog.watch(sock)
                    return sock

                def getresponse(self, *args: Any, **kwargs: Any) -> Any:
                    dog = _Watchdog.current()
                    if dog is not None and self.sock is not None:
                        dog.watch(self.sock)
                    return super().getresponse(*args, **kwargs)

            Watched.__name__ = f"Watched{base.__name__}"
            return Watched

        class WatchedHTTPConnectionPool(HTTPConnectionPool):
            ConnectionCls = watched(HTTPConnection)

        class WatchedHTTPSConnectionPool(HTTPSConnectionPool):
            ConnectionCls = watched(HTTPSConnection)

        class WatchedAdapter(HTTPAdapter):
            def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
                super().init_poolmanager(*args, **kwargs)
                self.poolmanager.pool_classes_by_scheme = {
                    "http": WatchedHTTPConnectionPool,
                    "https": WatchedHTTPSConnectionPool,
                }

        _adapter_class = WatchedAdapter
    return _adapter_class()


def _deadline_error(what: str, seconds: float | None, phase: str) -> SyncError:
    return SyncError(
        f"{what}: {phase} did not arrive within {seconds or 0:g} s (the server sends too "
        f"slowly or trickles bytes); try again later, or allow longer with --request-timeout "
        f"SECONDS (${ENV_REQUEST_TIMEOUT})",
        hint=OFFLINE_HINT,
    )


def _read_capped(resp: Any, max_bytes: int, what: str) -> bytes:
    """The body of a streamed answer, refused when it is larger than `max_bytes` (announced
    or counted as it arrives, after decoding, so a compressed bomb is refused too)."""
    length = resp.headers.get("Content-Length")
    too_big = SyncError(
        f"{what}: the answer is larger than {max_bytes} bytes, far more than a bulk-data "
        f"object (about 1 KB); check that ${ENV_API} points at Scryfall's API or a mirror of it"
    )
    if length and length.strip().isdigit() and int(length) > max_bytes:
        raise too_big
    body = bytearray()
    for piece in resp.iter_content(1 << 14):
        body += piece
        if len(body) > max_bytes:
            raise too_big
    return bytes(body)


def _describe_http_error(resp: Any, what: str) -> str:
    detail = ""
    try:
        body = resp.json()
        if isinstance(body, dict):
            detail = str(body.get("details") or "")
            if body.get("subcode"):
                detail = f"{detail} [{body['subcode']}]" if detail else str(body["subcode"])
    except ValueError:
        text = (getattr(resp, "text", "") or "").strip()
        if text and len(text) <= 300 and "<" not in text:
            detail = text
    return f"{what}: HTTP {resp.status_code}" + (f": {detail}" if detail else "")


def _get(
    session: Any,
    url: str,
    what: str,
    *,
    stream: bool = False,
    timeout: Any = 30.0,
    api: bool = True,
    deadline: float | None = None,
    max_bytes: int | None = None,
    watchdog: _Watchdog | None = None,
    tries: _Tries | None = None,
    max_retry_after: float = DEFAULT_MAX_RETRY_AFTER,
) -> Any:
    """GET with our headers and retries (`tries`: a download's, shared by all its attempts;
    default a new one of the session's policy). Returns the last response (any status); raises
    SyncError when every attempt failed without one.

    Each attempt ends within `deadline` seconds (headers, and the body unless `stream`), or
    within what the caller's running `watchdog` allows; a deadline that passes is a SyncError,
    not retried. With `max_bytes` the body is read here, and refused when larger (the answer's
    `content` then holds it)."""
    policy = _policy(session)
    tries = tries or policy.tries(url, max_retry_after)
    while True:
        if api:
            _throttle.wait(policy)
        dog = watchdog or _Watchdog(deadline)
        attempt = tries.attempt
        try:
            with dog if watchdog is None else nullcontext():
                resp = _get_once(
                    session,
                    url,
                    what,
                    dog,
                    stream=stream or max_bytes is not None,
                    timeout=timeout,
                    max_bytes=max_bytes,
                )
        except _Retry as retry:
            exc = retry.__cause__
            if not tries.failed():
                raise SyncError(
                    f"{what}: cannot reach the server after {attempt} attempts "
                    f"({type(exc).__name__}: {exc})"
                ) from exc
            wait = tries.backoff()
            log.warning(
                "%s: %s; retrying in %s s (attempt %d of %d)",
                what,
                type(exc).__name__,
                _seconds(wait),
                attempt,
                tries.attempts,
            )
            policy.wait(wait)
            continue
        if resp.status_code not in RETRY_STATUSES or not tries.failed(resp):
            return resp
        after = tries.retry_after(resp)
        if after is not None:
            wait, asked = after
            if asked > wait:
                why = (
                    f"Retry-After asked for {_seconds(asked)} s; --max-retry-after or "
                    f"${ENV_MAX_RETRY_AFTER} caps the wait"
                )
            else:
                why = "as Retry-After asks"
        elif resp.status_code == 429:
            wait = min(policy.rate_limit_wait, tries.max_retry_after)
            why = "no Retry-After: the minute Scryfall asks for"
        else:
            wait, why = tries.backoff(), "backoff"
        log.warning(
            "%s: HTTP %d%s; waiting %s s (%s), then attempt %d of %d",
            what,
            resp.status_code,
            " (rate-limited)" if resp.status_code == 429 else "",
            _seconds(wait),
            why,
            tries.attempt,
            tries.attempts,
        )
        resp.close()
        policy.wait(wait)


def _seconds(value: float) -> str:
    """A wait for a message: "0.3", "7", "120" (never "0" for a wait that is not nothing)."""
    return f"{value:.2g}" if value < 10 else f"{value:.0f}"


class _Retry(Exception):
    """A failed attempt worth another (its cause is the network error)."""


def _get_once(
    session: Any,
    url: str,
    what: str,
    dog: _Watchdog,
    *,
    stream: bool,
    timeout: Any,
    max_bytes: int | None,
) -> Any:
    """One attempt of `_get`: the answer, a SyncError, or _Retry from a network error."""
    import requests

    try:
        resp = session.get(url, headers=HEADERS, stream=stream, timeout=timeout)
        if max_bytes is not None:
            try:
                # what requests' own `content` does, with a size limit
                resp._content = _read_capped(resp, max_bytes, what)
                resp._content_consumed = True
            finally:
                resp.close()
        if dog.expired:
            # A shut-down socket reads as the end of the data: http.client then takes a
            # half-sent header line or body for the whole answer.
            raise _DeadlinePassed()
        return resp
    except SyncError:
        raise
    except (
        requests.exceptions.InvalidURL,
        requests.exceptions.MissingSchema,
        requests.exceptions.InvalidSchema,
    ) as exc:
        raise SyncError(f"{what}: not a URL that can be downloaded ({exc})") from exc
    except Exception as exc:
        if dog.expired:  # whatever the shut-down socket made the read raise
            phase = "the answer's headers" if stream and max_bytes is None else "the whole answer"
            raise _deadline_error(what, dog.seconds, phase) from exc
        if not isinstance(
            exc,
            (
                requests.ConnectionError,
                requests.Timeout,
                # the body of the bulk-data index is read in this attempt: a
                # connection reset there is a dropped connection like any other
                requests.exceptions.ChunkedEncodingError,
                requests.exceptions.ContentDecodingError,
            ),
        ):
            raise
        if _name_not_resolved(exc):
            from urllib.parse import urlsplit

            host = urlsplit(url).hostname or url
            # No name resolution means no network (or no DNS): retrying for half a minute
            # changes nothing, and the user needs to know how to sync offline.
            raise SyncError(
                f"{what}: cannot resolve the host name {host} (no network connection or no DNS)",
                hint=OFFLINE_HINT,
            ) from exc
        raise _Retry() from exc


def _name_not_resolved(exc: BaseException) -> bool:
    """True when `exc` (or what it wraps) is a failure to resolve a host name."""
    import socket

    seen: set[int] = set()
    todo: list[Any] = [exc]
    while todo:
        e = todo.pop()
        if e is None or id(e) in seen or not isinstance(e, BaseException):
            continue
        seen.add(id(e))
        if type(e).__name__ == "NameResolutionError" or isinstance(e, socket.gaierror):
            return True
        todo.extend([e.__cause__, e.__context__, getattr(e, "reason", None), *e.args])
    return False


def download_uri(descriptor: dict[str, Any], where: str) -> str:
    """The descriptor's download URI: an absolute http(s) URL, or a SyncError saying what it
    held instead (a mirror serving a relative path, a number...)."""
    from urllib.parse import urlsplit

    uri = descriptor.get("jsonl_download_uri") or descriptor.get("download_uri")
    if not isinstance(uri, str):
        raise SyncError(f"{where}: the download URI is {type(uri).__name__} {uri!r:.80}, not a URL")
    parts = urlsplit(uri)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SyncError(f"{where}: the download URI {uri!r:.200} is not an absolute http(s) URL")
    return uri


def fetch_descriptor(
    session: Any,
    bulk_type: str,
    api: str | None = None,
    timeout: float = 30.0,
    limits: DownloadLimits | None = None,
) -> dict[str, Any]:
    """GET /bulk-data/<type> and return the bulk data object.

    The whole answer must arrive within `limits.request_timeout` seconds and hold at most
    `limits.index_max_bytes` bytes (it is about 1 KB)."""
    limits = limits or DownloadLimits()
    url = f"{api or api_base()}/bulk-data/{bulk_type.replace('_', '-')}"
    resp = _get(
        session,
        url,
        f"GET {url}",
        timeout=timeout,
        deadline=limits.request_timeout,
        max_bytes=limits.index_max_bytes,
        max_retry_after=limits.max_retry_after,
    )
    if resp.status_code != 200:
        raise SyncError(_describe_http_error(resp, f"GET {url}"))
    try:
        obj = resp.json()
    except ValueError as exc:
        raise SyncError(f"GET {url}: the answer is not JSON") from exc
    if not isinstance(obj, dict) or not (obj.get("jsonl_download_uri") or obj.get("download_uri")):
        raise SyncError(f"GET {url}: the answer has no jsonl_download_uri or download_uri")
    download_uri(obj, f"GET {url}")  # fail here, naming the index, when it is no URL
    return obj


class _TooSlow(Exception):
    """The download fell below the minimum rate: not retried (a slow mirror stays slow)."""


def download(
    session: Any,
    uri: str,
    dest: Path,
    expected_size: int | None = None,
    progress: Callable[[int, int | None], None] | None = None,
    timeout: Any = None,
    limits: DownloadLimits | None = None,
) -> None:
    """Stream `uri` to `dest`. The download is tried again, as the bulk-data index is, after
    a network error or a retried status (`RetryPolicy`), and also when the connection drops or
    stalls mid-body, or fewer bytes arrive than Scryfall announced: the session policy's
    attempts in all.

    Every attempt ends: the answer's headers arrive within `limits.request_timeout` seconds; no
    byte for `limits.stall_timeout` seconds is a stall (the socket's read timeout), and an
    average below `limits.min_rate` after that grace is too slow (checked as each piece
    arrives, so a trickle of one byte a minute ends too), and checked again by a watchdog on
    the bytes off the wire (which ends a body whose decoder never hands a piece over)."""
    limits = limits or DownloadLimits()
    timeout = timeout or (30.0, limits.stall_timeout)
    policy = _policy(session)
    # One count for the whole download: statuses, network errors and bodies that broke off.
    tries = policy.tries(uri, limits.max_retry_after)
    what = f"download {uri}"
    while True:
        dog = _Watchdog(limits.request_timeout)
        with dog:
            last_error = _download_once(
                session, uri, dest, what, dog, expected_size, progress, timeout, limits, tries
            )
        if last_error is None:
            return
        attempt = tries.attempt  # retried statuses within `_get` count too
        if not tries.failed():
            raise SyncError(f"{what} failed after {attempt} attempts: {last_error}")
        wait = tries.backoff()
        log.warning(
            "%s failed (%s); retrying in %s s (attempt %d of %d)",
            what,
            last_error,
            _seconds(wait),
            attempt,
            tries.attempts,
        )
        policy.wait(wait)


def _download_once(
    session: Any,
    uri: str,
    dest: Path,
    what: str,
    dog: _Watchdog,
    expected_size: int | None,
    progress: Callable[[int, int | None], None] | None,
    timeout: Any,
    limits: DownloadLimits,
    tries: _Tries,
) -> str | None:
    """One attempt of `download`, under `dog`: None when done, else why it failed (worth
    another attempt); SyncError when another attempt would not help."""
    import requests

    resp = _get(
        session, uri, what, stream=True, timeout=timeout, api=False, watchdog=dog, tries=tries
    )
    try:
        if resp.status_code != 200:
            raise SyncError(_describe_http_error(resp, what))
        total = resp.headers.get("Content-Length")
        total_n = int(total) if total and total.isdigit() else None
        encoded = "gzip" in (resp.headers.get("Content-Encoding") or "").lower()
        # `_body` checks the rate as decoded pieces arrive; the watchdog checks it on the
        # bytes off the wire (urllib3's `tell`), so it ends a body whose pieces never come.
        if hasattr(resp.raw, "tell"):
            dog.watch_rate(resp.raw.tell, limits.min_rate, limits.stall_timeout)
        else:
            dog.rearm(None)
        with open(dest, "wb") as out:
            # decode_content: a legacy .json file comes with Content-Encoding gzip; a
            # .jsonl.gz file is stored gzip and stays as it is (sniffed on import).
            for chunk in _body(resp.raw, limits, total_n or expected_size):
                out.write(chunk)
                if progress:
                    progress(len(chunk), total_n)
        if dog.expired:  # the shut-down socket read as the end of the file
            raise _DeadlinePassed()
        size = dest.stat().st_size
        if expected_size and not encoded and size != expected_size:
            return (
                f"got {size} bytes, Scryfall announced {expected_size}: the download is truncated"
            )
        return None
    except SyncError:
        raise
    except _TooSlow as exc:
        raise SyncError(f"{what}: {exc}") from None
    except Exception as exc:
        if dog.expired:  # the watchdog shut the connection
            if dog.seconds is not None:  # still waiting for the headers
                raise _deadline_error(what, dog.seconds, "the answer's headers") from exc
            raise SyncError(
                f"{what}: the data arrived slower than the minimum rate of "
                f"{limits.min_rate / 1024:g} KiB/s (counted on the wire, after "
                f"{limits.stall_timeout:g} s of grace); on a slow line lower --min-rate "
                f"(or ${ENV_MIN_RATE}, KiB/s)"
            ) from None
        if (
            isinstance(exc, OSError)
            and not isinstance(exc, requests.RequestException)
            and not _is_network_error(exc)
        ):
            raise SyncError(f"{what}: cannot write {dest}: {exc}") from exc
        if not isinstance(exc, (requests.RequestException, OSError)) and not type(
            exc
        ).__module__.startswith(("urllib3", "http.client")):
            raise
        # urllib3 errors raised while streaming the body, dropped connections, stalls
        return _network_failure(exc, limits)
    finally:
        resp.close()


def _body(raw: Any, limits: DownloadLimits, size: int | None) -> Iterator[bytes]:
    """The response body piece by piece as it arrives, raising _TooSlow below the minimum rate.

    `read1` returns whatever has arrived (up to 64 KiB) instead of waiting for a full block, so
    the rate is checked even when bytes come one at a time."""
    started = time.monotonic()
    received = 0
    read1 = getattr(raw, "read1", None)
    pieces: Iterator[bytes]
    if read1 is not None:
        pieces = iter(lambda: read1(1 << 16, decode_content=True), b"")
    else:  # urllib3 before 2.3
        pieces = raw.stream(1 << 16, decode_content=True)
    for piece in pieces:
        received += len(piece)
        elapsed = time.monotonic() - started
        if elapsed > limits.stall_timeout and received < limits.min_rate * (
            elapsed - limits.stall_timeout
        ):
            deadline = limits.deadline(size)
            raise _TooSlow(
                f"{received} bytes in {elapsed:.0f} s is slower than the minimum rate of "
                f"{limits.min_rate / 1024:g} KiB/s"
                + (f" (this file's deadline: {deadline:.0f} s)" if deadline else "")
                + f"; on a slow line lower --min-rate (or ${ENV_MIN_RATE}, KiB/s)"
            )
        yield piece


def _network_failure(exc: BaseException, limits: DownloadLimits) -> str:
    if "timed out" in str(exc).lower() or "timeout" in type(exc).__name__.lower():
        return (
            f"the download stalled: no data for {limits.stall_timeout:g} s "
            f"({type(exc).__name__}); --stall-timeout or ${ENV_STALL_TIMEOUT} sets the wait"
        )
    return f"{type(exc).__name__}: {exc}"


def _is_network_error(exc: OSError) -> bool:
    return type(exc).__module__.startswith(
        ("urllib3", "requests", "http.client", "socket")
    ) or isinstance(exc, (ConnectionError, TimeoutError))
