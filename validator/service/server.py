"""Run the service under uvicorn: `deckcheck serve` calls `serve()`.

The card data is loaded once, before the port is bound, so that a database that cannot be
read is a one-line error (exit 2) and the first connection is already answered from a ready
index. With several workers (where the platform can fork), the loaded process binds the port
(on Linux one socket per worker, see `listen_group`) and forks the workers: they share the
loaded index and every imported module copy-on-write (the index is frozen out of the cyclic
GC, so the collector never touches its pages), which is what keeps each added worker small
and makes N workers ready as fast as one. Each worker then polls for new syncs and swaps its
own data in (cards.py). Without fork, uvicorn's own multi-process mode starts the workers and
each loads its index.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from validator import CardDB, DatabaseError, DeckcheckError, load_formats
from validator.service.cards import ORACLE_BULK

if TYPE_CHECKING:
    from validator.service.app import ServiceConfig
    from validator.service.cards import CardHolder
    from validator.service.connections import Limits

DEFAULT_HOST = "127.0.0.1"  # loopback: binding elsewhere is the operator's explicit choice
DEFAULT_PORT = 8000
log = logging.getLogger("uvicorn.error.deckcheck")


#: Seconds an idle keep-alive connection is kept after its last answer (uvicorn's default).
KEEP_ALIVE_SECONDS = 5


def bounds(limits: Limits | None = None) -> dict[str, Any]:
    """What uvicorn bounds per worker (docs/http-api.md "Limits"): idle keep-alive, and in the
    protocol (protocol.py) the connections in all and per client, the request head's size,
    the time to send a request head and body. uvicorn's own `limit_concurrency` is off: it
    counts every client's connections as one (one client holding them all refused everyone)
    and answers text/plain; the protocol's cap sheds idle keep-alives first and answers
    problem+json. X-Forwarded-For is believed only from `limits.trusted_proxies` (uvicorn
    believes it from 127.0.0.1 by default: any local process could claim any address)."""
    from validator.service.protocol import http_protocol

    trusted = list(limits.trusted_proxies) if limits is not None else []
    return dict(
        limit_concurrency=None,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
        http=http_protocol(limits),
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted or [],
    )


#: The modules of the `serve` extra (pyproject.toml), by the module name each is imported as;
#: python-multipart is imported as python_multipart, or multipart before its 0.0.13.
SERVE_EXTRA_MODULES = (
    ("fastapi",),
    ("uvicorn",),
    ("python_multipart", "multipart"),
    ("fastapi_offline",),
)


def require_serve_extra() -> None:
    """A DeckcheckError (exit 2, one line) saying how to install the `serve` extra when one of
    its modules cannot be imported: they are imported only once serving starts, where a
    missing one would otherwise surface as an internal error."""
    import importlib

    for names in SERVE_EXTRA_MODULES:
        problem: ImportError | None = None
        for name in names:
            try:
                importlib.import_module(name)
                break
            except ImportError as exc:
                problem = problem or exc
        else:
            raise DeckcheckError(
                f"deckcheck serve needs the serve extra, which is not installed ({problem}): "
                "pip install '.[serve]' in deckcheck's folder (a clone of its repository)",
                code="usage",
            ) from problem


def check_ready_to_serve(db: str | None, formats_file: str | None) -> None:
    """Fail before binding a port when the service could not answer: no card database, a
    database that was never synced, or a bad formats file (DeckcheckError, exit 2)."""
    from validator.store.database import shown_location

    load_formats(formats_file)
    cards = CardDB(db)
    shown = shown_location(cards.url)  # never the password of a database URL
    try:
        record = cards.last_sync(ORACLE_BULK)
    except DeckcheckError:
        raise
    except Exception as exc:  # noqa: BLE001 - a driver error: not a readable card database
        raise DatabaseError(
            f"{shown} is not a readable deckcheck card database ({exc}); "
            "run `deckcheck sync` to build one"
        ) from exc
    finally:
        cards.close()
    if record is None:
        raise DatabaseError(
            f"the card database {shown} has never been synced; run "
            "`deckcheck sync` (or `deckcheck sync --from FILE`) first"
        )


def preloaded_holder(config: ServiceConfig) -> CardHolder:
    from validator.service.cards import CardHolder
    from validator.store.database import shown_location
    from validator.store.location import database_url

    holder = CardHolder(config.db, poll_seconds=config.poll_seconds)
    try:
        holder.load()
    except DeckcheckError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure here means the data is unusable
        raise DatabaseError(
            f"cannot load the card data from {shown_location(database_url(config.db))}: "
            f"{exc}; run `deckcheck sync` to rebuild it"
        ) from exc
    return holder


def listen(host: str, port: int, *, reuse_port: bool = False) -> socket.socket:
    """The listening socket, or a DeckcheckError naming the address (port in use...);
    `reuse_port`: one of a group sharing the address (SO_REUSEPORT, `listen_group`)."""
    sock = None
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        if sock is not None:
            sock.close()
        raise DeckcheckError(
            f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose "
            "another --port or --host",
            code="usage",
        ) from exc
    sock.set_inheritable(True)
    return sock


def listen_group(host: str, port: int, count: int) -> list[socket.socket]:
    """`count` listening sockets on one address, one per worker, where the kernel spreads new
    connections over them (Linux SO_REUSEPORT: by a hash of each connection's addresses); else
    one socket that every worker accepts from.

    A connection on a socket shared by forked workers goes to whichever worker accepts first,
    and an idle one takes a whole burst: the 16 keep-alive connections of bench/bench_serve.py
    (it prints the spread) were split 12/4 or worse in 11 runs of 20 (16/0 twice), one worker
    answering most of them while the other idled; hashed, 8 runs of 8 were 11/5 or better.
    The address is first bound without SO_REUSEPORT, so a port already in use (by anything,
    another `deckcheck serve` too) is still refused with the usual error."""
    first = listen(host, port)
    if count <= 1 or not sys.platform.startswith("linux") or not hasattr(socket, "SO_REUSEPORT"):
        return [first]
    port = first.getsockname()[1]  # the port the first bind got (port 0 picks one)
    first.close()
    group: list[socket.socket] = []
    try:
        for _ in range(count):
            group.append(listen(host, port, reuse_port=True))
    except DeckcheckError:
        for sock in group:
            sock.close()
        raise
    return group


def serve(
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    workers: int = 1,
    db: str | None = None,
    cors_origins: Sequence[str] = (),
    formats_file: str | None = None,
    poll_seconds: float = 5.0,
    access_log: bool = False,
    root_path: str = "",
    log_level: str = "info",
    limits: Limits | None = None,
) -> None:
    """Serve until interrupted. Each worker answers from an in-memory card index and polls
    the database every `poll_seconds` for a new sync."""
    import uvicorn

    from validator.service.app import CONFIG_ENV, ServiceConfig, create_app
    from validator.service.connections import Limits

    check_ready_to_serve(db, formats_file)
    config = ServiceConfig(
        db=db,
        poll_seconds=poll_seconds,
        cors_origins=tuple(cors_origins),
        formats_file=str(formats_file) if formats_file else None,
    )
    common: dict[str, Any] = dict(
        access_log=access_log,
        root_path=root_path,
        log_level=log_level,
        server_header=False,
        timeout_graceful_shutdown=10,
        **bounds(limits or Limits()),
    )
    if workers > 1 and not hasattr(os, "fork"):
        # Each worker process imports the app by name and reads its configuration from the
        # environment it inherits; each loads its own index. The protocol goes by name too:
        # the default connection limits.
        common["http"] = bounds()["http"]
        os.environ[CONFIG_ENV] = config.to_env()
        uvicorn.run(
            "validator.service.app:app_from_env",
            factory=True,
            workers=workers,
            host=host,
            port=port,
            **common,
        )
        return
    started = time.perf_counter()
    holder = preloaded_holder(config)
    app = create_app(config, holder=holder)
    uv_config = uvicorn.Config(app, host=host, port=port, **common)  # configures logging
    sockets = listen_group(host, port, workers)
    # The bound port: with --port 0 the OS picked it, and this line is where it is said.
    log.info(
        "card data loaded in %.2f s; listening on http://%s:%d",
        time.perf_counter() - started,
        host if ":" not in host else f"[{host}]",
        sockets[0].getsockname()[1],
    )
    if workers <= 1:
        uvicorn.Server(uv_config).run(sockets=sockets)
        return
    _run_forked(uv_config, sockets, holder, workers)


#: Linux prctl(2) option: the signal the kernel sends this process when its parent dies.
PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Stop this worker (SIGTERM: it finishes what it is answering) when the supervisor
    `parent` dies, even by kill -9, which gives it no chance to stop its workers: orphaned,
    they would go on serving on the port, and a new `deckcheck serve` there would fail
    "Address already in use". Linux: the kernel's parent-death signal; elsewhere a thread
    that checks the parent's pid each second."""
    if sys.platform.startswith("linux"):
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
        except (OSError, AttributeError):
            armed = False
        if armed:
            if os.getppid() != parent:  # it died before the signal was armed
                os.kill(os.getpid(), signal.SIGTERM)
            return
    import threading

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="deckcheck-parent-watch", daemon=True).start()


def _run_forked(
    uv_config: Any, sockets: list[socket.socket], holder: CardHolder, workers: int
) -> None:
    """Fork `workers` uvicorn servers, worker N on socket N of `sockets` (or all on the one
    shared socket); replace any that dies (on the same socket: connections the kernel queued
    on it meanwhile wait for the new worker, as the supervisor keeps every socket open); on
    SIGTERM or SIGINT stop them all (each finishes its requests in flight) and return."""
    import uvicorn

    snapshot = holder.current
    if snapshot is not None:
        snapshot.db.close()  # no database connection crosses a fork; each worker opens its own
    stopping = False
    children: dict[int, int] = {}  # pid -> worker number
    supervisor = os.getpid()

    def start(number: int) -> None:
        pid = os.fork()
        if pid == 0:  # the worker
            code = 0
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                die_with_parent(supervisor)
                own = sockets[(number - 1) % len(sockets)]
                for other in sockets:
                    if other is not own:
                        other.close()
                uvicorn.Server(uv_config).run(sockets=[own])
            except BaseException:  # noqa: BLE001 - logged; the parent starts another
                log.exception("worker %d failed", number)
                code = 1
            finally:
                os._exit(code)
        children[pid] = number
        log.info("started worker %d (pid %d)", number, pid)

    def stop(signum: int, _frame: Any) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        for number in range(1, workers + 1):
            start(number)
        while children:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            except InterruptedError:
                continue
            number = children.pop(pid, None)  # type: ignore[arg-type]  # None: not a worker
            if number is not None and not stopping:
                log.warning(
                    "worker %d (pid %d) exited (%s); starting another",
                    number,
                    pid,
                    os.waitstatus_to_exitcode(status),
                )
                time.sleep(0.5)  # no busy loop if workers die at once
                start(number)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for sock in sockets:
            sock.close()
    sys.stdout.flush()
