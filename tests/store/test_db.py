"""The card database: schema, the writing functions sync uses, and CardDB reads."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, insert, select, update
from support import FIXTURES

from validator.cards.facts import card_from_scryfall
from validator.cards.names import fold_name
from validator.model import Card
from validator.store.database import (
    CardDB,
    CardRow,
    DatabaseError,
    LegalitySetRow,
    MetaRow,
    NameRow,
    PrintedNameRow,
    PrintedNameWriter,
    PrintingRow,
    card_batches,
    create_schema,
    database_url,
    has_cards,
    make_engine,
    refresh_aliases,
    write_batches,
    write_printings,
)


def fixture_cards() -> list[Card]:
    objs = json.loads((FIXTURES / "scryfall_cards.json").read_text(encoding="utf-8"))
    return [card_from_scryfall(o) for o in objs]


def by_name(cards: list[Card], name: str) -> Card:
    return next(c for c in cards if c.name == name)


@pytest.fixture
def engine(tmp_path: Path):
    eng = make_engine(database_url(tmp_path / "db.sqlite3"))
    create_schema(eng)
    yield eng
    eng.dispose()


def write_cards(conn, cards, *, batch_size=2000, now=None):
    """Replace the card tables with `cards` inside the caller's transaction, as a sync does."""
    batches = card_batches(cards, for_changes=has_cards(conn), batch_size=batch_size)
    return write_batches(conn, batches, now=now)


def write(engine, cards, **kw):
    with engine.begin() as conn:
        return write_cards(conn, cards, **kw)


def test_database_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert database_url("postgresql://u@h/db") == "postgresql://u@h/db"
    assert database_url(tmp_path / "x.db") == f"sqlite:///{(tmp_path / 'x.db').resolve()}"
    monkeypatch.setenv("DECKCHECK_DB", str(tmp_path / "env.db"))
    assert database_url(None).endswith("env.db")


def test_missing_database_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(DatabaseError, match="deckcheck sync"):
        CardDB(tmp_path / "nothing.sqlite3")


def test_schema_version_mismatch(engine) -> None:
    with engine.begin() as conn:
        conn.execute(update(MetaRow.__table__).values(value="99"))
    with pytest.raises(DatabaseError, match="schema version 99"):
        create_schema(engine)


def test_create_schema_is_idempotent(engine) -> None:
    create_schema(engine)
    with engine.connect() as conn:
        assert conn.execute(select(MetaRow.value)).scalars().all() == ["2"]


def test_write_and_read_back(engine) -> None:
    cards = fixture_cards()
    result = write(engine, cards, batch_size=7)  # several batches
    deck_ids = {c.oracle_id for c in cards}
    assert result.card_count == len(deck_ids) and result.changes == []
    db = CardDB(engine=engine)
    fire = db.lookup(["Fire // Ice"])[fold_name("Fire // Ice")][0]
    original = by_name(cards, "Fire // Ice")
    # every fact survives the round trip; legalities are stored sparsely (no not_legal rows)
    assert replace(fire, legalities={}) == replace(original, legalities={})
    assert {f: fire.legality(f) for f in original.legalities} == dict(original.legalities)
    assert set(db.formats()) == {f for c in cards for f in c.legalities}
    info = db.info()
    assert info.card_count == len(deck_ids)
    assert "modern" in info.formats and info.printing_count == 0
    assert db.rarities(fire.oracle_id) is None and not db.has_printings()
    names = db.all_names()
    assert "Fire // Ice" in names and "Goblin" not in names
    assert {c.name for _, c in db.all_cards()} == set(names)


def test_lookup_many_names_in_chunks(engine) -> None:
    write(engine, fixture_cards())
    db = CardDB(engine=engine)
    queries = ["Lightning Bolt"] + [f"No Such Card {i}" for i in range(1200)]
    assert list(db.lookup(queries)) == [fold_name("Lightning Bolt")]


def test_changes_detected_in_every_batch(engine) -> None:
    cards = fixture_cards()
    write(engine, cards)
    bolt, rats = by_name(cards, "Lightning Bolt"), by_name(cards, "Relentless Rats")
    changed = [
        replace(c, legalities=dict(c.legalities, legacy="banned"))
        if c is bolt
        else replace(c, legalities=dict(c.legalities, vintage="restricted"))
        if c is rats
        else c
        for c in cards
    ]
    now = datetime(2026, 9, 8, tzinfo=UTC)
    result = write(engine, changed, batch_size=3, now=now)
    assert sorted(
        (c["name"], c["format"], c["old_status"], c["new_status"]) for c in result.changes
    ) == [
        ("Lightning Bolt", "legacy", "legal", "banned"),
        ("Relentless Rats", "vintage", "legal", "restricted"),
    ]
    assert all(c["changed_at"] == now for c in result.changes)


def test_new_and_dropped_format_keys_are_not_changes(engine) -> None:
    cards = fixture_cards()
    write(engine, cards)
    changed = [
        replace(
            c,
            legalities={
                **{k: v for k, v in c.legalities.items() if k != "penny"},
                "brandnew": "legal",
            },
        )
        for c in cards
    ]
    assert write(engine, changed).changes == []


def test_cards_gone_from_the_data(engine) -> None:
    cards = fixture_cards()
    write(engine, cards)
    result = write(engine, [c for c in cards if c.name != "Seven Dwarves"])
    assert [(c["name"], c["format"], c["old_status"]) for c in result.changes] == [
        ("Seven Dwarves", "*", "removed")
    ]
    db = CardDB(engine=engine)
    assert db.lookup(["Seven Dwarves"], deck_cards_only=False) == {}


def test_reversible_card_does_not_shadow_its_side_card(engine) -> None:
    okaun_rev = by_name(fixture_cards(), "Okaun, Eye of Chaos")
    assert okaun_rev.layout == "reversible_card"
    side = replace(okaun_rev, layout="normal", legalities={"commander": "legal"})
    assert write(engine, [okaun_rev, side]).card_count == 1
    assert write(engine, [side, okaun_rev]).card_count == 1
    db = CardDB(engine=engine)
    [card] = db.lookup(["Okaun, Eye of Chaos"])[fold_name("Okaun, Eye of Chaos")]
    assert card.layout == "normal"
    # alone, the reversible object is imported
    assert write(engine, [okaun_rev]).card_count == 1
    [card] = db.lookup(["Okaun, Eye of Chaos"])[fold_name("Okaun, Eye of Chaos")]
    assert card.layout == "reversible_card"


def test_printings_and_aliases(engine) -> None:
    cards = fixture_cards()
    write(engine, cards)
    zilortha = by_name(cards, "Zilortha, Strength Incarnate")
    fire = by_name(cards, "Fire // Ice")
    rows = [
        {
            "set_code": "iko",
            "collector_number": "370",
            "oracle_id": zilortha.oracle_id,
            "rarity": "mythic",
            "printed_name": None,
            "flavor_name": "Godzilla, King of the Monsters",
        },
        {
            "set_code": "iko",
            "collector_number": "370",
            "oracle_id": zilortha.oracle_id,
            "rarity": "mythic",
            "printed_name": None,
            "flavor_name": None,
        },  # duplicate key
        {
            "set_code": "xyz",
            "collector_number": "1",
            "oracle_id": fire.oracle_id,
            "rarity": "uncommon",
            "printed_name": None,
            "flavor_name": "Hot // Cold",
        },
        {
            "set_code": "tok",
            "collector_number": "1",
            "oracle_id": "not-a-card",
            "rarity": "common",
            "printed_name": None,
            "flavor_name": "Nobody",
        },
    ]
    with engine.begin() as conn:
        assert write_printings(conn, rows, batch_size=1) == 2
        assert refresh_aliases(conn) == 3  # Godzilla..., Hot, Cold
        assert refresh_aliases(conn) == 3  # rebuilt, not duplicated
    db = CardDB(engine=engine)
    assert db.printing("IKO", "370") == (zilortha.oracle_id, "mythic")
    assert db.has_printings() and db.rarities(fire.oracle_id) == {"uncommon"}
    found = db.lookup(["Godzilla, King of the Monsters", "Hot", "Cold"])
    assert {k: [c.name for c in v] for k, v in found.items()} == {
        "godzilla, king of the monsters": ["Zilortha, Strength Incarnate"],
        "hot": ["Fire // Ice"],
        "cold": ["Fire // Ice"],
    }


def test_refresh_aliases_skips_printings_of_unknown_cards(engine) -> None:
    write(engine, fixture_cards())
    with engine.begin() as conn:
        conn.execute(
            insert(PrintingRow.__table__),
            [
                {
                    "set_code": "old",
                    "collector_number": "1",
                    "oracle_id": "gone-card",
                    "rarity": "rare",
                    "printed_name": None,
                    "flavor_name": "Ghost Name",
                }
            ],
        )
        assert refresh_aliases(conn) == 0
        assert conn.execute(select(NameRow.folded).where(NameRow.kind == "alias")).all() == []


def test_names_have_one_row_per_folded_name(engine) -> None:
    write(engine, fixture_cards())
    with engine.connect() as conn:
        rows = conn.execute(
            select(NameRow.folded, NameRow.kind)
            .join(CardRow.__table__, CardRow.oracle_id == NameRow.oracle_id)
            .where(CardRow.name == "Fire // Ice")
        ).all()
    assert sorted(rows) == [("fire", "face"), ("fire // ice", "name"), ("ice", "face")]


def test_generic_insert_path_matches_the_sqlite_fast_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Databases other than SQLite get rows through SQLAlchemy's insert; the stored cards must
    read back the same as through the SQLite fast path."""
    import validator.store.database as db_module

    cards = fixture_cards()
    fast = make_engine(database_url(tmp_path / "fast.sqlite3"))
    create_schema(fast)
    write(fast, cards)

    _without_sqlite_fast_path(monkeypatch)
    generic = make_engine(database_url(tmp_path / "generic.sqlite3"))
    create_schema(generic)
    with generic.begin() as conn:  # rows as Python values, JSON left to SQLAlchemy
        db_module.write_batches(conn, db_module.card_batches(cards, for_changes=False))
    names = [c.name for c in cards]
    a = CardDB(engine=fast).lookup(names, deck_cards_only=False)
    b = CardDB(engine=generic).lookup(names, deck_cards_only=False)
    assert a == b and len(a) >= len(cards) - 1
    fast.dispose()
    generic.dispose()


def _without_sqlite_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows written as to any other database (SQLAlchemy's insert), on SQLite."""
    import validator.store.database as db_module

    real_init = db_module._RowWriter.__init__

    def generic_init(self, conn):
        real_init(self, conn)
        self.sqlite = self.skips_stored_keys = False

    monkeypatch.setattr(db_module._RowWriter, "__init__", generic_init)


@pytest.mark.parametrize("count", [0, 1, 49, 50, 51, 1001])
@pytest.mark.parametrize("sqlite_fast_path", [True, False])
def test_printed_names_are_written_as_given(
    engine, monkeypatch: pytest.MonkeyPatch, count: int, sqlite_fast_path: bool
) -> None:
    """Printed names go to SQLite many rows per INSERT, a last statement taking the rows
    left over: every row reads back as given, whatever the count, as through SQLAlchemy's
    insert; a second write replaces the first."""
    if not sqlite_fast_path:
        _without_sqlite_fast_path(monkeypatch)
    rows = [
        (f"名前{i % 97} {i}", f"oid-{i % 13}", ("ja", "fr", "de")[i % 3], i % 3, f"Name {i}")
        for i in range(count)
    ]
    # A name that is its own folded form is stored once (NULL name) and reads back the same.
    rows[::7] = [
        (f"名前 {i}", oid, lang, part, f"名前 {i}")
        for i, (_, oid, lang, part, _) in enumerate(rows[::7])
    ]
    with engine.begin() as conn:
        assert write_printed_names(conn, [("old", "oid-x", "it", 0, "Vecchio")]) == 1
        assert write_printed_names(conn, reversed(rows)) == count
    assert _stored_printed_names(engine) == sorted(rows)
    if count:
        with engine.connect() as conn:
            kept = conn.execute(select(func.count()).where(PrintedNameRow.name.is_(None))).scalar()
        assert kept == len(rows[::7])


def write_printed_names(conn, rows) -> int:
    """Printed names given as (folded, oracle_id, lang, part, name), through the writer a sync
    uses (a name that is its folded form given as None, as the sync gives it)."""
    rows = list(rows)
    writer = PrintedNameWriter(conn, dict.fromkeys(row[1] for row in rows))
    number = writer.numbers
    writer.add(
        [(f, number[oid], lang, part, None if n == f else n) for f, oid, lang, part, n in rows]
    )
    return writer.finish()


def _stored_printed_names(engine) -> list[tuple[str, str, str, int, str]]:
    """(folded, oracle_id, lang, part, name) of every printed-name row, as given to
    `write_printed_names` (whether or not `cards` holds the card)."""
    with engine.connect() as conn:
        return sorted(
            tuple(r)
            for r in conn.exec_driver_sql(
                "SELECT p.folded, c.oracle_id, p.lang, p.part, COALESCE(p.name, p.folded) "
                "FROM printed_names p JOIN printed_name_cards c ON c.id = p.card"
            )
        )


@pytest.mark.parametrize("sqlite_fast_path", [True, False])
def test_printed_names_keep_the_first_row_of_a_key(
    engine, monkeypatch: pytest.MonkeyPatch, sqlite_fast_path: bool
) -> None:
    """A sync writes the names block by block as it reads them, keys repeating (a name printed
    on many printings, two spellings folded alike): the first row of each key is the one
    stored, and the count is of the rows stored."""
    if not sqlite_fast_path:
        _without_sqlite_fast_path(monkeypatch)
    first = [(f"name {i}", "oid", "fr", 0, f"Name {i}") for i in range(300)]
    again = [(f"name {i}", "oid", "fr", 0, f"NAME {i}") for i in range(0, 300, 2)]
    other = [("name 1", "oid", "fr", 1, "Face")]
    blocks = [first[:200], again + other, first[200:] + again]
    with engine.begin() as conn:
        writer = PrintedNameWriter(conn, ["oid"])
        number = writer.numbers["oid"]
        for block in blocks:
            writer.add([(f, number, lang, part, name) for f, _, lang, part, name in block])
        assert writer.finish() == 301
    # names 0-198 (even) as first written; 200-298 (even) as `again` wrote them, before
    # `first` did
    expected = first[:200] + again[100:] + [r for r in first[200:] if int(r[0][5:]) % 2]
    assert _stored_printed_names(engine) == sorted(expected + other)


def test_changes_to_and_from_not_legal_with_sparse_rows(engine) -> None:
    # not_legal is stored as "no row": leaving or entering a card pool must still be a change.
    cards = fixture_cards()
    write(engine, cards)
    bolt, rats = by_name(cards, "Lightning Bolt"), by_name(cards, "Relentless Rats")
    assert bolt.legalities["modern"] == "legal" and rats.legalities["standard"] == "not_legal"
    changed = [
        replace(c, legalities=dict(c.legalities, modern="not_legal"))
        if c is bolt
        else replace(c, legalities=dict(c.legalities, standard="legal"))
        if c is rats
        else c
        for c in cards
    ]
    result = write(engine, changed)
    assert sorted(
        (c["name"], c["format"], c["old_status"], c["new_status"]) for c in result.changes
    ) == [
        ("Lightning Bolt", "modern", "legal", "not_legal"),
        ("Relentless Rats", "standard", "not_legal", "legal"),
    ]
    with engine.connect() as conn:
        sets = conn.execute(select(LegalitySetRow.statuses)).scalars().all()
    assert sets and not any("not_legal" in json.loads(s).values() for s in sets)


def test_card_prefers_the_deck_card_with_that_exact_name(engine) -> None:
    write(engine, fixture_cards())
    db = CardDB(engine=engine)
    assert db.card("Lightning Bolt").name == "Lightning Bolt"
    assert db.card("lightning bolt").is_deck_card
    assert db.card("No Such Card") is None


# ---------------------------------------------------------------------------- sync write path (issue 12)


def _dump(engine) -> dict[str, list[tuple]]:
    """Every row of the card tables, sorted (insertion order, rowids and the numbering of
    legality sets aside: a card's set is shown by its statuses)."""
    queries = {
        "cards": "SELECT oracle_id, name, is_deck_card, statuses, data FROM cards "
        "JOIN legality_sets ON legality_sets.id = cards.legalities",
        "legality_sets": "SELECT statuses FROM legality_sets",
        "card_names": "SELECT * FROM card_names",
        "meta": "SELECT * FROM meta",
    }
    with engine.connect() as conn:
        return {t: sorted(tuple(r) for r in conn.exec_driver_sql(q)) for t, q in queries.items()}


def _changes_while(engine, write_fn) -> int:
    """Rows inserted, updated or deleted by `write_fn(conn)` (SQLite's change counter)."""
    with engine.begin() as conn:
        raw = conn.connection.driver_connection
        before = raw.total_changes
        write_fn(conn)
        return raw.total_changes - before


def test_resync_of_unchanged_cards_writes_no_card_rows(engine) -> None:
    cards = fixture_cards()
    write(engine, cards)
    stored = _dump(engine)
    deck, other = [c for c in cards if c.is_deck_card], [c for c in cards if not c.is_deck_card]
    assert deck and other
    changed = _changes_while(engine, lambda conn: write_cards(conn, cards))
    # Only the meta row of the formats is rewritten (deleted and inserted again): no card,
    # name or legality set.
    assert changed == 2
    assert _dump(engine) == stored


def test_resync_rewrites_exactly_what_changed_like_a_fresh_import(engine, tmp_path: Path) -> None:
    cards = fixture_cards()
    write(engine, cards)
    bolt, rats = by_name(cards, "Lightning Bolt"), by_name(cards, "Relentless Rats")
    dropped = next(c for c in cards if c.is_deck_card and c not in (bolt, rats))
    new = [
        replace(c, oracle_text=c.oracle_text + "\nNew text.")
        if c is bolt
        else replace(c, legalities=dict(c.legalities, modern="banned"))
        if c is rats
        else c
        for c in cards
        if c is not dropped
    ]
    with engine.begin() as conn:
        result = write_cards(conn, new)
    assert {(ch["name"], ch["format"], ch["new_status"]) for ch in result.changes} == {
        (rats.name, "modern", "banned"),
        (dropped.name, "*", None),
    }
    fresh = make_engine(database_url(tmp_path / "fresh.sqlite3"))
    create_schema(fresh)
    write(fresh, new)
    assert _dump(engine) == _dump(fresh)
    assert CardDB(engine=engine).card("Lightning Bolt").oracle_text.endswith("New text.")
    fresh.dispose()


def test_card_rows_are_the_compact_encoding_and_decode_to_the_card() -> None:
    """A card's one stored copy: `card_batches` rows are (oracle_id, name, is_deck_card,
    legality text, encoded facts), and decoding them (orjson, or the standard library's json
    as the lean reader does) gives the card back, fact for fact."""
    from validator.cards.compact import decode_card, encode_card, legality_text
    from validator.store.database import card_batches

    cards = fixture_cards()
    by_id = {c.oracle_id: c for c in cards}
    rows = [r for b in card_batches(cards, for_changes=False, batch_size=5) for r in b.card_rows]
    assert len(rows) == len(by_id)
    for oid, name, deck, text, data in rows:
        card = by_id[oid]
        assert (name, deck, text, data) == (
            card.name,
            card.is_deck_card,
            legality_text(dict(card.legalities)),
            encode_card(card),
        )
        statuses = json.loads(text)
        for loads in (None, json.loads):
            back = decode_card(oid, name, data, statuses, loads)
            assert replace(back, legalities={}) == replace(card, legalities={})
            assert {f: back.legality(f) for f in card.legalities} == dict(card.legalities)


def test_each_text_of_a_card_is_stored_once() -> None:
    """Schema version 2 stores a card once (no second copy in other columns or tables), and
    its compact encoding holds a one-faced card's text and cost once, not again for its
    face."""
    from validator.cards.compact import encode_card

    cards = fixture_cards()
    bolt = by_name(cards, "Lightning Bolt")
    data = encode_card(bolt)
    for text in (bolt.oracle_text, bolt.mana_cost):
        assert data.count(json.dumps(text, ensure_ascii=False)[1:-1].encode()) == 1, text
    assert json.loads(data)[2][0][0] is None  # the face's name: the card's, in its column


def test_encoding_1_rows_still_decode() -> None:
    """A card encoded before the texts were deduplicated (encoding 1, as schema version 1's
    card_index held it) decodes to the same card."""
    import re

    from validator.cards.compact import decode_card

    dump = (FIXTURES / "cards_core_schema_v1.sql").read_text(encoding="utf-8")
    row = re.search(
        r"INSERT INTO \"card_index\" VALUES\('([^']+)','Lightning Bolt','([^']+)',"
        r"X'([0-9A-F]+)'\)",
        dump,
    )
    assert row, "no Lightning Bolt row in the fixture"
    old = decode_card(row[1], "Lightning Bolt", bytes.fromhex(row[3]), json.loads(row[2]))
    objs = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    new = card_from_scryfall(next(o for o in objs if o["name"] == "Lightning Bolt"))
    assert replace(old, legalities={}) == replace(new, legalities={})


def test_a_legality_text_held_by_two_sets_still_syncs(engine) -> None:
    """A database whose legality_sets hold one text twice (edited by hand, say) re-syncs:
    either set serves, and the change log is right."""
    cards = fixture_cards()
    write(engine, cards)
    bolt = by_name(cards, "Lightning Bolt")
    with engine.begin() as conn:
        sid, statuses = conn.exec_driver_sql(
            "SELECT id, statuses FROM legality_sets JOIN cards ON cards.legalities = "
            "legality_sets.id WHERE name = 'Lightning Bolt'"
        ).one()
        conn.exec_driver_sql("INSERT INTO legality_sets VALUES (999, ?)", (statuses,))
        conn.exec_driver_sql("UPDATE cards SET legalities = 999 WHERE name = 'Lightning Bolt'")
    banned = [
        replace(c, legalities=dict(c.legalities, modern="banned")) if c is bolt else c
        for c in cards
    ]
    result = write(engine, banned)
    assert [(c["name"], c["format"], c["new_status"]) for c in result.changes] == [
        ("Lightning Bolt", "modern", "banned")
    ]
    assert CardDB(engine=engine).card("Lightning Bolt").legality("modern") == "banned"


def test_card_problem_checks_every_legality_after_caching_good_ones() -> None:
    from validator.store.database import card_problem

    card = fixture_cards()[0]
    assert card_problem(card) is None  # its (format, status) pairs are now known good
    assert "not a status" in card_problem(
        replace(card, legalities=dict(card.legalities, modern="x" * 50))
    )
    assert "not a status" in card_problem(
        replace(card, legalities=dict(card.legalities, modern=["legal"]))
    )
    assert "not a format name" in card_problem(replace(card, legalities={"a\x00b": "legal"}))


def test_card_problem_names_every_bad_text_fact() -> None:
    """The one-expression check of the common case lets no bad value of any text fact through:
    each is named by `_text_problem` (missing, not text, too long, NUL)."""
    from validator.store.database import _TEXT_COLUMNS, card_problem

    card = fixture_cards()[0]
    assert card_problem(card) is None
    for column, limit, nullable in _TEXT_COLUMNS:
        bad = [(7, "not text"), ("a\x00b", "NUL"), ("x" * (limit + 1), "characters long")]
        if not nullable:
            bad.append((None, "missing"))
        for value, said in bad:
            problem = card_problem(replace(card, **{column: value}))
            assert problem is not None and column in problem and said in problem, (column, value)
    face = replace(card.faces[0], name="y" * 301)
    assert "face name" in card_problem(replace(card, faces=(face,)))
    assert "face name" in card_problem(replace(card, faces=(replace(face, name=3),)))
