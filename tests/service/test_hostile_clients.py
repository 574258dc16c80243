"""Hostile clients against the real server: `deckcheck serve` on 127.0.0.1 with its connection
caps lowered (60 per worker, 20 per client address) so that each attack stays small and
quick. The attacker connects from other loopback addresses (127.0.0.2...: Linux routes all of
127.0.0.0/8 to the loopback), the probe from 127.0.0.1: whatever the attacker does, the
probe's legal deck is answered 200 within 1 s. Every answer the server gives itself is
problem+json. Bounded: a few hundred sockets and seconds per attack."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import Iterator

import pytest

pytest.importorskip("uvicorn", reason="the service needs the serve extra: pip install '.[serve]'")
if not sys.platform.startswith("linux"):
    pytest.skip("attackers bind 127.0.0.x source addresses (Linux)", allow_module_level=True)

from service_support import Server  # noqa: E402
from test_service import LEGAL_MODERN  # noqa: E402

CAP, PER_CLIENT = 60, 20
PROBE_SECONDS = 1.0
WORST_SECONDS = 3.0
PROBE_BODY = json.dumps({"decklist": LEGAL_MODERN, "format": "modern"}).encode()


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[Server]:
    from support import FIXTURES

    from validator.sync import import_file

    tmp = tmp_path_factory.mktemp("hostile")
    db = str(tmp / "cards.sqlite3")
    import_file(FIXTURES / "cards_core.json", db)
    with Server(
        db,
        tmp,
        "--poll",
        "0",
        "--max-connections",
        str(CAP),
        "--max-client-connections",
        str(PER_CLIENT),
    ) as running:
        running.wait_ready()
        yield running


def connect(server: Server, source: str) -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.settimeout(5)
    sock.connect(("127.0.0.1", server.port))
    return sock


def exchange(sock: socket.socket, request: bytes, timeout: float = 5.0) -> bytes:
    """Send `request`, read one whole answer (its head and Content-Length bytes of body)."""
    sock.settimeout(timeout)
    if request:
        sock.sendall(request)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":", 1)[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        ),
        0,
    )
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head + b"\r\n\r\n" + body


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def problem_of(answer: bytes) -> dict:
    head, _, body = answer.partition(b"\r\n\r\n")
    assert b"content-type: application/problem+json" in head.lower(), answer[:300]
    return json.loads(body)


def validate_request(body: bytes = PROBE_BODY, close: bool = True, extra: bytes = b"") -> bytes:
    return (
        b"POST /v1/validate HTTP/1.1\r\nHost: deckcheck\r\nContent-Type: application/json\r\n"
        + extra
        + (b"Connection: close\r\n" if close else b"")
        + b"Content-Length: %d\r\n\r\n" % len(body)
        + body
    )


def probe(server: Server) -> tuple[int, float]:
    """A legal deck from 127.0.0.1: (status, seconds to the whole answer)."""
    started = time.monotonic()
    try:
        with connect(server, "127.0.0.1") as sock:
            answer = exchange(sock, validate_request(), timeout=5)
    except OSError:
        return 0, time.monotonic() - started
    seconds = time.monotonic() - started
    if status_of(answer) == 200:
        assert json.loads(answer.partition(b"\r\n\r\n")[2])["legal"] is True
    return status_of(answer), seconds


def assert_probes_answered(server: Server, count: int = 5, gap: float = 0.2) -> None:
    """Every probe answered 200, their median within PROBE_SECONDS and the slowest within
    WORST_SECONDS: the machine running the tests is shared (the 1-s target for every probe
    is measured by bench/bench_hostile_clients.py, on a quiet machine)."""
    seconds = []
    for _ in range(count):
        status, took = probe(server)
        assert status == 200, (status, took, server.output()[-2000:])
        seconds.append(took)
        time.sleep(gap)
    seconds.sort()
    assert seconds[len(seconds) // 2] < PROBE_SECONDS, seconds
    assert seconds[-1] < WORST_SECONDS, seconds


def close_all(socks: list[socket.socket]) -> None:
    for sock in socks:
        sock.close()
    time.sleep(0.3)  # the server sees them go before the next attack


# -------------------------------------------------------------- one client's connections


def test_one_client_holding_connections_leaves_the_server_to_others(server):
    held, refused = [], []
    try:
        for _ in range(150):  # silent connections: more than the whole server's cap
            held.append(connect(server, "127.0.0.2"))
        time.sleep(0.3)
        for sock in held[PER_CLIENT:]:
            answer = exchange(sock, b"", timeout=2)
            refused.append(status_of(answer))
        assert refused and set(refused) == {429}
        assert_probes_answered(server)
    finally:
        close_all(held)


def test_the_refused_connection_is_a_problem_with_retry_after(server):
    held = []
    try:
        for _ in range(PER_CLIENT + 1):
            held.append(connect(server, "127.0.0.3"))
        answer = exchange(held[-1], b"", timeout=2)
        assert status_of(answer) == 429
        assert b"retry-after: 1" in answer.lower()
        assert problem_of(answer)["code"] == "too-many-connections"
    finally:
        close_all(held)


def test_slowloris_from_one_client_reopening_its_connections(server):
    """1,200 connections sending their head a byte at a time, reopened when closed."""
    stop = threading.Event()
    opened = [0]

    def attack() -> None:
        socks: list[socket.socket] = []
        while not stop.is_set() and opened[0] < 1200:
            try:
                sock = connect(server, "127.0.0.4")
                sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
                socks.append(sock)
                opened[0] += 1
            except OSError:
                pass
            for sock in list(socks):
                try:
                    sock.sendall(b"X")
                except OSError:
                    socks.remove(sock)
                    sock.close()
        while not stop.is_set():
            time.sleep(0.05)
        close_all(socks)

    thread = threading.Thread(target=attack, daemon=True)
    thread.start()
    try:
        time.sleep(0.5)
        assert_probes_answered(server, count=8)
        assert opened[0] > 2 * PER_CLIENT  # it did reopen its connections
    finally:
        stop.set()
        thread.join(timeout=30)


def test_idle_keep_alives_are_closed_first_at_the_cap(server):
    """Three addresses, each within its share, fill the server's cap with kept-alive
    connections idle after one request: a new client's connection closes the oldest."""
    held = []
    try:
        for source in ("127.0.0.5", "127.0.0.6", "127.0.0.7"):
            for _ in range(PER_CLIENT):
                sock = connect(server, source)
                assert status_of(exchange(sock, validate_request(close=False))) == 200
                held.append(sock)
        assert_probes_answered(server, count=3, gap=0)
        closed = 0
        for sock in held[:10]:
            sock.settimeout(0.5)
            try:
                closed += sock.recv(1) == b""
            except OSError:
                closed += 1
        assert closed >= 3  # the oldest idle ones made room for the probes
    finally:
        close_all(held)


def test_at_the_cap_with_no_idle_connection_the_answer_is_a_503_problem(server):
    held = []
    try:
        for source in ("127.0.0.8", "127.0.0.9", "127.0.0.10"):
            for _ in range(PER_CLIENT):
                sock = connect(server, source)
                sock.sendall(b"GET / HTTP/1.1\r\n")  # busy: a head on its way
                held.append(sock)
        time.sleep(0.3)
        with connect(server, "127.0.0.1") as sock:
            answer = exchange(sock, validate_request())
        assert status_of(answer) == 503
        assert problem_of(answer)["code"] == "server-busy"
        assert b"retry-after:" in answer.lower()
    finally:
        close_all(held)
    assert_probes_answered(server, count=1)


def test_refused_connections_are_not_logged_one_line_each(server):
    held = []
    try:
        for _ in range(PER_CLIENT + 100):
            held.append(connect(server, "127.0.0.11"))
        time.sleep(0.5)
    finally:
        close_all(held)
    log = server.output()
    assert "Exceeded concurrency limit" not in log
    assert log.count("refused") <= 5  # one counted line per interval, not 100


def test_a_trusted_proxy_is_not_bounded_per_address(server, tmp_path):
    """Behind a reverse proxy every client has the proxy's address: listed with
    --trusted-proxy, its connections are not held to one client's share."""
    with Server(
        server.db,
        tmp_path,
        "--poll",
        "0",
        "--max-client-connections",
        "3",
        "--trusted-proxy",
        "127.0.0.30",
    ) as proxied:
        proxied.wait_ready()
        held = [connect(proxied, "127.0.0.30") for _ in range(10)]
        other = [connect(proxied, "127.0.0.31") for _ in range(4)]
        try:
            forwarded = b"X-Forwarded-For: 192.0.2.1\r\n"
            for sock in held:
                assert status_of(exchange(sock, validate_request(extra=forwarded))) == 200
            assert status_of(exchange(other[-1], b"", timeout=2)) == 429  # not trusted
        finally:
            close_all(held + other)


# -------------------------------------------------------------------------- the head


@pytest.mark.parametrize(
    "head",
    [
        pytest.param(b"X-Big: " + b"a" * 20_000_000 + b"\r\n", id="20 MB header value"),
        pytest.param(b"X-A: b\r\n" * 2_500_000, id="2.5 M headers"),
        pytest.param(b"X-Line: " + b"a" * 9000 + b"\r\n\r\n", id="one 9 KB header line"),
    ],
)
def test_a_request_head_over_its_bound_is_a_431_problem(server, head):
    with connect(server, "127.0.0.12") as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        sent = 0
        try:  # the server answers and closes long before the head is all sent
            while sent < len(head):
                sock.sendall(head[sent : sent + 65536])
                sent += 65536
        except OSError:
            pass
        answer = exchange(sock, b"")
    assert status_of(answer) == 431, answer[:300]
    assert problem_of(answer)["code"] == "head-too-large"
    # refused after tens of KB: the connection closed while most of the head was unsent
    # (what was sent sits in the kernel's socket buffers, megabytes on the loopback)
    assert len(head) < 1_000_000 or sent < len(head) // 2
    assert_probes_answered(server, count=1)


# ------------------------------------------------- the server's own answers: problem+json


@pytest.mark.parametrize(
    ("request_", "status", "code"),
    [
        (b"POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400, None),
        (
            b"POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
            b"Content-Length: 3\r\n\r\n{}",
            400,
            None,
        ),
        (
            b"POST /v1/validate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            b"Content-Length: 3\r\n\r\n0\r\n\r\n",
            400,
            None,
        ),
        (b"GET /healthz HTTP/1.1\r\nHost: x\x01y\r\n\r\n", 400, None),
        (
            b"POST /v1/validate HTTP/1.1\r\nHost: x\r\n"
            b"Content-Length: 99999999999999999999999\r\n\r\n",
            413,
            "body-too-large",
        ),
        (
            b"POST /v1/validate HTTP/1.1\r\nHost: x\r\nContent-Length: 999999999999\r\n\r\n",
            413,
            "body-too-large",
        ),
    ],
    ids=["negative length", "two lengths", "TE and CL", "control character", "overflow", "huge"],
)
def test_malformed_framing_is_a_problem(server, request_, status, code):
    with connect(server, "127.0.0.13") as sock:
        answer = exchange(sock, request_)
    assert status_of(answer) == status, answer[:300]
    problem = problem_of(answer)
    assert problem["code"] == (code or "malformed-request")
    assert "Traceback" not in answer.decode("latin-1")
    # counted in the guard's periodic line, not one line per request (uvicorn's own)
    assert "Invalid HTTP request received" not in server.output()


@pytest.mark.parametrize("path", ["/static", "/v1/formats/", "/v1/validate/"])
def test_no_redirect_goes_to_the_host_the_client_named(server, path):
    with connect(server, "127.0.0.13") as sock:
        answer = exchange(
            sock, f"GET {path} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n".encode()
        )
    assert b"evil.example" not in answer
    assert status_of(answer) == 404
    assert problem_of(answer)["code"] == "not-found"


# ---------------------------------------------------------------------- CPU per client


def test_expensive_requests_get_a_bounded_share_and_others_go_on(server):
    """Clients sending check-formats with 4,999 unknown names, two of them from one address
    claiming other addresses in X-Forwarded-For (not believed: no trusted proxy)."""
    names = "\n".join(f"1 Nonexistent Card Number {i}" for i in range(4999))
    body = json.dumps({"decklist": names}).encode()
    answers: list[bytes] = []

    def heavy(source: str, forwarded: int) -> None:
        request = (
            b"POST /v1/check-formats HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"X-Forwarded-For: 10.0.0.%d\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"
            % (forwarded, len(body))
            + body
        )
        for _ in range(3):
            try:
                with connect(server, source) as sock:
                    answers.append(exchange(sock, request, timeout=60))
            except OSError as exc:
                answers.append(repr(exc).encode())

    threads = [
        threading.Thread(target=heavy, args=(f"127.0.0.{20 + i % 8}", i), daemon=True)
        for i in range(16)
    ]
    for thread in threads:
        thread.start()
    try:
        time.sleep(0.3)
        assert_probes_answered(server, count=5)
    finally:
        for thread in threads:
            thread.join(timeout=120)
    statuses = [status_of(a) for a in answers]
    assert set(statuses) <= {200, 429, 503}, statuses
    refused = [a for a in answers if status_of(a) in (429, 503)]
    assert refused, statuses  # two clients per address, and more than the server's share
    for answer in refused:
        assert b"retry-after: 1" in answer.lower()
        assert problem_of(answer)["code"] in ("too-many-requests", "server-busy")
    assert 200 in statuses


# ------------------------------------------------------------------ in-process pieces


def test_a_refused_cors_preflight_is_a_problem(own_db):
    from fastapi.testclient import TestClient

    from validator.service.app import ServiceConfig, create_app

    app = create_app(ServiceConfig(db=own_db, poll_seconds=0, cors_origins=("https://ok.example",)))
    with TestClient(app) as client:
        answer = client.options(
            "/v1/validate",
            headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
        )
        allowed = client.options(
            "/v1/validate",
            headers={"Origin": "https://ok.example", "Access-Control-Request-Method": "POST"},
        )
    assert answer.status_code == 400
    assert answer.headers["content-type"] == "application/problem+json"
    assert answer.json()["code"] == "cors-refused"
    assert "origin" in answer.json()["detail"]
    assert allowed.status_code == 200


def test_x_forwarded_for_is_believed_only_from_trusted_proxies():
    from validator.service.connections import Limits, check_trusted
    from validator.service.server import bounds

    assert bounds(Limits())["proxy_headers"] is False  # uvicorn's default trusts 127.0.0.1
    trusted = bounds(Limits(trusted_proxies=("10.0.0.0/8",)))
    assert trusted["proxy_headers"] is True and trusted["forwarded_allow_ips"] == ["10.0.0.0/8"]
    assert Limits(trusted_proxies=("10.0.0.0/8",)).trusts("10.1.2.3")
    assert not Limits(trusted_proxies=("10.0.0.0/8",)).trusts("127.0.0.1")
    from validator.errors import UsageError

    with pytest.raises(UsageError, match="--trusted-proxy 'proxy.example'"):
        check_trusted(["proxy.example"])


def test_refusals_are_logged_counted_in_one_line(caplog):
    import asyncio
    import logging

    from validator.service.connections import Guard, Limits

    guard = Guard(Limits(per_client=5))
    loop = asyncio.new_event_loop()
    try:
        for _ in range(1000):
            guard.count_refusal(loop, "192.0.2.7")
        guard.count_refusal(loop, None)
        with caplog.at_level(logging.WARNING, logger="uvicorn.error.deckcheck"):
            guard.flush()
    finally:
        loop.close()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert "refused 1000 connections" in lines[0] and "192.0.2.7: 1000" in lines[0]
    assert "refused 1 connections" in lines[1]
