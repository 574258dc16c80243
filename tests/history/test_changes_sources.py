"""`deckcheck changes` in one shape: plain (the database's log) and --format/--since (the
shipped history and the log) print the same fields, date database entries by the same rule,
and list a change both sources know once, with both sources."""

from __future__ import annotations

import json
from datetime import date

from support import FIXTURES

from validator.cli import main
from validator.history.legality import Change, LegalityHistory, merge_sources


def _change(source: str, after: date, on: date) -> Change:
    return Change(
        on, after, "vintage", "The Fantasticar", "legal", "restricted", "restricted", source
    )


def test_a_change_both_sources_know_is_listed_once_with_both():
    shipped = _change("shipped", date(2026, 8, 10), date(2026, 8, 12))
    logged = _change("database", date(2026, 8, 1), date(2026, 8, 22))
    later = _change("database", date(2026, 9, 1), date(2026, 9, 5))  # another window: kept
    merged = merge_sources([shipped, logged, later])
    assert len(merged) == 2
    assert merged[0].sources == ("shipped", "database") and merged[0].source == "shipped"
    assert (merged[0].after, merged[0].on) == (date(2026, 8, 10), date(2026, 8, 12))
    assert merged[0].to_dict()["sources"] == ["shipped", "database"]
    assert merged[1].to_dict()["sources"] == ["database"]


def test_the_history_lists_a_logged_change_of_the_shipped_history_once():
    row = {
        "id": 1,
        "changed_at": date(2026, 8, 22),
        "oracle_id": "x",
        "name": "The Fantasticar",
        "format": "vintage",
        "old_status": "legal",
        "new_status": "restricted",
    }
    history = LegalityHistory([row], date(2026, 8, 22), [date(2026, 8, 1), date(2026, 8, 22)])
    found = [c for c in history.changes("vintage", date(2026, 8, 1)) if c.name == row["name"]]
    assert [(c.sources, c.oracle_id) for c in found] == [(("shipped", "database"), "x")]


def _synced_twice(tmp_path) -> str:
    from validator.sync import import_file

    path = str(tmp_path / "cards.sqlite3")
    import_file(FIXTURES / "cards_core.json", path)
    cards = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    for card in cards:
        if card["name"] == "Lightning Bolt":
            card["legalities"]["modern"] = "banned"
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(cards), encoding="utf-8")
    import_file(changed, path)
    return path


def test_plain_changes_and_format_changes_print_one_shape(tmp_path, capsys):
    path = _synced_twice(tmp_path)
    assert main(["changes", "--db", path, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)["changes"]
    assert (
        main(["changes", "--db", path, "--format", "modern", "--since", "2000-01-01", "--json"])
        == 0
    )
    by_format = json.loads(capsys.readouterr().out)["changes"]
    [bolt] = [c for c in plain if c["name"] == "Lightning Bolt"]
    [same] = [c for c in by_format if c["name"] == "Lightning Bolt"]
    assert bolt == same  # the same keys, the same date (the card data's), the same source
    assert set(bolt) == {
        "changed_at", "oracle_id", "name", "format", "old_status", "new_status", "after",
        "kind", "source", "sources",
    }  # fmt: skip
    assert main(["changes", "--db", path]) == 0
    text = capsys.readouterr().out
    assert main(["changes", "--db", path, "--format", "modern", "--since", "2000-01-01"]) == 0
    line = next(x for x in text.splitlines() if "Lightning Bolt" in x)
    assert line in capsys.readouterr().out.splitlines()


def test_plain_changes_on_a_fresh_database_points_at_the_shipped_history(core_db, capsys):
    assert main(["changes", "--db", core_db]) == 0
    out = capsys.readouterr().out
    assert "no legality changes recorded" in out and "--format F --since DATE" in out


def _log_unreadable(path: str) -> None:
    """The change log's table replaced by a view that fails when read: a store that has a log
    but cannot give it (a damaged file, a table another program changed)."""
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE legality_changes RENAME TO legality_changes_kept")
        conn.execute(
            "CREATE VIEW legality_changes AS SELECT * FROM legality_changes_kept "
            "WHERE abs(-9223372036854775807 - 1)"  # integer overflow: an error on every read
        )


def test_a_change_log_that_cannot_be_read_stops_a_recheck_and_an_as_of_verdict(tmp_path, capsys):
    path = _synced_twice(tmp_path)
    decks = tmp_path / "decks.jsonl"
    decks.write_text(
        json.dumps({"id": "a", "format": "modern", "decklist": "4 Lightning Bolt"}) + "\n",
        encoding="utf-8",
    )
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Lightning Bolt\n", encoding="utf-8")
    state = str(tmp_path / "state.sqlite3")
    assert main(["recheck", str(decks), "--db", path, "--store", state]) in (0, 1)
    capsys.readouterr()
    _log_unreadable(path)
    # Without the log, the ban it holds would go unseen: the deck would keep its verdict.
    for argv in (
        ["recheck", str(decks), "--db", path, "--store", state, "--since", "1"],
        ["changes", "--db", path, "--format", "modern", "--since", "2000-01-01"],
        ["changes", "--db", path],
        ["validate", str(deck), "--db", path, "--format", "modern", "--as-of", "2026-11-01"],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "Traceback" not in err and "integer overflow" in err, (argv, err)


def test_a_card_source_that_keeps_no_log_has_no_changes():
    from validator.history.changes import changes_after, sync_days
    from validator.history.legality import history_for

    class Cards:  # cards built in code: no change log, no sync record
        pass

    assert sync_days(Cards()) == {} and changes_after(Cards(), None, {}) == []
    assert list(history_for(Cards()).database_changes()) == []
