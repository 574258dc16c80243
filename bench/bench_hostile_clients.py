"""Benchmark: one hostile client against `deckcheck serve`, and a second client's probe.

    python bench/bench_hostile_clients.py                        # this code, every attack
    python bench/bench_hostile_clients.py --code /tmp/before      # and older code beside it
    python bench/bench_hostile_clients.py --attack slowloris --seconds 5

Starts `deckcheck serve` (one worker, its default limits) on a free 127.0.0.1 port against the
full-size derived card database (bench/common.py), then for each attack: the attacker
connects from 127.0.0.2 (Linux routes all of 127.0.0.0/8 to the loopback), and while it
runs a probe (a legal 62-card Modern deck, POST /v1/validate, a new connection each time)
is sent from 127.0.0.1 every 0.25 s. Printed per attack: probes answered 200 / sent, their
p50 and worst latency, probes slower than 1 s, the server's peak resident memory, and the
lines the server logged during the attack. With `--code DIR` (older code: `git archive REV |
tar -x -C DIR`) the same attacks run against that code first: the figures before and after.

The attacks (from issue 22): `hold` 1,001 silent connections; `slowloris` 1,200 connections
sending their head a byte per 0.5 s, each reopened when closed; `keepalive` 2,000 connections
idle after one request; `heads` four heads of 2.5 million headers (37.5 MB) at once;
`checkformats` 16 clients each sending check-formats with 4,999 unknown names, over and over.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from common import derived_db, percentile  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
ATTACKER = "127.0.0.2"
PROBE_EVERY = 0.25
DECK = "4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n\n2 Counterspell\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(path: str, body: bytes, close: bool = True) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n".encode()
        + (b"Connection: close\r\n" if close else b"")
        + b"Content-Length: %d\r\n\r\n" % len(body)
        + body
    )


PROBE = request("/v1/validate", json.dumps({"decklist": DECK, "format": "modern"}).encode())


def read_answer(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def connect(port: int, source: str, timeout: float = 5.0) -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(timeout)
    sock.connect(("127.0.0.1", port))
    return sock


def probe(port: int) -> tuple[int, float]:
    started = time.monotonic()
    try:
        with connect(port, "127.0.0.1") as sock:
            sock.sendall(PROBE)
            answer = read_answer(sock)
        status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1") else 0
    except OSError:
        status = 0
    return status, time.monotonic() - started


def tree_rss_mb(pid: int) -> float:
    """Resident memory of `pid` and its children, MB."""
    total = 0
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        pids += [int(c) for c in children]
    except OSError:
        pass
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


# ------------------------------------------------------------------------- attacks


def hold(port: int, stop: threading.Event) -> None:
    socks = []
    for _ in range(1001):
        try:
            socks.append(connect(port, ATTACKER))
        except OSError:
            pass
    stop.wait()
    for s in socks:
        s.close()


def slowloris(port: int, stop: threading.Event) -> None:
    socks: list[socket.socket] = []
    opened = 0
    while not stop.is_set():
        while len(socks) < 1200 and not stop.is_set():
            try:
                sock = connect(port, ATTACKER)
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
                socks.append(sock)
                opened += 1
            except OSError:
                break
        for sock in list(socks):
            try:
                sock.sendall(b"X")
            except OSError:
                socks.remove(sock)
                sock.close()
        stop.wait(0.5)
    for s in socks:
        s.close()


def keepalive(port: int, stop: threading.Event) -> None:
    body = request("/v1/validate", json.dumps({"decklist": DECK, "format": "modern"}).encode())
    body = body.replace(b"Connection: close\r\n", b"")
    socks = []
    for _ in range(2000):
        if stop.is_set():
            break
        try:
            sock = connect(port, ATTACKER)
            sock.sendall(body)
            read_answer(sock)
            socks.append(sock)
        except OSError:
            pass
    stop.wait()
    for s in socks:
        s.close()


def clients(port: int, stop: threading.Event, count: int, payload: bytes, timeout: float) -> None:
    """`count` clients each sending `payload` and reading the answer, over and over."""

    def one() -> None:
        while not stop.is_set():
            try:
                with connect(port, ATTACKER, timeout=timeout) as sock:
                    sock.sendall(payload)
                    read_answer(sock)
            except OSError:
                stop.wait(0.1)

    threads = [threading.Thread(target=one, daemon=True) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def heads(port: int, stop: threading.Event) -> None:
    head = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-Abcdefgh: v\r\n" * 2_500_000 + b"\r\n"
    clients(port, stop, 4, head, timeout=30)


def checkformats(port: int, stop: threading.Event) -> None:
    names = "\n".join(f"1 Nonexistent Card Number {i}" for i in range(4999))
    heavy = request("/v1/check-formats", json.dumps({"decklist": names}).encode())
    clients(port, stop, 16, heavy, timeout=60)


ATTACKS: dict[str, Callable[[int, threading.Event], None]] = {
    "hold": hold,
    "slowloris": slowloris,
    "keepalive": keepalive,
    "heads": heads,
    "checkformats": checkformats,
}


# ------------------------------------------------------------------------- the run


def start_server(code: Path, db: Path, log: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONUNBUFFERED": "1"}
    out = open(log, "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "validator", "serve", "--db", str(db), "--port", str(port)],
        stdout=out,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=code,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if probe(port)[0] == 200:
            return proc, port
        time.sleep(0.2)
    proc.kill()
    raise SystemExit(f"the server did not start: {log.read_text()[-2000:]}")


def run_attack(name: str, code: Path, db: Path, seconds: float, tmp: Path) -> dict:
    log = tmp / f"{name}.log"
    proc, port = start_server(code, db, log)
    try:
        before_lines = len(log.read_bytes().splitlines())
        rss_before = tree_rss_mb(proc.pid)
        stop = threading.Event()
        attacker = threading.Thread(target=ATTACKS[name], args=(port, stop), daemon=True)
        attacker.start()
        time.sleep(1.0)  # the attack under way
        probes: list[tuple[int, float]] = []
        peak = rss_before
        ends = time.monotonic() + seconds
        while time.monotonic() < ends:
            probes.append(probe(port))
            peak = max(peak, tree_rss_mb(proc.pid))
            time.sleep(PROBE_EVERY)
        stop.set()
        attacker.join(timeout=60)
        lines = len(log.read_bytes().splitlines()) - before_lines
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
    ok = sorted(s for status, s in probes if status == 200)
    return {
        "probes": len(probes),
        "ok": len(ok),
        "p50": percentile(ok, 50),
        "worst": max((s for _, s in probes), default=float("nan")),
        "slow": sum(1 for _, s in probes if s > 1.0),
        "rss": rss_before,
        "peak": peak,
        "log_lines": lines,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", type=Path, help="older code to run the same attacks on")
    parser.add_argument("--attack", choices=sorted(ATTACKS), action="append")
    parser.add_argument("--seconds", type=float, default=8.0, help="probing time per attack")
    parser.add_argument("--db", type=Path, help="card database (default: the derived one)")
    args = parser.parse_args()
    db = args.db or derived_db()
    codes = ([("before", args.code.resolve())] if args.code else []) + [("this", ROOT)]
    print(
        f"{'attack':<13} {'code':<7} {'probes 200':>10} {'p50 s':>7} {'worst s':>8} "
        f"{'>1 s':>5} {'RSS MB':>7} {'peak MB':>8} {'log lines':>9}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.attack or list(ATTACKS):
            for label, code in codes:
                r = run_attack(name, code, db, args.seconds, Path(tmp))
                print(
                    f"{name:<13} {label:<7} {r['ok']:>4} / {r['probes']:<3} {r['p50']:>7.3f} "
                    f"{r['worst']:>8.3f} {r['slow']:>5} {r['rss']:>7.0f} {r['peak']:>8.0f} "
                    f"{r['log_lines']:>9}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
