"""Scryfall bulk data -> the local card database.

A sync asks Scryfall's API which bulk file is current, downloads it to a temporary file (no
database is touched while bytes arrive), then imports it in one transaction. Any failure rolls
back: the previous database stays intact and readable throughout (SQLite runs in WAL mode, so a
validation running meanwhile keeps seeing the last committed cards).

A sync always ends: each download has a deadline derived from a minimum transfer rate and a
stall timeout, every answer from the server a deadline of its own however its bytes trickle
(`DownloadLimits`, enforced by a `_Watchdog` that shuts the connection down), and two syncs against one database wait for each other on a
lock in the database itself for a bounded time (`import_file`).
"""

from __future__ import annotations

from validator.errors import DeckcheckError

import gc
import logging
import os
import socket
import sys
import tempfile
import threading
import time
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from validator import __version__
from validator.sync.bulkfile import BulkFileError, BulkStats, iter_bulk_file, source_problem
from validator.cards.facts import SCRYFALL_KEYS, CardDataError, card_from_scryfall, field_problem
from validator.store.database import (
    CardBatch, CardDB, LegalityChange, LockTimeout, SyncRun, card_batches, card_problem,
    count_cards, create_schema, database_url, make_write_engine, refresh_aliases,
    shown_location, sync_lock, write_batches, write_printings,
)
from validator.model import Card

log = logging.getLogger("deckcheck.sync")

DEFAULT_API = "https://api.scryfall.com"
ENV_API = "DECKCHECK_SCRYFALL_API"
USER_AGENT = f"deckcheck/{__version__} (+https://pypi.org/project/deckcheck/)"
#: Scryfall's API allows 10 requests a second (docs "Rate Limits").
MIN_REQUEST_INTERVAL = 0.1
#: When a 429 carries no Retry-After, Scryfall's own message says "try again after 60 seconds".
RATE_LIMIT_WAIT = 60.0
ORACLE, DEFAULT = "oracle_cards", "default_cards"


class SyncError(DeckcheckError, RuntimeError):
    """A sync failed; the message says what was wrong. The sync's own changes were rolled back.

    `hint` (or None) says what to do next and what state the card database is in, when that is
    known; the CLI prints it under the message."""

    code = "sync-failed"

    def __init__(self, message: str = "", *args: object, hint: str | None = None,
                 code: str | None = None) -> None:
        super().__init__(message, *args, code=code)
        self.hint = hint


class SyncBusy(SyncError):
    """Another sync held the database's lock longer than this one could wait."""

    code = "sync-busy"


class SyncTerminated(KeyboardInterrupt):
    """SIGTERM arrived during a sync: raised like Ctrl-C so the same clean-up runs (the partial
    download is removed, the import transaction rolled back, the reading process stopped)."""


#: What to do without a connection to Scryfall (issue 10: offline venues).
OFFLINE_HINT = ("without a connection to Scryfall, import a bulk file downloaded elsewhere: "
                "`deckcheck sync --from FILE`, or point DECKCHECK_SCRYFALL_API at a mirror")


@dataclass
class SyncResult:
    bulk_type: str
    source: str
    skipped: bool = False
    card_count: int = 0
    updated_at: str | None = None
    duration_s: float = 0.0
    sha256: str | None = None
    changes: list[dict[str, Any]] = field(default_factory=list)
    printing_count: int | None = None

    def summary(self) -> str:
        if self.skipped:
            return (f"{self.bulk_type}: already up to date (updated_at {self.updated_at}); "
                    "use --force to import again")
        head = f"{self.bulk_type}: {self.card_count} cards imported in {self.duration_s:.1f} s"
        if self.printing_count is not None:
            head = f"{self.bulk_type}: {self.printing_count} printings imported in {self.duration_s:.1f} s"
        changes = summarize_changes(self.changes)
        return head + ("\n" + changes if changes else "")


_CHANGE_LABELS = ("newly banned", "newly restricted", "unbanned", "unrestricted", "now legal",
                  "no longer legal", "removed from the data")


def summarize_changes(changes: list[dict[str, Any]], per_list: int = 8) -> str:
    """"modern: newly banned: A, B; unbanned: C" lines, one per format (formats sorted,
    labels in a fixed order)."""
    labels = {
        "banned": "newly banned", "restricted": "newly restricted", "legal": "now legal",
        "not_legal": "no longer legal",
    }
    by_format: dict[str, dict[str, list[str]]] = {}
    for ch in changes:
        if ch["format"] == "*":
            label = "removed from the data"
        elif ch["old_status"] == "banned" and ch["new_status"] == "legal":
            label = "unbanned"
        elif ch["old_status"] == "restricted" and ch["new_status"] == "legal":
            label = "unrestricted"
        else:
            label = labels.get(ch["new_status"] or "", f"now {ch['new_status']}")
        by_format.setdefault(ch["format"], {}).setdefault(label, []).append(ch["name"])
    order = {label: i for i, label in enumerate(_CHANGE_LABELS)}
    lines = []
    for fmt in sorted(by_format, key=lambda f: (f == "*", f)):
        parts = []
        for label in sorted(by_format[fmt], key=lambda lb: (order.get(lb, len(order)), lb)):
            names = sorted(by_format[fmt][label])
            shown = ", ".join(names[:per_list])
            more = f" and {len(names) - per_list} more" if len(names) > per_list else ""
            parts.append(f"{label}: {shown}{more}")
        lines.append(f"{'all formats' if fmt == '*' else fmt}: " + "; ".join(parts))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- HTTP

#: Sent on every request, whatever session the caller passes (Scryfall rejects library-default
#: User-Agents with 400 "generic_user_agent" and requires an Accept header).
HEADERS = {"User-Agent": USER_AGENT, "Accept": "application/json;q=0.9,*/*;q=0.8"}
#: Statuses worth another try: rate limiting and server-side failures.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


def api_base() -> str:
    return os.environ.get(ENV_API, DEFAULT_API).rstrip("/")


ENV_MIN_RATE = "DECKCHECK_SYNC_MIN_RATE"
ENV_STALL_TIMEOUT = "DECKCHECK_SYNC_STALL_TIMEOUT"
ENV_LOCK_TIMEOUT = "DECKCHECK_SYNC_LOCK_TIMEOUT"
ENV_REQUEST_TIMEOUT = "DECKCHECK_SYNC_REQUEST_TIMEOUT"
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
#: How long a sync waits for another sync of the same database to finish (a full import takes
#: about a minute; a slow machine several).
DEFAULT_LOCK_TIMEOUT = 600.0


def _env_number(name: str, default: float, scale: float = 1.0) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SyncError(f"{name}={raw!r} is not a number") from None
    if not value > 0:
        raise SyncError(f"{name}={raw!r} must be greater than 0")
    return value * scale


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

    @classmethod
    def from_env(cls, min_rate_kib: float | None = None,
                 stall_timeout: float | None = None,
                 request_timeout: float | None = None) -> "DownloadLimits":
        """Explicit values (the CLI's --min-rate in KiB/s, --stall-timeout and
        --request-timeout in seconds), else $DECKCHECK_SYNC_MIN_RATE (KiB/s),
        $DECKCHECK_SYNC_STALL_TIMEOUT and $DECKCHECK_SYNC_REQUEST_TIMEOUT, else defaults."""
        rate = (min_rate_kib * 1024 if min_rate_kib is not None
                else _env_number(ENV_MIN_RATE, DEFAULT_MIN_RATE, 1024))
        stall = (stall_timeout if stall_timeout is not None
                 else _env_number(ENV_STALL_TIMEOUT, DEFAULT_STALL_TIMEOUT))
        answer = (request_timeout if request_timeout is not None
                  else _env_number(ENV_REQUEST_TIMEOUT, DEFAULT_REQUEST_TIMEOUT))
        if not (rate > 0 and stall > 0 and answer > 0):
            raise SyncError("the minimum rate, the stall timeout and the request timeout must "
                            "be greater than 0")
        return cls(min_rate=rate, stall_timeout=stall, request_timeout=answer)

    def deadline(self, size: int | None) -> float | None:
        """Seconds a download of `size` bytes may take (None: size unknown)."""
        return None if size is None else self.stall_timeout + size / self.min_rate


def lock_timeout_from_env(value: float | None = None) -> float:
    """--lock-timeout, else $DECKCHECK_SYNC_LOCK_TIMEOUT, else DEFAULT_LOCK_TIMEOUT seconds."""
    if value is not None:
        if value < 0:
            raise SyncError("the lock timeout must not be negative")
        return value
    return _env_number(ENV_LOCK_TIMEOUT, DEFAULT_LOCK_TIMEOUT)


@dataclass
class RetryPolicy:
    """How a sync retries. Attached to the session by `make_session`; tests pass zero waits."""

    attempts: int = 6  # tries per request: the first one and 5 retries
    backoff: float = 1.0  # waits backoff, 2*backoff, 4*backoff... after errors and 5xx
    backoff_max: float = 60.0
    rate_limit_wait: float = RATE_LIMIT_WAIT  # after a 429 without Retry-After
    max_retry_after: float = 600.0  # never wait longer than this, whatever Retry-After says
    min_interval: float = MIN_REQUEST_INTERVAL
    sleep: Callable[[float], None] | None = None  # default: time.sleep, looked up at call time

    def wait(self, seconds: float) -> None:
        if seconds > 0:
            (time.sleep if self.sleep is None else self.sleep)(seconds)

    def backoff_for(self, attempt: int) -> float:
        return min(self.backoff * (2 ** (attempt - 1)), self.backoff_max)


def make_session(retries: int = 5, backoff: float = 1.0, rate_limit_wait: float = RATE_LIMIT_WAIT,
                 *, min_interval: float = MIN_REQUEST_INTERVAL,
                 sleep: Callable[[float], None] | None = None):
    """A requests session with Scryfall's required headers and a `RetryPolicy`: connection
    errors, timeouts and 5xx are retried with exponential backoff; a 429 waits for Retry-After
    when present, else the RATE_LIMIT_WAIT Scryfall asks for.

    The retry loop is ours (`_get`), not urllib3's: it covers exceptions raised before any
    response as well as statuses, and it behaves the same under the `responses` test mock."""
    import requests

    session = requests.Session()
    session.headers.update(HEADERS)
    # Connections that a `_Watchdog` can shut down: every request gets an overall deadline.
    adapter = _watched_adapter()
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    session.deckcheck_policy = RetryPolicy(  # type: ignore[attr-defined]
        attempts=retries + 1, backoff=backoff, rate_limit_wait=rate_limit_wait,
        min_interval=min_interval, sleep=sleep)
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
    def current(cls) -> "_Watchdog | None":
        return getattr(cls._local, "current", None)

    def __enter__(self) -> "_Watchdog":
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
            class Watched(base):  # type: ignore[misc, valid-type]
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
                    "http": WatchedHTTPConnectionPool, "https": WatchedHTTPSConnectionPool}

        _adapter_class = WatchedAdapter
    return _adapter_class()


def _deadline_error(what: str, seconds: float | None, phase: str) -> SyncError:
    return SyncError(
        f"{what}: {phase} did not arrive within {seconds or 0:g} s (the server sends too "
        f"slowly or trickles bytes); try again later, or allow longer with --request-timeout "
        f"SECONDS (${ENV_REQUEST_TIMEOUT})", hint=OFFLINE_HINT)


def _read_capped(resp: Any, max_bytes: int, what: str) -> bytes:
    """The body of a streamed answer, refused when it is larger than `max_bytes` (announced
    or counted as it arrives, after decoding, so a compressed bomb is refused too)."""
    length = resp.headers.get("Content-Length")
    too_big = SyncError(
        f"{what}: the answer is larger than {max_bytes} bytes, far more than a bulk-data "
        f"object (about 1 KB); check that ${ENV_API} points at Scryfall's API or a mirror of it")
    if length and length.strip().isdigit() and int(length) > max_bytes:
        raise too_big
    body = bytearray()
    for piece in resp.iter_content(1 << 14):
        body += piece
        if len(body) > max_bytes:
            raise too_big
    return bytes(body)


def _retry_after(resp: Any, policy: RetryPolicy) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date), capped."""
    value = (resp.headers.get("Retry-After") or "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=timezone.utc)
        seconds = (when - datetime.now(timezone.utc)).total_seconds()
    return min(max(seconds, 0.0), policy.max_retry_after)


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


def _get(session: Any, url: str, what: str, *, stream: bool = False, timeout: Any = 30.0,
         api: bool = True, attempts: int | None = None, deadline: float | None = None,
         max_bytes: int | None = None, watchdog: _Watchdog | None = None) -> Any:
    """GET with our headers and retries (`attempts`, default the session policy's). Returns the
    last response (any status); raises SyncError when every attempt failed without one.

    Each attempt ends within `deadline` seconds (headers, and the body unless `stream`), or
    within what the caller's running `watchdog` allows; a deadline that passes is a SyncError,
    not retried. With `max_bytes` the body is read here, and refused when larger (the answer's
    `content` then holds it)."""
    policy = _policy(session)
    if attempts is not None:
        policy = replace(policy, attempts=max(1, min(attempts, policy.attempts)))
    for attempt in range(1, policy.attempts + 1):
        if api:
            _throttle.wait(policy)
        dog = watchdog or _Watchdog(deadline)
        try:
            with dog if watchdog is None else nullcontext():
                resp = _get_once(session, url, what, dog, stream=stream or max_bytes is not None,
                                 timeout=timeout, max_bytes=max_bytes)
        except _Retry as retry:
            exc = retry.__cause__
            if attempt == policy.attempts:
                raise SyncError(f"{what}: cannot reach the server after {attempt} attempts "
                                f"({type(exc).__name__}: {exc})") from exc
            wait = policy.backoff_for(attempt)
            log.warning("%s: %s; retrying in %.0f s (attempt %d of %d)",
                        what, type(exc).__name__, wait, attempt, policy.attempts)
            policy.wait(wait)
            continue
        if resp.status_code not in RETRY_STATUSES or attempt == policy.attempts:
            return resp
        after = _retry_after(resp, policy)
        if resp.status_code == 429:
            wait = policy.rate_limit_wait if after is None else after
            log.warning("%s: rate-limited by Scryfall (HTTP 429); waiting %.0f s", what, wait)
        else:
            wait = policy.backoff_for(attempt) if after is None else after
            log.warning("%s: HTTP %d; retrying in %.0f s (attempt %d of %d)",
                        what, resp.status_code, wait, attempt, policy.attempts)
        resp.close()
        policy.wait(wait)
    raise AssertionError("unreachable")  # pragma: no cover


class _Retry(Exception):
    """A failed attempt worth another (its cause is the network error)."""


def _get_once(session: Any, url: str, what: str, dog: _Watchdog, *, stream: bool,
              timeout: Any, max_bytes: int | None) -> Any:
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
    except (requests.exceptions.InvalidURL, requests.exceptions.MissingSchema,
            requests.exceptions.InvalidSchema) as exc:
        raise SyncError(f"{what}: not a URL that can be downloaded ({exc})") from exc
    except Exception as exc:
        if dog.expired:  # whatever the shut-down socket made the read raise
            phase = ("the answer's headers" if stream and max_bytes is None
                     else "the whole answer")
            raise _deadline_error(what, dog.seconds, phase) from exc
        if not isinstance(exc, (requests.ConnectionError, requests.Timeout,
                                # the body of the bulk-data index is read in this attempt: a
                                # connection reset there is a dropped connection like any other
                                requests.exceptions.ChunkedEncodingError,
                                requests.exceptions.ContentDecodingError)):
            raise
        if _name_not_resolved(exc):
            from urllib.parse import urlsplit

            host = urlsplit(url).hostname or url
            # No name resolution means no network (or no DNS): retrying for half a minute
            # changes nothing, and the user needs to know how to sync offline.
            raise SyncError(f"{what}: cannot resolve the host name {host} (no network "
                            "connection or no DNS)", hint=OFFLINE_HINT) from exc
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
        raise SyncError(f"{where}: the download URI is {type(uri).__name__} {uri!r:.80}, "
                        "not a URL")
    parts = urlsplit(uri)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise SyncError(f"{where}: the download URI {uri!r:.200} is not an absolute "
                        "http(s) URL")
    return uri


def fetch_descriptor(session: Any, bulk_type: str, api: str | None = None,
                     timeout: float = 30.0, limits: DownloadLimits | None = None) -> dict[str, Any]:
    """GET /bulk-data/<type> and return the bulk data object.

    The whole answer must arrive within `limits.request_timeout` seconds and hold at most
    `limits.index_max_bytes` bytes (it is about 1 KB)."""
    limits = limits or DownloadLimits()
    url = f"{api or api_base()}/bulk-data/{bulk_type.replace('_', '-')}"
    resp = _get(session, url, f"GET {url}", timeout=timeout, deadline=limits.request_timeout,
                max_bytes=limits.index_max_bytes)
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


def download(session: Any, uri: str, dest: Path, expected_size: int | None = None,
             progress: Callable[[int, int | None], None] | None = None,
             timeout: Any = None, attempts: int | None = None,
             limits: DownloadLimits | None = None) -> None:
    """Stream `uri` to `dest`. Besides `_get`'s retries, the whole download is tried again
    when the connection drops or stalls mid-body, or fewer bytes arrive than Scryfall announced.

    Every attempt ends: the answer's headers arrive within `limits.request_timeout` seconds; no
    byte for `limits.stall_timeout` seconds is a stall (the socket's read timeout), and an
    average below `limits.min_rate` after that grace is too slow (checked as each piece
    arrives, so a trickle of one byte a minute ends too), and checked again by a watchdog on
    the bytes off the wire (which ends a body whose decoder never hands a piece over)."""
    limits = limits or DownloadLimits()
    timeout = timeout or (30.0, limits.stall_timeout)
    policy = _policy(session)
    attempts = attempts or min(policy.attempts, 3)  # whole downloads: 25 MB each
    what = f"download {uri}"
    last_error: str | None = ""
    for attempt in range(1, attempts + 1):
        dog = _Watchdog(limits.request_timeout)
        with dog:
            last_error = _download_once(session, uri, dest, what, dog, expected_size, progress,
                                        timeout, limits)
        if last_error is None:
            return
        if attempt < attempts:
            wait = policy.backoff_for(attempt)
            log.warning("%s failed (%s); retrying in %.0f s (attempt %d of %d)",
                        what, last_error, wait, attempt, attempts)
            policy.wait(wait)
    raise SyncError(f"{what} failed after {attempts} attempts: {last_error}")


def _download_once(session: Any, uri: str, dest: Path, what: str, dog: _Watchdog,
                   expected_size: int | None, progress: Callable[[int, int | None], None] | None,
                   timeout: Any, limits: DownloadLimits) -> str | None:
    """One attempt of `download`, under `dog`: None when done, else why it failed (worth
    another attempt); SyncError when another attempt would not help."""
    import requests

    # Two tries: with three attempts, a server that accepts connections and never answers
    # ends the sync after 6 stall timeouts, not 18.
    resp = _get(session, uri, what, stream=True, timeout=timeout, api=False, attempts=2,
                watchdog=dog)
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
            return (f"got {size} bytes, Scryfall announced {expected_size}: "
                    "the download is truncated")
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
                f"(or ${ENV_MIN_RATE}, KiB/s)") from None
        if isinstance(exc, OSError) and not isinstance(exc, requests.RequestException) \
                and not _is_network_error(exc):
            raise SyncError(f"{what}: cannot write {dest}: {exc}") from exc
        if not isinstance(exc, (requests.RequestException, OSError)) and \
                not type(exc).__module__.startswith(("urllib3", "http.client")):
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
        if elapsed > limits.stall_timeout and received < limits.min_rate * (elapsed - limits.stall_timeout):
            deadline = limits.deadline(size)
            raise _TooSlow(
                f"{received} bytes in {elapsed:.0f} s is slower than the minimum rate of "
                f"{limits.min_rate / 1024:g} KiB/s"
                + (f" (this file's deadline: {deadline:.0f} s)" if deadline else "")
                + f"; on a slow line lower --min-rate (or ${ENV_MIN_RATE}, KiB/s)")
        yield piece


def _network_failure(exc: BaseException, limits: DownloadLimits) -> str:
    if "timed out" in str(exc).lower() or "timeout" in type(exc).__name__.lower():
        return (f"the download stalled: no data for {limits.stall_timeout:g} s "
                f"({type(exc).__name__}); --stall-timeout or ${ENV_STALL_TIMEOUT} sets the wait")
    return f"{type(exc).__name__}: {exc}"


def _is_network_error(exc: OSError) -> bool:
    return type(exc).__module__.startswith(("urllib3", "requests", "http.client", "socket")) or \
        isinstance(exc, (ConnectionError, TimeoutError))


# ---------------------------------------------------------------------------- import

def _cards(path: Path, stats: BulkStats, on_read: Callable[[int], None] | None,
           name: str) -> Iterator[Card]:
    checked: dict[int, Any] = {}  # legalities mappings found storable (see card_problem)
    for position, obj in iter_bulk_file(path, stats, on_read, name=name, keys=SCRYFALL_KEYS):
        if obj.get("object", "card") != "card":
            continue
        try:
            card = card_from_scryfall(obj)
        except CardDataError as exc:
            raise SyncError(f"{name}, {position}: {exc}") from exc
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            card_name = obj.get("name")
            shown = repr(card_name[:120]) if isinstance(card_name, str) else "?"
            problem = field_problem(obj) or (f"unexpected card data "
                                             f"({type(exc).__name__}: {exc})")
            raise SyncError(f"{name}, {position}: card {shown}: {problem}") from exc
        # A name that is a number or an oracle_id that is an object would otherwise fail
        # later, without a line (building the name index), or in the database ("value too
        # long" on PostgreSQL).
        problem = card_problem(card, checked)
        if problem:
            shown = card.name if isinstance(card.name, str) else repr(card.name)
            raise SyncError(f"{name}, {position}: card {shown[:120]!r}: {problem}")
        yield card


#: Files at least this big are read in a second process (see `_batches_from_worker`).
PARALLEL_MIN_BYTES = 4 << 20


def _read_batches(path: Path, name: str, for_changes: bool, conn: Any,
                  parent_end: Any = None, parent_pid: int | None = None) -> None:
    """Worker process: read the bulk file, compute card facts and rows, send `CardBatch`es.

    Messages: ("batch", CardBatch, bytes read so far) ..., then ("done", sha256, size), or
    ("error", message). The pipe's small buffer keeps both processes in step, so memory stays
    flat however big the file.

    The worker dies with the importing process: it closes its inherited copy of the pipe's
    reading end first (else, once the parent is killed, its own copy would keep the pipe open
    and `send` would block forever), so a send to a dead parent fails with a broken pipe; and
    it checks between batches that its parent is still the one that started it.
    """
    import signal

    if parent_end is not None:
        parent_end.close()
    # Ctrl-C and SIGTERM are the importing process's to handle: it stops this one.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    gc.disable()  # as in import_file
    stats = BulkStats()
    read = 0

    def on_read(n: int) -> None:
        nonlocal read
        read += n

    try:
        cards = _cards(path, stats, on_read, name)
        for batch in card_batches(cards, for_changes=for_changes):
            if parent_pid is not None and os.getppid() != parent_pid:
                return  # orphaned: nobody will read what we send
            conn.send(("batch", batch, read))
        conn.send(("done", stats.sha256, stats.size))
    except (BrokenPipeError, ConnectionResetError):
        return  # the importing process is gone (killed, or stopped reading)
    except Exception as exc:  # noqa: BLE001 - every failure goes back to the importing process
        try:
            conn.send(("error", str(exc) if isinstance(exc, (SyncError, BulkFileError, OSError))
                       else f"{name}: {type(exc).__name__}: {exc}"))
        except OSError:
            return
    finally:
        conn.close()


def _batches_from_worker(path: Path, name: str, stats: BulkStats,
                         on_read: Callable[[int], None] | None, *,
                         for_changes: bool) -> Iterator[CardBatch]:
    """`card_batches` of the file, built in a second process.

    Reading JSON and computing facts and rows take longer than writing them; on two cores the
    two overlap, which makes a full sync markedly faster. Errors arrive as SyncError, with the
    same messages as in-process.
    """
    import multiprocessing

    receiver, sender = multiprocessing.Pipe(duplex=False)
    worker = multiprocessing.Process(target=_read_batches, daemon=True,
                                     args=(path, name, for_changes, sender,
                                           receiver, os.getpid()))
    worker.start()
    sender.close()
    reported = 0
    try:
        while True:
            try:
                message = receiver.recv()
            except EOFError:
                raise SyncError(f"{name}: the reading process stopped unexpectedly") from None
            if message[0] == "batch":
                if on_read and message[2] > reported:
                    on_read(message[2] - reported)
                    reported = message[2]
                yield message[1]
            elif message[0] == "done":
                stats.sha256, stats.size = message[1], message[2]
                return
            else:
                raise SyncError(message[1])
    finally:
        receiver.close()
        worker.join(timeout=5)
        if worker.is_alive():
            worker.terminate()
            worker.join()


#: Every key of a default_cards object `_printings` reads (card faces are read whole).
PRINTING_KEYS = frozenset({"card_faces", "oracle_id", "set", "collector_number", "lang",
                           "printed_name", "flavor_name", "rarity"})


def _printings(path: Path, stats: BulkStats, on_read: Callable[[int], None] | None,
               name: str) -> Iterator[dict[str, Any]]:
    for position, obj in iter_bulk_file(path, stats, on_read, name=name, keys=PRINTING_KEYS):
        try:
            faces = obj.get("card_faces") or []
            oracle_id = obj.get("oracle_id") or (faces[0].get("oracle_id") if faces else None)
            if not oracle_id or not obj.get("set") or not obj.get("collector_number"):
                continue  # tokens and art cards without an oracle card
            english = obj.get("lang", "en") == "en"
            # printed_name is the localized name: an alias only for English printings (a
            # default_cards file also holds printings that exist in one other language only).
            printed = (obj.get("printed_name") or " // ".join(
                f["printed_name"] for f in faces if f.get("printed_name"))) if english else ""
            flavor = obj.get("flavor_name") or " // ".join(
                f["flavor_name"] for f in faces if f.get("flavor_name"))
            yield {"set_code": str(obj["set"]).lower(),
                   "collector_number": str(obj["collector_number"]),
                   "oracle_id": str(oracle_id), "rarity": str(obj.get("rarity") or ""),
                   "printed_name": printed or None, "flavor_name": flavor or None}
        except (TypeError, AttributeError, KeyError) as exc:
            raise SyncError(f"{name}, {position}: unexpected printing data "
                            f"({type(exc).__name__}: {exc})") from exc


def _sqlite_path(url: str) -> Path | None:
    return Path(url[len("sqlite:///"):]) if url.startswith("sqlite:///") else None


def import_file(path: Path, db: str | None = None, *, bulk_type: str = ORACLE,
                source: str | None = None, updated_at: str | None = None, force: bool = False,
                progress: Callable[[int], None] | None = None,
                name: str | None = None, allow_shrink: bool = False,
                lock_timeout: float | None = None) -> SyncResult:
    """Import a bulk file (JSON array or JSON Lines, gzip or not) in one transaction.

    Any failure raises SyncError and rolls back: readers keep seeing the previous database
    (or, when there was none, no database file is left behind). `name` is how error messages
    call the file (default: its file name).

    The transaction first takes the database's sync lock (SQLite's write lock, a PostgreSQL
    advisory lock), waiting at most `lock_timeout` seconds (default $DECKCHECK_SYNC_LOCK_TIMEOUT
    or 600) before failing with SyncBusy; the schema, the legality change log and the import
    all happen under it, so two syncs run one after the other and each change is recorded
    once. With `updated_at`, a sync that finds (under the lock) that this very file was the
    last one imported skips it, unless `force`. A file with fewer than half the cards the
    database holds is refused unless `allow_shrink`."""
    from sqlalchemy.exc import SQLAlchemyError

    from validator.store.database import DatabaseError

    path = Path(path)
    name = name or (path.name if path.is_file() else str(path))  # a pipe: /dev/fd/63, not 63
    problem = source_problem(path)  # a regular file or a pipe (read once, as a stream)
    if problem:
        raise SyncError(problem)
    wait = lock_timeout_from_env(lock_timeout)
    url = database_url(db)
    db_file = _sqlite_path(url)
    new_db = db_file is not None and not db_file.exists()
    engine = make_write_engine(url, lock_timeout=wait)
    started = time.monotonic()
    stats = BulkStats()
    result = SyncResult(bulk_type=bulk_type, source=source or str(path), updated_at=updated_at)
    ok = False
    # An import allocates millions of short-lived containers while the heap holds none that
    # form cycles; CPython's cyclic GC would rescan the young generations thousands of times.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with _write_transaction(engine, url, wait) as conn:
            sync_lock(conn, wait)
            upgraded = create_schema(conn)
            if upgraded and bulk_type == DEFAULT:
                # The upgrade empties the card data that only an oracle-cards import writes
                # again: raising rolls it back, the database stays as it was.
                raise SyncError("the database was written by an older deckcheck (card schema "
                                "version 1): sync the oracle cards first (`deckcheck sync`, or "
                                "`deckcheck sync --from FILE` with an oracle-cards file) to "
                                "upgrade it, then the printings")
            if (updated_at and not force and not upgraded
                    and _last_updated_at(conn, bulk_type) == updated_at):
                # Another sync imported this very file while we downloaded it.
                result.skipped = True
                ok = True
                return result
            now = datetime.now(timezone.utc)
            if bulk_type == DEFAULT:
                result.printing_count = write_printings(conn, _printings(path, stats, progress, name))
                if result.printing_count == 0:
                    raise SyncError(f"{name}: no printings of known cards; sync oracle cards first")
            else:
                old_count = count_cards(conn)
                for_changes = old_count > 0
                if path.stat().st_size >= PARALLEL_MIN_BYTES:
                    batches = _batches_from_worker(path, name, stats, progress,
                                                   for_changes=for_changes)
                else:
                    batches = card_batches(_cards(path, stats, progress, name),
                                           for_changes=for_changes)
                written = write_batches(conn, batches, now=now)
                if written.card_count == 0:
                    raise SyncError(f"{name}: the file holds no cards")
                if old_count and written.card_count < old_count / 2 and not allow_shrink:
                    # --force only means "import even if unchanged": replacing most of the
                    # cards needs its own flag.
                    raise SyncError(
                        f"{name} holds {written.card_count} cards, the database {old_count}: "
                        "refusing to replace the database with fewer than half its cards; "
                        "if that is what you want, run the sync again with --allow-shrink "
                        "(allow_shrink=True)")
                result.card_count, result.changes = written.card_count, written.changes
            refresh_aliases(conn)
            result.duration_s = time.monotonic() - started
            result.sha256 = stats.sha256
            sync_id = conn.execute(SyncRun.__table__.insert().values(
                bulk_type=bulk_type, source_uri=result.source, updated_at=updated_at,
                finished_at=now, card_count=result.card_count or result.printing_count or 0,
                duration_s=result.duration_s, sha256=stats.sha256, size_bytes=stats.size,
            )).inserted_primary_key[0]
            if result.changes:
                conn.execute(LegalityChange.__table__.insert(),
                             [dict(ch, sync_id=sync_id) for ch in result.changes])
        ok = True
    except LockTimeout as exc:
        raise SyncBusy(f"{exc}; try again when it has finished, or wait longer with "
                       f"--lock-timeout SECONDS (${ENV_LOCK_TIMEOUT})",
                       hint="the other sync may still change the card database") from exc
    except BulkFileError as exc:
        raise SyncError(str(exc)) from exc
    except (SQLAlchemyError, DatabaseError) as exc:
        detail = getattr(exc, "orig", None) or exc
        hint = ""
        if db_file is not None and not os.access(db_file.parent, os.W_OK):
            # A read-only mount or directory: the sync writes the file and a -wal beside it.
            hint = (f"; {db_file.parent} is read-only: sync into a writable directory (a "
                    "synced file can then be read from a read-only file system)")
        error = SyncError(f"importing {name} into {shown_location(url)} failed: {detail}{hint}")
        error.database_failed = True  # do not probe it again for the hint (it may hang)
        raise error from exc
    except OSError as exc:
        raise SyncError(f"cannot read {path}: {exc}") from exc
    finally:
        if gc_was_enabled:
            gc.enable()
        engine.dispose()
        if not ok and new_db and db_file is not None:
            _remove_if_empty(db_file)
    return result


@contextmanager
def _write_transaction(engine: Any, url: str, wait: float) -> Iterator[Any]:
    """engine.begin(), with SQLite's "database is locked" at BEGIN IMMEDIATE (the busy handler
    waited `wait` seconds for another writer) turned into LockTimeout."""
    from sqlalchemy.exc import OperationalError

    try:
        conn = engine.connect()
        transaction = conn.begin()
    except OperationalError as exc:
        if "locked" in str(exc.orig).lower() or "busy" in str(exc.orig).lower():
            raise LockTimeout(f"another sync is writing to {shown_location(url)} "
                              f"(waited {wait:.0f} s)") from exc
        raise
    with conn:
        with transaction:
            yield conn


def _last_updated_at(conn: Any, bulk_type: str) -> str | None:
    t = SyncRun.__table__
    row = conn.execute(t.select().where(t.c.bulk_type == bulk_type)
                       .order_by(t.c.id.desc()).limit(1)).first()
    return row.updated_at if row else None


def _remove_if_empty(db_file: Path) -> None:
    """Delete a database file this failed first sync created, unless another sync has
    written to it meanwhile (it holds tables) or is writing to it now (it holds the lock)."""
    import sqlite3

    try:
        con = sqlite3.connect(db_file, timeout=0, isolation_level=None)
        try:
            con.execute("BEGIN IMMEDIATE")
            empty = con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
            con.execute("ROLLBACK")
        finally:
            con.close()
    except sqlite3.Error:
        return
    if empty:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(db_file) + suffix).unlink(missing_ok=True)


# ---------------------------------------------------------------------------- the job

@contextmanager
def _progress(desc: str, total: int | None) -> Iterator[Callable[[int], None] | None]:
    """A tqdm bar's `update` on a terminal; None (quiet: the CLI logs one line per phase)."""
    if not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    with tqdm(total=total, desc=desc, unit="B", unit_scale=True, leave=False,
              file=sys.stderr) as bar:
        yield bar.update


def sync(db: str | None = None, *, from_file: Path | str | None = None, force: bool = False,
         printings: bool = False, api: str | None = None, session: Any = None,
         echo: Callable[[str], None] = lambda s: None, allow_shrink: bool = False,
         limits: DownloadLimits | None = None,
         lock_timeout: float | None = None) -> list[SyncResult]:
    """Bring the card database up to date: oracle cards, then printings when asked.

    `from_file` imports a bulk file already on disk (oracle cards, or with `printings=True` a
    default_cards file). Otherwise Scryfall is asked which file is current (`api`, default
    $DECKCHECK_SCRYFALL_API or https://api.scryfall.com) and the download is skipped when its
    `updated_at` has not changed since the last sync, unless `force`. `allow_shrink` lets a file
    with fewer than half the database's cards replace them; `limits` bounds each download
    (default `DownloadLimits.from_env()`); `lock_timeout` bounds the wait for another sync.

    A SyncError's `hint` says what to do next and, when it is known, the database's state.
    SIGTERM (in the main thread, when no handler is set) cleans up as Ctrl-C does and raises
    SyncTerminated, a KeyboardInterrupt."""
    try:
        with _sigterm_as_interrupt():
            limits = limits or DownloadLimits.from_env()
            lock_timeout = lock_timeout_from_env(lock_timeout)
            if from_file is not None:
                from_file = Path(from_file)
                if printings:
                    _refuse_oracle_file_as_printings(from_file)
                kind = DEFAULT if printings else ORACLE
                echo(f"importing {from_file}")
                size = from_file.stat().st_size if from_file.is_file() else None
                with _progress("import", size) as bar:
                    return [import_file(from_file, db, bulk_type=kind, source=str(from_file),
                                        force=force, progress=bar, allow_shrink=allow_shrink,
                                        lock_timeout=lock_timeout)]
            session = session or make_session()
            results = []
            for kind in [ORACLE] + ([DEFAULT] if printings else []):
                results.append(_sync_one(db, kind, session, api, force, echo, allow_shrink,
                                         limits, lock_timeout))
            return results
    except SyncError as exc:
        if not isinstance(exc, SyncBusy) and not getattr(exc, "database_failed", False):
            exc.hint = "\n".join(h for h in (exc.hint, _state_after_failure(db)) if h) or None
        raise


def _refuse_oracle_file_as_printings(path: Path) -> None:
    """`--from FILE --printings` imports FILE as default_cards (every printing). Scryfall's
    oracle_cards file holds one printing per card, and its objects carry `set` and `rarity`
    like default_cards', so only its name tells them apart (Scryfall names its bulk files
    `oracle-cards-<timestamp>.json`): imported as printings it would leave one rarity per card,
    and Pauper Commander's commander check (uncommon printing) would judge by that one."""
    import re

    if re.search(r"oracle[-_ ]?cards", path.name, re.IGNORECASE):
        raise SyncError(
            f"{path.name} is Scryfall's oracle_cards file (one printing per card), but "
            "--printings imports a default_cards file (every printing)",
            hint="import it without --printings (`deckcheck sync --from FILE`), and the "
                 "printings from a default-cards file (`deckcheck sync --from "
                 "default-cards-<date>.json --printings`)")


def _state_after_failure(db: str | None) -> str | None:
    """What a failed sync left: said only when the database holds cards (a failed sync rolled
    its own changes back); nothing about a "previous database" when there is none."""
    from validator.store.database import make_engine

    url = database_url(db)
    db_file = _sqlite_path(url)
    if db_file is not None and not db_file.exists():
        return None
    try:
        engine = make_engine(url)
        try:
            with engine.connect() as conn:
                count = count_cards(conn)
        finally:
            engine.dispose()
    except Exception:  # noqa: BLE001 - no readable database: nothing to say about it
        return None
    return (f"the card database is unchanged by this sync: it still holds its {count} cards"
            if count else None)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Turn SIGTERM into SyncTerminated for the duration of a sync (main thread only, and only
    when the program has not set its own handler)."""
    import signal
    import threading

    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return

    def on_term(signum: int, _frame: Any) -> None:
        raise SyncTerminated(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _sync_one(db: str | None, kind: str, session: Any, api: str | None, force: bool,
              echo: Callable[[str], None], allow_shrink: bool = False,
              limits: DownloadLimits | None = None,
              lock_timeout: float | None = None) -> SyncResult:
    descriptor = fetch_descriptor(session, kind, api, limits=limits)
    uri = download_uri(descriptor, f"the {kind} bulk data")
    updated_at = descriptor.get("updated_at")
    if not isinstance(updated_at, str):
        updated_at = None
    if not force and _up_to_date(db, kind, updated_at):
        return SyncResult(bulk_type=kind, source=uri, skipped=True, updated_at=updated_at)
    expected = descriptor.get("compressed_size") if descriptor.get("jsonl_download_uri") else None
    if not isinstance(expected, int):
        expected = None
    name = uri.rsplit("/", 1)[-1].split("?", 1)[0] or "bulk file"
    tmpdir = Path(tempfile.mkdtemp(prefix="deckcheck-"))
    part = tmpdir / "bulk.part"
    try:
        echo(f"downloading {uri}")
        with _progress("download", expected) as bar:
            download(session, uri, part, expected, limits=limits,
                     progress=(lambda n, total: bar(n)) if bar else None)
        echo(f"importing {kind}")
        with _progress("import", part.stat().st_size) as bar:
            return import_file(part, db, bulk_type=kind, source=uri, updated_at=updated_at,
                               force=force, progress=bar, name=name, allow_shrink=allow_shrink,
                               lock_timeout=lock_timeout)
    finally:
        part.unlink(missing_ok=True)
        tmpdir.rmdir()


def _up_to_date(db: str | None, kind: str, updated_at: str | None) -> bool:
    """True when the last sync of `kind` imported the file Scryfall still offers."""
    if not updated_at:
        return False
    db_file = _sqlite_path(database_url(db))
    if db_file is not None and not db_file.exists():
        return False
    try:
        with CardDB(db) as cards:
            cards.check()  # an older schema raises: the sync upgrades it, whatever the file
            last = cards.last_sync(kind)
    except Exception:  # noqa: BLE001 - no usable database means: sync
        return False
    return bool(last and last["updated_at"] == updated_at)
