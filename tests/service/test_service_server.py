"""The real server: `deckcheck serve` in a subprocess on a free 127.0.0.1 port, a `deckcheck
sync --from` into its database while requests are being made: zero failed requests, and the
new data served afterwards. Bounded in time throughout."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the service needs the serve extra: pip install '.[serve]'")

from service_support import START_TIMEOUT, Server, deckcheck, free_port, get_json  # noqa: E402
from support import FIXTURES  # noqa: E402
from test_service import LEGAL_MODERN, banned_bolt_file  # noqa: E402

SWAP_TIMEOUT = 30.0


@pytest.mark.parametrize("workers", [1, 2])
def test_sync_while_serving_fails_no_request_and_swaps_in_the_new_data(tmp_path, workers):
    db = str(tmp_path / "cards.sqlite3")
    subprocess.run(
        deckcheck("sync", "--db", db, "--from", str(FIXTURES / "cards_core.json")),
        check=True,
        capture_output=True,
        timeout=120,
    )
    with Server(db, tmp_path, "--poll", "0.2", "--workers", str(workers)) as server:
        health = server.wait_ready()
        assert health["cards"] == 28
        body = {"decklist": LEGAL_MODERN, "format": "modern"}
        assert get_json(server.base + "/v1/validate", body)[1]["legal"] is True
        results: list[tuple[float, int, bool | None]] = []
        failures: list[str] = []
        stop = threading.Event()

        def client() -> None:
            while not stop.is_set():
                try:
                    status, report = get_json(server.base + "/v1/validate", body)
                    results.append((time.monotonic(), status, report.get("legal")))
                    if status != 200:
                        failures.append(f"{status}: {report}")
                except Exception as exc:  # noqa: BLE001 - a failed request is what we count
                    failures.append(repr(exc))

        threads = [threading.Thread(target=client) for _ in range(4)]
        for t in threads:
            t.start()
        try:
            time.sleep(0.5)
            sync_started = time.monotonic()
            sync = subprocess.run(
                deckcheck("sync", "--db", db, "--from", str(banned_bolt_file(tmp_path))),
                capture_output=True,
                timeout=120,
            )
            assert sync.returncode == 0, sync.stderr.decode()
            deadline = time.monotonic() + SWAP_TIMEOUT
            streak = 0  # every worker has swapped: 20 answers in a row from the new data
            while time.monotonic() < deadline and streak < 20:
                new = (
                    get_json(server.base + "/healthz")[1]["sync"]["id"] == health["sync"]["id"] + 1
                )
                streak = streak + 1 if new else 0
                time.sleep(0.01 if new else 0.05)
            swapped_at = time.monotonic()
            time.sleep(0.5)  # keep requesting after the swap
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=30)
        assert not failures, failures[:5]
        before = [legal for when, _, legal in results if when < sync_started]
        after = [legal for when, _, legal in results if when > swapped_at + 0.1]
        assert len(before) > 5 and after, (len(results), server.output())
        assert all(before) and not any(after)  # old data, then Lightning Bolt banned
        new_health = get_json(server.base + "/healthz")[1]
        assert new_health["swaps"] == 1 and new_health["cards"] == 28
        status, report = get_json(server.base + "/v1/validate", body)
        assert status == 200 and [p["code"] for p in report["problems"]] == ["banned"]
        status, card = get_json(server.base + "/v1/cards/Lightning%20Bolt")
        assert card["legalities"]["modern"] == "banned"


def test_serve_refuses_to_start_without_a_usable_database(tmp_path):
    import sqlite3

    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as conn:
        conn.execute("create table notes (text)")
    for db in (tmp_path / "none.sqlite3", other):
        result = subprocess.run(
            deckcheck("serve", "--db", str(db), "--port", str(free_port())),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 2, result.stderr
        assert "deckcheck sync" in result.stderr and "Traceback" not in result.stderr
    bad = tmp_path / "house.toml"
    bad.write_text("[house\n")
    result = subprocess.run(
        deckcheck(
            "serve", "--db", str(other), "--formats-file", str(bad), "--port", str(free_port())
        ),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "house.toml" in result.stderr


def test_serve_binds_loopback_by_default(core_db, tmp_path):
    from validator.cli.parser import build_parser

    args = build_parser().parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port == 8000 and args.workers == 1
    assert args.cors_origin == []


def children_of(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


@pytest.mark.skipif(
    not hasattr(os, "fork") or not Path("/proc/self/task").is_dir(),
    reason="forked workers and /proc are Linux/Unix only",
)
def test_forked_workers_are_replaced_and_stopped_with_the_server(core_db, tmp_path):
    import signal

    with Server(core_db, tmp_path, "--poll", "0", "--workers", "2") as server:
        server.wait_ready()
        deadline = time.monotonic() + START_TIMEOUT
        while len(children_of(server.proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        first, second = children_of(server.proc.pid)[:2]
        os.kill(first, signal.SIGKILL)  # a worker dies: the supervisor starts another
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            now = children_of(server.proc.pid)
            if len(now) == 2 and first not in now:
                break
            time.sleep(0.05)
        now = children_of(server.proc.pid)
        assert len(now) == 2 and first not in now and second in now, server.output()
        for _ in range(10):  # both workers answer
            assert get_json(server.base + "/healthz")[0] == 200
        server.proc.terminate()
        assert server.proc.wait(timeout=30) == 0
        for pid in now:  # no worker outlives the server
            assert (
                not Path(f"/proc/{pid}").exists()
                or "zombie" in Path(f"/proc/{pid}/status").read_text()
            )
        assert "starting another" in server.output()


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="SO_REUSEPORT spreads connections on Linux"
)
def test_each_forked_worker_listens_on_its_own_socket_and_connections_are_spread():
    """One socket per worker in a SO_REUSEPORT group: the kernel spreads a burst of connections
    over all of them (a shared socket let one idle worker take a whole burst), and the port
    still refuses a second server."""
    from validator import DeckcheckError
    from validator.service.server import listen, listen_group

    group = listen_group("127.0.0.1", 0, 2)
    clients: list[socket.socket] = []
    try:
        port = group[0].getsockname()[1]
        assert len(group) == 2 and group[1].getsockname()[1] == port
        for _ in range(40):  # all on one socket: a chance of 2 in 2**40
            clients.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        accepted = []
        for sock in group:
            sock.setblocking(False)
            count = 0
            while True:
                try:
                    conn, _ = sock.accept()
                except BlockingIOError:
                    break
                conn.close()
                count += 1
            accepted.append(count)
        assert sum(accepted) == 40 and min(accepted) > 0, accepted
        for attempt in (
            lambda: listen("127.0.0.1", port),
            lambda: listen_group("127.0.0.1", port, 2),
        ):
            with pytest.raises(DeckcheckError, match="cannot listen"):
                attempt()
    finally:
        for sock in clients + group:
            sock.close()


@pytest.mark.skipif(
    not hasattr(os, "fork") or not Path("/proc/self/task").is_dir(),
    reason="forked workers and /proc are Linux/Unix only",
)
def test_workers_die_with_a_killed_server_and_the_port_can_be_served_again(core_db, tmp_path):
    """kill -9 of the main process (no chance to stop its workers) must not leave them
    orphaned and still serving: a new `deckcheck serve` on the same port then starts."""
    import signal

    with Server(core_db, tmp_path, "--poll", "0", "--workers", "2") as server:
        server.wait_ready()
        deadline = time.monotonic() + START_TIMEOUT
        while len(children_of(server.proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = children_of(server.proc.pid)
        assert len(workers) == 2, server.output()
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait(timeout=10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(
            Path(f"/proc/{pid}").exists()
            and "zombie" not in Path(f"/proc/{pid}/status").read_text()
            for pid in workers
        ):
            time.sleep(0.05)
        alive = [
            pid
            for pid in workers
            if Path(f"/proc/{pid}").exists()
            and "zombie" not in Path(f"/proc/{pid}/status").read_text()
        ]
        for pid in alive:  # leave nothing behind whatever the outcome
            os.kill(pid, signal.SIGKILL)
        assert alive == [], "workers outlived the killed server"
    with Server(core_db, tmp_path / "again", "--poll", "0", port=server.port) as again:
        again.wait_ready()
        assert get_json(again.base + "/healthz")[0] == 200
