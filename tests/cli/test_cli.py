"""The `deckcheck` command line, end to end on a small card database built from fixtures."""

from __future__ import annotations

import csv
import io
import json

import pytest

from validator.cli import main

LEGAL_MODERN = "4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n\n3 Counterspell\n"
ILLEGAL_MODERN = "5 Lightning Bolt\n55 Mountain\n1 Lurrus of the Dream-Den\n"


@pytest.fixture
def db(core_db) -> str:
    return core_db


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_legal_deck_exits_zero(db, tmp_path, capsys):
    code, out, _ = run(
        capsys,
        "validate",
        write(tmp_path, "ok.txt", LEGAL_MODERN),
        "--format",
        "modern",
        "--db",
        db,
    )
    assert code == 0
    assert "LEGAL in Modern" in out


def test_illegal_deck_exits_one_and_names_cards_and_rules(db, tmp_path, capsys):
    code, out, _ = run(
        capsys,
        "validate",
        write(tmp_path, "bad.txt", ILLEGAL_MODERN),
        "--format",
        "modern",
        "--db",
        db,
    )
    assert code == 1
    assert "NOT LEGAL in Modern" in out
    assert "5 copies of Lightning Bolt" in out and "[CR 100.2a]" in out
    assert "Lurrus of the Dream-Den is banned in Modern" in out


def test_json_report_schema(db, tmp_path, capsys):
    code, out, _ = run(
        capsys,
        "validate",
        write(tmp_path, "bad.txt", ILLEGAL_MODERN),
        "--format",
        "modern",
        "--db",
        db,
        "--json",
    )
    report = json.loads(out)
    assert code == 1
    assert report["schema"] == "deckcheck.report/1" and report["legal"] is False
    assert report["deck"]["main"] == 61
    copies = next(p for p in report["problems"] if p["code"] == "too-many-copies")
    assert copies == {
        "code": "too-many-copies",
        "severity": "error",
        "citation": "CR 100.2a",
        "message": copies["message"],
        "cards": ["Lightning Bolt"],
        "lines": [1],
    }


def test_stdin(db, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(LEGAL_MODERN.encode())))
    code, out, _ = run(capsys, "validate", "-", "--format", "modern", "--db", db)
    assert code == 0 and out.startswith("-: LEGAL")


def test_many_files_summary_and_csv_report_one_bad_file_does_not_stop_others(db, tmp_path, capsys):
    files = [
        write(tmp_path, "a.txt", LEGAL_MODERN),
        str(tmp_path / "missing.txt"),
        write(tmp_path, "b.txt", ILLEGAL_MODERN),
    ]
    out_csv = tmp_path / "event.csv"
    code, out, err = run(
        capsys, "validate", *files, "--format", "modern", "--db", db, "--report", str(out_csv)
    )
    assert code == 2  # an unreadable file is an input error
    assert "missing.txt" in err
    assert "1 of 2 decks legal" in out
    rows = list(csv.DictReader(out_csv.open(encoding="utf-8")))
    # One row per problem plus one per legal deck and per unreadable input, in input order.
    assert [(r["id"], r["verdict"]) for r in rows] == [
        (files[0], "legal"),
        (files[1], "unreadable"),
        (files[2], "illegal"),
        (files[2], "illegal"),
    ]
    assert rows[1]["message"] == "no such file or directory"
    assert {r["code"] for r in rows[2:]} == {"too-many-copies", "banned"}


def test_unknown_format_is_a_usage_error(db, tmp_path, capsys):
    code, _, err = run(
        capsys,
        "validate",
        write(tmp_path, "ok.txt", LEGAL_MODERN),
        "--format",
        "modren",
        "--db",
        db,
    )
    assert code == 2 and "unknown format 'modren'" in err


def test_missing_database_says_how_to_sync(tmp_path, capsys):
    code, _, err = run(
        capsys,
        "validate",
        write(tmp_path, "ok.txt", LEGAL_MODERN),
        "--format",
        "modern",
        "--db",
        str(tmp_path / "none.sqlite3"),
    )
    assert code == 2 and "deckcheck sync" in err


def test_unknown_card_line_number_and_suggestion(db, tmp_path, capsys):
    deck = LEGAL_MODERN.replace("4 Goblin Guide", "4 Goblin Guid")
    code, out, _ = run(
        capsys, "validate", write(tmp_path, "typo.txt", deck), "--format", "modern", "--db", db
    )
    assert code == 3  # a name not in the card data: unconfirmed, not illegal
    assert "UNCONFIRMED in Modern" in out
    assert "line 2: unknown card 'Goblin Guid'; did you mean 'Goblin Guide'" in out
    assert "could not check (unknown-card): settled by a corrected card name" in out
    assert "too small" not in out  # the unknown card still counts toward the 60


def test_card_command_shows_validator_facts(db, capsys):
    code, out, _ = run(capsys, "card", "fire/ice", "--db", db)
    assert code == 0
    assert "name: Fire // Ice" in out and "mana value: 4" in out and "color identity: UR" in out
    code, _, err = run(capsys, "card", "Lightnig Bolt", "--db", db)
    assert code == 2 and "did you mean 'Lightning Bolt'" in err


@pytest.mark.parametrize("name", ["", "   "])
def test_card_command_with_an_empty_name_asks_for_one(db, capsys, name):
    code, out, err = run(capsys, "card", name, "--db", db)
    assert code == 2 and out == "" and "give a card name" in err and "did you mean" not in err


def test_companion_command_with_a_first_name_suggests_the_card(db, capsys):
    """`deckcheck companion Lurrus`: neither a sentence nor a full name; the card is offered,
    as validate offers it for a decklist line."""
    code, out, err = run(capsys, "companion", "Lurrus", "--db", db)
    assert code == 2 and out == "" and "did you mean 'Lurrus of the Dream-Den'" in err


def test_formats_and_info(db, capsys):
    code, out, _ = run(capsys, "formats")
    assert code == 0 and "commander" in out and "=100" in out
    code, out, _ = run(capsys, "info", "--db", db)
    assert code == 0 and "cards: " in out and "last sync:" in out


def test_check_formats_lists_legal_formats(db, tmp_path, capsys):
    code, out, _ = run(capsys, "check-formats", write(tmp_path, "ok.txt", LEGAL_MODERN), "--db", db)
    assert code == 0
    assert "legal in" in out and "Modern" in out.splitlines()[0]
    assert "not Commander" in out


def test_sync_from_missing_file_is_a_usage_error(tmp_path, capsys):
    code, _, err = run(
        capsys,
        "sync",
        "--from",
        str(tmp_path / "nope.jsonl.gz"),
        "--db",
        str(tmp_path / "x.sqlite3"),
    )
    assert code == 2 and "no such file" in err


def test_sync_from_corrupt_file_keeps_previous_database(db, tmp_path, capsys):
    import shutil

    copy = tmp_path / "copy.sqlite3"
    shutil.copy(db, copy)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"object": "card", "name": "X"\n', encoding="utf-8")
    code, _, err = run(capsys, "sync", "--from", str(bad), "--db", str(copy))
    assert code == 2 and "line 1" in err and "unchanged" in err
    code, out, _ = run(capsys, "card", "Lightning Bolt", "--db", str(copy))
    assert code == 0
