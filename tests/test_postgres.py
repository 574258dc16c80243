"""The same sync and verdicts on PostgreSQL as on SQLite (the database is any SQLAlchemy URL).

Runs when DECKCHECK_TEST_POSTGRES_URL names a PostgreSQL database it may empty
(.ci/run starts one when the machine can install it); skipped otherwise.
"""

from __future__ import annotations

import os

import pytest

import validator
from conftest import FIXTURES
from validator.sync import import_file

URL = os.environ.get("DECKCHECK_TEST_POSTGRES_URL")
pytestmark = pytest.mark.skipif(not URL, reason="DECKCHECK_TEST_POSTGRES_URL is not set (no PostgreSQL server)")

DECKS = {
    "modern": "5 Lightning Bolt\n55 Mountain\n1 Lurrus of the Dream-Den\n\n2 Counterspell\n",
    "vintage": "1 Black Lotus\n59 Island\n\n1 Black Lotus\n",
    "commander": "Commander\n1 Minsc & Boo, Timeless Heroes\n\nDeck\n1 Lightning Bolt\n98 Mountain\n",
}


@pytest.fixture(scope="module")
def pg_url() -> str:
    from validator.db import Base, make_engine

    engine = make_engine(URL)
    Base.metadata.drop_all(engine)
    engine.dispose()
    import_file(FIXTURES / "cards_core.json", URL)
    return URL


def test_sync_and_verdicts_match_sqlite(pg_url, core_db):
    for fmt, text in DECKS.items():
        on_pg = validator.validate(text, fmt, db=pg_url).to_dict()
        on_sqlite = validator.validate(text, fmt, db=core_db).to_dict()
        assert on_pg == on_sqlite


def test_resync_records_no_changes_and_lookups_fold(pg_url):
    result = import_file(FIXTURES / "cards_core.json", pg_url, force=True)
    assert result.changes == []
    db = validator.open_db(pg_url)
    assert db.card("Lim-Dul's Vault").name == "Lim-Dûl's Vault"
    assert db.info().card_count == result.card_count
