"""Points formats in the service: GET /v1/formats shows each points format's cap and version,
GET /v1/cards/{name} a card's points in each points format."""

from __future__ import annotations

import pytest


def test_service_formats_and_card_carry_points(core_db):
    pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (in the test extra)")
    from fastapi.testclient import TestClient

    from validator.service.app import ServiceConfig, create_app

    with TestClient(create_app(ServiceConfig(db=core_db, poll_seconds=0))) as client:
        formats = client.get("/v1/formats").json()
        assert formats["canadianhighlander"]["points"]["cap"] == 10
        assert formats["modern"]["points"] is None
        card = client.get("/v1/cards/Black Lotus").json()
        assert card["points"]["canadianhighlander"]["points"] == 7
