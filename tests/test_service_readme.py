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

import validator  # noqa: E402
from test_service import LEGAL_MODERN, assert_problem  # noqa: E402
from validator.service.app import ServiceConfig, create_app  # noqa: E402
from validator.service.cards import CardHolder, load_snapshot  # noqa: E402

README = Path(__file__).resolve().parent.parent / "README.md"


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

def test_a_database_replaced_by_junk_is_unhealthy_logged_once_and_recovers(core_db, tmp_path, caplog):
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
    with TestClient(create_app(ServiceConfig(db=str(served), poll_seconds=0.02), holder=holder)) as c:
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
