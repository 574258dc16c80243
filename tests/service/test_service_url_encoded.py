"""A URL-encoded body read in its declared charset (the charset of the page the form was on)."""

from __future__ import annotations

import json

import pytest

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
