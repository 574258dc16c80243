"""`GET /v1/changes`: the legality change feed a site polls after each sync."""

from __future__ import annotations

import pytest

pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (in the test extra)")

from fastapi.testclient import TestClient  # noqa: E402

from validator.service.app import ServiceConfig, create_app  # noqa: E402


@pytest.fixture
def client(synced):
    synced("20260501")
    synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    # Each sync starts from the fixture cards: this one unbans Lightning Bolt again.
    db = synced("20260601", {"Counterspell": {"legacy": "banned"}})
    with TestClient(create_app(ServiceConfig(db=db, poll_seconds=0))) as c:
        yield c


def test_the_feed_since_a_date_and_in_a_format(client):
    every = client.get("/v1/changes").json()
    assert every["schema"] == "deckcheck.change-feed/1" and every["sync_id"] == 3
    assert every["card_data"] == "2026-06-01"
    names = [(c["name"], c["legality"], c["new_status"]) for c in every["changes"]]
    assert ("Lightning Bolt", "modern", "banned") in names
    assert ("Counterspell", "legacy", "banned") in names
    since = client.get("/v1/changes", params={"since": "2026-06-01"}).json()["changes"]
    assert sorted((c["name"], c["card_data"], c["sync_id"]) for c in since) == [
        ("Counterspell", "2026-06-01", 3),
        ("Lightning Bolt", "2026-06-01", 3),
    ]
    modern = client.get("/v1/changes", params={"format": "modern"}).json()["changes"]
    assert [(c["name"], c["old_status"], c["new_status"]) for c in modern] == [
        ("Lightning Bolt", "legal", "banned"),
        ("Lightning Bolt", "banned", "legal"),
    ]
    by_sync = client.get("/v1/changes", params={"since": "2", "format": "legacy"}).json()
    assert [c["name"] for c in by_sync["changes"]] == ["Counterspell"]


def test_bad_since_and_format_are_problems(client):
    bad = client.get("/v1/changes", params={"since": "last week"})
    assert bad.status_code == 400 and "neither a sync id" in bad.json()["detail"]
    unknown = client.get("/v1/changes", params={"format": "nosuch"})
    assert unknown.status_code == 400 and unknown.json()["code"] == "unknown-format"


def test_the_feed_is_in_the_openapi_description(client):
    op = client.get("/openapi.json").json()["paths"]["/v1/changes"]["get"]
    assert {p["name"] for p in op["parameters"]} == {"since", "format"}
    assert "sync_id" in op["description"]
