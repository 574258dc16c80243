"""Event inputs read as the docs say (run_event's inputs, manifests with blank lines, UTF-16
or semicolons, CSV decks with a file column), and messages that say what to do next (a format
named as a file, a manifest row's bad cell, a text deck saved as JSON, argument errors)."""

from __future__ import annotations

import json

import pytest

from validator import event
from validator.cli import main
from validator.errors import UsageError

LEGAL_MODERN = "4 Lightning Bolt\n4 Goblin Guide\n52 Mountain\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_event_takes_the_input_strings_as_the_readme_says(core_db, tmp_path):
    deck = tmp_path / "bolt.txt"
    deck.write_text(LEGAL_MODERN, encoding="utf-8")
    result = event.run_event([f"{deck}:modern"], db=core_db)
    assert isinstance(result, event.EventResult)
    assert [(r.format, r.verdict) for r in result.results] == [("modern", "legal")]
    one = event.run_event(f"{deck}:modern", db=core_db)  # one path, not its characters
    assert [r.verdict for r in one.results] == ["legal"]


def test_run_event_with_something_else_is_a_usage_error_saying_what_to_pass(core_db):
    with pytest.raises(
        UsageError,
        match=r"run_event\(inputs=...\): got dict; pass what "
        r"validator.event.run.collect",
    ):
        event.run_event({"bolt.txt": "modern"}, db=core_db)


def test_run_event_with_standard_input_says_to_pass_the_text(core_db):
    """'-' was collected without a stdin reader: "no card lines found", blaming the deck."""
    for inputs in (["-"], ["-:modern"]):
        with pytest.raises(UsageError, match="standard input"):
            event.run_event(inputs, db=core_db)


def test_a_manifest_may_start_with_blank_lines(core_db, tmp_path, capsys):
    """Its header was taken from the blank first line: every row "without a file"."""
    (tmp_path / "bolt.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    manifest = tmp_path / "players.csv"
    manifest.write_text(
        "\n\nfile,player,format\nbolt.txt,Ann,modern\nnope.txt,Bo,modern\n", encoding="utf-8"
    )
    code, out, err = run(capsys, "validate", str(manifest), "--db", core_db)
    assert code == 2 and "bolt.txt#Ann  modern     legal" in out
    assert "players.csv line 5" in out + err  # the row's own line, blank lines counted


def test_a_deck_csv_with_a_file_column_is_a_deck_not_a_manifest(core_db, tmp_path, capsys):
    deck = tmp_path / "deck.csv"
    deck.write_text("Quantity;Name;File\n4;Lightning Bolt;a\n56;Mountain;b\n", encoding="utf-8")
    code, out, err = run(capsys, "validate", str(deck), "--format", "modern", "--db", core_db)
    assert (code, err) == (0, "") and "LEGAL in Modern" in out


@pytest.mark.parametrize(
    "encoding, sep", [("utf-16", ","), ("utf-8", ";"), ("utf-16", ";"), ("utf-8-sig", "\t")]
)
def test_manifest_saved_as_utf16_or_with_semicolons_is_a_manifest(
    core_db, tmp_path, capsys, encoding, sep
):
    (tmp_path / "bolt.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    manifest = tmp_path / "players.csv"
    text = "file;player;format\r\nbolt.txt;Ann;modern\r\n".replace(";", sep)
    manifest.write_bytes(text.encode(encoding))  # utf-16: with its BOM, as Excel saves it
    code, out, err = run(capsys, "validate", str(manifest), "--db", core_db)
    assert (code, err) == (0, "")
    assert "bolt.txt#Ann: LEGAL in Modern" in out


def test_a_missing_input_that_is_a_format_name_suggests_format(core_db, tmp_path, capsys):
    deck = tmp_path / "bolt.txt"
    deck.write_text(LEGAL_MODERN, encoding="utf-8")
    code, _, err = run(capsys, "validate", str(deck), "Modern", "--db", core_db)
    assert code == 2
    assert "Modern: no such file or directory; did you mean --format modern?" in err
    code, _, err = run(
        capsys, "validate", str(deck), "nosuch", "--format", "modern", "--db", core_db
    )
    assert "nosuch: no such file or directory" in err and "--format" not in err


def test_a_manifest_row_with_an_unknown_format_or_commander_names_its_line(
    core_db, tmp_path, capsys
):
    (tmp_path / "bolt.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    manifest = tmp_path / "players.csv"
    manifest.write_text(
        "file,player,format,commander\nbolt.txt,Ann,modrn,\n"
        "bolt.txt,Ben,commander,Nosuchcardname\n",
        encoding="utf-8",
    )
    report = tmp_path / "r.json"
    code, _, err = run(capsys, "validate", str(manifest), "--db", core_db, "--report", str(report))
    assert code == 2
    lines = err.splitlines()
    assert any(
        "unknown format 'modrn'" in ln and ln.endswith("(the format column of players.csv line 2)")
        for ln in lines
    ), err
    assert any(
        "Nosuchcardname" in ln and ln.endswith("(the commander column of players.csv line 3)")
        for ln in lines
    ), err
    data = json.loads(report.read_text(encoding="utf-8"))
    assert all("players.csv line" in u["error"] for u in data["unreadable"])


def test_a_text_deck_saved_as_json_says_how_to_read_it_as_text(core_db, tmp_path, capsys):
    deck = tmp_path / "deck.json"
    deck.write_text(LEGAL_MODERN, encoding="utf-8")
    code, _, err = run(capsys, "validate", str(deck), "--format", "modern", "--db", core_db)
    assert code == 2 and "malformed JSON" in err
    assert (
        "a .json file is read as JSON: rename it (e.g. to .txt) or pass --input-format text" in err
    )
    code, out, _ = run(
        capsys,
        "validate",
        str(deck),
        "--format",
        "modern",
        "--db",
        core_db,
        "--input-format",
        "text",
    )
    assert code == 0 and "LEGAL" in out
    broken = tmp_path / "broken.json"  # JSON that is broken: no hint about text
    broken.write_text('{"main": [[4, "Lightning Bolt"]', encoding="utf-8")
    code, _, err = run(capsys, "validate", str(broken), "--format", "modern", "--db", core_db)
    assert code == 2 and "malformed JSON" in err and "--input-format text" not in err


def test_csv_quantity_4x_is_read_as_a_text_list_reads_it_and_a_bad_one_is_named():
    from validator.decklist import parse_decklist

    deck = parse_decklist(
        "qty,name\n4x,Lightning Bolt\n4 x,Goblin Guide\n52,Mountain\n", filename="d.csv"
    )
    assert [(e.quantity, e.name) for e in deck.entries] == [
        (4, "Lightning Bolt"),
        (4, "Goblin Guide"),
        (52, "Mountain"),
    ]
    deck = parse_decklist("qty,name\nfour,Lightning Bolt\n56,Mountain\n", filename="d.csv")
    [issue] = deck.issues
    assert issue.line == 2 and issue.code == "bad-quantity"
    assert issue.message == (
        "quantity 'four' is not a number of copies; write it as a whole "
        "number in digits (4, or 4x as in a text list)"
    )


def test_check_formats_with_two_files_says_to_use_validate(core_db, tmp_path, capsys):
    code, out, err = run(capsys, "check-formats", "a.txt", "b.txt", "--db", core_db)
    assert (code, out) == (2, "")
    assert err == (
        "deckcheck: check-formats takes one decklist, not 2 (a.txt, b.txt); to check "
        "many, use `deckcheck validate FILE... --format F`\n"
    )


@pytest.mark.parametrize(
    "argv, words",
    [
        (
            ["validate", "x.txt", "--jobs", "abc"],
            ["--jobs", "'abc'", "give a whole number", "see deckcheck validate --help"],
        ),
        (["validate", "x.txt", "--jobs", "float"], ["--jobs", "'float'", "give a whole number"]),
        (["sync", "--min-rate", "fast"], ["--min-rate", "'fast'", "(give a number)"]),
        (
            ["validate", "x.txt", "--bracket", "9"],
            ["--bracket", "9", "choose from 1, 2, 3, 4, 5", "see deckcheck validate --help"],
        ),
        (
            ["validate", "x.txt", "--input-format", "mtgo"],
            ["--input-format", "'mtgo'", "'mtgo-dek'", "see deckcheck validate --help"],
        ),
        (["serve", "--port", "http"], ["--port", "'http'", "see deckcheck serve --help"]),
        (["frob"], ["'frob'", "'validate'", "see deckcheck --help"]),
    ],
)
def test_argument_errors_are_one_line_naming_option_value_and_choices(capsys, argv, words):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("deckcheck: ") and "usage:" not in err
    for word in words:
        assert word in err, (word, err)


def test_verbose_help_says_what_the_readme_says(capsys):
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "also show notes (how the commander was found, the bracket...) and the files "
        "skipped as not decklists" in out
    )


@pytest.mark.parametrize(
    "name",
    [
        "oracle-cards-20260908090157.json",
        "oracle-cards-derived-20260822.jsonl.gz",
        "ORACLE_CARDS.json",
    ],
)
def test_sync_printings_from_an_oracle_cards_file_is_refused(core_db, tmp_path, capsys, name):
    import shutil

    from support import FIXTURES

    from validator.store.database import CardDB

    path = tmp_path / name
    shutil.copy(FIXTURES / "cards_core.json", path)
    before = CardDB(core_db).info().printing_count
    code, out, err = run(capsys, "sync", "--from", str(path), "--printings", "--db", core_db)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1
    assert f"{name} is Scryfall's oracle_cards file (one printing per card)" in err
    assert "import it without --printings" in err and "default-cards" in err
    assert CardDB(core_db).info().printing_count == before == 0


def test_a_quantity_after_the_name_is_suggested_first_and_the_line_stays_unknown(core_db):
    import validator

    text = "4 Goblin Guide\nLightning Bolt x4\nLightning Bolt 4\n52 Mountain\nNosuchcard 4\n"
    cards = validator.open_db(core_db)
    report = validator.validate(text, "modern", cards=cards)
    unknown = {p.lines: p.message for p in report.problems if p.code == "unknown-card"}
    assert unknown[(2,)].startswith(
        "line 2: unknown card 'Lightning Bolt x4'; if 4 is the number "
        "of copies, write it first: '4 Lightning Bolt'"
    )
    assert "write it first: '4 Lightning Bolt'" in unknown[(3,)]
    assert "write it first" not in unknown[(5,)]  # the rest is no card: no such hint
    assert not report.legal and report.main_count == 59  # each unknown line counts as listed
