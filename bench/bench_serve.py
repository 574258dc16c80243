"""Benchmark: `deckcheck serve` under load, next to in-process `validate` in the same run.

    python bench/bench_serve.py                      # 2,000 requests per deck at concurrency 16
    python bench/bench_serve.py --requests 500 --workers 1 --runs 1 --rss-workers 1,2
    python bench/bench_serve.py --db cards.sqlite3

Starts `deckcheck serve` on a free 127.0.0.1 port (loopback only) against the full-size derived
card database (built once and cached, see bench/common.py), and prints:

* the in-process `validator.validate` throughput and CPU per deck on the same decks with a
  warm CardIndex (the baseline, measured first in the same run);
* for each --workers count (default 1 and 2): start-up to ready (process start to the first
  200 from /healthz), then for a 75-card Modern deck and a 100-card Commander deck, POSTed as
  JSON to /v1/validate on CONCURRENCY keep-alive connections for a fixed number of requests
  (bounded by --time-limit too), --runs times: requests/s, p50 and p99 latency over all the
  counted requests, and CPU per request of the server (every process) and of this client,
  the server's as a ratio of in-process validate (the difference is the cost of HTTP + JSON,
  plus validate itself running slower in a server that shares its cores with the client and
  any other work: caches and time slices);
* a summary per worker count and deck: best and worst p50/p99 of the runs, median CPU;
* resident memory of the whole server (supervisor + workers) at each --rss-workers count, and
  the growth per added worker (RSS and PSS: PSS splits shared pages between processes).

Targets, on this 2-core machine: p99 under 25 ms at concurrency 16; start-up to ready
under 3 s; each added worker under 100 MB resident. The load client runs on the same cores as
the server (loopback only), so its own CPU is part of every latency figure: it is one thread
on a selector with pre-built request bytes, and its CPU per request is printed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import selectors
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import DERIVED_FILE, SHARED_DATA, derived_db, percentile  # noqa: E402

RENDERED = SHARED_DATA / "decklists" / "text" / "rendered_from_tournament_json"
DECKS = {  # name -> (file, format): a 75-card deck (60 + 15) and a 100-card Commander deck
    "modern-75": (RENDERED / "modern_2026-08-08_nahuel10_1st-place.mtgo.txt", "modern"),
    "commander-100": (RENDERED / "cedh_2026-05-30_ayyydani_partners.arena-style.txt", "commander"),
}
P99_TARGET_MS = 25.0
READY_TARGET_S = 3.0
WORKER_RSS_TARGET_MB = 100.0
WARMUP = 50


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def deckcheck_cmd() -> list[str]:
    exe = shutil.which("deckcheck", path=str(Path(sys.executable).parent))
    return [exe] if exe else [sys.executable, "-m", "validator"]


# ---------------------------------------------------------------------------- the server


class Server:
    def __init__(self, db: Path, workers: int, poll: float = 0) -> None:
        self.port = free_port()
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            deckcheck_cmd()
            + [
                "serve",
                "--db",
                str(db),
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--workers",
                str(workers),
                "--poll",
                str(poll),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.workers = workers

    def wait_ready(self, timeout: float = 120.0) -> float:
        """Seconds from start to the first 200 from /healthz."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(
                    f"deckcheck serve exited {self.proc.returncode}: "
                    f"{self.proc.stderr.read().decode(errors='replace')}"
                )
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/healthz")
                response = conn.getresponse()
                response.read()
                conn.close()
                if response.status == 200:
                    return time.perf_counter() - self.started
            except OSError:
                pass
            time.sleep(0.02)
        raise SystemExit(f"deckcheck serve not ready after {timeout} s")

    def settled_memory_mb(self, timeout: float = 60.0) -> tuple[float, float, float]:
        """(RSS, PSS, USS) once every worker has loaded its index: two readings a second apart
        within 2 MB of each other."""
        deadline = time.monotonic() + timeout
        last = self.memory_mb()
        while time.monotonic() < deadline:
            time.sleep(1.0)
            now = self.memory_mb()
            if abs(now[0] - last[0]) < 2:
                return now
            last = now
        return last

    def pids(self) -> list[int]:
        """The server process and its descendants (uvicorn's worker processes)."""
        pids, frontier = [], [self.proc.pid]
        while frontier:
            pid = frontier.pop()
            pids.append(pid)
            try:
                children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
            except OSError:
                children = []
            frontier += [int(c) for c in children]
        return pids

    def connections(self) -> list[int]:
        """Established connections to the port held by each process that holds any (each
        worker: the kernel spreads new connections over the workers' sockets, or hands one to
        whichever worker accepts first on a shared socket, and a keep-alive connection stays
        with it), from /proc/net/tcp and each process's fds."""
        port = f":{self.port:04X}"
        inodes: set[str] = set()
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            try:
                rows = Path(table).read_text().splitlines()[1:]
            except OSError:
                continue
            for row in rows:
                fields = row.split()
                if fields[1].endswith(port) and fields[3] == "01":  # local address, ESTABLISHED
                    inodes.add(f"socket:[{fields[9]}]")
        counts = []
        for pid in self.pids():
            try:
                fds = list(Path(f"/proc/{pid}/fd").iterdir())
            except OSError:
                continue
            held = 0
            for fd in fds:
                try:
                    held += os.readlink(fd) in inodes
                except OSError:
                    pass
            if held:
                counts.append(held)
        return sorted(counts, reverse=True)

    def cpu_seconds(self) -> float:
        """User + system CPU time of the server's processes so far."""
        ticks = os.sysconf("SC_CLK_TCK")
        total = 0
        for pid in self.pids():
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime
            except (OSError, IndexError, ValueError):
                pass
        return total / ticks

    def memory_mb(self) -> tuple[float, float, float]:
        """(RSS, PSS, USS) summed over the server's processes, in MB. RSS counts a page shared
        by forked workers once per process; PSS splits it between them; USS is private pages."""
        rss = pss = uss = 0
        for pid in self.pids():
            try:
                for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                    key, _, rest = line.partition(":")
                    if key == "Rss":
                        rss += int(rest.split()[0])
                    elif key == "Pss":
                        pss += int(rest.split()[0])
                    elif key in ("Private_Clean", "Private_Dirty"):
                        uss += int(rest.split()[0])
            except OSError:
                pass
        return rss / 1024, pss / 1024, uss / 1024

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)


# ---------------------------------------------------------------------------- the load


def drive(
    port: int,
    body: bytes,
    requests: int,
    concurrency: int,
    time_limit: float,
    probe: Callable[[], Any] | None = None,
) -> dict:
    """`requests` POSTs of `body` to /v1/validate on `concurrency` keep-alive connections,
    stopping early at `time_limit` seconds; latencies in seconds, from the request's first
    byte sent to its answer's last byte received; errors counted. First WARMUP uncounted
    requests on the same connections, all answered before the counted ones start; `probe()`
    runs in between (its result is returned as "probe").

    The client shares the server's cores, so its CPU is kept small and is measured: one
    thread drives every connection through a selector (epoll), sends request bytes built
    once, and reads each answer by its Content-Length. (http.client in a thread per
    connection cost ~0.2 ms of client CPU per request: several times this, and 16 threads
    passing the GIL.) The first answer is checked to be the report, every status to be 200.
    """
    request = (
        b"POST /v1/validate HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (port, len(body))
    ) + body
    errors: list[str] = []
    checked = False
    selector = selectors.DefaultSelector()
    deadline = time.monotonic() + time_limit

    class Conn:
        __slots__ = ("sock", "buf", "started", "size", "busy")

        def __init__(self) -> None:
            self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.buf = bytearray()
            self.started, self.size, self.busy = 0.0, -1, False
            selector.register(self.sock, selectors.EVENT_READ, self)

        def close(self) -> None:
            selector.unregister(self.sock)
            self.sock.close()

    def phase(total: int, latencies: list[float] | None) -> None:
        """`total` requests, each connection sending its next when its answer is in."""
        nonlocal checked
        issued = in_flight = 0

        def send_next(conn: Conn) -> None:
            nonlocal issued, in_flight
            if issued >= total or time.monotonic() >= deadline:
                return
            issued, in_flight = issued + 1, in_flight + 1
            conn.buf.clear()
            conn.size, conn.busy = -1, True
            conn.started = time.perf_counter()
            conn.sock.sendall(request)

        def failed(conn: Conn, why: str) -> None:
            nonlocal in_flight
            in_flight -= conn.busy
            if len(errors) < 5:
                errors.append(why)
            conn.close()
            fresh = Conn()  # a fresh connection for the next request
            send_next(fresh)

        for key in list(selector.get_map().values()):
            send_next(key.data)
        wait_until = deadline + 30  # answers in flight at the time limit may finish
        while in_flight and time.monotonic() < wait_until:
            for key, _ in selector.select(timeout=1.0):
                conn = key.data
                try:
                    chunk = conn.sock.recv(262144)
                except OSError as exc:
                    failed(conn, repr(exc))
                    continue
                if not chunk:
                    failed(conn, "connection closed by the server")
                    continue
                conn.buf += chunk
                if conn.size < 0:
                    head_end = conn.buf.find(b"\r\n\r\n")
                    if head_end < 0:
                        continue
                    head = bytes(conn.buf[:head_end]).lower()
                    at = head.find(b"\r\ncontent-length:")
                    if at < 0:
                        failed(conn, "an answer without Content-Length")
                        continue
                    line_end = head.find(b"\r\n", at + 2)
                    conn.size = (
                        head_end + 4 + int(head[at + 17 : line_end if line_end > 0 else None])
                    )
                if len(conn.buf) < conn.size:
                    continue
                elapsed = time.perf_counter() - conn.started
                conn.busy = False
                in_flight -= 1
                status = bytes(conn.buf[9:12])
                if status != b"200":
                    failed(conn, f"status {status.decode(errors='replace')}")
                    continue
                if not checked:  # once, outside any timing: the answer is the report
                    checked = True
                    report = json.loads(bytes(conn.buf[conn.buf.find(b"\r\n\r\n") + 4 :]))
                    if report.get("schema") != "deckcheck.report/1":
                        errors.append(f"not a deckcheck.report/1 answer: {str(report)[:100]}")
                if latencies is not None:
                    latencies.append(elapsed)
                send_next(conn)

    for _ in range(concurrency):
        Conn()
    phase(WARMUP, None)
    probed = probe() if probe else None
    latencies: list[float] = []
    started = time.perf_counter()
    phase(requests, latencies)
    wall = time.perf_counter() - started
    for key in list(selector.get_map().values()):
        key.data.close()
    selector.close()
    latencies.sort()
    return {
        "count": len(latencies),
        "wall": wall,
        "rps": len(latencies) / wall if wall else 0,
        "p50": percentile(latencies, 50),
        "p99": percentile(latencies, 99),
        "errors": errors,
        "timed_out": time.monotonic() >= deadline,
        "probe": probed,
    }


def in_process(db: Path, decks: dict[str, tuple[str, str]], repeat: int) -> dict[str, float]:
    """Decks/s of `validator.validate` on decklist text with a warm CardIndex."""
    import gc

    import validator

    cards = validator.CardDB(db)
    index = validator.CardIndex.from_db(cards)
    gc.freeze()  # as the service does after loading: no GC passes over the index's objects
    out = {}
    for name, (text, fmt) in decks.items():
        for _ in range(20):
            validator.validate(text, fmt, cards=index)
        started, cpu = time.perf_counter(), time.process_time()
        for _ in range(repeat):
            validator.validate(text, fmt, cards=index)
        out[name] = (
            repeat / (time.perf_counter() - started),
            (time.process_time() - cpu) * 1000 / repeat,
        )
    cards.close()
    gc.unfreeze()  # this process holds no index from here on
    return out


def healthz(port: int) -> dict:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/healthz")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def after_sync(server: Server, db: Path, timeout: float = 300.0) -> tuple[float, float, float]:
    """Memory once every worker has swapped in new data: `db` is a copy of the database, and a
    forced `deckcheck sync --from` re-imports the card file into it."""
    subprocess.run(
        deckcheck_cmd() + ["sync", "--db", str(db), "--from", str(DERIVED_FILE), "--force"],
        check=True,
        capture_output=True,
        timeout=timeout,
    )
    deadline, streak = time.monotonic() + timeout, 0
    while time.monotonic() < deadline and streak < 30:  # 30 answers in a row from new data
        streak = streak + 1 if healthz(server.port)["swaps"] >= 1 else 0
        time.sleep(0.02)
    return server.settled_memory_mb()


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine has spent busy (all CPUs, every process), from /proc/stat."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return float("nan")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")  # up to steal; guest is in user


def load_run(server: Server, body: bytes, args: argparse.Namespace) -> dict:
    """One bounded load run, with the server's and this client's CPU per request (user +
    system, every process and thread of each, warm-up included in both), and how many cores
    other work on the machine kept busy meanwhile (it competes with both)."""
    cpu_before = server.cpu_seconds()
    client_before = resource.getrusage(resource.RUSAGE_SELF)
    busy_before = machine_busy_seconds()
    r = drive(
        server.port,
        body,
        args.requests,
        args.concurrency,
        args.time_limit,
        probe=server.connections,
    )
    busy = machine_busy_seconds() - busy_before
    client_after = resource.getrusage(resource.RUSAGE_SELF)
    server_s = server.cpu_seconds() - cpu_before
    client_s = (
        client_after.ru_utime
        - client_before.ru_utime
        + client_after.ru_stime
        - client_before.ru_stime
    )
    sent = max(1, r["count"] + WARMUP)
    r["cpu_ms"] = server_s * 1000 / sent
    r["client_ms"] = client_s * 1000 / sent
    r["others"] = max(0.0, busy - server_s - client_s) / r["wall"] if r["wall"] else 0.0
    return r


def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="card database (default: the cached derived one)")
    parser.add_argument(
        "--requests", type=int, default=2000, help="requests per deck (default 2000)"
    )
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument(
        "--workers", default="1,2", help="worker counts to drive, one server each (default 1,2)"
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        help="load runs per deck and worker count, each bounded as below "
        "(default 3: best and worst are printed)",
    )
    parser.add_argument(
        "--rss-workers", default="1,2,3", help="worker counts to measure memory at (default 1,2,3)"
    )
    parser.add_argument(
        "--decks", default=",".join(DECKS), help=f"which decks to drive (default {','.join(DECKS)})"
    )
    parser.add_argument(
        "--no-after-sync",
        dest="after_sync",
        action="store_false",
        help="skip re-measuring memory after a sync (it imports the card file "
        "into a copy of the database)",
    )
    parser.add_argument(
        "--time-limit", type=float, default=120.0, help="seconds at most per load run (default 120)"
    )
    args = parser.parse_args()

    missing = [str(f) for f, _ in DECKS.values() if not f.is_file()]
    if missing:
        print(f"shared data not available: {', '.join(missing)}", file=sys.stderr)
        return 2
    db = args.db or derived_db()
    wanted = [d.strip() for d in args.decks.split(",") if d.strip()]
    unknown = set(wanted) - set(DECKS)
    if unknown:
        parser.error(
            f"--decks: unknown {', '.join(sorted(unknown))}; choose from {', '.join(DECKS)}"
        )
    decks = {name: (DECKS[name][0].read_text(encoding="utf-8"), DECKS[name][1]) for name in wanted}
    try:
        worker_counts = [int(n) for n in args.workers.split(",") if n.strip()]
    except ValueError:
        parser.error(f"--workers: {args.workers!r} is not a list of numbers (e.g. 1,2)")
    print(
        f"database: {db}\nmachine: {os.cpu_count()} CPUs; client and server share them (loopback)"
    )

    repeat = max(200, args.requests // 4)
    local = in_process(db, decks, repeat)
    print(
        "\nin-process validate (warm CardIndex, same decks, same run): "
        + "; ".join(
            f"{name} {rate:.0f} decks/s, {cpu_ms:.3f} ms CPU each"
            for name, (rate, cpu_ms) in local.items()
        )
    )

    results: dict[tuple[int, str], list[dict]] = {}
    for workers in worker_counts:
        server = Server(db, workers)
        try:
            ready = server.wait_ready()
            print(
                f"\nstart-up to ready ({workers} worker{'s' * (workers > 1)}): {ready:.2f} s "
                f"[target < {READY_TARGET_S:.0f} s: {verdict(ready < READY_TARGET_S)}]"
            )
            for name, (text, fmt) in decks.items():
                body = json.dumps({"decklist": text, "format": fmt}).encode()
                for run in range(1, args.runs + 1):
                    r = load_run(server, body, args)
                    results.setdefault((workers, name), []).append(r)
                    note = " (stopped at the time limit)" if r["timed_out"] else ""
                    print(
                        f"{name:<14} c={args.concurrency} run {run}: {r['count']} requests in "
                        f"{r['wall']:.2f} s{note}: {r['rps']:.0f} req/s, p50 {r['p50'] * 1000:.1f} ms, "
                        f"p99 {r['p99'] * 1000:.1f} ms [target < {P99_TARGET_MS:.0f} ms: "
                        f"{verdict(r['p99'] * 1000 < P99_TARGET_MS)}]; CPU per request: server "
                        f"{r['cpu_ms']:.3f} ms ({r['cpu_ms'] / local[name][1]:.2f}x in-process "
                        f"validate), client {r['client_ms']:.3f} ms; other work meanwhile "
                        f"{r['others']:.1f} of {os.cpu_count()} cores"
                        + (
                            f"; connections per worker {'/'.join(map(str, r['probe']))}"
                            if workers > 1 and r["probe"]
                            else ""
                        )
                        + (f"; ERRORS: {r['errors'][:3]}" if r["errors"] else "")
                    )
        finally:
            server.stop()

    print(
        f"\nsummary (best / worst of {args.runs} run{'s' * (args.runs > 1)}; the machine is "
        "shared, so latency varies from run to run; CPU per request is the steadier figure):"
    )
    for (workers, name), runs in results.items():
        rate, cpu_ms = local[name]
        p50 = sorted(r["p50"] * 1000 for r in runs)
        p99 = sorted(r["p99"] * 1000 for r in runs)
        server_ms = sorted(r["cpu_ms"] for r in runs)[len(runs) // 2]
        client_ms = sorted(r["client_ms"] for r in runs)[len(runs) // 2]
        rps = max(r["rps"] for r in runs)
        print(
            f"{workers} worker{'s' * (workers > 1)} {name:<14} p50 {p50[0]:.1f} / {p50[-1]:.1f} ms, "
            f"p99 {p99[0]:.1f} / {p99[-1]:.1f} ms [target < {P99_TARGET_MS:.0f} ms: best "
            f"{verdict(p99[0] < P99_TARGET_MS)}, worst {verdict(p99[-1] < P99_TARGET_MS)}]; "
            f"median CPU per request: server {server_ms:.3f} ms = {server_ms / cpu_ms:.2f}x "
            f"in-process validate ({cpu_ms:.3f} ms; {server_ms - cpu_ms:+.3f} ms: HTTP + JSON "
            "and sharing the cores), "
            f"client {client_ms:.3f} ms; best throughput {rps / rate:.2f}x in-process"
        )

    counts = sorted({int(n) for n in args.rss_workers.split(",") if n.strip()})
    memory = {}
    scratch = Path(tempfile.mkdtemp(prefix="deckcheck-bench-serve-"))
    copy = scratch / "cards.sqlite3"  # the after-sync measure writes to a copy, not the cache
    shutil.copy(db, copy)
    for n in counts:
        s = Server(copy, n, poll=1.0)
        try:
            ready_n = s.wait_ready()
            memory[n] = s.settled_memory_mb()
            print(
                f"\n{n} worker{'s' * (n > 1)}: ready in {ready_n:.2f} s; server RSS "
                f"{memory[n][0]:.0f} MB, PSS {memory[n][1]:.0f} MB, USS {memory[n][2]:.0f} MB "
                f"({len(s.pids())} processes)",
                end="",
            )
            if n == counts[-1] and args.after_sync:
                after = after_sync(s, copy)
                print(
                    f"\n{n} workers after a sync swapped new data in: RSS {after[0]:.0f} MB, "
                    f"PSS {after[1]:.0f} MB, USS {after[2]:.0f} MB (each worker now holds its "
                    f"own copy of the new index)",
                    end="",
                )
        finally:
            s.stop()
    print()
    shutil.rmtree(scratch, ignore_errors=True)
    multi = [n for n in counts if n >= 2]
    if len(multi) >= 2:
        lo, hi = multi[0], multi[-1]
        rss, pss, uss = ((memory[hi][i] - memory[lo][i]) / (hi - lo) for i in range(3))
        print(
            f"per added worker ({lo} -> {hi}): PSS {pss:.0f} MB, USS {uss:.0f} MB, RSS {rss:.0f} MB "
            f"(RSS counts the pages the workers share once per worker) "
            f"[target < {WORKER_RSS_TARGET_MB:.0f} MB: {verdict(pss < WORKER_RSS_TARGET_MB)} on PSS]"
        )
    failed = any(r["errors"] for runs in results.values() for r in runs)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
