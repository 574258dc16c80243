"""Review fixes (2026-12-01): documented calls that crashed, inputs that were misread and
messages that did not say what to do next."""

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
    with pytest.raises(UsageError, match=r"run_event\(inputs=...\): got dict; pass what "
                                         r"validator.event.collect"):
        event.run_event({"bolt.txt": "modern"}, db=core_db)


@pytest.mark.parametrize("encoding, sep", [("utf-16", ","), ("utf-8", ";"), ("utf-16", ";"),
                                           ("utf-8-sig", "\t")])
def test_manifest_saved_as_utf16_or_with_semicolons_is_a_manifest(
        core_db, tmp_path, capsys, encoding, sep):
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
    code, _, err = run(capsys, "validate", str(deck), "nosuch", "--format", "modern",
                       "--db", core_db)
    assert "nosuch: no such file or directory" in err and "--format" not in err


def test_a_manifest_row_with_an_unknown_format_or_commander_names_its_line(
        core_db, tmp_path, capsys):
    (tmp_path / "bolt.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    manifest = tmp_path / "players.csv"
    manifest.write_text("file,player,format,commander\nbolt.txt,Ann,modrn,\n"
                        "bolt.txt,Ben,commander,Nosuchcardname\n", encoding="utf-8")
    report = tmp_path / "r.json"
    code, _, err = run(capsys, "validate", str(manifest), "--db", core_db, "--report",
                       str(report))
    assert code == 2
    lines = err.splitlines()
    assert any("unknown format 'modrn'" in l and l.endswith(
        "(the format column of players.csv line 2)") for l in lines), err
    assert any("Nosuchcardname" in l and l.endswith(
        "(the commander column of players.csv line 3)") for l in lines), err
    data = json.loads(report.read_text(encoding="utf-8"))
    assert all("players.csv line" in u["error"] for u in data["unreadable"])
