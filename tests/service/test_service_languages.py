"""The service with printed names synced: localized lists validated, cards found by a printed
name (`GET /v1/cards/稲妻`), a printed name of several cards refused naming them."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from validator.service.app import ServiceConfig, create_app


@pytest.fixture(scope="module")
def client(localized_db):
    with TestClient(create_app(ServiceConfig(db=localized_db, poll_seconds=0))) as c:
        yield c


def test_localized_list_validates(client):
    body = {"decklist": "4 稲妻\n4 《火/Fire // Ice》\n52 山\n", "format": "vintage"}
    report = client.post("/v1/validate", json=body).json()
    assert report["legal"] is True
    assert [(r["card"], r["language"]) for r in report["names_read"]] == [
        ("Lightning Bolt", "ja"),
        ("Fire // Ice", "ja"),
        ("Mountain", "ja"),
    ]


def test_card_by_printed_name_lists_its_names(client):
    answer = client.get(f"/v1/cards/{quote('稲妻')}")
    assert answer.status_code == 200
    card = answer.json()
    assert card["name"] == "Lightning Bolt"
    assert card["printed_names"]["ja"] == ["稲妻"]
    assert card["printed_names"]["de"] == ["Blitzschlag"]
    # an English name answers as before, with the card's printed names
    assert client.get("/v1/cards/Lightning%20Bolt").json()["printed_names"]["it"] == ["Fulmine"]


def test_card_by_mtgo_name(client):
    card = client.get("/v1/cards/Leyline%20Weaver").json()
    assert card["name"] == "Spider Manifestation"
    assert "Leyline Weaver" in card["printed_names"]["en"]


def test_printed_name_of_several_cards_is_refused_naming_them(client):
    answer = client.get("/v1/cards/Zwang")
    assert answer.status_code == 404
    problem = answer.json()
    assert problem["type"].endswith("ambiguous-printed-name")
    assert problem["suggestions"] == ["Coercion", "Duress"]
