"""The lean SQLite reader, the compact card index and reads that never tear (issues 11, 12).

* `SqliteCards` (sqlite3, no SQLAlchemy) answers exactly as `CardDB` does.
* `CardIndex.from_db` over the compact card rows holds the same cards as an index built from
  `all_cards`, and records the sync it was read from.
* A database of schema version 1 (a column per fact, a row per legality, a second copy in
  `card_index`) is refused by every reader with "run `deckcheck sync`", and a sync upgrades it
  in place, keeping the change log right.
* A reader alternating with a writer that flips two card files never sees a mix of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support import FIXTURES

import validator
from validator.cards.names import lookup_key
from validator.store.database import SCHEMA_VERSION, CardDB
from validator.store.index import CardIndex
from validator.store.sqlite import SqliteCards, open_cards
from validator.sync import import_file

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def db_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("store") / "cards.sqlite3"
    # One file holding all fixture cards (a second import would replace the first).
    objs = []
    for name in (
        "cards_core.json",
        "cards_commander.json",
        "cards_companion.json",
        "cards_meld.json",
        "scryfall_cards.json",
    ):
        seen = {o["name"] for o in objs}
        objs += [
            o
            for o in json.loads((FIXTURES / name).read_text(encoding="utf-8"))
            if o["name"] not in seen
        ]
    src = path.parent / "all.json"
    src.write_text(json.dumps(objs), encoding="utf-8")
    import_file(src, str(path), updated_at="2026-08-22T09:00:00+00:00")
    return path


def all_folded(path: Path) -> list[str]:
    import sqlite3

    with sqlite3.connect(path) as con:
        return [r[0] for r in con.execute("SELECT folded FROM card_names")]


def test_lean_reader_answers_as_carddb(db_path: Path) -> None:
    lean, full = SqliteCards(db_path), CardDB(db_path)
    names = all_folded(db_path) + ["no such card", "LIGHTNING  bolt", "Fire/Ice"]
    for deck_only in (True, False):
        assert lean.lookup(names, deck_cards_only=deck_only) == full.lookup(
            names, deck_cards_only=deck_only
        )
    assert lean.all_names() == full.all_names()
    assert lean.formats() == full.formats()
    for name in ("Lightning Bolt", "fire // ice", "Nothing Like This"):
        assert lean.card(name) == full.card(name)
    some = next(iter(lean.lookup(["Lightning Bolt"]).values()))[0]
    assert lean.card_by_id(some.oracle_id) == full.card_by_id(some.oracle_id)
    assert lean.printing("xxx", "1") == full.printing("xxx", "1")
    assert lean.rarities(some.oracle_id) == full.rarities(some.oracle_id)
    assert lean.info().card_count == full.info().card_count
    for which in ("first_sync", "last_sync"):
        assert getattr(lean, which)("oracle_cards") == getattr(full, which)("oracle_cards")
    lean.close()
    full.close()


def test_open_db_picks_the_lean_reader_for_sqlite_only(db_path: Path, tmp_path: Path) -> None:
    assert isinstance(validator.open_db(db_path), SqliteCards)
    with pytest.raises(validator.DatabaseError, match="deckcheck sync"):
        open_cards(tmp_path / "missing.sqlite3")  # CardDB's message


#: What a cold `deckcheck validate` of one deck judged as of today has no use for (issue 12's
#: cold-start target): the ORM (the SQLite read path is plain sqlite3), the legality history
#: (only --as-of needs it), `html` (only an HTML report), `difflib` (only "did you mean"), the
#: companion predicates and grammar reader (only a deck with a companion card), and the
#: Commander designation and rules with the card types and abilities they read (only a deck of
#: the Commander family: a constructed deck imports `validator.rules.commander.constructed`).
_NOT_ON_THE_COLD_PATH = (
    "sqlalchemy",
    "validator.history.legality",
    "html",
    "difflib",
    "validator.rules.companion.predicates",
    "validator.rules.companion.reader",
    "validator.rules.commander.designation",
    "validator.rules.commander.leaders",
    "validator.rules.commander.rules",
    "validator.cards.abilities",
    "validator.cards.types",
)


def test_cold_validation_imports_only_what_it_needs(db_path: Path) -> None:
    deck = "4 Lightning Bolt\n56 Mountain\n"
    code = textwrap.dedent(f"""
        import sys, validator
        from validator.cli import main
        report = validator.validate({deck!r}, "modern", db={str(db_path)!r})
        assert report.format == "modern"
        main(["validate", "-", "--format", "modern", "--db", {str(db_path)!r}, "--json"])
        print(sorted(set({_NOT_ON_THE_COLD_PATH!r}) & set(sys.modules)))
    """)
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=deck,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stderr


def cards_of(index: CardIndex, names: list[str]):
    return {k: v for k, v in index.lookup(names).items()}


@pytest.mark.parametrize("reader", [SqliteCards, CardDB])
def test_compact_index_equals_index_from_card_tables(db_path: Path, reader) -> None:
    db = reader(db_path)
    compact = CardIndex.from_db(db)
    assert compact._raw, "expected the compact card rows to be used"
    tables = CardIndex(db.all_cards())
    names = all_folded(db_path)
    assert cards_of(compact, names) == cards_of(tables, names)
    assert compact.all_names() == tables.all_names()
    assert len(compact) == len(tables)
    assert any(c.meld_from for cards in compact.lookup(names).values() for c in cards)
    some = next(iter(tables.lookup(["Lightning Bolt"]).values()))[0]
    assert compact.card_by_id(some.oracle_id) == some
    # Equal legality dicts are one object (interned).
    legal = {id(c.legalities) for cards in compact.lookup(names).values() for c in cards}
    assert len(legal) < len(compact)
    db.close()


def test_index_records_its_sync(db_path: Path) -> None:
    index = CardIndex.from_db(SqliteCards(db_path))
    assert index.sync is not None
    assert index.sync.updated_at == "2026-08-22T09:00:00+00:00"
    assert index.sync.id == CardDB(db_path).last_sync("oracle_cards")["id"]
    assert CardIndex.from_db(CardDB(db_path)).sync.id == index.sync.id
    assert CardIndex().sync is None


def schema_v1_database(path: Path) -> Path:
    """A database as deckcheck wrote it before schema version 2: cards_core.json synced by
    that code (updated_at 2026-08-01), from the SQL dump in the fixtures."""
    import sqlite3

    con = sqlite3.connect(path)
    con.executescript((FIXTURES / "cards_core_schema_v1.sql").read_text(encoding="utf-8"))
    con.close()
    return path


def test_schema_v1_database_is_refused_with_run_sync(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from validator.cli import main

    old = schema_v1_database(tmp_path / "old.sqlite3")
    for open_it in (validator.open_db, lambda p: CardDB(p).check()):
        with pytest.raises(
            validator.DatabaseError,
            match=r"older deckcheck .*schema version "
            r"1.*run `deckcheck sync`",
        ):
            open_it(old)
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    assert main(["validate", str(deck), "--format", "modern", "--db", str(old)]) == 2
    err = capsys.readouterr().err
    assert "run `deckcheck sync`" in err and "Traceback" not in err


def test_sync_upgrades_a_schema_v1_database_in_place(tmp_path: Path) -> None:
    import sqlite3

    old = schema_v1_database(tmp_path / "old.sqlite3")
    with sqlite3.connect(old) as con:
        con.execute(
            "INSERT INTO printings VALUES ('lea', '161', (SELECT oracle_id FROM cards "
            "WHERE name = 'Lightning Bolt'), 'common', NULL, NULL)"
        )
    objs = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    result = import_file(FIXTURES / "cards_core.json", str(old))
    assert result.changes == [] and result.card_count == len(objs)
    fresh = tmp_path / "fresh.sqlite3"
    import_file(FIXTURES / "cards_core.json", str(fresh))
    names = all_folded(fresh)
    for reader in (SqliteCards, CardDB):
        assert cards_of(CardIndex.from_db(reader(old)), names) == cards_of(
            CardIndex.from_db(reader(fresh)), names
        )
    db = validator.open_db(old)
    assert isinstance(db, SqliteCards)
    assert db.printing("LEA", "161")[1] == "common"  # printings are kept
    assert [s["updated_at"] for s in [db.last_sync("oracle_cards")]] == [None]
    with sqlite3.connect(old) as con:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert con.execute("SELECT count(*) FROM sync_runs").fetchone()[0] == 2
    assert not tables & {"legalities", "card_index"}
    assert validator.validate("4 Lightning Bolt\n56 Mountain\n", "modern", cards=db).legal


def _schema_version(path: Path) -> str:
    import sqlite3

    with sqlite3.connect(path) as con:
        return con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]


def _table_rows(path: Path) -> dict[str, int]:
    import sqlite3

    with sqlite3.connect(path) as con:
        tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}


def test_printings_sync_of_a_schema_v1_database_is_refused_and_leaves_it_as_it_was(
    tmp_path: Path,
) -> None:
    """The upgrade empties the card data only an oracle-cards import writes again: a printings
    import of a version 1 database says to sync the oracle cards first, and rolls back."""
    from validator.sync import SyncError
    from validator.sync.importer import DEFAULT

    old = schema_v1_database(tmp_path / "old.sqlite3")
    lightning = next(
        o
        for o in json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
        if o["name"] == "Lightning Bolt"
    )
    printings = tmp_path / "default-cards.json"
    printings.write_text(
        json.dumps(
            [
                {
                    **lightning,
                    "set": "lea",
                    "collector_number": "161",
                    "rarity": "common",
                    "lang": "en",
                }
            ]
        ),
        encoding="utf-8",
    )
    before = _table_rows(old)
    with pytest.raises(SyncError, match="sync the oracle cards first"):
        import_file(printings, str(old), bulk_type=DEFAULT)
    assert _schema_version(old) == "1" and _table_rows(old) == before
    assert before["card_index"] > 0  # (the version 1 tables, with their rows)


def test_an_unchanged_file_still_upgrades_a_schema_v1_database(tmp_path: Path) -> None:
    """The file the version 1 database last imported (same updated_at) is not "up to date":
    skipping would leave a database no reader opens (or, committed, one without card data)."""
    from validator.sync.job import _up_to_date

    old = schema_v1_database(tmp_path / "old.sqlite3")
    updated_at = "2026-08-01T09:00:00+00:00"  # the fixture's last oracle sync
    assert not _up_to_date(str(old), "oracle_cards", updated_at)
    result = import_file(FIXTURES / "cards_core.json", str(old), updated_at=updated_at)
    assert not result.skipped and _schema_version(old) == str(SCHEMA_VERSION)
    assert validator.validate(
        "4 Lightning Bolt\n56 Mountain\n", "modern", cards=validator.open_db(old)
    ).legal
    assert _up_to_date(str(old), "oracle_cards", updated_at)


def test_upgrade_of_a_schema_v1_database_without_its_formats_row_still_logs_changes(
    tmp_path: Path,
) -> None:
    """Version 1 could hold its formats only as legalities rows: the upgrade keeps them in
    meta, so the first sync after it compares against them (a ban is logged)."""
    import sqlite3

    old = schema_v1_database(tmp_path / "old.sqlite3")
    with sqlite3.connect(old) as con:
        con.execute("DELETE FROM meta WHERE key = 'formats'")
    objs = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    banned = [
        dict(o, legalities=dict(o["legalities"], modern="banned"))
        if o["name"] == "Lightning Bolt"
        else o
        for o in objs
    ]
    changed = tmp_path / "banned.json"
    changed.write_text(json.dumps(banned), encoding="utf-8")
    result = import_file(changed, str(old))
    assert [(c["name"], c["format"], c["new_status"]) for c in result.changes] == [
        ("Lightning Bolt", "modern", "banned")
    ]


def test_resync_rewrites_the_compact_index(tmp_path: Path) -> None:
    path = tmp_path / "cards.sqlite3"
    objs = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    first = tmp_path / "a.json"
    first.write_text(json.dumps(objs), encoding="utf-8")
    import_file(first, str(path))
    banned = [dict(o, legalities=dict(o["legalities"], vintage="banned")) for o in objs]
    second = tmp_path / "b.json"
    second.write_text(json.dumps(banned[:-1]), encoding="utf-8")  # one card gone
    import_file(second, str(path))
    index = CardIndex.from_db(SqliteCards(path))
    assert len(index) == len(CardIndex(CardDB(path).all_cards()))
    assert all(
        c.legality("vintage") == "banned"
        for cards in index.lookup(all_folded(path)).values()
        for c in cards
    )


# ---------------------------------------------------------------------------- torn reads

WRITER = """
import json, sys, time
from pathlib import Path
from validator.sync import import_file
db, a, b, stop, limit = sys.argv[1:6]
end = time.monotonic() + float(limit)
n = 0
while not Path(stop).exists() and time.monotonic() < end:
    src, tag = (a, "A") if n % 2 == 0 else (b, "B")
    import_file(Path(src), db, updated_at=tag, force=True)
    n += 1
print(n)
"""


def two_card_files(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    """File A: every card legal in vintage and no Game Changer; file B: every card banned and
    a Game Changer. A card whose flag disagrees with its legality was read half from each."""
    objs = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    a = [
        dict(o, game_changer=False, legalities=dict(o["legalities"], vintage="legal")) for o in objs
    ]
    b = [
        dict(o, game_changer=True, legalities=dict(o["legalities"], vintage="banned")) for o in objs
    ]
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a), encoding="utf-8")
    pb.write_text(json.dumps(b), encoding="utf-8")
    return pa, pb, [o["name"] for o in objs]


def torn(cards) -> list[str]:
    return [c.name for c in cards if c.game_changer != (c.legality("vintage") == "banned")]


def _syncs_done(path: Path) -> int:
    """Syncs committed so far (the first import included), read outside any other snapshot."""
    import sqlite3

    con = sqlite3.connect(path, timeout=10)
    try:
        return con.execute("SELECT count(*) FROM sync_runs").fetchone()[0]
    finally:
        con.close()


def test_reads_never_tear_while_syncs_alternate(tmp_path: Path) -> None:
    path = tmp_path / "cards.sqlite3"
    a, b, names = two_card_files(tmp_path)
    import_file(a, str(path), updated_at="A")
    stop = tmp_path / "stop"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path), str(a), str(b), str(stop), "30"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    problems: list[str] = []
    reads = {"lookup": 0, "index": 0}
    try:
        lean, full = SqliteCards(path), CardDB(path)
        # At least 4 s of reads, and on until the writer has finished 4 syncs (a loaded
        # machine is slower), bounded at 60 s: the count, not the clock, makes the test mean
        # something.
        start = time.monotonic()
        while time.monotonic() - start < 4.0 or (
            _syncs_done(path) < 5 and time.monotonic() - start < 60.0
        ):
            for source in (lean, full):
                found = source.lookup(names)
                cards = [c for cs in found.values() for c in cs]
                reads["lookup"] += 1
                if torn(cards):
                    problems.append(f"{type(source).__name__}.lookup mixed: {torn(cards)}")
                index = CardIndex.from_db(source)
                reads["index"] += 1
                cards = [c for cs in index.lookup(names).values() for c in cs]
                flags = {c.game_changer for c in cards}
                expected = {index.sync.updated_at == "B"}
                if torn(cards) or flags != expected:
                    problems.append(
                        f"{type(source).__name__} index mixed: sync "
                        f"{index.sync.updated_at}, Game Changer flags {flags}"
                    )
    finally:
        stop.touch()
        out, _ = writer.communicate(timeout=60)
    syncs = int(out.strip() or 0)
    assert syncs >= 4, f"the writer finished only {syncs} syncs; the test proved nothing"
    assert not problems, f"{len(problems)} torn reads of {reads}: {problems[:5]}"


@pytest.mark.parametrize("schema", [SCHEMA_VERSION, 1])
def test_resync_change_log_in_this_and_the_old_schema(tmp_path: Path, schema) -> None:
    """A re-sync rewrites only the cards that changed; the change log still lists exactly
    what changed, also when the sync upgrades a schema version 1 database (the old statuses
    then come from its legalities table)."""
    path = tmp_path / "cards.sqlite3"
    objs = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    if schema == 1:
        schema_v1_database(path)
    else:
        import_file(FIXTURES / "cards_core.json", str(path))
    changed = [
        dict(o, legalities=dict(o["legalities"], legacy="banned"))
        if o["name"] == "Brainstorm"
        else o
        for o in objs
    ]
    second = tmp_path / "b.json"
    second.write_text(json.dumps(changed[1:]), encoding="utf-8")  # and the first card gone
    result = import_file(second, str(path), force=True)
    assert [(c["name"], c["format"], c["old_status"], c["new_status"]) for c in result.changes] == [
        ("Brainstorm", "legacy", "legal", "banned"),
        (objs[0]["name"], "*", "removed", None),
    ]
    again = import_file(second, str(path), force=True)
    assert again.changes == []


def test_a_file_that_is_no_card_database_gets_carddbs_message(tmp_path: Path) -> None:
    junk = tmp_path / "notes.sqlite3"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(validator.DatabaseError) as lean:
        validator.open_db(junk)
    with pytest.raises(validator.DatabaseError) as full:
        CardDB(junk).check()
    assert str(lean.value) == str(full.value)


def test_reading_never_changes_a_files_journal_mode(db_path: Path, tmp_path: Path) -> None:
    """The sync writes its database in WAL (readers keep the last committed data during a
    sync); a read command never changes a file: `deckcheck info` of an SQLite file that is no
    card database used to switch it to WAL."""
    import sqlite3

    from validator.cli import main

    def mode(path: Path) -> str:
        con = sqlite3.connect(path)
        try:
            return con.execute("PRAGMA journal_mode").fetchone()[0]
        finally:
            con.close()

    assert mode(db_path) == "wal"
    other = tmp_path / "other.sqlite3"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    before = other.read_bytes()
    assert main(["info", "--db", str(other)]) == 2  # not a card database
    assert mode(other) == "delete" and other.read_bytes() == before


def test_a_read_only_directory_is_named_as_the_reason(db_path: Path, monkeypatch) -> None:
    """On a read-only file system SQLite cannot make the -shm file a WAL database is read
    through: the message says so, instead of "check that the database is reachable"."""
    import os
    import sqlite3

    import validator.store.database as db_module

    monkeypatch.setattr(db_module.os, "access", lambda path, mode: mode != os.W_OK)
    error = db_module.database_error(
        f"sqlite:///{db_path}", sqlite3.OperationalError("unable to open database file")
    )
    assert "read-only" in str(error) and "-shm" in str(error) and "writable" in str(error)


def test_database_without_printed_names_table_reads(tmp_path):
    """A database an older deckcheck synced has no printed_names table until its next sync
    creates it: every reader answers no printed names, never an error."""
    import sqlite3

    from support import FIXTURES

    from validator.api import validate
    from validator.store.database import CardDB
    from validator.store.index import CardIndex
    from validator.store.sqlite import SqliteCards
    from validator.sync import import_file

    db = tmp_path / "c.sqlite3"
    import_file(FIXTURES / "cards_localized.json", str(db))
    con = sqlite3.connect(db)
    con.execute("DROP TABLE printed_names")
    con.commit()
    con.close()
    for source in (SqliteCards(db), CardDB(str(db)), CardIndex.from_db(SqliteCards(db))):
        assert source.lookup_printed(["稲妻"]) == {}
        report = validate("4 稲妻\n56 Island\n", "vintage", cards=source)
        assert [p.code for p in report.errors] == ["unknown-card"]
    import_file(FIXTURES / "cards_localized.json", str(db), force=True)  # the sync adds it
    assert SqliteCards(db).printed_name_rows() == []


def test_printed_names_kept_by_oracle_id_are_numbered_by_the_next_sync(tmp_path):
    """A database an older deckcheck synced with `--languages` holds its printed names by
    oracle id, without `printed_name_cards`: readers answer no printed names (not an error)
    until the next sync, even an oracle-only one, numbers the cards and keeps every name."""
    import sqlite3

    from support import FIXTURES

    from validator.api import validate
    from validator.store.database import CardDB
    from validator.store.sqlite import SqliteCards
    from validator.sync import import_file

    db = tmp_path / "c.sqlite3"
    cards = FIXTURES / "cards_localized.json"
    import_file(cards, str(db), languages_from=FIXTURES / "all_cards_localized.jsonl")
    rows = sorted(SqliteCards(db).printed_name_rows())
    assert rows and any(name == folded for folded, _, _, _, name in rows)
    con = sqlite3.connect(db)
    con.executescript(
        """
        CREATE TABLE old (folded VARCHAR(300), oracle_id VARCHAR(36), lang VARCHAR(5),
            part INTEGER, name VARCHAR(300) NOT NULL, PRIMARY KEY (folded, oracle_id, lang, part))
            WITHOUT ROWID;
        INSERT INTO old SELECT p.folded, c.oracle_id, p.lang, p.part, COALESCE(p.name, p.folded)
            FROM printed_names p JOIN printed_name_cards c ON c.id = p.card;
        DROP TABLE printed_names;
        DROP TABLE printed_name_cards;
        ALTER TABLE old RENAME TO printed_names;
        """
    )
    con.close()
    for source in (SqliteCards(db), CardDB(str(db))):
        assert source.printed_name_rows() == [] and source.lookup_printed(["稲妻"]) == {}
    import_file(cards, str(db), force=True)
    for source in (SqliteCards(db), CardDB(str(db))):
        assert sorted(source.printed_name_rows()) == rows
        assert validate("4 稲妻\n56 Mountain\n", "modern", cards=source).legal


def test_partial_index_answers_as_the_full_index(db_path: Path) -> None:
    from validator.store.index import PartialCardIndex

    reader = SqliteCards(db_path)
    full, partial = CardIndex.from_db(reader), PartialCardIndex(reader)
    reads: list[int] = []
    real = reader.deck_card_rows

    def counted(*args, **kwargs):
        found = real(*args, **kwargs)
        reads.append(len(found[1]))
        return found

    reader.deck_card_rows = counted  # type: ignore[method-assign]
    partial.load([lookup_key("Lightning Bolt"), lookup_key("Mountain"), "no such card"])
    assert reads == [2]  # the cards those names give, nothing else
    assert partial.lookup(["Lightning Bolt", "no such card"]) == full.lookup(["Lightning Bolt"])
    assert reads == [2]  # loaded names (and names of no card) are not read again
    names = all_folded(db_path) + ["no such card", "LIGHTNING  bolt", "Fire/Ice"]
    # Name by name, as decks ask, then all at once: the same cards, in the same order.
    for name in names:
        assert partial.lookup([name]) == full.lookup([name]), name
    assert cards_of(partial, names) == cards_of(full, names)
    assert partial.all_names() == full.all_names() and len(partial) == len(full)
    assert partial.formats() == full.formats()
    bolt = full.lookup(["Lightning Bolt"])[lookup_key("Lightning Bolt")][0]
    fresh = PartialCardIndex(reader)
    assert fresh.card_by_id(bolt.oracle_id) == bolt
    import sqlite3

    with sqlite3.connect(db_path) as con:
        token = con.execute("SELECT oracle_id FROM cards WHERE NOT is_deck_card").fetchone()
    assert token is not None, "expected a card that is no deck card in the fixture"
    assert fresh.card_by_id(token[0]) is None and full.card_by_id(token[0]) is None
    assert fresh.card_by_id("no-such-id") is None
    assert partial.sync == full.sync
    reader.close()
