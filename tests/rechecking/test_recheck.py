"""`validator.recheck`: only the decks a change touches are judged again, and the verdicts
that changed are reported with their cause; the result is the one a from-scratch run gives."""

from __future__ import annotations

import json
import sqlite3
import threading

import pytest

import validator
from validator.errors import UsageError
from validator.rechecking import judging
from validator.rechecking import rows as rows_module
from validator.rechecking.state import StateError, open_state

BOLT_MODERN = "4 Lightning Bolt\n56 Mountain\n"
BOLT_PAUPER = "4 Lightning Bolt\n56 Mountain\n"
COUNTER_MODERN = "4 Counterspell\n56 Island\n"
BRAINSTORM_LEGACY = "4 Brainstorm\n56 Island\n"


def decks() -> list[dict[str, str]]:
    return [
        {"id": "bolt-modern", "format": "modern", "decklist": BOLT_MODERN},
        {"id": "bolt-pauper", "format": "pauper", "decklist": BOLT_PAUPER},
        {"id": "counter-modern", "format": "modern", "decklist": COUNTER_MODERN},
        {"id": "brainstorm-legacy", "format": "legacy", "decklist": BRAINSTORM_LEGACY},
        {
            "id": "json-deck",
            "format": "modern",
            "deck": {"main": [[4, "Lightning Bolt"], [56, "Mountain"]]},
        },
    ]


@pytest.fixture
def judged(monkeypatch):
    """The ids of the decks parsed and judged (every call of `judge_row`)."""
    seen: list[str] = []
    real = judging.judge_row

    def spy(row, *args, **kwargs):
        seen.append(row.id)
        return real(row, *args, **kwargs)

    monkeypatch.setattr("validator.rechecking.run.judge_row", spy)
    return seen


def stored(state) -> dict[str, tuple[str, list]]:
    """Every deck's verdict and problems as STATE holds them."""
    conn = sqlite3.connect(state)
    try:
        rows = conn.execute("SELECT id, verdict, problems FROM recheck_decks").fetchall()
    finally:
        conn.close()
    return {i: (v, json.loads(p)) for i, v, p in rows}


def card_index(state) -> set[tuple[str, str]]:
    """STATE's card -> decks index as (deck id, oracle id) pairs, and the same pairs from each
    deck's own card list: the two must agree."""
    from validator.rechecking.state import unpack_cards

    conn = sqlite3.connect(state)
    try:
        pairs = set(
            conn.execute(
                "SELECT d.id, c.oracle_id FROM recheck_deck_cards dc "
                "JOIN recheck_decks d ON d.deck_no = dc.deck_no "
                "JOIN recheck_cards c ON c.card_no = dc.card_no"
            )
        )
        oracle = dict(conn.execute("SELECT card_no, oracle_id FROM recheck_cards"))
        listed = {
            (i, oracle[n])
            for i, blob in conn.execute("SELECT id, cards FROM recheck_decks")
            for n in unpack_cards(blob)
        }
    finally:
        conn.close()
    assert pairs == listed
    return pairs


def test_first_run_judges_every_deck_then_nothing_changed_parses_none(tmp_path, synced, judged):
    db = synced("20260501")
    state = tmp_path / "state.sqlite3"
    first = validator.recheck(decks(), state=state, db=db)
    assert sorted(judged) == sorted(d["id"] for d in decks())
    assert first.changed == [] and first.failures == []
    assert first.summary["modern"].checked == 3 and first.summary["modern"].new == 3
    judged.clear()
    again = validator.recheck(decks(), state=state, db=db)
    assert judged == [] and again.changed == []
    assert again.summary["modern"].checked == 3 and again.summary["modern"].rejudged == 0


def test_a_ban_rejudges_only_the_decks_holding_the_card_in_that_format(tmp_path, synced, judged):
    state = tmp_path / "state.sqlite3"
    validator.recheck(decks(), state=state, db=synced("20260501"))
    judged.clear()
    db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    result = validator.recheck(decks(), state=state, db=db)
    # The pauper deck holds the card too, but its format's legality did not change.
    assert sorted(judged) == ["bolt-modern", "json-deck"]
    assert sorted(c.id for c in result.changed) == ["bolt-modern", "json-deck"]
    change = result.changed[0]
    assert (change.format, change.old_verdict, change.new_verdict) == ("modern", "legal", "illegal")
    (problem,) = change.problems
    assert problem.change == "added" and problem.code == "banned"
    assert problem.cards == ("Lightning Bolt",)
    assert problem.cause == "Lightning Bolt: legal -> banned in Modern, card data of 2026-05-18"
    modern = result.summary["modern"]
    assert (modern.checked, modern.rejudged, modern.newly_illegal) == (3, 2, 2)
    assert result.summary["pauper"].rejudged == 0
    # The unban brings them back.
    judged.clear()
    db = synced("20260601", {"Lightning Bolt": {"modern": "legal"}})
    back = validator.recheck(decks(), state=state, db=db)
    assert sorted(judged) == ["bolt-modern", "json-deck"]
    assert {c.new_verdict for c in back.changed} == {"legal"}
    assert back.changed[0].problems[0].change == "removed"
    assert back.summary["modern"].newly_legal == 2


def test_a_changed_deck_reads_back_from_its_json(tmp_path, synced):
    """A Dask partition ships each changed deck as its JSON (`scale.recheck_dataframe`)."""
    from validator.rechecking.records import ChangedDeck

    state = tmp_path / "state.sqlite3"
    validator.recheck(decks(), state=state, db=synced("20260501"))
    db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    changed = validator.recheck(decks(), state=state, db=db).changed
    assert changed and all(c.problems for c in changed)
    assert [ChangedDeck.from_dict(json.loads(json.dumps(c.to_dict()))) for c in changed] == changed


def test_an_unknown_name_is_settled_by_a_later_sync(tmp_path, synced, judged):
    state = tmp_path / "state.sqlite3"
    first = validator.recheck(decks(), state=state, db=synced("20260501", without=("Brainstorm",)))
    assert first.failures == []
    assert stored(state)["brainstorm-legacy"][0] == "unconfirmed"
    judged.clear()
    rows = [*decks(), {"id": "typo", "format": "legacy", "decklist": "4 Brainstrom\n56 Island\n"}]
    validator.recheck(rows, state=state, db=synced("20260510", without=("Brainstorm",)))
    assert judged == ["typo"]  # new; a sync that does not bring Brainstorm settles nothing
    judged.clear()
    # A sync that changes nothing the deck holds still settles the name: the card came.
    result = validator.recheck(rows, state=state, db=synced("20260518"))
    assert judged == ["brainstorm-legacy"]  # "Brainstrom" is still no card's name
    (change,) = result.changed
    assert (change.old_verdict, change.new_verdict) == ("unconfirmed", "legal")
    assert change.problems[0].code == "unknown-card"
    assert "2026-05-18 settles this name" in change.problems[0].cause
    assert result.summary["legacy"].newly_legal == 1


def test_edited_new_and_removed_decks(tmp_path, synced, judged):
    db = synced("20260501")
    state = tmp_path / "state.sqlite3"
    validator.recheck(decks(), state=state, db=db)
    judged.clear()
    rows = decks()[1:]  # bolt-modern is gone
    rows[1]["decklist"] = "4 Black Lotus\n56 Island\n"  # counter-modern edited: illegal now
    rows.append({"id": "new", "format": "modern", "decklist": COUNTER_MODERN})
    result = validator.recheck(rows, state=state, db=db)
    assert sorted(judged) == ["counter-modern", "new"]
    (change,) = result.changed
    assert change.id == "counter-modern" and change.new_verdict == "illegal"
    assert {p.cause for p in change.problems} == {"the deck was edited"}
    assert result.removed == ["bolt-modern"] and "bolt-modern" not in stored(state)
    assert result.summary["modern"].new == 1


def test_the_result_is_the_one_judging_from_scratch_gives(tmp_path, synced):
    state = tmp_path / "state.sqlite3"
    validator.recheck(decks(), state=state, db=synced("20260501", without=("Brainstorm",)))
    rows = decks()
    rows[2]["decklist"] = "4 Counterspell\n4 Ancestral Recall\n52 Island\n"
    validator.recheck(
        rows, state=state, db=synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    )
    db = synced(
        "20260601", {"Counterspell": {"legacy": "banned"}, "Lightning Bolt": {"pauper": "banned"}}
    )
    rows.append({"id": "late", "format": "pauper", "decklist": BOLT_PAUPER})
    validator.recheck(rows, state=state, db=db)
    fresh = tmp_path / "fresh.sqlite3"
    validator.recheck(rows, state=fresh, db=db)
    assert stored(state) == stored(fresh)
    assert stored(state)["bolt-pauper"][0] == "illegal"  # the pauper ban reached it
    # The edited deck's index rows follow its cards; the banned decks' stay as they were.
    assert card_index(state) == card_index(fresh)
    cards = validator.open_db(db)
    try:
        recall = cards.card("Ancestral Recall").oracle_id
    finally:
        cards.close()
    assert ("counter-modern", recall) in card_index(state)


def test_a_ban_rewrites_no_index_rows_of_the_decks_it_rejudges(tmp_path, synced, monkeypatch):
    from validator.rechecking.state import StateSession

    state = tmp_path / "state.sqlite3"
    validator.recheck(decks(), state=state, db=synced("20260501"))
    before = card_index(state)
    written: list[tuple[str, int]] = []
    real = StateSession._many

    def spy(self, sql, rows):
        if "recheck_deck_cards" in sql:
            written.append((sql.split()[0], len(rows)))
        return real(self, sql, rows)

    monkeypatch.setattr(StateSession, "_many", spy)
    db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    result = validator.recheck(decks(), state=state, db=db)
    assert len(result.changed) == 2  # bolt-modern and json-deck were judged again
    assert all(count == 0 for _, count in written)
    assert card_index(state) == before


def test_an_unreadable_row_is_its_own_failure(tmp_path, synced):
    lines = [json.dumps(d) for d in decks()]
    lines.insert(1, "{not json")
    lines.append(json.dumps({"id": "no-deck", "format": "modern"}))
    lines.append(json.dumps({"id": "bad-format", "format": "nosuch", "decklist": BOLT_MODERN}))
    path = tmp_path / "decks.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = validator.recheck(str(path), state=tmp_path / "s.sqlite3", db=synced("20260501"))
    failures = {(f.id, f.where): f.why for f in result.failures}
    assert failures[(None, "decks.jsonl line 2")].startswith("not a JSON object")
    assert (
        failures[("no-deck", "decks.jsonl line 7")] == "the row has neither a decklist nor a deck"
    )
    assert "nosuch" in failures[("bad-format", "decks.jsonl line 8")]
    assert sum(s.checked for s in result.summary.values()) == 5


@pytest.mark.parametrize("given", [{"id": "a", "format": "modern"}, b"decks.jsonl"])
def test_one_row_or_bytes_for_decks_is_refused_before_state_is_opened(tmp_path, synced, given):
    state = tmp_path / "s.sqlite3"
    with pytest.raises(UsageError, match="decks= takes rows"):
        validator.recheck(given, state=state, db=synced("20260501"))
    assert not state.exists()


def test_a_repeated_id_names_both_rows(tmp_path, synced):
    rows = decks() + [{"id": "bolt-pauper", "format": "modern", "decklist": BOLT_MODERN}]
    state = tmp_path / "s.sqlite3"
    with pytest.raises(UsageError, match=r"'bolt-pauper' repeats: row 2 and row 6"):
        validator.recheck(rows, state=state, db=synced("20260501"))
    # Nothing was written: the next run takes the empty file as a new STATE.
    assert sqlite3.connect(state).execute("SELECT name FROM sqlite_master").fetchall() == []
    assert validator.recheck(decks(), state=state, db=synced("20260502")).summary


@pytest.mark.parametrize("kind", ["foreign", "corrupt", "newer"])
def test_a_state_that_cannot_be_used_is_left_untouched(tmp_path, synced, kind):
    db = synced("20260501")
    state = tmp_path / "state.sqlite3"
    if kind == "foreign":
        conn = sqlite3.connect(state)
        conn.execute("CREATE TABLE players (name TEXT)")
        conn.commit()
        conn.close()
    elif kind == "corrupt":
        state.write_bytes(b"SQLite format 3\x00" + b"\x07" * 5000)
    else:
        validator.recheck(decks(), state=state, db=db)
        conn = sqlite3.connect(state)
        conn.execute("UPDATE recheck_meta SET value = '99' WHERE key = 'version'")
        conn.commit()
        conn.close()
    before = state.read_bytes()
    with pytest.raises(StateError, match="untouched") as err:
        validator.recheck(decks(), state=state, db=db)
    assert err.value.code == "recheck-state"
    assert state.read_bytes() == before


def test_a_run_that_fails_midway_leaves_state_as_it_was(tmp_path, synced, monkeypatch):
    state = tmp_path / "state.sqlite3"
    validator.recheck(decks(), state=state, db=synced("20260501"))
    before = stored(state)
    real = judging.judge_row
    calls = []

    def dies(row, *args, **kwargs):
        calls.append(row.id)
        if len(calls) == 2:
            raise KeyboardInterrupt  # a kill between two decks
        return real(row, *args, **kwargs)

    monkeypatch.setattr("validator.rechecking.run.judge_row", dies)
    db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    with pytest.raises(KeyboardInterrupt):
        validator.recheck(decks(), state=state, db=db)
    assert stored(state) == before
    monkeypatch.setattr("validator.rechecking.run.judge_row", real)
    assert len(validator.recheck(decks(), state=state, db=db).changed) == 2


def test_two_rechecks_on_one_state_are_serialised(tmp_path, synced):
    db = synced("20260501")
    state = tmp_path / "state.sqlite3"
    validator.recheck(decks(), state=state, db=db)
    holding, release = threading.Event(), threading.Event()

    def hold():
        with open_state(state):
            holding.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    try:
        assert holding.wait(10)
        with pytest.raises(StateError, match="another deckcheck recheck"):
            validator.recheck(decks(), state=state, db=db, lock_timeout=0.3)
    finally:
        release.set()
        t.join()
    assert validator.recheck(decks(), state=state, db=db).failures == []


def test_since_rejudges_the_decks_a_past_sync_touched(tmp_path, synced, judged):
    state = tmp_path / "state.sqlite3"
    synced("20260501")
    db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    validator.recheck(decks(), state=state, db=db)
    judged.clear()
    validator.recheck(decks(), state=state, db=db)
    assert judged == []
    validator.recheck(decks(), state=state, db=db, since="2026-05-18")
    assert sorted(judged) == ["bolt-modern", "json-deck"]
    with pytest.raises(UsageError, match="neither a sync id"):
        validator.recheck(decks(), state=state, db=db, since="yesterday")


def test_decks_from_a_sql_table_and_state_beside_them(tmp_path, synced):
    db = synced("20260501")
    site = tmp_path / "site.sqlite3"
    conn = sqlite3.connect(site)
    conn.execute("CREATE TABLE decks (id INTEGER, format TEXT, decklist TEXT, owner TEXT)")
    conn.execute("INSERT INTO decks VALUES (1, 'modern', ?, 'amy')", (BOLT_MODERN,))
    conn.execute("INSERT INTO decks VALUES (2, 'legacy', ?, 'bo')", (BRAINSTORM_LEGACY,))
    conn.commit()
    conn.close()
    url = f"sqlite:///{site}"
    first = validator.recheck(url, table="decks", state=url, db=db)
    assert first.failures == [] and first.summary["modern"].new == 1
    db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    query = "SELECT id, format, decklist FROM decks WHERE owner = 'amy'"
    result = validator.recheck(url, query=query, state=url, db=db)
    assert [(c.id, c.new_verdict) for c in result.changed] == [("1", "illegal")]
    assert result.removed == ["2"]  # the query no longer lists it
    with pytest.raises(UsageError, match="--table or --query"):
        validator.recheck(url, state=url, db=db)


def test_decks_from_a_folder_of_decklists(tmp_path, synced):
    folder = tmp_path / "registrations"
    folder.mkdir()
    (folder / "amy.txt").write_text(BOLT_MODERN, encoding="utf-8")
    (folder / "players.csv").write_text(
        "file,player,format\namy.txt,amy,modern\n", encoding="utf-8"
    )
    result = validator.recheck(
        str(folder / "players.csv"), state=tmp_path / "s.sqlite3", db=synced("20260501")
    )
    assert result.failures == [] and result.summary["modern"].new == 1


def test_card_lists_are_packed_narrow_until_a_number_needs_more():
    from validator.rechecking.state import pack_cards, unpack_cards

    assert len(pack_cards([1, 2, 65535])) == 7
    assert list(unpack_cards(pack_cards([1, 2, 65535]))) == [1, 2, 65535]
    assert list(unpack_cards(pack_cards([1, 70000]))) == [1, 70000]
    assert list(unpack_cards(pack_cards([]))) == []


def test_json_lines_rows_held_byte_for_byte_are_not_parsed(tmp_path, synced, judged, monkeypatch):
    db = synced("20260501")
    path, state = tmp_path / "decks.jsonl", tmp_path / "state.sqlite3"
    lines = [json.dumps(d) for d in decks()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    validator.recheck(str(path), state=state, db=db)
    judged.clear()
    parsed = []
    real = rows_module.deck_row
    monkeypatch.setattr(
        "validator.rechecking.rows.deck_row",
        lambda row, where, *known: parsed.append(where) or real(row, where, *known),
    )
    lines[2] = json.dumps({**decks()[2], "decklist": "4 Black Lotus\n56 Island\n"})
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = validator.recheck(str(path), state=state, db=db)
    assert parsed == ["decks.jsonl line 3"] and judged == ["counter-modern"]
    assert [c.id for c in result.changed] == ["counter-modern"]
    path.write_text("\n".join([*lines, lines[0]]) + "\n", encoding="utf-8")
    with pytest.raises(
        UsageError, match="'bolt-modern' repeats: decks.jsonl line 1 and decks.jsonl line 6"
    ):
        validator.recheck(str(path), state=state, db=db)


def test_an_unchanged_decks_file_reads_only_the_lines_a_change_touches(
    tmp_path, synced, monkeypatch
):
    path, state = tmp_path / "decks.jsonl", tmp_path / "state.sqlite3"

    def write(rows):
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    rows = decks()
    write(rows)
    validator.recheck(str(path), state=state, db=synced("20260501", without=("Brainstorm",)))
    # A new first line moves every other row down a line: STATE follows them.
    rows.insert(0, {"id": "late", "format": "pauper", "decklist": BOLT_PAUPER})
    write(rows)
    validator.recheck(str(path), state=state, db=synced("20260502", without=("Brainstorm",)))
    parsed: list[str] = []
    real = rows_module.deck_row
    monkeypatch.setattr(
        "validator.rechecking.rows.deck_row",
        lambda row, where, *known: parsed.append(where) or real(row, where, *known),
    )
    db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    result = validator.recheck(str(path), state=state, db=db)
    # bolt-modern, json-deck (the ban) and brainstorm-legacy (the card came), nothing else.
    assert sorted(parsed) == ["decks.jsonl line 2", "decks.jsonl line 5", "decks.jsonl line 6"]
    assert sorted(c.id for c in result.changed) == ["bolt-modern", "brainstorm-legacy", "json-deck"]
    assert result.summary["modern"].checked == 3 and result.summary["pauper"].checked == 2
    fresh = tmp_path / "fresh.sqlite3"
    validator.recheck(str(path), state=fresh, db=db)
    assert stored(state) == stored(fresh)
    parsed.clear()
    assert validator.recheck(str(path), state=state, db=db).changed == []
    assert parsed == []


def test_a_row_unreadable_since_is_read_again_when_a_change_touches_its_deck(tmp_path, synced):
    path, state = tmp_path / "decks.jsonl", tmp_path / "state.sqlite3"
    rows = decks()
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    validator.recheck(str(path), state=state, db=synced("20260501"))
    rows[2] = {"id": "counter-modern", "format": "modern"}  # its decklist lost
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    first = validator.recheck(str(path), state=state, db=synced("20260502"))
    assert [(f.id, f.where) for f in first.failures] == [("counter-modern", "decks.jsonl line 3")]
    db = synced("20260518", {"Counterspell": {"modern": "banned"}})
    again = validator.recheck(str(path), state=state, db=db)
    assert [(f.id, f.where) for f in again.failures] == [("counter-modern", "decks.jsonl line 3")]
    assert again.changed == [] and stored(state)["counter-modern"][0] == "legal"


def test_decks_judged_with_the_cards_they_name_as_with_every_card(tmp_path, synced, monkeypatch):
    from validator.store.index import PartialCardIndex

    monkeypatch.setattr("validator.event.run.use_index", lambda decks: True)  # an index
    loaded: list[set[str]] = []
    real = PartialCardIndex.load
    monkeypatch.setattr(
        PartialCardIndex, "load", lambda self, names: loaded.append(set(names)) or real(self, names)
    )
    rows = [
        *decks(),
        {"id": "face", "format": "vintage", "decklist": "1 Ancestral Recall\n59 Island\n"},
        {"id": "bad-format", "format": "nosuch", "decklist": BOLT_MODERN},
    ]
    state = tmp_path / "state.sqlite3"
    first = validator.recheck(rows, state=state, db=synced("20260501", without=("Brainstorm",)))
    assert len(loaded) == 1 and {"lightning bolt", "brainstorm"} <= loaded[0]
    db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    result = validator.recheck(rows, state=state, db=db)
    assert len(loaded) == 2 and "brainstorm" in loaded[1]  # the decks judged again only
    assert sorted(c.id for c in result.changed) == ["bolt-modern", "brainstorm-legacy", "json-deck"]
    assert [f.id for f in first.failures] == [f.id for f in result.failures] == ["bad-format"]
    assert "nosuch" in result.failures[0].why  # its format's failure, as without the index
    monkeypatch.setattr(judging, "PARTIAL_INDEX_DECKS", 0)  # every card (CardIndex.from_db)
    fresh = tmp_path / "fresh.sqlite3"
    validator.recheck(rows, state=fresh, db=db)
    assert len(loaded) == 2
    assert stored(state) == stored(fresh) and card_index(state) == card_index(fresh)


def test_an_unchanged_decks_file_counts_its_decks_without_reading_state(
    tmp_path, synced, monkeypatch
):
    from validator.rechecking.state import StateSession

    path, state = tmp_path / "decks.jsonl", tmp_path / "state.sqlite3"
    path.write_text("".join(json.dumps(r) + "\n" for r in decks()), encoding="utf-8")
    validator.recheck(str(path), state=state, db=synced("20260501"))
    counted: list[int] = []
    real = StateSession.verdict_counts
    monkeypatch.setattr(
        StateSession, "verdict_counts", lambda self: counted.append(1) or real(self)
    )
    db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}})
    result = validator.recheck(str(path), state=state, db=db)
    assert counted == []  # the counts the run that read the file stored
    checked = {k: s.checked for k, s in result.summary.items()}
    assert checked == {"modern": 3, "pauper": 1, "legacy": 1}
    # Another file: its run counts its decks again.
    path.write_text("".join(json.dumps(r) + "\n" for r in decks()[1:]), encoding="utf-8")
    validator.recheck(str(path), state=state, db=db)
    assert counted == [1]
    again = validator.recheck(str(path), state=state, db=synced("20260601"))
    assert {k: s.checked for k, s in again.summary.items()} == {
        "modern": 2,
        "pauper": 1,
        "legacy": 1,
    }
    assert counted == [1]


def verdicts_after(result) -> dict[str, tuple[int, int]]:
    """(illegal, unconfirmed) per format, as a re-check's summary gives them."""
    return {k: (s.illegal, s.unconfirmed) for k, s in sorted(result.summary.items())}


def test_a_new_deck_that_is_not_legal_is_listed_and_counted(tmp_path, synced):
    state = tmp_path / "state.sqlite3"
    db = synced("20260501", {"Lightning Bolt": {"modern": "banned"}})
    first = validator.recheck(decks(), state=state, db=db)
    # No old verdict to change from: not a changed deck, yet named with its problem.
    assert first.changed == []
    assert sorted((d.id, d.verdict) for d in first.new_not_legal) == [
        ("bolt-modern", "illegal"),
        ("json-deck", "illegal"),
    ]
    assert first.new_not_legal[0].problems[0]["code"] == "banned"
    assert verdicts_after(first) == {"legacy": (0, 0), "modern": (2, 0), "pauper": (0, 0)}
    rows = decks() + [{"id": "late", "format": "legacy", "decklist": "4 Notacard\n56 Island\n"}]
    rows.append({"id": "fine", "format": "legacy", "decklist": BRAINSTORM_LEGACY})
    later = validator.recheck(rows, state=state, db=db)
    # Only the decks new to this run; a legal new deck is counted, not listed.
    assert [(d.id, d.verdict) for d in later.new_not_legal] == [("late", "unconfirmed")]
    assert verdicts_after(later) == {"legacy": (0, 1), "modern": (2, 0), "pauper": (0, 0)}
    assert later.to_dict()["new_not_legal"][0]["id"] == "late"


def test_the_verdicts_after_a_run_are_counted_alike_on_every_path(tmp_path, synced):
    """The summary's illegal and unconfirmed decks after a run: read from the rows when the
    file is read, moved by the changed verdicts when the file is the one STATE saw (nothing
    else moves then), and what judging every deck from scratch counts."""
    path, state = tmp_path / "decks.jsonl", tmp_path / "state.sqlite3"
    path.write_text("".join(json.dumps(r) + "\n" for r in decks()), encoding="utf-8")
    first = validator.recheck(
        str(path), state=state, db=synced("20260501", without=("Brainstorm",))
    )
    assert verdicts_after(first) == {"legacy": (0, 1), "modern": (0, 0), "pauper": (0, 0)}
    runs = [  # (the day's card data, the counts after it), on the unchanged file
        (
            ("20260518", {"Lightning Bolt": {"modern": "banned"}}),
            {"legacy": (0, 0), "modern": (2, 0), "pauper": (0, 0)},  # Brainstorm came
        ),
        (
            ("20260601", {"Lightning Bolt": {"pauper": "banned"}}),
            {"legacy": (0, 0), "modern": (0, 0), "pauper": (1, 0)},
        ),
    ]
    for n, ((day, changes), counts) in enumerate(runs):
        db = synced(day, changes)
        result = validator.recheck(str(path), state=state, db=db)
        assert verdicts_after(result) == counts
        fresh = tmp_path / f"fresh-{n}.sqlite3"
        assert verdicts_after(validator.recheck(str(path), state=fresh, db=db)) == counts


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("last_newline", [False, True])
def test_lines_at_reads_the_lines_asked_for(tmp_path, gz, last_newline):
    import gzip

    from validator.rechecking.rows import line_digest, line_starts, lines_at

    lines = [b'{"id": "a"}', b"", b'{"id": "b"}\r', b'{"id": "c"}', b"  ", b'{"id": "last"}']
    data = b"\n".join(lines) + (b"\n" if last_newline else b"")
    path = tmp_path / ("decks.jsonl.gz" if gz else "decks.jsonl")
    path.write_bytes(gzip.compress(data) if gz else data)
    starts = line_starts(path)
    assert (starts == "") == gz  # a gzip file is read from its start
    want = {n: (f"deck-{n}", line_digest(lines[n - 1].rstrip(b"\r"))) for n in (6, 1, 3, 4)}
    expected = [
        (1, "deck-1", b'{"id": "a"}', f"{path.name} line 1"),
        (3, "deck-3", b'{"id": "b"}', f"{path.name} line 3"),
        (4, "deck-4", b'{"id": "c"}', f"{path.name} line 4"),
        (6, "deck-6", b'{"id": "last"}', f"{path.name} line 6"),
    ]
    for where in ("", starts):  # stepping over lines, or at the starts STATE keeps
        got = lines_at(path, want, where)
        assert [(r.line_no, r.id, r.line, r.where) for r in got] == expected
        assert [r.id for r in lines_at(path, {2: ("blank", line_digest(b""))}, where)] == ["blank"]
        with pytest.raises(ValueError, match="line 4 is not the row STATE holds"):
            lines_at(path, {**want, 4: ("deck-4", line_digest(b"other"))}, where)
        with pytest.raises(ValueError, match="shorter than the file STATE saw"):
            lines_at(path, {**want, 7: ("deck-7", line_digest(b""))}, where)
    if not gz:
        # Starts of another file (the first line one byte longer): the lines found there
        # are not the rows STATE holds.
        path.write_bytes(b" " + data)
        with pytest.raises(ValueError, match="is not the row STATE holds"):
            lines_at(path, want, starts)
        with pytest.raises(ValueError, match="not line starts"):
            lines_at(path, want, "X" + starts[1:])
    path.write_bytes(gzip.compress(b"") if gz else b"")
    with pytest.raises(ValueError, match="shorter than the file STATE saw"):
        lines_at(path, {1: ("deck-1", line_digest(b""))})
    assert line_starts(path) == ""


def test_an_edited_decks_file_is_found_when_its_size_and_time_are_kept(
    tmp_path, synced, monkeypatch
):
    """A file whose stat STATE recorded is not hashed again while the stat holds; an edit that
    keeps the size and the modification time (`os.utime`, as `cp -p` or `rsync -t` do) still
    changes the kernel's change time, and the edited deck is judged again."""
    import os
    import time

    from validator.rechecking import run as run_module

    path, state = tmp_path / "decks.jsonl", tmp_path / "state.sqlite3"
    db = synced("20260501")
    path.write_text("".join(json.dumps(r) + "\n" for r in decks()), encoding="utf-8")
    hashed: list[str] = []
    real = rows_module.file_digest
    monkeypatch.setattr(run_module, "file_digest", lambda p: hashed.append(p) or real(p))
    # Changed within SETTLED_NS of the run (as every file of a test is): hashed, its stat
    # not trusted.
    monkeypatch.setattr(rows_module, "SETTLED_NS", 3_600 * 10**9)
    validator.recheck(str(path), state=state, db=db)
    assert len(hashed) == 1
    validator.recheck(str(path), state=state, db=db)
    assert len(hashed) == 2
    time.sleep(0.05)  # past the timestamp tick of the write
    monkeypatch.setattr(rows_module, "SETTLED_NS", 0)
    validator.recheck(str(path), state=state, db=db)
    assert len(hashed) == 3  # settled: hashed once more, its stat recorded
    assert validator.recheck(str(path), state=state, db=db).changed == []
    assert len(hashed) == 3  # the same stat: the digest STATE holds
    before = path.stat()
    text = path.read_text(encoding="utf-8")
    edited = text.replace("4 Counterspell\\n56 Island", "4 Counterspell\\n56 Swamp!")
    assert len(edited) == len(text) and edited != text
    path.write_text(edited, encoding="utf-8")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    result = validator.recheck(str(path), state=state, db=db)
    assert len(hashed) == 4
    assert [(c.id, c.new_verdict) for c in result.changed] == [("counter-modern", "unconfirmed")]
    fresh = tmp_path / "fresh.sqlite3"
    validator.recheck(str(path), state=fresh, db=db)
    assert stored(state) == stored(fresh)


def test_a_deck_judged_by_a_dated_list_is_judged_again_on_another_day(tmp_path, synced, judged):
    import datetime as dt

    db = synced("20260501")
    state = tmp_path / "state.sqlite3"
    pointed = "1 Ancestral Recall\n1 Brainstorm\n98 Island\n"  # a points list of its day
    rows = [*decks(), {"id": "pre", "format": "canadianhighlander", "decklist": pointed}]
    day = dt.date(2026, 5, 1)
    validator.recheck(rows, state=state, db=db, today=day)
    judged.clear()
    validator.recheck(rows, state=state, db=db, today=day)
    assert judged == []
    result = validator.recheck(rows, state=state, db=db, today=day + dt.timedelta(days=1))
    assert judged == ["pre"]  # the list in force today may have changed; nothing else
    assert result.summary["canadianhighlander"].rejudged == 1 and result.failures == []


def test_the_decks_every_recheck_looks_for_are_found_by_index(tmp_path, synced):
    from validator.rechecking.state import DATED_WHERE, OPEN_WHERE

    state = tmp_path / "state.sqlite3"
    validator.recheck(decks(), state=state, db=synced("20260501"))

    def plans() -> list[str]:
        conn = sqlite3.connect(state)
        try:
            return [
                conn.execute(
                    f"EXPLAIN QUERY PLAN SELECT deck_no FROM recheck_decks WHERE {w}"
                ).fetchall()[0][-1]
                for w in (f"{DATED_WHERE} AND judged_on != 'x'", OPEN_WHERE)
            ]
        finally:
            conn.close()

    dated, open_names = plans()
    assert dated.endswith("INDEX recheck_decks_dated") and open_names.endswith(
        "INDEX recheck_decks_open"
    )
    # A STATE written before the indexes gets them on its next run.
    conn = sqlite3.connect(state)
    conn.execute("DROP INDEX recheck_decks_dated")
    conn.execute("DROP INDEX recheck_decks_open")
    conn.commit()
    conn.close()
    assert all(p == "SCAN recheck_decks" for p in plans())
    validator.recheck(decks(), state=state, db=synced("20260502"))
    assert [p.rsplit(" ", 1)[-1] for p in plans()] == ["recheck_decks_dated", "recheck_decks_open"]


_KILLED_RUN = """
import os, signal, sys
import validator
from validator.rechecking import state

point = sys.argv[4]
real_many, real_meta = state.StateSession._many, state.StateSession.set_meta


def many(self, sql, rows):
    real_many(self, sql, rows)
    if sql.startswith(point):
        os.kill(os.getpid(), signal.SIGKILL)  # the statement ran, the transaction is open


def set_meta(self, values):
    real_meta(self, values)
    if point in values:
        os.kill(os.getpid(), signal.SIGKILL)


state.StateSession._many, state.StateSession.set_meta = many, set_meta
validator.recheck(sys.argv[1], state=sys.argv[2], db=sys.argv[3])
"""


@pytest.mark.parametrize("point", ["UPDATE recheck_decks", "DELETE FROM", "decks_stat"])
def test_a_killed_recheck_of_an_unchanged_file_leaves_state_as_it_was(tmp_path, synced, point):
    """SIGKILL while the re-check of an unchanged DECKS file writes STATE (its judged rows,
    the index, the meta of the file): STATE is the one before the run, and the next run does
    it all."""
    import os
    import signal
    import subprocess
    import sys

    path, state = tmp_path / "decks.jsonl", tmp_path / "state.sqlite3"
    rows = decks()
    rows[2] = {**rows[2], "decklist": "4 Lightning Bolt\n4 Counterspell\n52 Island\n"}
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    validator.recheck(str(path), state=state, db=synced("20260501"))
    before = stored(state)
    conn = sqlite3.connect(state)
    meta = dict(conn.execute("SELECT key, value FROM recheck_meta"))
    conn.close()
    # A ban that also takes a card out of the data (the index rows of the decks go).
    db = synced("20260518", {"Lightning Bolt": {"modern": "banned"}}, without=("Counterspell",))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_RUN, str(path), str(state), db, point],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    conn = sqlite3.connect(state)
    assert dict(conn.execute("SELECT key, value FROM recheck_meta")) == meta
    conn.close()
    assert stored(state) == before
    result = validator.recheck(str(path), state=state, db=db)
    assert sorted(c.id for c in result.changed) == ["bolt-modern", "counter-modern", "json-deck"]
    fresh = tmp_path / "fresh.sqlite3"
    validator.recheck(str(path), state=fresh, db=db)
    assert stored(state) == stored(fresh) and card_index(state) == card_index(fresh)
