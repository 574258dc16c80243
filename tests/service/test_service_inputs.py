"""What the service takes in: as_of errors, declared charsets and BOMs, the body limit
following the decklist limit, a form with two decklists, OpenAPI's query options and 404s, no
server path in answers, a replaced database file picked up at the next poll."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install '.[serve]'")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (in the test extra)")

from fastapi.testclient import TestClient  # noqa: E402
from support import FIXTURES  # noqa: E402
from test_service import LEGAL_MODERN, assert_problem  # noqa: E402

import validator  # noqa: E402
from validator.decklist import MAX_BYTES  # noqa: E402
from validator.service.app import ServiceConfig, create_app  # noqa: E402
from validator.service.bodylimit import MAX_BODY_BYTES  # noqa: E402
from validator.service.cards import CardHolder  # noqa: E402

VAULT = "4 Lim-Dûl's Vault\n56 Mountain\n"  # legal in Legacy


@pytest.fixture(scope="module")
def client(core_db):
    with TestClient(create_app(ServiceConfig(db=core_db, poll_seconds=0))) as c:
        yield c


# ------------------------------------------------------------------ 5: as_of


@pytest.mark.parametrize("bad", ["hello", "2026-02-30", "", "  "])
def test_an_unreadable_as_of_is_400_bad_as_of_everywhere(client, bad):
    body = {"decklist": LEGAL_MODERN, "format": "modern", "as_of": bad}
    answers = [
        client.post("/v1/validate", json=body),
        client.post("/v1/check-formats", json={"decklist": LEGAL_MODERN, "as_of": bad}),
    ]
    if bad.strip():  # an empty form field or query parameter is no option at all
        answers += [
            client.post(
                "/v1/validate",
                data={"format": "modern", "as_of": bad},
                files={"file": ("d.txt", LEGAL_MODERN.encode())},
            ),
            client.post(
                "/v1/validate",
                params={"format": "modern", "as_of": bad},
                content=LEGAL_MODERN,
                headers={"content-type": "text/plain"},
            ),
        ]
    for answer in answers:
        problem = assert_problem(answer, 400, "bad-as-of")
        assert "leave as_of out (or send null)" in problem["detail"]
        assert "None" not in problem["detail"]


def test_an_as_of_of_the_wrong_type_stays_422(client):
    assert_problem(
        client.post(
            "/v1/validate", json={"decklist": LEGAL_MODERN, "format": "modern", "as_of": 20260101}
        ),
        422,
        "invalid-field",
    )


# ------------------------------------------------------------------ 13: charsets, BOM


def test_a_declared_charset_is_honoured(client):
    for charset in ("iso-8859-1", "windows-1252", "utf-16"):
        answer = client.post(
            "/v1/validate",
            params={"format": "legacy"},
            content=VAULT.encode(charset),
            headers={"content-type": f"text/plain; charset={charset}"},
        )
        assert answer.status_code == 200, answer.text
        assert answer.json()["legal"] is True, answer.json()["problems"]
    body = json.dumps({"decklist": VAULT, "format": "legacy"}, ensure_ascii=False)
    answer = client.post(
        "/v1/validate",
        content=body.encode("utf-16"),
        headers={"content-type": "application/json; charset=utf-16"},
    )
    assert answer.status_code == 200 and answer.json()["legal"] is True, answer.text


def test_an_unknown_charset_or_undecodable_body_says_so(client):
    problem = assert_problem(
        client.post(
            "/v1/validate",
            params={"format": "modern"},
            content=b"1 Island",
            headers={"content-type": "text/plain; charset=klingon"},
        ),
        415,
        "unsupported-media-type",
    )
    assert "klingon" in problem["detail"]
    problem = assert_problem(
        client.post(
            "/v1/validate",
            params={"format": "modern"},
            content=VAULT.encode("latin-1"),
            headers={"content-type": "text/plain"},
        ),
        400,
        "bad-decklist",
    )
    assert "not UTF-8" in problem["detail"] and "charset" in problem["detail"]
    # a UTF-16 JSON body without its charset: "not UTF-8", not orjson's "surrogates not allowed"
    body = json.dumps({"decklist": VAULT, "format": "modern"}).encode("utf-16")
    problem = assert_problem(
        client.post("/v1/validate", content=body, headers={"content-type": "application/json"}),
        400,
        "malformed-body",
    )
    assert "not UTF-8" in problem["detail"] and "surrogates" not in problem["detail"]


def test_a_json_body_with_a_utf8_bom_is_read(client):
    body = b"\xef\xbb\xbf" + json.dumps({"decklist": LEGAL_MODERN, "format": "modern"}).encode()
    answer = client.post("/v1/validate", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 200 and answer.json()["legal"] is True, answer.text


# ------------------------------------------------------------------ 12: limits, two decklists


def test_the_body_limit_follows_the_decklist_limit(client):
    assert MAX_BODY_BYTES > MAX_BYTES
    # a list of exactly the decklist limit, sent as JSON with a newline on each line, is judged
    line = "1 Mountain\n"
    text = line * (MAX_BYTES // len(line))
    answer = client.post("/v1/validate", json={"decklist": text, "format": "modern"})
    assert answer.status_code != 413, answer.text
    problem = assert_problem(
        client.post(
            "/v1/validate",
            content=b"x" * (MAX_BODY_BYTES + 1),
            headers={"content-type": "text/plain"},
        ),
        413,
        "body-too-large",
    )
    assert f"{MAX_BYTES:,} bytes" in problem["detail"]  # worded as the page words it


def test_page_gets_the_decklist_limit(client):
    page = client.get("/").text
    assert f'data-max-bytes="{MAX_BYTES}"' in page and "{{" not in page


def test_a_form_with_both_file_and_decklist_is_refused_naming_both(client):
    answer = client.post(
        "/v1/validate",
        data={"format": "modern", "decklist": "60 Island"},
        files={"file": ("deck.txt", LEGAL_MODERN.encode())},
    )
    problem = assert_problem(answer, 422, "invalid-field")
    assert {e["field"] for e in problem["errors"]} == {"file", "decklist"}


# ------------------------------------------------------------------ 10: OpenAPI


def test_openapi_declares_the_text_plain_query_options_and_only_problem_errors(client):
    """The query options belong to the text/plain body (refused beside a JSON or form body):
    described with it, not offered as parameters of every body type."""
    doc = client.get("/openapi.json").json()

    every = {"format", "filename", "input_format", "bracket", "as_of", "commander", "rule"}

    def plain_options(path: str) -> set[str]:
        operation = doc["paths"][path]["post"]
        assert "parameters" not in operation
        text = operation["requestBody"]["content"]["text/plain"]["schema"]["description"]
        return {name for name in every if f"`{name}`" in text}

    assert plain_options("/v1/validate") == every
    assert plain_options("/v1/check-formats") == {"filename", "input_format", "as_of", "commander"}
    card = doc["paths"]["/v1/cards/{name}"]["get"]["responses"]
    assert "422" not in card and "404" in card
    assert "HTTPValidationError" not in json.dumps(doc)
    # the 422 the POST routes do answer is still documented, as problem+json
    assert (
        "application/problem+json"
        in doc["paths"]["/v1/validate"]["post"]["responses"]["422"]["content"]
    )


@pytest.mark.parametrize("option", [{"rules": ["Cards must be nice."]}, {"bracket": 3}])
def test_check_formats_refuses_the_options_its_openapi_leaves_out(client, option):
    """`rules` and `bracket` judge one format: POST /v1/check-formats refuses them (and its
    OpenAPI, test above, does not offer them)."""
    problem = assert_problem(
        client.post("/v1/check-formats", json={"decklist": LEGAL_MODERN, **option}),
        400,
        "bad-input",
    )
    assert "/v1/validate" in problem["detail"] and next(iter(option)) in problem["detail"]


def test_the_404s_of_cards_are_alike(client):
    short = assert_problem(client.get("/v1/cards/Lightnig Bolt"), 404, "unknown-card")
    long = assert_problem(client.get("/v1/cards/" + "a" * 20_000), 404, "unknown-card")
    assert set(short) == set(long), set(short) ^ set(long)
    assert len(long["name"]) <= 201 and len(long["instance"]) < 1000


# ------------------------------------------------------------------ 15: no server path


def test_answers_name_the_card_data_file_by_its_basename(client, core_db):
    report = client.post("/v1/validate", json={"decklist": LEGAL_MODERN, "format": "modern"}).json()
    assert report["provenance"]["card_data"]["source"] == "cards_core.json"
    checked = client.post("/v1/check-formats", json={"decklist": LEGAL_MODERN}).json()
    assert checked["provenance"]["card_data"]["source"] == "cards_core.json"
    assert str(FIXTURES) not in json.dumps(report) + json.dumps(checked)


# ------------------------------------------------------------------ 6: a replaced file


def _set_source(path, source: str) -> None:
    conn = sqlite3.connect(path)  # a different sync record: a new id and source
    with conn:
        conn.execute("UPDATE sync_runs SET source_uri = ?, id = id + 100", (source,))
    conn.close()  # (checkpointed: nothing left in new.sqlite3-wal)


def test_a_replaced_database_file_is_picked_up_at_the_next_poll(core_db, tmp_path):
    served = tmp_path / "served.sqlite3"
    shutil.copy(core_db, served)
    holder = CardHolder(str(served), poll_seconds=0)
    holder.load()
    old_sync = holder.current.sync
    assert holder.refresh() is False  # nothing changed
    new = tmp_path / "new.sqlite3"
    shutil.copy(core_db, new)
    _set_source(new, "/elsewhere/replacement.json")
    os.replace(new, served)  # mv new.sqlite3 served.sqlite3
    assert holder.refresh() is True
    assert holder.current.sync["source_uri"] == "/elsewhere/replacement.json"
    assert holder.current.sync["id"] != old_sync["id"]
    assert (
        holder.current.db.last_sync("oracle_cards")["source_uri"] == "/elsewhere/replacement.json"
    )
    assert holder.refresh() is False  # and it is not reloaded again
    # A replacement that cannot be loaded: the loaded data keeps being served.
    broken = tmp_path / "broken.sqlite3"
    broken.write_bytes(b"not a database at all" * 100)
    os.replace(broken, served)
    serving = holder.current
    with pytest.raises(validator.DatabaseError):  # not a database: the old data stays
        holder.refresh()
    assert holder.current is serving and holder.current.card_count > 0
    # ...and still judges decks: its database was not closed before the new file failed (a
    # first validation reads the loaded database's legality keys, which a closed one would
    # look for at the path, in the broken file: a 503 on every request).
    report = validator.validate(LEGAL_MODERN, "modern", cards=serving.index)
    assert report.legal
    holder.stop()
