"""Helpers of the service tests that run the real server: `deckcheck serve` in a subprocess
on a free 127.0.0.1 port, and plain HTTP calls to it."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

START_TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def deckcheck(*args: str) -> list[str]:
    exe = shutil.which("deckcheck", path=str(Path(sys.executable).parent))
    return [exe, *args] if exe else [sys.executable, "-m", "validator", *args]


def get_json(url: str, body: dict | None = None, timeout: float = 10.0) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"{}")


class Server:
    """`deckcheck serve` on a free port; stopped (and waited for) on exit."""

    def __init__(self, db: str, tmp_path: Path, *extra: str, port: int | None = None) -> None:
        self.db = db
        self.port = port or free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        tmp_path.mkdir(parents=True, exist_ok=True)
        self.log = open(tmp_path / "serve.log", "w+b")
        self.proc = subprocess.Popen(
            deckcheck("serve", "--db", db, "--port", str(self.port), *extra),
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )

    def wait_ready(self, timeout: float = START_TIMEOUT) -> dict:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"deckcheck serve exited {self.proc.returncode}:\n{self.output()}"
                )
            try:
                status, health = get_json(self.base + "/healthz", timeout=1)
                if status == 200:
                    return health
            except OSError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"not ready after {timeout} s:\n{self.output()}")

    def output(self) -> str:
        self.log.flush()
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self.log.close()
