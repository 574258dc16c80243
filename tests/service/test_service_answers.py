"""How the running service answers: card pages from the snapshot that validation uses, a
bounded check-formats answer, health that reflects the database, no path in a 5xx, a client
that goes away is no server error, provenance in every report, slow clients closed at the
deadlines, plain refusals of what it does not take."""

from __future__ import annotations

import asyncio
import json
import logging
import shutil
import uuid
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install '.[serve]'")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (in the test extra)")

from fastapi.testclient import TestClient  # noqa: E402
from support import closed_within  # noqa: E402
from test_service import LEGAL_MODERN, assert_problem, banned_bolt_file, cli_json  # noqa: E402

import validator  # noqa: E402
from validator.service import app as service_app  # noqa: E402
from validator.service.app import ServiceConfig, create_app  # noqa: E402
from validator.service.cards import CardHolder  # noqa: E402

NEW_CARD = "Deckcheck's Brand New Card"


def new_sync_file(tmp_path: Path) -> Path:
    """cards_core.json with Lightning Bolt banned in Modern and one card more."""
    path = banned_bolt_file(tmp_path)
    cards = json.loads(path.read_text(encoding="utf-8"))
    bolt = next(c for c in cards if c["name"] == "Lightning Bolt")
    cards.append(
        dict(
            bolt,
            name=NEW_CARD,
            id=str(uuid.uuid4()),
            oracle_id=str(uuid.uuid4()),
            legalities=dict(bolt["legalities"], modern="legal"),
        )
    )
    path.write_text(json.dumps(cards), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------- 1. one snapshot


def test_card_pages_answer_from_the_snapshot_validation_uses(own_db, tmp_path):
    """A sync the worker has not swapped in yet (`--poll 0`, or within the poll interval):
    /v1/cards, /v1/validate and /healthz all answer from the loaded data, then all from the
    new data once it is swapped in."""
    from validator.sync import import_file

    app = create_app(ServiceConfig(db=own_db, poll_seconds=0))
    body = {"decklist": LEGAL_MODERN, "format": "modern"}
    with TestClient(app) as c:
        old_id = c.get("/healthz").json()["sync"]["id"]
        import_file(new_sync_file(tmp_path), own_db)  # in the file, not yet in the worker
        assert c.post("/v1/validate", json=body).json()["legal"] is True
        card = c.get("/v1/cards/Lightning%20Bolt")
        assert card.status_code == 200 and card.json()["legalities"]["modern"] == "legal"
        assert c.get("/healthz").json()["sync"]["id"] == old_id
        # A card only the newer sync has is unknown to this snapshot, as to validation.
        assert_problem(c.get(f"/v1/cards/{NEW_CARD}"), 404, "unknown-card")
        unknown = c.post("/v1/validate", json={"decklist": f"1 {NEW_CARD}\n", "format": "modern"})
        assert "unknown-card" in [p["code"] for p in unknown.json()["problems"]]

        assert app.state.service.holder.refresh() is True
        assert c.post("/v1/validate", json=body).json()["legal"] is False
        assert c.get("/v1/cards/Lightning%20Bolt").json()["legalities"]["modern"] == "banned"
        assert c.get(f"/v1/cards/{NEW_CARD}").json()["name"] == NEW_CARD
        assert c.get("/healthz").json()["sync"]["id"] == old_id + 1


# ---------------------------------------------------------------------------- 2. bounded answer

UNKNOWN_LINES = 2000


def unknown_deck(lines: int = UNKNOWN_LINES) -> str:
    return "\n".join(f"1 Zzyzx unheard of card number {i:05d}" for i in range(lines)) + "\n"


def test_check_formats_answer_lists_a_bounded_number_of_problems_per_format(own_db):
    """Every unknown line is a problem in every format: each format lists the first
    MAX_PROBLEMS_PER_FORMAT and counts the rest, so the answer does not grow with
    lines x formats (it was ~20 MB for this deck; 114 MB for 4,999 lines)."""
    cap = service_app.MAX_PROBLEMS_PER_FORMAT
    with TestClient(create_app(ServiceConfig(db=own_db, poll_seconds=0))) as c:
        response = c.post("/v1/check-formats", json={"decklist": unknown_deck()})
        assert response.status_code == 200
        data = response.json()
        assert len(response.content) < 2_000_000, len(response.content)
        assert data["legal_in"] == []
        for report in data["reports"]:
            shown, omitted = len(report["problems"]), report["problems_omitted"]
            assert shown == cap and shown + omitted == sum(report["counts"].values())
            entry = data["formats"][report["format"]]  # its errors only
            assert len(entry["problems"]) == cap
            assert cap + entry["problems_omitted"] == report["counts"]["error"] >= UNKNOWN_LINES
        # One format's report is the CLI's, whole.
        one = c.post("/v1/validate", json={"decklist": unknown_deck(), "format": "modern"}).json()
        assert len(one["problems"]) == UNKNOWN_LINES and "problems_omitted" not in one


# ---------------------------------------------------------------------------- 4. health, 5xx


def test_health_and_5xx_reflect_a_broken_database_without_leaking_it(own_db, tmp_path, caplog):
    db = str(tmp_path / "served.sqlite3")
    shutil.copy(own_db, db)
    with TestClient(create_app(ServiceConfig(db=db, poll_seconds=0))) as c:
        assert c.get("/healthz").status_code == 200
        Path(db).write_bytes(b"")  # emptied in place under the running server
        caplog.set_level(logging.ERROR)
        for response in (c.get("/healthz"), c.get("/v1/cards/No%20Such%20Card")):
            problem = assert_problem(response, 503, "database-unavailable")
            assert db not in response.text and "served.sqlite3" not in response.text
            assert "--db" not in response.text and "DECKCHECK_DB" not in response.text
            assert "logged on the server" in problem["detail"]
        assert "card database" in caplog.text  # the cause is the operator's, in the log


# ---------------------------------------------------------------------------- 5. client gone


@pytest.mark.parametrize("content_type", ["application/json", "text/plain"])
def test_a_client_that_goes_away_mid_body_is_no_server_error(own_db, caplog, content_type):
    """Content-Length 1000, 12 bytes sent, then the connection closed: one INFO line, no
    traceback, nothing raised to the server (uvicorn logged "Exception in ASGI application")."""
    holder = CardHolder(own_db, poll_seconds=0)
    holder.load()
    app = create_app(ServiceConfig(db=own_db, poll_seconds=0), holder=holder)
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/validate",
        "raw_path": b"/v1/validate",
        "query_string": b"format=modern" if content_type == "text/plain" else b"",
        "root_path": "",
        "server": ("127.0.0.1", 8000),
        "client": ("127.0.0.1", 5000),
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"content-type", content_type.encode()),
            (b"content-length", b"1000"),
        ],
    }
    messages = [
        {"type": "http.request", "body": b'{"decklist":', "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive():
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    sent = []

    async def send(message):
        sent.append(message)

    caplog.set_level(logging.DEBUG)
    try:
        asyncio.run(app(scope, receive, send))  # raises nothing
    finally:
        holder.stop()
    errors = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert not errors, [r.getMessage() for r in errors]
    assert "Traceback" not in caplog.text
    gone = [r for r in caplog.records if "went away" in r.getMessage()]
    assert len(gone) == 1 and gone[0].levelno == logging.INFO


# ---------------------------------------------------------------------------- 6. provenance


def test_reports_carry_the_provenance_of_the_snapshot_that_judged_them(own_db, tmp_path):
    from validator.sync import import_file

    app = create_app(ServiceConfig(db=own_db, poll_seconds=0))
    body = {"decklist": LEGAL_MODERN, "format": "modern"}
    with TestClient(app) as c:
        first = c.post("/v1/validate", json=body).json()
        assert first == cli_json(validator.validate(LEGAL_MODERN, "modern", db=own_db), own_db)
        prov = first["provenance"]
        assert prov["card_data"]["synced_at"] and prov["legality_basis"] == "card data"
        assert (
            c.post("/v1/check-formats", json={"decklist": LEGAL_MODERN}).json()["provenance"]
            == prov
        )
        import_file(new_sync_file(tmp_path), own_db)  # the file moves on, the worker has not
        assert c.post("/v1/validate", json=body).json()["provenance"] == prov
        app.state.service.holder.refresh()
        newer = c.post("/v1/validate", json=body).json()["provenance"]
        assert newer["card_data"]["synced_at"] > prov["card_data"]["synced_at"]


# ---------------------------------------------------------------------------- 7. slow clients


def test_slow_and_idle_clients_are_closed_at_the_deadlines(quick_deadline_server):
    import socket

    port = quick_deadline_server
    with socket.create_connection(("127.0.0.1", port), timeout=5) as silent:
        assert closed_within(silent, 5) is not None  # connected, sent nothing
    with socket.create_connection(("127.0.0.1", port), timeout=5) as partial:
        partial.sendall(b"POST /v1/validate HTTP/1.1\r\nHost: x\r\n")  # the head never ends
        assert closed_within(partial, 5, trickle=b"X-Slow: " + b"a" * 100) is not None
    with socket.create_connection(("127.0.0.1", port), timeout=5) as slow_body:
        slow_body.sendall(
            b"POST /v1/validate HTTP/1.1\r\nHost: x\r\ncontent-type: application/json"
            b"\r\ncontent-length: 200\r\n\r\n"
        )
        assert closed_within(slow_body, 5, trickle=b"{" * 200) is not None
    # A request sent at once is answered as ever, on a connection kept alive for the next.
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for _ in range(2):
        conn.request(
            "POST",
            "/v1/validate",
            body=json.dumps({"decklist": LEGAL_MODERN, "format": "modern"}),
            headers={"content-type": "application/json"},
        )
        response = conn.getresponse()
        assert response.status == 200 and json.loads(response.read())["legal"] is True
    conn.close()


# ---------------------------------------------------------------------------- 8. plain refusals


@pytest.fixture(scope="module")
def client(core_db):
    with TestClient(create_app(ServiceConfig(db=core_db, poll_seconds=0))) as c:
        yield c


def test_a_compressed_body_is_a_415_naming_content_encoding(client):
    import gzip

    body = gzip.compress(json.dumps({"decklist": LEGAL_MODERN, "format": "modern"}).encode())
    for path in ("/v1/validate", "/v1/check-formats"):
        for encoding in ("gzip", "deflate"):
            problem = assert_problem(
                client.post(
                    path,
                    content=body,
                    headers={"content-type": "application/json", "content-encoding": encoding},
                ),
                415,
                "unsupported-media-type",
            )
            assert "Content-Encoding" in problem["detail"] and "UTF-8" not in problem["detail"]


def test_request_errors_name_the_request_fields_not_cli_flags(client):
    problem = assert_problem(
        client.post(
            "/v1/validate", json={"decklist": LEGAL_MODERN, "format": "modern", "bracket": 2}
        ),
        400,
        "bad-input",
    )
    assert "`bracket`" in problem["detail"] and "--" not in problem["detail"]
    form = assert_problem(
        client.post(
            "/v1/validate",
            data={"format": "modern", "bracket": "2"},
            files={"file": ("d.txt", LEGAL_MODERN.encode())},
        ),
        400,
        "bad-input",
    )
    assert form["detail"] == problem["detail"]
    commanders = assert_problem(
        client.post(
            "/v1/validate",
            json={"decklist": LEGAL_MODERN, "format": "modern", "commanders": ["Lightning Bolt"]},
        ),
        400,
        "bad-input",
    )
    assert "`commanders`" in commanders["detail"] and "--" not in commanders["detail"]


def test_commander_names_are_refused_when_empty_or_longer_than_any_card(client):
    for names in ([""], ["   "], ["Minsc & Boo, Timeless Heroes", ""]):
        response = client.post(
            "/v1/validate",
            json={"decklist": "99 Mountain\n", "format": "commander", "commanders": names},
        )
        problem = assert_problem(response, 422, "invalid-field")
        assert "empty" in problem["detail"] and "_____" not in response.text
    long = "x" * 200_000
    response = client.post(
        "/v1/validate",
        json={"decklist": "99 Mountain\n", "format": "commander", "commanders": [long]},
    )
    assert_problem(response, 422, "invalid-field")
    assert len(response.content) < 2_000 and long[:300] not in response.text


def test_as_of_and_bracket_of_the_wrong_json_type_are_refused_plainly(client):
    from validator.dates import AS_OF_FORMS

    for value in (20260101, 2026.5, True):
        problem = assert_problem(
            client.post(
                "/v1/validate", json={"decklist": LEGAL_MODERN, "format": "modern", "as_of": value}
            ),
            422,
            "invalid-field",
        )
        assert AS_OF_FORMS in problem["detail"] and "Datetimes" not in problem["detail"]
    for value in (True, False):
        problem = assert_problem(
            client.post(
                "/v1/validate",
                json={"decklist": COMMANDER_DECK, "format": "commander", "bracket": value},
            ),
            422,
            "invalid-field",
        )
        assert "bracket" in problem["detail"]


COMMANDER_DECK = "1 Minsc & Boo, Timeless Heroes\n99 Mountain\n"


def test_query_parameters_beside_a_body_are_refused_not_ignored(client):
    body = {"decklist": LEGAL_MODERN, "format": "modern"}
    problem = assert_problem(client.post("/v1/validate?format=legacy", json=body), 400, "bad-input")
    assert "format" in problem["detail"] and "in the body" in problem["detail"]
    # only the options are named, not a cache-buster beside them
    mixed = assert_problem(
        client.post("/v1/validate?_=1&commander=X&as_of=2026-01-01", json=body), 400, "bad-input"
    )
    assert mixed["detail"].startswith("options as_of, commander in the query string")
    assert_problem(
        client.post("/v1/check-formats?as_of=2026-01-01", json={"decklist": LEGAL_MODERN}),
        400,
        "bad-input",
    )
    assert_problem(
        client.post(
            "/v1/validate?bracket=2",
            data={"format": "modern"},
            files={"file": ("d.txt", LEGAL_MODERN.encode())},
        ),
        400,
        "bad-input",
    )
    # text/plain takes its options from the query string, as before
    plain = client.post(
        "/v1/validate?format=modern",
        content=LEGAL_MODERN.encode(),
        headers={"content-type": "text/plain"},
    )
    assert plain.status_code == 200 and plain.json()["format"] == "modern"


def test_query_parameters_that_are_no_option_pass_beside_a_json_or_form_body(client):
    """A cache-buster or an API gateway's key is none of the service's business: the answer
    is the one without it."""
    body = {"decklist": LEGAL_MODERN, "format": "modern"}
    for path, json_body in (
        ("/v1/validate", body),
        ("/v1/check-formats", {"decklist": LEGAL_MODERN}),
    ):
        plain = client.post(path, json=json_body)
        assert plain.status_code == 200
        for query in ("_=123", "api_key=k3y&_=1700000000", "_"):
            busted = client.post(f"{path}?{query}", json=json_body)
            assert busted.status_code == 200, (path, query, busted.text)
            assert busted.json() == plain.json()
        form = client.post(
            f"{path}?api_key=k3y",
            data={k: v for k, v in json_body.items() if k != "decklist"},
            files={"file": ("d.txt", LEGAL_MODERN.encode())},
        )
        assert form.status_code == 200, form.text


def test_the_fast_path_answers_a_cache_busted_json_body_and_leaves_options_to_the_app():
    from validator.service.bodies import QUERY_OPTIONS
    from validator.service.fastpath import ValidateFastPath
    from validator.service.models import ValidateRequest

    async def app(scope, receive, send):  # the full app: records that it was asked
        asked.append(scope["query_string"])
        await send({"type": "http.response.start", "status": 400, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def answer(options, scope):
        return {"format": options.format}

    layer = ValidateFastPath(app, model=ValidateRequest, answer=answer, query_options=QUERY_OPTIONS)
    body = json.dumps({"decklist": LEGAL_MODERN, "format": "modern"}).encode()

    async def post(query: bytes) -> int:
        sent: list[dict] = []
        messages = [{"type": "http.request", "body": body, "more_body": False}]

        async def receive():
            return messages.pop(0)

        async def send(message):
            sent.append(message)

        await layer(
            {
                "type": "http",
                "method": "POST",
                "path": "/v1/validate",
                "root_path": "",
                "query_string": query,
                "headers": [(b"content-type", b"application/json")],
            },
            receive,
            send,
        )
        return sent[0]["status"]

    asked: list[bytes] = []
    assert asyncio.run(post(b"_=123")) == 200 and asked == []
    assert asyncio.run(post(b"api_key=x&%66ormat=legacy")) == 400 and asked == [
        b"api_key=x&%66ormat=legacy"
    ]


def test_a_body_of_no_accepted_type_is_a_415_whatever_the_query(client):
    """`requests.post(url, params={"format": "modern"}, data=text)` sends no Content-Type."""
    for path in ("/v1/validate", "/v1/check-formats"):
        for headers in ({}, {"content-type": "application/octet-stream"}):
            problem = assert_problem(
                client.post(
                    f"{path}?format=modern", content=LEGAL_MODERN.encode(), headers=headers
                ),
                415,
                "unsupported-media-type",
            )
            for accepted in ("application/json", "multipart/form-data", "text/plain"):
                assert accepted in problem["detail"]
            assert (
                "query string" in problem["detail"] and "JSON or form body" not in problem["detail"]
            )


def test_head_is_answered_for_the_page_and_health(client):
    for path in ("/", "/healthz"):
        response = client.head(path)
        assert response.status_code == 200, (path, response.status_code)
        assert response.headers["content-type"] == client.get(path).headers["content-type"]


# ---------------------------------------------------------------------------- verdicts


def test_answers_carry_the_verdict_unconfirmed_apart_from_illegal(own_db):
    deck = "4 Lightning Bolt\n4 Goblin Guid\n52 Mountain\n"
    with TestClient(create_app(ServiceConfig(db=own_db, poll_seconds=0))) as c:
        for text, verdict in ((deck, "unconfirmed"), (deck + "1 Black Lotus\n", "illegal")):
            for body in ({"decklist": text, "format": "modern"},):
                data = c.post("/v1/validate", json=body).json()
                assert (data["legal"], data["verdict"]) == (False, verdict)
        data = c.post("/v1/check-formats", json={"decklist": deck}).json()
        assert data["formats"]["modern"]["verdict"] == "unconfirmed"
        assert "modern" in data["unconfirmed_in"]


def test_healthz_counts_the_cards_as_info_does_and_labels_the_deck_cards(tmp_path, capsys):
    """`cards` is the sync's count, as `deckcheck info` and every report's provenance say;
    `deck_cards` the cards a deck can hold (no tokens, art cards, planes)."""
    from support import FIXTURES

    from validator.cli import main
    from validator.sync import import_file

    db = str(tmp_path / "cards.sqlite3")
    import_file(FIXTURES / "scryfall_cards.json", db)
    assert main(["info", "--db", db, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    with TestClient(create_app(ServiceConfig(db=db, poll_seconds=0))) as c:
        health = c.get("/healthz").json()
        report = c.post("/v1/validate", json={"decklist": "1 Island\n", "format": "vintage"})
    assert health["cards"] == info["cards"] == report.json()["provenance"]["card_data"]["cards"]
    assert 0 < health["deck_cards"] < health["cards"]
