"""The change log's order (two syncs on one day), the card data's one date, `changes` options
given empty, and the event CSV's `as_of` column.

- The store gives the change log newest first; the history must use it oldest first, and
  within a day in the order the syncs made the changes (the log's ids): a ban at 10:00 and
  its unban at 11:00 read newest first made the first sync's status "banned" (the unban's
  old status) and judged the card banned before both.
- The card data's date (Scryfall's `updated_at`, else the date in the imported file's name,
  else the sync's date) is the one date the provenance, `legality-history-missing` and
  `changes --format` give; the history used the file-name date while the rest said the sync
  date."""

from __future__ import annotations

import csv
import json
import sqlite3
from datetime import date, timedelta

import pytest
from support import FIXTURES, core_cards_with

from validator.api import validate
from validator.cli import main
from validator.history.legality import history_for
from validator.history.provenance import provenance, provenance_line
from validator.store.database import CardDB

BOLT = "4 Lightning Bolt\n56 Mountain\n"
BOLT_ID = "dd5648a8-8671-5e58-a8f8-223c4eb1c520"


def codes(report) -> list[str]:
    return sorted(p.code for p in report.problems)


@pytest.fixture
def ban_unban_db(tmp_path) -> str:
    """The fixture cards synced three times: first (card data of 2026-08-01: no gap after
    the shipped history's end), then Lightning Bolt banned in Modern, then unbanned again;
    the ban and the unban on one day (today), as two syncs on one day record them."""
    from validator.sync import import_file

    path = str(tmp_path / "cards.sqlite3")
    import_file(FIXTURES / "cards_core.json", path, updated_at="2026-08-01T00:00:00+00:00")
    import_file(core_cards_with(tmp_path, "Lightning Bolt", "modern", "banned"), path)
    import_file(core_cards_with(tmp_path, "Lightning Bolt", "modern", "legal"), path)
    with sqlite3.connect(path) as conn:
        rows = conn.execute(
            "SELECT id, old_status, new_status, changed_at FROM legality_changes ORDER BY id"
        ).fetchall()
    assert [(old, new) for _, old, new, _ in rows] == [("legal", "banned"), ("banned", "legal")]
    assert rows[0][3][:10] == rows[1][3][:10]  # one day
    return path


def test_a_same_day_ban_and_unban_are_used_in_the_order_they_were_made(ban_unban_db):
    with CardDB(ban_unban_db) as db:
        history = history_for(db)
        bolt = db.card_by_id(BOLT_ID)
        assert [(c.old, c.new) for c in history.card_changes(bolt) if c.format == "modern"] == [
            ("legal", "banned"),
            ("banned", "legal"),
        ]
        # At the first sync Bolt was legal (the ban's old status), not banned (the unban's).
        assert history.first_sync_status(bolt, "modern") == "legal"
        # Before both (earlier than the window they took effect in), legal: the earliest
        # change after the date is the ban, whose old status held then. Was: banned.
        earlier = (date.today() - timedelta(days=10)).isoformat()
        report = validate(BOLT, "modern", cards=db, as_of=earlier)
        assert report.legal, codes(report)
        assert validate(BOLT, "modern", cards=db).legal


def test_a_database_first_synced_after_the_shipped_end_invents_no_gap_change_from_them(tmp_path):
    """First sync after 2026-08-22 with Bolt legal, then a ban and an
    unban on one later day. Read newest first, the first sync's status was "banned", so a
    "legal -> banned" change was invented between 2026-08-22 and the first sync."""
    from validator.sync import import_file

    path = str(tmp_path / "cards.sqlite3")
    import_file(FIXTURES / "cards_core.json", path, updated_at="2026-11-01T00:00:00+00:00")
    import_file(core_cards_with(tmp_path, "Lightning Bolt", "modern", "banned"), path)
    import_file(core_cards_with(tmp_path, "Lightning Bolt", "modern", "legal"), path)
    with CardDB(path) as db:
        history = history_for(db)
        assert history.gap_end == date(2026, 11, 1)
        assert history.gap_changes(db.card_by_id(BOLT_ID)) == ()


def test_changes_lists_a_same_day_ban_and_unban_oldest_first(ban_unban_db, capsys):
    def lines(*argv: str) -> list[str]:
        assert main(["changes", "--db", ban_unban_db, *argv]) == 0
        return [x for x in capsys.readouterr().out.splitlines() if "Lightning Bolt" in x]

    since = (date.today() - timedelta(days=1)).isoformat()
    listed = lines("--format", "modern", "--since", since)
    assert ["legal -> banned" in listed[0], "banned -> legal" in listed[1]] == [True, True]
    [latest] = lines("--format", "modern", "--limit", "1")
    assert "banned -> legal" in latest  # the newest change, not the superseded ban
    # Without --format/--since: the same order (as `changes --help` says: oldest first).
    plain = lines()
    assert ["legal -> banned" in plain[0], "banned -> legal" in plain[1]] == [True, True]
    [latest] = lines("--limit", "1")
    assert "banned -> legal" in latest
    assert main(["changes", "--db", ban_unban_db, "--json"]) == 0
    entries = json.loads(capsys.readouterr().out)["changes"]
    assert [(e["old_status"], e["new_status"]) for e in entries] == [
        ("legal", "banned"),
        ("banned", "legal"),
    ]
    assert {"changed_at", "format", "name", "oracle_id", "old_status", "new_status"} <= set(
        entries[0]
    )


@pytest.mark.parametrize(
    "argv, option",
    [
        (["--since", ""], "--since"),
        (["--format", ""], "--format"),
        (["--format", "  "], "--format"),
        (["--format", "", "--since", "2026-01-01"], "--format"),
    ],
)
def test_changes_refuses_an_empty_since_or_format(core_db, capsys, argv, option):
    """An empty --since or --format is no "every change": it listed everything silently."""
    assert main(["changes", "--db", core_db, *argv]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert f"{option} " in err and (
        "YYYY-MM-DD" in err if option == "--since" else "deckcheck formats" in err
    )


@pytest.fixture
def dated_file_db(tmp_path) -> str:
    """The fixture cards imported (today) from a file whose name carries 2026-08-22, as
    `sync --from oracle-cards-derived-20260822.jsonl.gz` is."""
    from validator.sync import import_file

    source = tmp_path / "oracle-cards-derived-20260822.json"
    source.write_text((FIXTURES / "cards_core.json").read_text(encoding="utf-8"), encoding="utf-8")
    path = str(tmp_path / "cards.sqlite3")
    import_file(source, path)
    return path


def test_the_card_data_date_is_one_date_everywhere(dated_file_db, capsys, tmp_path):
    with CardDB(dated_file_db) as db:
        assert history_for(db).card_data_date == date(2026, 8, 22)
        prov = provenance(db)
        assert prov["card_data"]["synced_at"][:10] != "2026-08-22"  # the sync is later
        assert prov["legality_as_of"] == "2026-08-22" and prov["legality_basis"] == "card data"
        assert "legality current card data (2026-08-22)" in provenance_line(prov)
        # Pauper (not in the shipped history) is known from the first sync's card data on.
        report = validate(BOLT, "pauper", cards=db, as_of="2026-08-21")
        [missing] = [p for p in report.problems if p.code == "legality-history-missing"]
        assert "before 2026-08-22" in missing.message
        assert "Pauper's legality on 2026-08-22" in missing.message
        report = validate(BOLT, "pauper", cards=db, as_of="2026-08-22")
        assert "legality-history-missing" not in codes(report)
    assert (
        main(["changes", "--db", dated_file_db, "--format", "pauper", "--since", "2025-01-01"]) == 0
    )
    assert "knows pauper's changes only from 2026-08-22" in capsys.readouterr().out
    deck = tmp_path / "bolt.txt"
    deck.write_text(BOLT, encoding="utf-8")
    assert main(["validate", str(deck), "--format", "modern", "--db", dated_file_db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["provenance"]["legality_as_of"] == "2026-08-22"


def test_card_data_date_prefers_updated_at_then_the_file_name_then_the_sync():
    from validator.history.provenance import card_data_date

    synced = "2026-12-01 10:00:00"
    assert card_data_date(
        {
            "updated_at": "2026-09-08T09:01:57+00:00",
            "source_uri": "oracle-cards-20260822.json",
            "finished_at": synced,
        }
    ) == date(2026, 9, 8)
    assert card_data_date(
        {"source_uri": "/x/oracle-cards-20260908090157.json", "finished_at": synced}
    ) == date(2026, 9, 8)
    assert card_data_date({"source_uri": "/x/cards.json", "finished_at": synced}) == date(
        2026, 12, 1
    )
    assert card_data_date(None) is None


def test_event_csv_as_of_gives_the_date_each_deck_was_judged_as_of(dated_file_db, tmp_path, capsys):
    """Undated decks of a per-deck run were judged by the card data (its date), never "per
    deck"; an unreadable input of such a run has no date; in a one-date run it is the run's."""
    folder = tmp_path / "ev"
    folder.mkdir()
    (folder / "bolt.txt").write_text(BOLT, encoding="utf-8")
    manifest = folder / "players.csv"
    manifest.write_text(
        "file,player,format,as_of\nbolt.txt,Alice,modern,2021-12-01\n"
        "bolt.txt,Bob,modern,\nmissing.txt,Carl,modern,\n",
        encoding="utf-8",
    )
    out = tmp_path / "r.csv"
    main(["validate", str(manifest), "--db", dated_file_db, "--report", str(out)])
    capsys.readouterr()
    with out.open(encoding="utf-8", newline="") as f:
        rows = {r["player"]: r["as_of"] for r in csv.DictReader(f)}
    assert rows == {"Alice": "2021-12-01", "Bob": "2026-08-22", "Carl": ""}
    main(
        [
            "validate",
            str(manifest),
            "--db",
            dated_file_db,
            "--as-of",
            "2022-01-01",
            "--report",
            str(out),
        ]
    )
    capsys.readouterr()
    with out.open(encoding="utf-8", newline="") as f:
        rows = {r["player"]: r["as_of"] for r in csv.DictReader(f)}
    assert rows == {"Alice": "2021-12-01", "Bob": "2022-01-01", "Carl": ""}
    # One date for the whole run: an unreadable input gets it too.
    one = folder / "one.csv"
    one.write_text(
        "file,player,format\nbolt.txt,Bob,modern\nmissing.txt,Carl,modern\n", encoding="utf-8"
    )
    for argv, day in (([], "2026-08-22"), (["--as-of", "2022-01-01"], "2022-01-01")):
        main(["validate", str(one), "--db", dated_file_db, *argv, "--report", str(out)])
        capsys.readouterr()
        with out.open(encoding="utf-8", newline="") as f:
            rows = {r["player"]: r["as_of"] for r in csv.DictReader(f)}
        assert rows == {"Bob": day, "Carl": day}, argv


def test_a_logged_change_is_dated_by_its_syncs_card_data(tmp_path):
    """Two files imported today, of 2026-06-09 and of 2026-08-22, the second banning Lightning
    Bolt in Modern: the ban happened between the two files' dates, not "today". Dated by the
    sync time (a regression review of the one card-data date), 2026-07-01 was judged with no
    warning and 2026-09-01 by the status before the ban, while saying it used the 08-22 data."""
    from validator.sync import import_file

    path = str(tmp_path / "cards.sqlite3")
    first = tmp_path / "oracle-cards-20260609.json"
    first.write_text((FIXTURES / "cards_core.json").read_text(encoding="utf-8"), encoding="utf-8")
    second = tmp_path / "oracle-cards-20260822.json"
    second.write_text(
        core_cards_with(tmp_path, "Lightning Bolt", "modern", "banned").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    import_file(first, path)
    import_file(second, path)
    with CardDB(path) as db:
        [ban] = [
            c
            for c in history_for(db).card_changes(db.card_by_id(BOLT_ID))
            if c.format == "modern" and c.source == "database"
        ]
        assert (ban.after, ban.on, ban.old, ban.new) == (
            date(2026, 6, 9),
            date(2026, 8, 22),
            "legal",
            "banned",
        )
        before = validate(BOLT, "modern", cards=db, as_of="2026-06-01")
        assert before.legal and not [p for p in before.problems if p.severity.value == "warning"]
        inside = validate(BOLT, "modern", cards=db, as_of="2026-07-01")
        assert inside.legal  # inside the window: the more permissive status, with a warning
        assert [p.code for p in inside.problems if p.severity.value == "warning"] == [
            "legality-date-uncertain"
        ]
        after = validate(BOLT, "modern", cards=db, as_of="2026-09-01")
        assert codes(after) == ["banned", "legality-history-missing"]  # after the data: said
