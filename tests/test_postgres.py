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


# ---------------------------------------------------------------------------- sync on PostgreSQL

def _core_objects() -> list[dict]:
    import json

    return json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))


def _write(path, objs) -> object:
    import json

    path.write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return path


def test_value_too_long_names_the_card_and_line(pg_url, tmp_path):
    from validator.sync import SyncError

    objs = _core_objects()
    objs[2]["type_line"] = "Creature — " + "Goblin " * 50
    with pytest.raises(SyncError, match=r"long\.jsonl, line 3: card '.+': type_line is \d+ "
                                        r"characters long; at most 300 fit"):
        import_file(_write(tmp_path / "long.jsonl", objs), pg_url)
    assert validator.open_db(pg_url).info().card_count == len({o["oracle_id"] for o in objs})


def test_sync_waits_for_the_advisory_lock(pg_url, tmp_path):
    """Another sync holds the lock: wait the bounded time, then say so."""
    from validator.db import SYNC_LOCK_KEY, make_engine
    from validator.sync import SyncBusy

    path = _write(tmp_path / "core.jsonl", _core_objects())
    engine = make_engine(pg_url)
    with engine.connect() as holder:
        holder.exec_driver_sql(f"SELECT pg_advisory_lock({SYNC_LOCK_KEY})")
        try:
            with pytest.raises(SyncBusy, match=r"another sync is running .*waited 0 s"):
                import_file(path, pg_url, lock_timeout=0.3)
        finally:
            holder.exec_driver_sql(f"SELECT pg_advisory_unlock({SYNC_LOCK_KEY})")
    engine.dispose()
    assert import_file(path, pg_url, lock_timeout=0.3).changes == []


def test_two_syncs_at_once_record_a_ban_once(pg_url, tmp_path):
    """Before: both imports ran at once and "legal -> banned" was recorded twice."""
    import threading

    objs = _core_objects()
    bolt = next(o for o in objs if o["name"] == "Lightning Bolt")
    bolt["legalities"] = dict(bolt["legalities"], modern="banned")
    banned = _write(tmp_path / "banned.jsonl", objs)
    results, errors = [], []

    def run():
        try:
            results.append(import_file(banned, pg_url, lock_timeout=60))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors and len(results) == 2
    assert sorted(len(r.changes) for r in results) == [0, 1]
    db = validator.open_db(pg_url)
    bans = [c for c in db.changes() if c["name"] == "Lightning Bolt"]
    assert [(c["old_status"], c["new_status"]) for c in bans][:1] == [("legal", "banned")]
    assert sum(c["new_status"] == "banned" for c in bans) == 1
    # back to the fixture's legalities for the other tests (records the unban)
    back = import_file(FIXTURES / "cards_core.json", pg_url)
    assert [(c["name"], c["old_status"], c["new_status"]) for c in back.changes] == [
        ("Lightning Bolt", "banned", "legal")]
