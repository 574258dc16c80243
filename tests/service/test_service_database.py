"""The service when its database misbehaves: what a validation needs is in the loaded snapshot,
a damaged file is found (SQLite's quick_check) and reported unhealthy while the loaded data is
served, and a database URL's password is never shown."""

from __future__ import annotations

import os
import shutil

import pytest

pytest.importorskip("fastapi", reason="the service needs the serve extra: pip install '.[serve]'")

from fastapi.testclient import TestClient  # noqa: E402
from test_service import LEGAL_MODERN  # noqa: E402

from validator.service.app import ServiceConfig, create_app  # noqa: E402
from validator.service.cards import CardHolder  # noqa: E402

BODY = {"decklist": LEGAL_MODERN, "format": "modern"}


def served_copy(core_db, tmp_path) -> str:
    served = tmp_path / "served.sqlite3"
    shutil.copy(core_db, served)
    return str(served)


def test_the_first_validation_after_start_reads_nothing_from_the_database(core_db, tmp_path):
    """The file cut to nothing right after start-up: the format keys a validation checks the
    format against come with the loaded cards (it was 503 `database-unavailable` for every
    validation, while check-formats answered)."""
    served = served_copy(core_db, tmp_path)
    with TestClient(create_app(ServiceConfig(db=served, poll_seconds=0))) as client:
        os.truncate(served, 0)
        answer = client.post("/v1/validate", json=BODY)
        assert answer.status_code == 200, answer.text
        assert answer.json()["legal"] is True
        assert client.post("/v1/check-formats", json={"decklist": LEGAL_MODERN}).status_code == 200


def test_pages_overwritten_in_place_are_unhealthy_and_the_loaded_data_is_served(core_db, tmp_path):
    served = served_copy(core_db, tmp_path)
    holder = CardHolder(served, poll_seconds=0)
    with TestClient(create_app(ServiceConfig(db=served, poll_seconds=0), holder=holder)) as c:
        assert c.get("/healthz").status_code == 200
        size = os.path.getsize(served)
        with open(served, "r+b") as f:  # the header intact, pages past it scribbled over
            f.seek(size // 2)
            f.write(b"\xa5" * min(16384, size // 4))
        with pytest.raises(Exception, match="damaged"):
            holder.refresh()  # a poll
        answer = c.get("/healthz")
        assert answer.status_code == 503
        assert answer.json()["code"] == "database-unavailable"
        assert "served.sqlite3" not in answer.text  # the path is for the server's log
        with pytest.raises(Exception, match="damaged"):
            holder.refresh()  # still damaged: still unhealthy, not checked again
        report = c.post("/v1/validate", json=BODY)
        assert report.status_code == 200 and report.json()["legal"] is True
        shutil.copy(core_db, served)  # restored in place
        holder.refresh()
        assert c.get("/healthz").status_code == 200


def test_a_damaged_file_moved_in_is_not_swapped_in(core_db, tmp_path):
    served = served_copy(core_db, tmp_path)
    holder = CardHolder(served, poll_seconds=0)
    with TestClient(create_app(ServiceConfig(db=served, poll_seconds=0), holder=holder)) as c:
        before = holder.current
        damaged = tmp_path / "damaged.sqlite3"
        shutil.copy(core_db, damaged)
        size = os.path.getsize(damaged)
        with open(damaged, "r+b") as f:
            f.seek(size // 2)
            f.write(b"\xa5" * min(16384, size // 4))
        os.replace(damaged, served)
        with pytest.raises(Exception, match="damaged"):
            holder.refresh()
        assert holder.current is before
        assert c.get("/healthz").status_code == 503
        assert c.post("/v1/validate", json=BODY).json()["legal"] is True


URL = "postgresql+psycopg://deck:S3cretPassw0rd@db.example/cards"


def test_info_never_shows_a_database_password(monkeypatch, capsys):
    from validator.cli import commands, main
    from validator.store.database import DbInfo

    class Cards:
        def info(self):
            return DbInfo(URL, 1, 1, 1, ["modern"], None)

    monkeypatch.setattr(commands, "open_cards", lambda db, many: Cards())
    for args in (["info", "--db", URL], ["info", "--json", "--db", URL]):
        assert main(args) == 0
        out = capsys.readouterr().out
        assert "S3cretPassw0rd" not in out
        assert "deck:***@db.example/cards" in out


def test_serve_never_shows_a_database_password(monkeypatch):
    from validator import DatabaseError
    from validator.service import server

    class NeverSynced:
        url = URL

        def __init__(self, db):
            pass

        def last_sync(self, bulk):
            return None

        def close(self):
            pass

    monkeypatch.setattr(server, "CardDB", NeverSynced)
    with pytest.raises(DatabaseError) as caught:
        server.check_ready_to_serve(URL, None)
    assert "S3cretPassw0rd" not in str(caught.value)
    assert "deck:***@db.example" in str(caught.value)
