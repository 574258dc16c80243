"""The README walk-through review of the service: a database file replaced by a non-database
(/healthz 503, one log line per failure), an unknown `input_format` (422 naming the field), a
URL-encoded body (a form; JSON or a bare decklist sent that way is refused saying what to
send), text/plain without `?format=`, /healthz's times, and the report's keys."""

from __future__ import annotations

import logging
import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install '.[serve]'")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (in the test extra)")

from fastapi.testclient import TestClient  # noqa: E402
from test_service import LEGAL_MODERN, assert_problem  # noqa: E402

import validator  # noqa: E402
from validator.service.app import ServiceConfig, create_app  # noqa: E402
from validator.service.cards import CardHolder, load_snapshot  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture(scope="module")
def client(core_db):
    with TestClient(create_app(ServiceConfig(db=core_db, poll_seconds=0))) as c:
        yield c


def _wait(predicate, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def _new_sync(path: Path) -> None:
    conn = sqlite3.connect(path)  # another sync record: a new id
    with conn:
        conn.execute("UPDATE sync_runs SET id = id + 100")
    conn.close()


# ------------------------------------------------------------------ 1: a replaced file


def test_a_database_replaced_by_junk_is_unhealthy_logged_once_and_recovers(
    core_db, tmp_path, caplog
):
    """`mv junk cards.sqlite3` under a server polling every 0.02 s: /healthz answers 503
    `database-unavailable` (it said 200 "ok"), decks are still judged on the loaded data, and
    the failure is one ERROR line without a traceback (it was a traceback at every poll).
    A card database moved there afterwards is loaded and /healthz is 200 again."""
    served = tmp_path / "served.sqlite3"
    shutil.copy(core_db, served)
    calls = []

    def loader(url):
        calls.append(url)
        return load_snapshot(url)

    holder = CardHolder(str(served), poll_seconds=0.02, loader=loader)
    caplog.set_level(logging.INFO, logger="uvicorn.error.deckcheck")
    with TestClient(
        create_app(ServiceConfig(db=str(served), poll_seconds=0.02), holder=holder)
    ) as c:
        assert c.get("/healthz").status_code == 200
        junk = tmp_path / "junk"
        junk.write_bytes(b"not a database at all" * 100)
        os.replace(junk, served)
        _wait(lambda: len(calls) >= 6)  # the start-up load and 5 polls retrying the file
        problem = assert_problem(c.get("/healthz"), 503, "database-unavailable")
        assert "served.sqlite3" not in problem["detail"]
        assert c.head("/healthz").status_code == 503
        report = c.post("/v1/validate", json={"decklist": LEGAL_MODERN, "format": "modern"})
        assert report.status_code == 200 and report.json()["legal"] is True
        errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(errors) == 1, [r.getMessage() for r in errors]
        assert errors[0].exc_info is None and "Traceback" not in caplog.text
        assert "is not a card database" in errors[0].getMessage()
        assert "/healthz answers 503" in errors[0].getMessage()
        assert caplog.text.count("file was replaced; reopening it") == 1
        # A card database put there: loaded at the next poll, healthy again.
        good = tmp_path / "good.sqlite3"
        shutil.copy(core_db, good)
        _new_sync(good)
        os.replace(good, served)
        _wait(lambda: holder.failure is None)
        health = c.get("/healthz")
        assert health.status_code == 200 and health.json()["swaps"] == 1
        assert "can be read again" in caplog.text


def test_a_failure_that_is_a_bug_keeps_its_traceback_once(core_db, caplog):
    """Not a DeckcheckError (a bug): logged with its traceback, once, not at every poll."""
    calls = []

    def loader(url):
        calls.append(url)
        if len(calls) > 1:
            raise KeyError("a bug")
        return load_snapshot(url)

    holder = CardHolder(core_db, poll_seconds=0.01, loader=loader)
    snapshot = holder.load()
    holder._current = type(snapshot)(index=snapshot.index, db=snapshot.db, sync=None)  # stale
    caplog.set_level(logging.INFO, logger="uvicorn.error.deckcheck")
    holder.start_polling()
    try:
        _wait(lambda: len(calls) >= 5)
    finally:
        holder.stop()
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is not None
    assert "still serving the loaded card data" in errors[0].getMessage()
    assert isinstance(holder.failure, KeyError)


def test_a_database_file_gone_from_its_path_is_unhealthy(core_db, tmp_path):
    served = tmp_path / "served.sqlite3"
    shutil.copy(core_db, served)
    app = create_app(ServiceConfig(db=str(served), poll_seconds=0))
    with TestClient(app) as c:
        holder = app.state.service.holder
        served.unlink()
        with pytest.raises(validator.DatabaseError, match="is gone"):
            holder.refresh()
        assert_problem(c.get("/healthz"), 503, "database-unavailable")
        shutil.copy(core_db, served)  # a card database back at the path
        assert holder.refresh() is True
        assert c.get("/healthz").status_code == 200


# ------------------------------------------------------------------ 2: input_format


def test_an_unknown_input_format_is_a_422_naming_the_field_and_the_names_taken(client):
    from validator.decklist import INPUT_FORMATS

    answers = [
        client.post(
            "/v1/validate",
            json={"decklist": LEGAL_MODERN, "format": "modern", "input_format": "mtga"},
        ),
        client.post("/v1/check-formats", json={"decklist": LEGAL_MODERN, "input_format": "mtga"}),
        client.post(
            "/v1/validate",
            data={"format": "modern", "input_format": "mtga"},
            files={"file": ("deck.txt", LEGAL_MODERN.encode())},
        ),
        client.post(
            "/v1/validate?format=modern&input_format=mtga",
            content=LEGAL_MODERN,
            headers={"content-type": "text/plain"},
        ),
    ]
    for response in answers:
        problem = assert_problem(response, 422, "invalid-field")
        assert [e["field"] for e in problem["errors"]] == ["input_format"]
        assert "'mtga'" in problem["detail"]
        assert all(name in problem["detail"] for name in INPUT_FORMATS)
    # A known name, in any case, is still taken.
    ok = client.post(
        "/v1/validate",
        json={"decklist": LEGAL_MODERN, "format": "modern", "input_format": " Text "},
    )
    assert ok.status_code == 200 and ok.json()["legal"] is True


# ------------------------------------------------------------------ 4: text/plain, no format


def test_text_plain_without_a_format_says_to_pass_it_in_the_query_string(client):
    problem = assert_problem(
        client.post("/v1/validate", content=LEGAL_MODERN, headers={"content-type": "text/plain"}),
        422,
        "invalid-field",
    )
    assert [e["field"] for e in problem["errors"]] == ["format"]
    assert "pass ?format=NAME in the query string (the body is the decklist)" in problem["detail"]
    # A JSON body without it names the JSON field, no query-string advice.
    problem = assert_problem(
        client.post("/v1/validate", json={"decklist": LEGAL_MODERN}), 422, "invalid-field"
    )
    assert problem["errors"][0]["field"] == "format" and "query string" not in problem["detail"]


# ------------------------------------------------------------------ 3: URL-encoded bodies

URLENCODED = {"content-type": "application/x-www-form-urlencoded"}


def test_a_url_encoded_form_is_read_as_a_form(client):
    """An HTML form's default encoding, `curl --data-urlencode decklist@deck.txt -d format=modern`."""
    from urllib.parse import urlencode

    body = urlencode(
        {
            "decklist": "1 Minsc & Boo, Timeless Heroes\n99 Mountain",
            "format": "commander",
            "commander": "Minsc & Boo, Timeless Heroes",
        }
    )
    report = client.post("/v1/validate", content=body, headers=URLENCODED)
    assert report.status_code == 200, report.text
    assert report.json()["deck"]["commanders"] == ["Minsc & Boo, Timeless Heroes"]
    checked = client.post(
        "/v1/check-formats", content=urlencode({"decklist": LEGAL_MODERN}), headers=URLENCODED
    )
    assert checked.status_code == 200 and "modern" in checked.json()["legal_in"]


def test_curl_d_without_a_content_type_is_refused_saying_what_to_send(client):
    """`curl -d` without `-H` labels anything URL-encoded: JSON, a decklist file whose line
    breaks `-d @file` dropped, a decklist whose `&` cut the field in two. Each was a 422
    "`file` field (or a `decklist` text field) is required" or an "extra input" named after a
    decklist line; each is a 400 saying what to send instead."""
    sent = {
        '{"decklist": "4 Lightning Bolt\\n56 Mountain", "format": "modern"}': "application/json",
        "4 Lightning Bolt56 Mountain": "--data-binary",
        "decklist=1 Minsc & Boo, Timeless Heroes\n99 Mountain&format=commander": "--data-urlencode",
    }
    for body, advice in sent.items():
        problem = assert_problem(
            client.post("/v1/validate", content=body, headers=URLENCODED), 400, "malformed-body"
        )
        assert advice in problem["detail"] and "curl" in problem["detail"]
    # A form missing its decklist is still a form missing a field.
    assert_problem(
        client.post("/v1/validate", content="format=modern", headers=URLENCODED),
        422,
        "invalid-field",
    )


# ------------------------------------------------------------------ 5: /healthz's times


def test_healthz_says_scryfalls_updated_at_apart_from_the_sync_time(core_db):
    """`updated_at` falls back to the sync's finish time (a `sync --from` file has no
    Scryfall time); `scryfall_updated_at` is Scryfall's alone, as `deckcheck info` shows it."""
    app = create_app(ServiceConfig(db=core_db, poll_seconds=0))
    with TestClient(app) as c:
        db = validator.CardDB(core_db)
        try:
            record = db.last_sync("oracle_cards")
        finally:
            db.close()
        health = c.get("/healthz").json()
        assert record["updated_at"] is None  # imported with `sync --from`
        assert health["scryfall_updated_at"] is None
        assert (
            health["updated_at"]
            == health["sync"]["finished_at"]
            == record["finished_at"].isoformat()
        )
        holder = app.state.service.holder
        snap = holder.current
        holder._current = type(snap)(
            index=snap.index,
            db=snap.db,
            formats=snap.formats,
            sync=dict(snap.sync, updated_at="2026-08-22T09:03:11+00:00"),
        )
        try:
            health = c.get("/healthz").json()
        finally:
            holder._current = snap
        assert health["scryfall_updated_at"] == health["updated_at"] == "2026-08-22T09:03:11+00:00"
        assert health["sync"]["finished_at"] == record["finished_at"].isoformat()


# ------------------------------------------------------------------ 6: the report's keys


def _web_service_section() -> str:
    """The service's documentation: the HTTP API page and the operations page (the sync)."""
    return "\n".join(
        (DOCS / name).read_text(encoding="utf-8") for name in ("http-api.md", "operations.md")
    )


def test_the_answer_is_one_decks_report_without_the_keys_naming_a_deck_of_a_run(client, core_db):
    """The docs once said "exactly the `validate --json` report", whose report of a file carries `id`
    and `player`: it now says the answer has neither, which is what is answered."""
    answer = client.post(
        "/v1/validate", json={"decklist": LEGAL_MODERN, "format": "modern", "filename": "deck.txt"}
    ).json()
    library = validator.validate(LEGAL_MODERN, "modern", db=core_db, source="deck.txt").to_dict()
    assert set(answer) == set(library) | {"provenance"}
    assert "id" not in answer and "player" not in answer
    section = _web_service_section()
    assert 'it has no "id" and "player"' in section and "exactly the" not in section


def test_the_readme_lists_what_the_service_takes_and_answers():
    section = " ".join(_web_service_section().split())
    assert "`application/x-www-form-urlencoded` or `text/plain`" in section  # the 415 row
    assert "an `input_format` that is none of the decklist formats" in section  # the 422 row
    assert "a text/plain body without `?format=NAME`" in section
    assert '"scryfall_updated_at": Scryfall\'s alone, null when unknown' in section
    assert "`/healthz` answers 503 `database-unavailable`" in section
