"""The lean SQLite reader, the compact card index and reads that never tear (issues 11, 12).

* `SqliteCards` (sqlite3, no SQLAlchemy) answers exactly as `CardDB` does.
* `CardIndex.from_db` over the compact `card_index` table holds the same cards as an index
  built from the card tables, records the sync it was read from, and falls back to the card
  tables for a database written without the compact index.
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

import validator
from validator.db import CardDB, CardRow
from validator.resolve import CardIndex
from validator.store_sqlite import CARD_COLUMNS, SqliteCards, open_cards
from validator.sync import import_file

from conftest import FIXTURES

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def db_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("store") / "cards.sqlite3"
    # One file holding all fixture cards (a second import would replace the first).
    objs = []
    for name in ("cards_core.json", "cards_commander.json", "cards_companion.json",
                 "cards_meld.json", "scryfall_cards.json"):
        seen = {o["name"] for o in objs}
        objs += [o for o in json.loads((FIXTURES / name).read_text(encoding="utf-8"))
                 if o["name"] not in seen]
    src = path.parent / "all.json"
    src.write_text(json.dumps(objs), encoding="utf-8")
    import_file(src, str(path), updated_at="2026-08-22T09:00:00+00:00")
    return path


def all_folded(path: Path) -> list[str]:
    import sqlite3

    with sqlite3.connect(path) as con:
        return [r[0] for r in con.execute("SELECT folded FROM card_names")]


def test_card_columns_match_the_model() -> None:
    assert CARD_COLUMNS == tuple(c.name for c in CardRow.__table__.columns)


def test_lean_reader_answers_as_carddb(db_path: Path) -> None:
    lean, full = SqliteCards(db_path), CardDB(db_path)
    names = all_folded(db_path) + ["no such card", "LIGHTNING  bolt", "Fire/Ice"]
    for deck_only in (True, False):
        assert lean.lookup(names, deck_cards_only=deck_only) == \
            full.lookup(names, deck_cards_only=deck_only)
    assert lean.all_names() == full.all_names()
    assert lean.formats() == full.formats()
    for name in ("Lightning Bolt", "fire // ice", "Nothing Like This"):
        assert lean.card(name) == full.card(name)
    some = next(iter(lean.lookup(["Lightning Bolt"]).values()))[0]
    assert lean.card_by_id(some.oracle_id) == full.card_by_id(some.oracle_id)
    assert lean.printing("xxx", "1") == full.printing("xxx", "1")
    assert lean.rarities(some.oracle_id) == full.rarities(some.oracle_id)
    assert lean.info().card_count == full.info().card_count
    lean.close()
    full.close()


def test_open_db_picks_the_lean_reader_for_sqlite_only(db_path: Path, tmp_path: Path) -> None:
    assert isinstance(validator.open_db(db_path), SqliteCards)
    with pytest.raises(validator.DatabaseError, match="deckcheck sync"):
        open_cards(tmp_path / "missing.sqlite3")  # CardDB's message


def test_cold_validation_does_not_import_sqlalchemy(db_path: Path) -> None:
    deck = "4 Lightning Bolt\n56 Mountain\n"
    code = textwrap.dedent(f"""
        import sys, validator
        from validator.cli import main
        report = validator.validate({deck!r}, "modern", db={str(db_path)!r})
        assert report.format == "modern"
        main(["validate", "-", "--format", "modern", "--db", {str(db_path)!r}, "--json"])
        print("SQLALCHEMY" if "sqlalchemy" in sys.modules else "LEAN")
    """)
    out = subprocess.run([sys.executable, "-c", code], input=deck, capture_output=True,
                         text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "LEAN", out.stderr


def cards_of(index: CardIndex, names: list[str]):
    return {k: v for k, v in index.lookup(names).items()}


@pytest.mark.parametrize("reader", [SqliteCards, CardDB])
def test_compact_index_equals_index_from_card_tables(db_path: Path, reader) -> None:
    db = reader(db_path)
    compact = CardIndex.from_db(db)
    assert compact._raw, "expected the compact card_index rows to be used"
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


def test_database_without_compact_index_falls_back(db_path: Path, tmp_path: Path) -> None:
    import shutil
    import sqlite3

    old = tmp_path / "old.sqlite3"
    shutil.copy(db_path, old)
    with sqlite3.connect(old) as con:
        con.execute("DROP TABLE card_index")  # as written by a deckcheck before it existed
    names = all_folded(db_path)
    for reader in (SqliteCards, CardDB):
        index = CardIndex.from_db(reader(old))
        assert not index._raw
        assert cards_of(index, names) == cards_of(CardIndex.from_db(SqliteCards(db_path)), names)


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
    assert all(c.legality("vintage") == "banned"
               for cards in index.lookup(all_folded(path)).values() for c in cards)


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
    a = [dict(o, game_changer=False, legalities=dict(o["legalities"], vintage="legal"))
         for o in objs]
    b = [dict(o, game_changer=True, legalities=dict(o["legalities"], vintage="banned"))
         for o in objs]
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
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(a), str(b),
                               str(stop), "30"], stdout=subprocess.PIPE, text=True, env=env)
    problems: list[str] = []
    reads = {"lookup": 0, "index": 0}
    try:
        lean, full = SqliteCards(path), CardDB(path)
        # At least 4 s of reads, and on until the writer has finished 4 syncs (a loaded
        # machine is slower), bounded at 60 s: the count, not the clock, makes the test mean
        # something.
        start = time.monotonic()
        while time.monotonic() - start < 4.0 or (
                _syncs_done(path) < 5 and time.monotonic() - start < 60.0):
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
                    problems.append(f"{type(source).__name__} index mixed: sync "
                                    f"{index.sync.updated_at}, Game Changer flags {flags}")
    finally:
        stop.touch()
        out, _ = writer.communicate(timeout=60)
    syncs = int(out.strip() or 0)
    assert syncs >= 4, f"the writer finished only {syncs} syncs; the test proved nothing"
    assert not problems, f"{len(problems)} torn reads of {reads}: {problems[:5]}"


@pytest.mark.parametrize("compact_rows", [True, False])
def test_resync_change_log_with_and_without_compact_rows(tmp_path: Path, compact_rows) -> None:
    """A re-sync rewrites only the cards that changed; the change log still lists exactly
    what changed, whether the old statuses come from card_index or (a database written before
    it) from the legalities table."""
    import sqlite3

    path = tmp_path / "cards.sqlite3"
    objs = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    first = tmp_path / "a.json"
    first.write_text(json.dumps(objs), encoding="utf-8")
    import_file(first, str(path))
    if not compact_rows:
        with sqlite3.connect(path) as con:
            con.execute("DELETE FROM card_index")
    changed = [dict(o, legalities=dict(o["legalities"], legacy="banned"))
               if o["name"] == "Brainstorm" else o for o in objs]
    second = tmp_path / "b.json"
    second.write_text(json.dumps(changed[1:]), encoding="utf-8")  # and the first card gone
    result = import_file(second, str(path), force=True)
    assert [(c["name"], c["format"], c["old_status"], c["new_status"]) for c in result.changes] \
        == [("Brainstorm", "legacy", "legal", "banned"), (objs[0]["name"], "*", "removed", None)]
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
