"""Sync against real sockets and real processes: a Scryfall stand-in on 127.0.0.1 that stalls
or trickles, SIGTERM and kill -9 of a running sync, two syncs at once.

Everything is local and bounded: servers listen on the loopback interface only, every wait
has a deadline, and a sync that never ends fails the test instead of hanging it.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from test_sync import N_FIXTURE, assert_intact, fixture_objects, jsonl_bytes, synthetic_cards

from validator.store.database import CardDB, DatabaseError
from validator.sync import DownloadLimits, SyncError, sync
from validator.sync.http import fetch_descriptor, make_session

REPO = Path(__file__).resolve().parents[2]
UPDATED = "2026-09-08T09:01:57.053+00:00"


# ---------------------------------------------------------------------------- a local Scryfall


class StandIn:
    """A Scryfall stand-in: /bulk-data/oracle-cards answers with a descriptor pointing at
    /file, which `body` serves (a function writing to the handler)."""

    def __init__(
        self,
        body: Callable[[BaseHTTPRequestHandler, StandIn], None],
        index: Callable[[BaseHTTPRequestHandler, StandIn, bytes], None] | None = None,
    ):
        self.body = body
        self.index = index  # serves the bulk-data object (default: at once, whole)
        self.stop = threading.Event()
        self.requests: list[str] = []
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                stand_in.requests.append(self.path)
                try:
                    if self.path.startswith("/bulk-data/"):
                        data = json.dumps(
                            {
                                "object": "bulk_data",
                                "type": "oracle_cards",
                                "updated_at": UPDATED,
                                "jsonl_download_uri": f"{stand_in.base}/file/oracle-cards.jsonl.gz",
                            }
                        ).encode()
                        if stand_in.index is not None:
                            stand_in.index(self, stand_in, data)
                            return
                        self.send_response(200)
                        self.send_header("Content-Type", "application/json")
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data)
                    else:
                        stand_in.body(self, stand_in)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up: what the test wants

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def good_body(data: bytes) -> Callable[[BaseHTTPRequestHandler, StandIn], None]:
    def body(h: BaseHTTPRequestHandler, _s: StandIn) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/gzip")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    return body


def trickle_body(h: BaseHTTPRequestHandler, s: StandIn) -> None:
    """Announces 1 MB, then sends one byte every 50 ms: never a stall, never an end."""
    h.send_response(200)
    h.send_header("Content-Length", str(1 << 20))
    h.end_headers()
    while not s.stop.wait(0.05):
        h.wfile.write(b"\x1f")
        h.wfile.flush()


def stall_body(h: BaseHTTPRequestHandler, s: StandIn) -> None:
    """Sends 100 bytes of a 1 MB file, then nothing until the test ends."""
    h.send_response(200)
    h.send_header("Content-Length", str(1 << 20))
    h.end_headers()
    h.wfile.write(b"\x1f\x8b" + b"\0" * 98)
    h.wfile.flush()
    s.stop.wait(60)


def trickled_headers(h: BaseHTTPRequestHandler, s: StandIn, *_: Any) -> None:
    """A status line, then a header one byte a second: never a stall, never an end."""
    h.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    h.wfile.flush()
    while not s.stop.wait(1.0):
        h.wfile.write(b"a")
        h.wfile.flush()


def trickled_index(h: BaseHTTPRequestHandler, s: StandIn, data: bytes) -> None:
    """The bulk-data object's headers at once, then its body a byte every 50 ms."""
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(data)))
    h.end_headers()
    for byte in data:
        if s.stop.wait(0.05):
            return
        h.wfile.write(bytes([byte]))
        h.wfile.flush()


def big_index(announce: bool) -> Callable[[BaseHTTPRequestHandler, StandIn, bytes], None]:
    """The bulk-data object padded to 64 KiB (valid JSON), with or without Content-Length."""

    def index(h: BaseHTTPRequestHandler, s: StandIn, data: bytes) -> None:
        padded = data[:-1] + b", " + json.dumps({"padding": "x" * (64 << 10)}).encode()[1:]
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        if announce:
            h.send_header("Content-Length", str(len(padded)))
        h.end_headers()
        h.wfile.write(padded)

    return index


def run_bounded(fn: Callable[[], Any], limit: float) -> tuple[Any, BaseException | None, float]:
    """Run fn in a thread; fail the test if it has not ended after `limit` seconds."""
    out: dict[str, Any] = {}

    def target() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            out["error"] = exc

    started = time.monotonic()
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(limit)
    assert not thread.is_alive(), f"the sync had not ended after {limit} s"
    return out.get("value"), out.get("error"), time.monotonic() - started


def session(retries: int = 0):
    return make_session(retries=retries, backoff=0, rate_limit_wait=0, min_interval=0)


def failed_sync(
    tmp_path: Path, stand_in: StandIn, limits: DownloadLimits, *, retries: int, bound: float
) -> tuple[StandIn, SyncError, float, str]:
    """Sync against `stand_in` (bounded in time) and expect it to fail: (stand-in, the
    SyncError, seconds taken, the database path)."""
    db = str(tmp_path / "cards.sqlite3")
    with stand_in as s:
        _, error, took = run_bounded(
            lambda: sync(db, api=s.base, session=session(retries=retries), limits=limits), bound
        )
    assert isinstance(error, SyncError), error
    return s, error, took, db


# ---------------------------------------------------------------------------- deadline and stall


def test_download_over_a_real_socket(tmp_path: Path) -> None:
    db = str(tmp_path / "cards.sqlite3")
    with StandIn(good_body(gzip.compress(jsonl_bytes(fixture_objects())))) as s:
        [result] = sync(
            db, api=s.base, session=session(), limits=DownloadLimits(min_rate=1024, stall_timeout=5)
        )
    assert result.card_count == N_FIXTURE
    assert_intact(db)


def test_a_trickle_ends_at_the_minimum_rate(tmp_path: Path) -> None:
    """One byte every 50 ms keeps the socket's read timeout happy forever; the minimum rate
    ends it soon after the grace period."""
    s, error, _, db = failed_sync(
        tmp_path,
        StandIn(trickle_body),
        DownloadLimits(min_rate=10 * 1024, stall_timeout=0.5),
        retries=2,
        bound=30,
    )
    assert "slower than the minimum rate of 10 KiB/s" in str(error)
    assert "--min-rate" in str(error)
    assert sum(r.startswith("/file") for r in s.requests) == 1  # a slow server is not retried
    assert not Path(db).exists()


def gzip_header_trickle(h: BaseHTTPRequestHandler, s: StandIn) -> None:
    """Content-Encoding gzip, no length, a gzip header whose file name never ends: bytes keep
    coming, the decoder never yields one (urllib3's read1 keeps reading until it does)."""
    h.send_response(200)
    h.send_header("Content-Encoding", "gzip")
    h.end_headers()
    h.wfile.write(b"\x1f\x8b\x08\x08\0\0\0\0\0\x03")  # FNAME flag: a name follows
    h.wfile.flush()
    while not s.stop.wait(0.05):
        h.wfile.write(b"a")
        h.wfile.flush()


def test_a_trickle_the_decoder_swallows_ends_at_the_minimum_rate(tmp_path: Path) -> None:
    """Before: never ended (the rate was only checked on decoded pieces, and none came)."""
    s, error, took, _ = failed_sync(
        tmp_path,
        StandIn(gzip_header_trickle),
        DownloadLimits(min_rate=1024, stall_timeout=0.5),
        retries=2,
        bound=20,
    )
    assert (
        f"download {s.base}/file/oracle-cards.jsonl.gz: the data arrived slower than the "
        "minimum rate of 1 KiB/s (counted on the wire" in str(error)
    )
    assert "--min-rate" in str(error)
    assert took < 5
    assert sum(r.startswith("/file") for r in s.requests) == 1


def test_a_stalled_download_ends_at_the_stall_timeout(tmp_path: Path) -> None:
    s, error, _, db = failed_sync(
        tmp_path,
        StandIn(stall_body),
        DownloadLimits(min_rate=1, stall_timeout=0.5),
        retries=1,
        bound=30,
    )
    assert "stalled: no data for 0.5 s" in str(error) and "--stall-timeout" in str(error)
    assert sum(r.startswith("/file") for r in s.requests) == 2  # a stall is retried once
    assert not Path(db).exists()


#: Small limits for the tests: a deadline of 1.5 s for every answer, stalls far longer.
QUICK = DownloadLimits(min_rate=1024, stall_timeout=5, request_timeout=1.5, index_max_bytes=4096)


@pytest.mark.parametrize("where", ["index", "file"])
def test_headers_trickled_a_byte_a_second_end_at_the_request_timeout(
    tmp_path: Path, where: str
) -> None:
    """Before: every byte restarted the read timeout, so the sync never ended (on the bulk-data
    index or on the download). Now the watchdog shuts the connection at the deadline."""
    stand_in = (
        StandIn(good_body(b""), index=trickled_headers)
        if where == "index"
        else StandIn(trickled_headers)
    )
    s, error, took, db = failed_sync(tmp_path, stand_in, QUICK, retries=2, bound=20)
    assert f"{s.base}/" in str(error)  # names the URL
    assert "did not arrive within 1.5 s" in str(error) and "--request-timeout" in str(error)
    assert "headers" in str(error) if where == "file" else "whole answer" in str(error)
    assert 1.4 < took < 5
    # a deadline that passed is not retried: the server would trickle again
    path = "/bulk-data/" if where == "index" else "/file"
    assert sum(r.startswith(path) for r in s.requests) == 1
    assert not Path(db).exists()


def test_a_trickled_index_reply_ends_at_the_request_timeout(tmp_path: Path) -> None:
    """Before: the ~200-byte index reply, a byte every 50 ms, was read inside requests'
    get() with no deadline (10 s here; a byte a minute: hours)."""
    s, error, took, _ = failed_sync(
        tmp_path, StandIn(good_body(b""), index=trickled_index), QUICK, retries=2, bound=20
    )
    assert (
        f"GET {s.base}/bulk-data/oracle-cards: the whole answer did not arrive within 1.5 s"
        in str(error)
    )
    assert 1.4 < took < 5
    assert s.requests == ["/bulk-data/oracle-cards"]


@pytest.mark.parametrize("announce", [True, False], ids=["content-length", "until-close"])
def test_an_index_reply_larger_than_its_cap_is_refused(tmp_path: Path, announce: bool) -> None:
    """Before: any size was read into memory and, being valid JSON, accepted."""
    data = gzip.compress(jsonl_bytes(fixture_objects()))
    s, error, _, db = failed_sync(
        tmp_path, StandIn(good_body(data), index=big_index(announce)), QUICK, retries=2, bound=20
    )
    assert f"GET {s.base}/bulk-data/oracle-cards: the answer is larger than 4096 bytes" in str(
        error
    )
    assert s.requests == ["/bulk-data/oracle-cards"]  # not retried, nothing downloaded
    # the same reply within a larger cap is a good index
    with StandIn(good_body(data), index=big_index(announce)) as s:
        [result] = sync(
            db,
            api=s.base,
            session=session(),
            limits=DownloadLimits(min_rate=1024, stall_timeout=5, index_max_bytes=1 << 20),
        )
    assert result.card_count == N_FIXTURE


def test_a_trickled_tls_handshake_ends_at_the_request_timeout() -> None:
    """The watchdog holds the socket from before the TLS handshake: a server that accepts and
    then sends a byte every 0.3 s (never a whole TLS record) is cut off too."""
    import socket

    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            while not stop.wait(0.3):
                try:
                    conn.send(b"\x16")
                except OSError:
                    return

    threading.Thread(target=serve, daemon=True).start()
    api = f"https://127.0.0.1:{server.getsockname()[1]}"
    try:
        _, error, took = run_bounded(
            lambda: fetch_descriptor(session(), "oracle_cards", api, limits=QUICK), 20
        )
    finally:
        stop.set()
        server.close()
    assert isinstance(error, SyncError), error
    assert f"GET {api}/bulk-data/oracle-cards: the whole answer did not arrive within 1.5 s" in str(
        error
    )
    assert 1.4 < took < 5


def test_the_cli_ends_a_trickle_with_exit_2_and_no_traceback(tmp_path: Path) -> None:
    with StandIn(good_body(b""), index=trickled_headers) as s:
        proc = _start_sync(
            ["--db", str(tmp_path / "cards.sqlite3"), "--request-timeout", "1"],
            env={"DECKCHECK_SCRYFALL_API": s.base},
        )
        try:
            _, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 2, err
    assert "Traceback" not in err
    assert (
        f"sync failed: GET {s.base}/bulk-data/oracle-cards: the whole answer did not "
        "arrive within 1 s"
        in err
        and "--request-timeout" in err
    )


def test_limits_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DECKCHECK_SYNC_MIN_RATE", "8")
    monkeypatch.setenv("DECKCHECK_SYNC_STALL_TIMEOUT", "12.5")
    assert DownloadLimits.from_env() == DownloadLimits(min_rate=8 * 1024, stall_timeout=12.5)
    assert DownloadLimits.from_env(4, 3) == DownloadLimits(min_rate=4 * 1024, stall_timeout=3)
    monkeypatch.setenv("DECKCHECK_SYNC_REQUEST_TIMEOUT", "7")
    assert DownloadLimits.from_env().request_timeout == 7
    assert DownloadLimits.from_env(request_timeout=2).request_timeout == 2
    monkeypatch.delenv("DECKCHECK_SYNC_REQUEST_TIMEOUT")
    monkeypatch.setenv("DECKCHECK_SYNC_MIN_RATE", "fast")
    with pytest.raises(SyncError, match="DECKCHECK_SYNC_MIN_RATE='fast' is not a number"):
        DownloadLimits.from_env()
    monkeypatch.delenv("DECKCHECK_SYNC_MIN_RATE")
    monkeypatch.delenv("DECKCHECK_SYNC_STALL_TIMEOUT")
    limits = DownloadLimits.from_env()
    # the defaults: 170 MB finish at 32 KiB/s, within the deadline they imply
    assert limits.deadline(170_000_000) == pytest.approx(60 + 170_000_000 / 32768)


# ---------------------------------------------------------------------------- processes


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait(condition: Callable[[], Any], limit: float, step: float = 0.02) -> Any:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    return condition()


@pytest.fixture(scope="module")
def big_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A plain JSON Lines file over 4 MiB: imported with the second (reading) process."""
    path = tmp_path_factory.mktemp("big") / "big.jsonl"
    objs = fixture_objects() + synthetic_cards(15000)
    bolt = next(o for o in objs if o.get("name") == "Lightning Bolt")
    bolt["legalities"] = dict(bolt["legalities"], modern="banned")
    path.write_bytes(jsonl_bytes(objs))
    assert path.stat().st_size > 4 << 20
    return path


def _start_sync(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "validator", "sync", *args],
        cwd=REPO,
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def _child_pids(pid: int) -> list[int]:
    """`pid`'s children, from /proc/PID/task/*/children (one read, so a child is seen within
    a millisecond of its fork), else from a scan of /proc."""
    try:
        return [
            int(n)
            for task in Path(f"/proc/{pid}/task").iterdir()
            for n in (task / "children").read_text().split()
        ]
    except OSError:
        return _children(pid)


def _read_position(pid: int, path: Path) -> tuple[int, int] | None:
    """(offset, size) of `pid`'s open descriptor of `path`, or None when it has none open."""
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            if Path(os.readlink(fd)) == path:
                info = (Path(f"/proc/{pid}/fdinfo") / fd.name).read_text()
                pos = int(next(ln for ln in info.splitlines() if ln.startswith("pos:")).split()[1])
                return pos, path.stat().st_size
        except OSError:
            continue
    return None


@needs_proc
def test_kill_9_of_the_sync_ends_its_reading_process(big_file: Path, tmp_path: Path) -> None:
    """Before: the reader blocked forever on the pipe (10 runs of 10). It must die with its
    parent; and the killed first sync leaves no card data, which readers are told.

    The importing process is stopped (SIGSTOP) as soon as its reader exists: the reader then
    fills the pipe between them and blocks in its send, certainly still reading its file when
    the importing process is killed (a sleep let a fast machine finish the file first)."""
    db = tmp_path / "cards.sqlite3"
    big_file = big_file.resolve()
    proc = _start_sync(["--from", str(big_file), "--db", str(db)])
    stopped = False
    try:
        children = _wait(lambda: _child_pids(proc.pid), 30, step=0.001)
        assert children, "the sync never started its reading process"
        os.kill(proc.pid, signal.SIGSTOP)
        stopped = True
        # The reader opens the file, reads and sends until the pipe is full, then waits.
        [reader] = children
        position = _wait(lambda: _read_position(reader, big_file), 30)
        assert position, "the reader never opened its file"
        assert _wait(lambda: _blocked(reader), 30), "the reader does not wait on the pipe"
        pos, size = _read_position(reader, big_file) or (0, 0)
        assert 0 < pos < size, f"the reader is not in the middle of its file ({pos} of {size})"
        assert _alive(reader), "the reader finished before the kill"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert _wait(lambda: not _alive(reader), 10), "the reading process outlived the killed sync"
    finally:
        for pid in [proc.pid, *_children(proc.pid)]:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
        if stopped and proc.returncode is None:
            os.kill(proc.pid, signal.SIGCONT)
        proc.communicate()
    if db.exists():  # killed mid-import: nothing committed, and readers are told to sync
        with pytest.raises(DatabaseError, match="no card data"):
            CardDB(db).check()


def _blocked(pid: int) -> bool:
    """True when `pid` sleeps and its CPU time stays put for 0.2 s (waiting on its pipe)."""

    def cpu() -> tuple[str, int]:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return fields[0], int(fields[11]) + int(fields[12])  # state, utime + stime

    try:
        state, before = cpu()
        time.sleep(0.2)
        state_after, after = cpu()
    except OSError:
        return False
    return state == state_after == "S" and before == after


@needs_proc
def test_sigterm_during_import_rolls_back_and_stops_the_reader(
    big_file: Path, tmp_path: Path
) -> None:
    db = tmp_path / "cards.sqlite3"
    sync(str(db), from_file=_fixture_file(tmp_path))
    proc = _start_sync(["--from", str(big_file), "--db", str(db)])
    children = _wait(lambda: _children(proc.pid), 30)
    assert children
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 143, err
    assert "sync terminated (SIGTERM)" in err and "Traceback" not in err
    assert _wait(lambda: not any(_alive(c) for c in children), 10)
    assert_intact(str(db))


@needs_proc
def test_sigterm_during_download_removes_the_partial_file(tmp_path: Path) -> None:
    """Before: SIGTERM killed the sync outright and left /tmp/deckcheck-*/bulk.part behind."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    with StandIn(trickle_body) as s:
        proc = _start_sync(
            ["--db", str(tmp_path / "cards.sqlite3")],
            env={
                "DECKCHECK_SCRYFALL_API": s.base,
                "TMPDIR": str(tmp),
                "DECKCHECK_SYNC_MIN_RATE": "0.0001",
            },
        )
        try:
            assert _wait(lambda: list(tmp.glob("deckcheck-*/bulk.part")), 30), (
                "the download never started"
            )
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=20)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 143, err
    assert list(tmp.iterdir()) == []


def _fixture_file(tmp_path: Path) -> Path:
    path = tmp_path / "seed.jsonl.gz"
    path.write_bytes(gzip.compress(jsonl_bytes(fixture_objects())))
    return path


@needs_proc
def test_two_syncs_at_once_run_one_after_the_other(big_file: Path, tmp_path: Path) -> None:
    """Before: on SQLite the loser failed with "database is locked" and claimed the previous
    database was unchanged. Now the second waits for the first, and Lightning Bolt's ban is
    recorded once."""
    db = tmp_path / "cards.sqlite3"
    sync(str(db), from_file=_fixture_file(tmp_path))
    procs = [
        _start_sync(["--from", str(big_file), "--db", str(db), "--lock-timeout", "120"])
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=180) for p in procs]
    for proc, (_out, err) in zip(procs, outs):
        assert proc.returncode == 0, err
    assert sum("newly banned: Lightning Bolt" in out for out, _ in outs) == 1
    with CardDB(db) as cards:
        bans = [c for c in cards.changes() if c["name"] == "Lightning Bolt"]
        assert [(c["old_status"], c["new_status"]) for c in bans] == [("legal", "banned")]
        assert cards.info().card_count == N_FIXTURE + 15000
