"""The same sync and verdicts on PostgreSQL as on SQLite (the database is any SQLAlchemy URL).

Runs when DECKCHECK_TEST_POSTGRES_URL names a PostgreSQL database it may empty
(.ci/run starts one when the machine can install it); skipped otherwise.
"""

from __future__ import annotations

import os

import pytest
from support import FIXTURES

import validator
from validator.sync import import_file

URL = os.environ.get("DECKCHECK_TEST_POSTGRES_URL")
pytestmark = pytest.mark.skipif(
    not URL, reason="DECKCHECK_TEST_POSTGRES_URL is not set (no PostgreSQL server)"
)

DECKS = {
    "modern": "5 Lightning Bolt\n55 Mountain\n1 Lurrus of the Dream-Den\n\n2 Counterspell\n",
    "vintage": "1 Black Lotus\n59 Island\n\n1 Black Lotus\n",
    "commander": "Commander\n1 Minsc & Boo, Timeless Heroes\n\nDeck\n1 Lightning Bolt\n98 Mountain\n",
}


@pytest.fixture(scope="module")
def pg_url() -> str:
    from validator.store.database import Base, make_engine

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
    with pytest.raises(
        SyncError,
        match=r"long\.jsonl, line 3: card '.+': type_line is \d+ "
        r"characters long; at most 300 fit",
    ):
        import_file(_write(tmp_path / "long.jsonl", objs), pg_url)
    assert validator.open_db(pg_url).info().card_count == len({o["oracle_id"] for o in objs})


def test_sync_waits_for_the_advisory_lock(pg_url, tmp_path):
    """Another sync holds the lock: wait the bounded time, then say so."""
    from validator.store.database import SYNC_LOCK_KEY, make_engine
    from validator.sync import SyncBusy

    path = _write(tmp_path / "core.jsonl", _core_objects())
    engine = make_engine(pg_url)
    with engine.connect() as holder:
        holder.exec_driver_sql(f"SELECT pg_advisory_lock({SYNC_LOCK_KEY})")
        try:
            with pytest.raises(SyncBusy, match=r"another sync is running .*waited 0.3 s"):
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
        ("Lightning Bolt", "banned", "legal")
    ]


# ------------------------------------------------------- a schema version 1 database upgraded


def _copy_schema_v1_to(url: str, tmp_path) -> None:
    """The fixtures' schema version 1 database (cards_core.json as deckcheck synced it before
    schema 2; tests/store/test_store.py reads the same dump into SQLite) written into the PostgreSQL
    database at `url`: its tables as SQLAlchemy reads them from SQLite, with the types
    PostgreSQL has, every row, and each id sequence past its rows, as a real one would be."""
    import sqlite3

    from sqlalchemy import DateTime, Integer, LargeBinary, MetaData, create_engine, insert, select

    from validator.store.database import Base, make_engine

    lite_path = tmp_path / "v1.sqlite3"
    with sqlite3.connect(lite_path) as con:
        con.executescript((FIXTURES / "cards_core_schema_v1.sql").read_text(encoding="utf-8"))
    lite = create_engine(f"sqlite:///{lite_path}")
    tables = MetaData()
    tables.reflect(lite)
    for table in tables.tables.values():
        for column in table.columns:  # SQLite's BLOB and DATETIME, as PostgreSQL names them
            if isinstance(column.type, LargeBinary):
                column.type = LargeBinary()
            elif isinstance(column.type, DateTime):
                column.type = DateTime()
    pg = make_engine(url)
    Base.metadata.drop_all(pg)
    tables.drop_all(pg)
    tables.create_all(pg)
    with lite.connect() as source, pg.begin() as target:
        for table in tables.sorted_tables:
            rows = [dict(r) for r in source.execute(select(table)).mappings()]
            if rows:
                target.execute(insert(table), rows)
            ids = [c for c in table.primary_key.columns if isinstance(c.type, Integer)]
            if len(table.primary_key.columns) == 1 and ids and rows:
                target.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', '{ids[0].name}'), "
                    f"(SELECT max({ids[0].name}) FROM {table.name}))"
                )
    lite.dispose()
    pg.dispose()


def test_a_schema_v1_database_is_upgraded_in_place_by_the_next_sync(pg_url, core_db, tmp_path):
    """What tests/store/test_store.py checks on SQLite, on PostgreSQL: the next sync upgrades a
    version 1 database inside its transaction (transactional DDL), the version 1 tables go,
    the change log is kept and goes on, and the verdicts are SQLite's."""
    from sqlalchemy import inspect, text

    from validator.store.database import SCHEMA_VERSION, make_engine

    _copy_schema_v1_to(pg_url, tmp_path)
    engine = make_engine(pg_url)
    bolt = next(o for o in _core_objects() if o["name"] == "Lightning Bolt")
    with engine.begin() as con:  # an unban that version 1 logged, for the log to keep
        con.execute(
            text(
                "INSERT INTO legality_changes (sync_id, changed_at, oracle_id, name, "
                "format, old_status, new_status) VALUES (1, '2026-08-01 09:00:00', "
                ":oid, 'Lightning Bolt', 'modern', 'banned', 'legal')"
            ),
            {"oid": bolt["oracle_id"]},
        )
    with engine.connect() as con:
        old_log = con.execute(
            text(
                "SELECT id, name, format, old_status, new_status FROM legality_changes ORDER BY id"
            )
        ).all()
        assert (
            con.execute(text("SELECT value FROM meta WHERE key = 'schema_version'")).scalar() == "1"
        )
    with pytest.raises(validator.DatabaseError, match="run `deckcheck sync`"):
        validator.open_db(pg_url)  # readers refuse it until a sync

    objs = _core_objects()
    changed = [
        dict(o, legalities=dict(o["legalities"], legacy="banned"))
        if o["name"] == "Brainstorm"
        else o
        for o in objs
    ]
    result = import_file(_write(tmp_path / "b.jsonl", changed[1:]), pg_url, force=True)
    assert [(c["name"], c["format"], c["old_status"], c["new_status"]) for c in result.changes] == [
        ("Brainstorm", "legacy", "legal", "banned"),
        (objs[0]["name"], "*", "removed", None),
    ]
    tables = set(inspect(engine).get_table_names())
    assert {"card_index", "legalities"}.isdisjoint(tables) and "legality_sets" in tables
    with engine.connect() as con:
        assert con.execute(
            text("SELECT value FROM meta WHERE key = 'schema_version'")
        ).scalar() == str(SCHEMA_VERSION)
        log = con.execute(
            text(
                "SELECT id, name, format, old_status, new_status FROM legality_changes ORDER BY id"
            )
        ).all()
    assert len(old_log) == 1 and log[:1] == old_log and len(log) == 3
    assert [
        (c["name"], c["old_status"], c["new_status"])
        for c in validator.open_db(pg_url).changes()
        if c["name"] == "Lightning Bolt"
    ] == [("Lightning Bolt", "banned", "legal")]
    assert import_file(_write(tmp_path / "b.jsonl", changed[1:]), pg_url, force=True).changes == []

    # Back to the fixture's cards: the verdicts are SQLite's (and the other tests' data).
    import_file(FIXTURES / "cards_core.json", pg_url, force=True, allow_shrink=True)
    for fmt, deck in DECKS.items():
        assert (
            validator.validate(deck, fmt, db=pg_url).to_dict()
            == validator.validate(deck, fmt, db=core_db).to_dict()
        )
    engine.dispose()


# ----------------------------------------------------------------- printed names on PostgreSQL


def test_printed_names_are_written_and_read_as_on_sqlite(pg_url, localized_db, tmp_path):
    """`sync --languages-from` into PostgreSQL: a block at a time with ON CONFLICT DO NOTHING
    (the first row of a key kept, as SQLite's INSERT OR IGNORE keeps it), the same rows as
    SQLite's, and a Japanese and a German list judged as on SQLite. The module's core cards
    are synced back afterwards."""
    import json

    from validator.store.database import Base, make_engine

    localized = FIXTURES / "cards_localized.json"
    names = [json.loads(line) for line in (FIXTURES / "all_cards_localized.jsonl").open()]
    bolt = next(n for n in names if n.get("printed_name") == "稲妻")
    # The same key again, later in the file, written otherwise: the first row is the one kept.
    again = dict(bolt, printed_name="稲妻 ")
    all_cards = _write(tmp_path / "all-cards.jsonl", names + [again])
    engine = make_engine(pg_url)
    Base.metadata.drop_all(engine)
    engine.dispose()
    try:
        result = import_file(localized, pg_url, languages_from=all_cards)
        on_pg, on_sqlite = validator.open_db(pg_url), validator.open_db(localized_db)
        try:
            assert sorted(on_pg.printed_name_rows()) == sorted(on_sqlite.printed_name_rows())
            assert result.printed_name_count == len(on_pg.printed_name_rows())
            decks = {"modern": "4 稲妻\n56 山\n", "legacy": "4 Blitzschlag\n56 Gebirge\n"}
            for fmt, text in decks.items():
                pg_report = validator.validate(text, fmt, cards=on_pg).to_dict()
                assert pg_report == validator.validate(text, fmt, cards=on_sqlite).to_dict()
                assert pg_report["legal"], pg_report["problems"]
        finally:
            on_pg.close()
            on_sqlite.close()
        # Names an older deckcheck kept by oracle id are numbered by the next (oracle-only) sync.
        from sqlalchemy import func, select, text

        rows = sorted(validator.open_db(pg_url).printed_name_rows())
        with make_engine(pg_url).begin() as conn:
            for statement in (
                "CREATE TABLE old AS SELECT p.folded, c.oracle_id, p.lang, p.part, "
                "COALESCE(p.name, p.folded) AS name FROM printed_names p "
                "JOIN printed_name_cards c ON c.id = p.card",
                "DROP TABLE printed_names",
                "DROP TABLE printed_name_cards",
                "ALTER TABLE old RENAME TO printed_names",
            ):
                conn.execute(text(statement))
        assert validator.open_db(pg_url).printed_name_rows() == []
        import_file(localized, pg_url, force=True)
        assert sorted(validator.open_db(pg_url).printed_name_rows()) == rows

        # A block is in the table once given, not held until the end (memory stays a block).

        from validator.store.database import PrintedNameRow, PrintedNameWriter

        table = PrintedNameRow.__table__
        with make_engine(pg_url).connect() as conn, conn.begin() as transaction:
            writer = PrintedNameWriter(conn, [bolt["oracle_id"]])
            block = [("稲妻", writer.numbers[bolt["oracle_id"]], "ja", 0, None)] * 2
            writer.add(block)
            assert conn.execute(select(func.count()).select_from(table)).scalar_one() == 1
            assert writer.pending == {} and writer.finish() == 1
            transaction.rollback()
    finally:
        engine = make_engine(pg_url)
        Base.metadata.drop_all(engine)
        engine.dispose()
        import_file(FIXTURES / "cards_core.json", pg_url)


# ----------------------------------------------------------------- re-check with STATE in PostgreSQL


def test_a_recheck_with_cards_and_state_in_postgresql_is_sqlites(pg_url, synced, tmp_path):
    """A site on PostgreSQL: card data and STATE (`recheck_*` tables) in one database. A ban
    synced there changes the verdicts SQLite's re-check changes, with the same summary, and a
    run with nothing new judges nothing."""
    import json

    rows = [
        {"id": "bolt", "format": "modern", "decklist": "4 Lightning Bolt\n56 Mountain\n"},
        {"id": "counter", "format": "modern", "decklist": "4 Counterspell\n56 Island\n"},
        {"id": "lotus", "format": "vintage", "decklist": "1 Black Lotus\n59 Island\n"},
        {"id": "nothing", "format": "modern", "decklist": "4 No Such Card\n56 Island\n"},
    ]
    ban = {"Lightning Bolt": {"modern": "banned"}}

    def on_pg(day: str, changes: dict) -> None:
        cards = _core_objects()
        for card in cards:
            card["legalities"].update(changes.get(card["name"], {}))
        import_file(_write(tmp_path / f"oracle-cards-{day}.jsonl", cards), pg_url, force=True)

    def summary(result) -> dict:
        return {k: v.to_dict() for k, v in sorted(result.summary.items())}

    try:
        on_pg("20260501", {})
        first = validator.recheck(rows, state=pg_url, db=pg_url)
        sqlite_state = tmp_path / "state.sqlite3"
        assert summary(first) == summary(
            validator.recheck(rows, state=sqlite_state, db=synced("20260501"))
        )
        on_pg("20260518", ban)
        result = validator.recheck(rows, state=pg_url, db=pg_url)
        expected = validator.recheck(rows, state=sqlite_state, db=synced("20260518", ban))
        assert [c.to_dict() for c in result.changed] == [c.to_dict() for c in expected.changed]
        assert [c.id for c in result.changed] == ["bolt"]
        assert summary(result) == summary(expected)
        again = validator.recheck(rows, state=pg_url, db=pg_url)
        assert again.changed == [] and sum(s.rejudged for s in again.summary.values()) == 0
        assert json.dumps(again.to_dict())  # the document a notice would send
    finally:
        from sqlalchemy import text

        from validator.store.database import make_engine

        engine = make_engine(pg_url)
        with engine.begin() as con:
            for table in ("recheck_deck_cards", "recheck_decks", "recheck_cards", "recheck_meta"):
                con.execute(text(f"DROP TABLE IF EXISTS {table}"))
        engine.dispose()
        import_file(FIXTURES / "cards_core.json", pg_url, force=True)
