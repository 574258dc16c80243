"""Request bodies the service bounds and reads: URL-encoded forms, house rules, charsets that
are no text encoding, the keep-alive head deadline, a multipart body cut short."""

from __future__ import annotations

import json
import time
from urllib.parse import urlencode

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install '.[serve]'")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (in the test extra)")

from fastapi.testclient import TestClient  # noqa: E402
from support import closed_within  # noqa: E402
from test_service import LEGAL_MODERN, assert_problem  # noqa: E402

from validator.service import app as service_app  # noqa: E402
from validator.service import bodies as service_bodies  # noqa: E402
from validator.service.app import ServiceConfig, create_app  # noqa: E402
from validator.service.bodies import URLENCODED_MAX_BYTES, parse_urlencoded  # noqa: E402
from validator.service.models import MAX_RULE_CHARS  # noqa: E402

URLENCODED = {"content-type": "application/x-www-form-urlencoded"}


@pytest.fixture(scope="module")
def client(core_db):
    with TestClient(create_app(ServiceConfig(db=core_db, poll_seconds=0))) as c:
        yield c


# ------------------------------------------------------------------ 1: URL-encoded forms


def test_a_url_encoded_body_over_its_limit_is_a_413_saying_what_to_send(client):
    """5 MB of `%` cost ~1 GB and 3-5 s of the event loop in Starlette's form parser; a
    URL-encoded form is now capped (a 5,000-line list needs ~300 KB) with a 413 naming the
    limit and the bodies that take more."""
    for body in (
        b"decklist=" + b"%" * 4_990_000,
        b"&" * 5_000_000,
        b"format=modern&decklist=" + b"%41" * (URLENCODED_MAX_BYTES // 3 + 1),
    ):
        problem = assert_problem(
            client.post("/v1/validate", content=body, headers=URLENCODED), 413, "body-too-large"
        )
        assert f"{URLENCODED_MAX_BYTES:,}" in problem["detail"]
        assert "multipart/form-data" in problem["detail"] and "JSON" in problem["detail"]


def test_a_url_encoded_body_is_parsed_without_a_piece_per_percent(client, monkeypatch):
    """Under the limit, work grows with the length only: the decoder makes no list item per
    `%` (Starlette's and urllib's did), and a form of too many fields is a 400."""
    calls = []
    real = service_bodies.parse_urlencoded
    monkeypatch.setattr(
        service_bodies,
        "parse_urlencoded",
        lambda raw, *rest: calls.append(len(raw)) or real(raw, *rest),
    )
    body = b"format=modern&decklist=" + b"%" * (URLENCODED_MAX_BYTES - 100)
    report = client.post("/v1/validate", content=body, headers=URLENCODED)
    assert report.status_code == 200, report.text  # one line of `%`: an unreadable decklist
    assert calls == [len(body)]
    assert_problem(
        client.post("/v1/validate", content=b"a=&" * 300_000, headers=URLENCODED),
        400,
        "malformed-body",
    )
    # the decoding itself, as Starlette's: + a space, %XX a byte, UTF-8, a lone % kept
    form = parse_urlencoded(b"decklist=4+Lim-D%C3%BBl%27s+Vault%0A%&format=modern&&x")
    assert form.get("decklist") == "4 Lim-Dûl's Vault\n%" and form.get("format") == "modern"
    assert form.get("x") == "" and len(form) == 3


def test_a_url_encoded_form_still_reads_a_real_deck(client):
    lines = "\n".join(["4 Lightning Bolt", "56 Mountain"] * 1)
    body = urlencode({"decklist": lines, "format": "modern"})
    assert client.post("/v1/validate", content=body, headers=URLENCODED).json()["legal"] is True


# ------------------------------------------------------------------ 2: house rules


def test_a_long_house_rule_is_a_422_naming_rules(client):
    """20 rules of 235 KB held the worker 22 s: a rule is one sentence of at most 1,000
    characters (companion conditions are under 200)."""
    rule = (
        "Each creature card in your starting deck is a "
        + ", ".join(["Cat"] * 400)
        + ", or Beast card."
    )
    assert len(rule) > MAX_RULE_CHARS
    for path in ("/v1/validate",):
        problem = assert_problem(
            client.post(path, json={"decklist": LEGAL_MODERN, "format": "modern", "rules": [rule]}),
            422,
            "invalid-field",
        )
        assert problem["errors"][0]["field"] == "rules" and "1,000" in problem["detail"]
    form = assert_problem(
        client.post(
            "/v1/validate", data={"decklist": LEGAL_MODERN, "format": "modern", "rule": rule}
        ),
        422,
        "invalid-field",
    )
    assert form["errors"][0]["field"] == "rules"
    short = "Each creature card in your starting deck is a Cat card."
    assert (
        client.post(
            "/v1/validate", json={"decklist": LEGAL_MODERN, "format": "modern", "rules": [short]}
        ).status_code
        == 200
    )


def test_long_rules_are_judged_off_the_event_loop(client, monkeypatch):
    """Inline or thread is decided from the whole request: a tiny decklist with 20 rules of
    1,000 characters (~85 ms of parsing) goes to the threadpool."""
    sent = []
    real = service_app.run_in_threadpool

    async def spy(fn, *args):
        sent.append(fn)
        return await real(fn, *args)

    from validator.service import admission

    monkeypatch.setattr(service_app, "run_in_threadpool", spy)
    monkeypatch.setattr(admission, "run_in_threadpool", spy)  # a large request is admitted
    rules = [
        "Each creature card in your starting deck is a "
        + ", ".join(["Cat"] * 180)
        + f", or {t} card."
        for t in ("Beast", "Bird", "Dog", "Elf", "Goblin")
    ]
    assert all(len(r) <= MAX_RULE_CHARS for r in rules)
    body = {"decklist": "4 Lightning Bolt\n56 Mountain", "format": "modern"}
    assert client.post("/v1/validate", json=body).status_code == 200
    assert sent == []  # a small request: inline
    assert client.post("/v1/validate", json={**body, "rules": rules}).status_code == 200
    assert len(sent) == 1


# ------------------------------------------------------------------ 3: charsets

NOT_TEXT = ("rot13", "base64", "bz2", "zlib", "hex", "uu", "quopri", "undefined")


@pytest.mark.parametrize("charset", NOT_TEXT)
def test_a_codec_that_is_no_text_encoding_is_a_415(client, charset):
    plain = client.post(
        "/v1/validate?format=modern",
        content=LEGAL_MODERN.encode(),
        headers={"content-type": f"text/plain; charset={charset}"},
    )
    assert charset in assert_problem(plain, 415, "unsupported-media-type")["detail"]
    body = json.dumps({"decklist": LEGAL_MODERN, "format": "modern"}).encode()
    for raw in (body, body[:-1], body.decode().encode("utf-16")):
        assert_problem(
            client.post(
                "/v1/validate",
                content=raw,
                headers={"content-type": f"application/json; charset={charset}"},
            ),
            415,
            "unsupported-media-type",
        )


def test_json_in_a_declared_charset_is_read_in_it_on_both_paths(client):
    """The JSON fast path parsed any body that was valid UTF-8, ignoring its declared
    charset: a latin-1 body of ASCII bytes agreed by luck, a UTF-16 declaration of UTF-8 bytes
    did not. Both paths now decode in the declared charset."""
    body = json.dumps({"decklist": LEGAL_MODERN, "format": "modern"}).encode()
    latin = client.post(
        "/v1/validate",
        content=body,
        headers={"content-type": "application/json; charset=iso-8859-1"},
    )
    assert latin.status_code == 200 and latin.json()["legal"] is True
    # UTF-8 bytes declared UTF-16 are no JSON in UTF-16: refused, as the app refused them
    wrong = client.post(
        "/v1/validate", content=body, headers={"content-type": "application/json; charset=utf-16"}
    )
    assert wrong.status_code == 400, wrong.text
    utf16 = client.post(
        "/v1/validate",
        content=body.decode().encode("utf-16"),
        headers={"content-type": "application/json; charset=utf-16"},
    )
    assert utf16.status_code == 200 and utf16.json()["legal"] is True


# ------------------------------------------------------------------ 4: keep-alive head deadline


def test_the_next_request_on_a_kept_alive_connection_has_its_own_head_deadline(
    quick_deadline_server,
):
    """The head deadline of a second request counted from the connection's opening timer,
    which (having seen a request complete) closed nothing: the next head had up to twice the
    deadline. It now has head_seconds (0.5 s here) from its first byte."""
    import socket

    port = quick_deadline_server
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = b""
        while b"\r\n\r\n" not in answer:
            answer += conn.recv(65536)
        assert answer.startswith(b"HTTP/1.1 200")
        time.sleep(0.15)
        closed = closed_within(
            conn, 5, trickle=b"GET /healthz HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 100
        )
    assert closed is not None and 0.4 <= closed < 0.85, closed  # was ~0.35 + 0.5 + 0.1 s more


# ------------------------------------------------------------------ 5: a multipart body cut short


def test_a_multipart_body_without_its_closing_boundary_is_a_400_saying_incomplete(client):
    whole = (
        b'--B\r\nContent-Disposition: form-data; name="format"\r\n\r\nmodern\r\n'
        b'--B\r\nContent-Disposition: form-data; name="file"; filename="d.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\n" + LEGAL_MODERN.encode() + b"\r\n--B--\r\n"
    )
    headers = {"content-type": "multipart/form-data; boundary=B"}
    assert client.post("/v1/validate", content=whole, headers=headers).json()["legal"] is True
    for cut in (
        whole[: -len(b"--B--\r\n")],
        whole[: -len(b"\r\n--B--\r\n")],
        whole[: len(whole) // 2],
    ):
        problem = assert_problem(
            client.post("/v1/validate", content=cut, headers=headers), 400, "malformed-body"
        )
        assert "incomplete" in problem["detail"] and "--B--" in problem["detail"]
    # a form truly without a file is still the 422 naming the field
    empty = b'--B\r\nContent-Disposition: form-data; name="format"\r\n\r\nmodern\r\n--B--\r\n'
    assert_problem(
        client.post("/v1/validate", content=empty, headers=headers), 422, "invalid-field"
    )
