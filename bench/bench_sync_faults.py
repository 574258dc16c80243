"""Sync under faults, through the CLI as a user runs it: figures for each sync fault.

    python bench/bench_sync_faults.py [--runs 10] [--cap 240]
        [--only trickle,stall,headers,slowindex,bigindex,dns,orphan,concurrent]

- trickle: a local Scryfall stand-in announces the file, then sends one byte every second;
  prints how long `deckcheck sync` takes to end (default limits), or "still running" at --cap.
- stall: the stand-in sends 100 bytes, then nothing; time to end.
- headers: the bulk-data index answer's status line, then a header one byte a second.
- slowindex: the index answer's headers at once, then its (~200-byte) body one byte a second.
- bigindex: an index answer padded to 20 MB (valid JSON); the file it names is a 404.
- dns: host names do not resolve (getaddrinfo fails, as offline); time to fail and the hint.
- orphan: kill -9 of a sync importing the full-size file; runs whose reading process is still
  alive 5 s later (of --runs).
- concurrent: two syncs of one file at once into a database holding older legalities; exit
  codes and how many times a ban was recorded.

Every server is on 127.0.0.1. To measure another checkout (e.g. before a change), point
PYTHONPATH at its tree and run this script from outside any checkout (`python -c` puts the
current directory first on sys.path): the script runs deckcheck in subprocesses.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIG = REPO.parent / "shared" / "data" / "scryfall" / "oracle-cards-derived-20260822.jsonl.gz"


def serve(mode: str, stop: threading.Event) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            try:
                if self.path.startswith("/bulk-data/"):
                    port = self.server.server_address[1]
                    index = {
                        "object": "bulk_data",
                        "type": "oracle_cards",
                        "updated_at": "2026-09-08T09:01:57.053+00:00",
                        "jsonl_download_uri": f"http://127.0.0.1:{port}/file/x.jsonl.gz",
                    }
                    if mode == "bigindex":
                        index["padding"] = "x" * 20_000_000
                    data = json.dumps(index).encode()
                    if mode == "headers":
                        self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                        self.wfile.flush()
                        while not stop.wait(1.0):
                            self.wfile.write(b"a")
                            self.wfile.flush()
                        return
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if mode == "slowindex":
                        for byte in data:
                            if stop.wait(1.0):
                                return
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                        return
                    self.wfile.write(data)
                    return
                if mode == "bigindex":
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(25_000_000))
                self.end_headers()
                if mode == "stall":
                    self.wfile.write(b"\x1f\x8b" + b"\0" * 98)
                    self.wfile.flush()
                    stop.wait(3600)
                else:
                    while not stop.wait(1.0):
                        self.wfile.write(b"\0")
                        self.wfile.flush()
            except OSError:
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def cli(args: list[str], env: dict[str, str] | None = None, pre: str = "") -> subprocess.Popen:
    code = pre + "import sys; from validator.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        env={**os.environ, **(env or {})},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def timed(proc: subprocess.Popen, cap: float) -> tuple[float | None, str]:
    started = time.monotonic()
    try:
        _, err = proc.communicate(timeout=cap)
        return time.monotonic() - started, err
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None, ""


def network_case(mode: str, cap: float) -> None:
    stop = threading.Event()
    server = serve(mode, stop)
    with tempfile.TemporaryDirectory() as tmp:
        proc = cli(
            ["sync", "--db", f"{tmp}/c.sqlite3"],
            {"DECKCHECK_SCRYFALL_API": f"http://127.0.0.1:{server.server_address[1]}"},
        )
        took, err = timed(proc, cap)
    stop.set()
    server.shutdown()
    last = err.strip().splitlines()[-1] if err.strip() else ""
    print(
        f"{mode}: "
        + (
            f"ended in {took:.0f} s (exit {proc.returncode}): {last[:160]}"
            if took is not None
            else f"still running after {cap:.0f} s (killed)"
        )
    )


def dns_case(cap: float) -> None:
    pre = (
        "import socket\n"
        "def _no(*a, **k): raise socket.gaierror(socket.EAI_NONAME, 'Name or service not known')\n"
        "socket.getaddrinfo = _no\n"
    )
    with tempfile.TemporaryDirectory() as tmp:
        took, err = timed(cli(["sync", "--db", f"{tmp}/c.sqlite3"], pre=pre), cap)
    print(f"dns: failed in {took:.1f} s; says: " + " | ".join(err.strip().splitlines()[-3:]))


def children(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if int((p / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(p.name))
            except OSError:
                pass
    return out


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def orphan_case(runs: int) -> None:
    if not BIG.exists():
        print(f"orphan: skipped ({BIG} not found)")
        return
    orphans = 0
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            proc = cli(["sync", "--from", str(BIG), "--db", f"{tmp}/c.sqlite3"])
            kids: list[int] = []
            t0 = time.monotonic()
            while not kids and time.monotonic() - t0 < 30:
                kids = children(proc.pid)
                time.sleep(0.05)
            time.sleep(1.5)
            os.kill(proc.pid, signal.SIGKILL)
            proc.communicate()
            t0 = time.monotonic()
            while any(alive(k) for k in kids) and time.monotonic() - t0 < 5:
                time.sleep(0.1)
            left = [k for k in kids if alive(k)]
            orphans += bool(left)
            for k in left:
                os.kill(k, signal.SIGKILL)
    print(f"orphan: reading process alive 5 s after kill -9 of the sync in {orphans}/{runs} runs")


def concurrent_case() -> None:
    if not BIG.exists():
        print(f"concurrent: skipped ({BIG} not found)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        db = f"{tmp}/c.sqlite3"
        subprocess.run(
            [sys.executable, "-m", "validator", "sync", "--from", str(BIG), "--db", db],
            check=True,
            capture_output=True,
        )
        # the data as it was before one ban: both syncs must record "legal -> banned" once
        con = sqlite3.connect(db)
        oid, name, statuses = con.execute(
            "SELECT oracle_id, name, statuses FROM cards JOIN legality_sets "
            "ON legality_sets.id = cards.legalities "
            "WHERE json_extract(statuses, '$.modern') = 'banned' LIMIT 1"
        ).fetchone()
        before = json.dumps(
            dict(json.loads(statuses), modern="legal"), sort_keys=True, separators=(",", ":")
        )  # as compact.legality_text writes it
        con.execute(
            "INSERT INTO legality_sets (id, statuses) SELECT max(id) + 1, ? FROM legality_sets",
            (before,),
        )
        con.execute(
            "UPDATE cards SET legalities = (SELECT max(id) FROM legality_sets) WHERE oracle_id = ?",
            (oid,),
        )
        con.commit()
        con.close()
        procs = [cli(["sync", "--from", str(BIG), "--db", db]) for _ in range(2)]
        outs = [p.communicate() for p in procs]
        con = sqlite3.connect(db)
        recorded = con.execute(
            "SELECT count(*) FROM legality_changes WHERE oracle_id=? AND new_status='banned'",
            (oid,),
        ).fetchone()[0]
        con.close()
        codes = [p.returncode for p in procs]
        errors = [e.strip().splitlines()[-2:] for (o, e), c in zip(outs, codes) if c]
        print(
            f"concurrent: exit codes {codes}; ban of {name} recorded {recorded} time(s)"
            + (f"; loser said: {errors}" if errors else "")
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--cap", type=float, default=240.0, help="give up waiting after this many s")
    ap.add_argument(
        "--only", default="trickle,stall,headers,slowindex,bigindex,dns,orphan,concurrent"
    )
    args = ap.parse_args()
    only = set(args.only.split(","))
    if "dns" in only:
        dns_case(args.cap)
    if "orphan" in only:
        orphan_case(args.runs)
    if "concurrent" in only:
        concurrent_case()
    if "stall" in only:
        network_case("stall", args.cap)
    if "trickle" in only:
        network_case("trickle", args.cap)
    for mode in ("headers", "slowindex", "bigindex"):
        if mode in only:
            network_case(mode, args.cap)


if __name__ == "__main__":
    main()
