"""The last regression review's findings: a URL-encoded body read in its declared charset,
and check-formats' text naming each legal format that carries a warning (with the warning)."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import FIXTURES

from validator.cli.commands import main

# ------------------------------------------------ 1: a URL-encoded body's declared charset

VAULT = "4 Lim-Dûl's Vault\n56 Mountain"
URLENCODED = "application/x-www-form-urlencoded"


@pytest.fixture(scope="module")
def client(core_db):
    pytest.importorskip(
        "fastapi", reason="the service needs the serve extra: pip install '.[serve]'"
    )
    pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (in the test extra)")
    from fastapi.testclient import TestClient

    from validator.service.app import ServiceConfig, create_app

    with TestClient(create_app(ServiceConfig(db=core_db, poll_seconds=0))) as c:
        yield c


def _post(client, body: bytes, charset: str | None = None):
    ctype = URLENCODED + (f"; charset={charset}" if charset else "")
    return client.post("/v1/validate", content=body, headers={"content-type": ctype})


def _problem(response, status: int, kind: str) -> dict:
    assert response.status_code == status, response.text
    data = response.json()
    assert data["type"].endswith(":" + kind), data
    return data


@pytest.mark.parametrize(
    "body",
    [
        # raw Latin-1 bytes (what a client encoding the form itself in its charset sends) ...
        f"decklist={VAULT}&format=legacy".encode("latin-1"),
        # ... and percent-encoded Latin-1 (an HTML form of a Latin-1 page)
        b"decklist=4+Lim-D%FBl%27s+Vault%0A56+Mountain&format=legacy",
    ],
    ids=["raw", "percent-encoded"],
)
def test_a_url_encoded_body_is_read_in_its_declared_charset(client, body):
    """Read as UTF-8 whatever the Content-Type said, `û` (0xFB) became U+FFFD: "unknown card
    'Lim-D\ufffdl's Vault'" for a legal deck."""
    response = _post(client, body, "iso-8859-1")
    assert response.status_code == 200, response.text
    data = response.json()
    assert data["legal"] is True, data
    assert "\ufffd" not in json.dumps(data, ensure_ascii=False)


def test_a_url_encoded_body_without_a_charset_is_still_utf8(client):
    for body in (
        f"decklist={VAULT}&format=legacy".encode(),
        b"decklist=4+Lim-D%C3%BBl%27s+Vault%0A56+Mountain&format=legacy",
    ):
        response = _post(client, body)
        assert response.status_code == 200 and response.json()["legal"] is True, response.text
    assert (
        _post(
            client, b"decklist=4+Lim-D%C3%BBl%27s+Vault%0A56+Mountain&format=legacy", "utf-8"
        ).json()["legal"]
        is True
    )


def test_a_url_encoded_body_in_an_ascii_incompatible_charset_is_read(client):
    """UTF-16 writes `&` and `=` as two bytes: the body is decoded whole and read as a UTF-8
    form (WHATWG URL Standard, "get an output encoding")."""
    response = _post(client, f"decklist={VAULT}&format=legacy".encode("utf-16"), "utf-16")
    assert response.status_code == 200 and response.json()["legal"] is True, response.text


def test_a_url_encoded_body_not_in_its_charset_is_a_400(client):
    """The rules of any body in a declared charset: bytes it cannot decode are a 400."""
    for body in (
        f"decklist={VAULT}&format=legacy".encode("latin-1"),
        b"decklist=4+Lim-D%FBl%27s+Vault%0A56+Mountain&format=legacy",
    ):
        detail = _problem(_post(client, body, "us-ascii"), 400, "malformed-body")["detail"]
        assert "us-ascii" in detail and "charset" in detail


@pytest.mark.parametrize("charset", ["no-such-charset", "rot13", "base64"])
def test_a_url_encoded_body_in_an_unknown_or_no_text_charset_is_a_415(client, charset):
    response = _post(client, b"decklist=4+Lightning+Bolt%0A56+Mountain&format=modern", charset)
    assert charset in _problem(response, 415, "unsupported-media-type")["detail"]


# ------------------------------------------ 2: check-formats text names legal-with-warnings


def _text_lines(capsys, *args: str) -> list[str]:
    main(["check-formats", *args])
    return capsys.readouterr().out.splitlines()


def test_check_formats_text_names_a_legal_format_judged_by_the_more_permissive_status(
    core_db, tmp_path, capsys
):
    """Lurrus was banned in Modern between 2022-01-18 and 2022-06-09 (shipped history): on a
    date inside that window the deck is judged legal by the more permissive status, a
    warning --json carried and the text hid behind a plain "legal in Modern"."""
    deck = tmp_path / "lurrus.txt"
    deck.write_text("4 Lightning Bolt\n55 Mountain\n1 Lurrus of the Dream-Den\n", encoding="utf-8")
    lines = _text_lines(capsys, str(deck), "--db", core_db, "--as-of", "2022-03-10")
    assert "Modern" in lines[0]
    [line] = [x for x in lines if x.startswith("  legal in Modern, but see the warning: ")]
    assert "Lurrus of the Dream-Den" in line and "judged as legal" in line
    assert "more permissive" in line and "(line 3)" in line
    assert not any("Vintage" in x for x in lines[1:] if x.startswith("  legal"))  # no warning
    # The JSON is as it was: the warning on the format it concerns.
    main(["check-formats", str(deck), "--db", core_db, "--as-of", "2022-03-10", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert [w["code"] for w in data["formats"]["modern"]["warnings"]] == ["legality-date-uncertain"]
    # Outside any window: no such line.
    lines = _text_lines(capsys, str(deck), "--db", core_db, "--as-of", "2021-06-01")
    assert not any("see the warning" in x or "as far as known" in x for x in lines)


def test_check_formats_text_after_the_card_data_date_says_so_not_that_history_ends(
    tmp_path, capsys
):
    """As of a date after the card data's, each legal format is legal as far as known: the
    text says it with the warning's own words, not "the legality history does not reach"."""
    from validator.sync import import_file

    cards = tmp_path / "cards-20220801.json"  # its card data's date: in the file's name
    shutil.copy(FIXTURES / "cards_core.json", cards)
    db = str(tmp_path / "cards.sqlite3")
    import_file(cards, db)
    deck = tmp_path / "bolt.txt"
    deck.write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    lines = _text_lines(capsys, str(deck), "--db", db, "--as-of", "2022-09-01")
    legal = lines[0].split(": legal in ")[1].split(", ")
    assert "Modern" in legal
    unsure = [x for x in lines if x.startswith("  legal as far as known in ")]
    assert [x.split(" in ", 1)[1].split(":")[0] for x in unsure] == legal
    for line in unsure:
        assert "is after the card data's date (2022-08-01)" in line, line
        assert "does not reach" not in line and "validate with --format" not in line
