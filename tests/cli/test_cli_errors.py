"""Errors never look like verdicts: every way deckcheck can fail to judge exits 2 with one
line that says what to do, never a traceback and never exit 1."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sqlite3
import subprocess
import sys
import textwrap

import pytest
from cli_support import LEGAL_MODERN, assert_cannot_judge, deck, run  # noqa: E402
from support import FIXTURES

import validator
from validator.cli import main
from validator.cli.parser import build_parser
from validator.rules.formats import KEY_TYPES, FormatError, FormatRules, get_format, load_formats

# ------------------------------------------------------------------------------ the database


def _not_a_database(tmp_path) -> str:
    path = tmp_path / "notes.txt"
    path.write_text("this is not SQLite\n" * 100, encoding="utf-8")
    return str(path)


def _empty_sqlite(tmp_path) -> str:
    path = tmp_path / "other.sqlite3"
    sqlite3.connect(path).execute("CREATE TABLE unrelated (x)").connection.close()
    return str(path)


DATABASE_CASES = {
    "missing-driver-mysql": (
        lambda tmp: "mysql://user@127.0.0.1/cards",
        ["MySQLdb", "is not installed"],
    ),
    "unknown-scheme": (lambda tmp: "nosuchdb://host/cards", ["unknown database URL scheme"]),
    "not-a-database-file": (_not_a_database, ["is not a card database", "deckcheck sync"]),
    "directory": (lambda tmp: str(tmp), ["is a directory", "cards.sqlite3"]),
    "other-sqlite-database": (_empty_sqlite, ["not a deckcheck card database", "deckcheck sync"]),
    "missing-file": (lambda tmp: str(tmp / "none.sqlite3"), ["no card database", "deckcheck sync"]),
}


@pytest.mark.parametrize("case", sorted(DATABASE_CASES))
def test_database_that_cannot_be_used_exits_2_with_a_hint(case, tmp_path, capsys):
    make_db, hints = DATABASE_CASES[case]
    code, out, err = run(
        capsys, "validate", deck(tmp_path), "--format", "modern", "--db", make_db(tmp_path)
    )
    assert_cannot_judge(code, err, *hints)
    assert out == ""


def test_postgres_url_without_psycopg_says_how_to_install_it(tmp_path, capsys):
    if importlib.util.find_spec("psycopg") is not None:
        pytest.skip("psycopg is installed here: the driver is not missing")
    code, _, err = run(
        capsys,
        "validate",
        deck(tmp_path),
        "--format",
        "modern",
        "--db",
        "postgresql+psycopg://user:secret@127.0.0.1:1/cards",
    )
    assert_cannot_judge(code, err, "psycopg", "pip install '.[postgres]'")
    assert "secret" not in err  # the password is never echoed


@pytest.mark.parametrize(
    "command",
    [
        ["card", "Lightning Bolt"],
        ["info"],
        ["info", "--json"],
        ["changes"],
        ["changes", "--json"],
        ["formats"],
        ["check-formats", "DECK"],
    ],
)
def test_every_command_that_reads_cards_reports_a_bad_database_the_same_way(
    command, tmp_path, capsys
):
    argv = [deck(tmp_path) if a == "DECK" else a for a in command]
    code, _, err = run(capsys, *argv, "--db", _not_a_database(tmp_path))
    assert_cannot_judge(code, err, "is not a card database")


def test_a_hundred_files_and_a_bad_database_is_still_one_line(tmp_path, capsys):
    files = [deck(tmp_path, name=f"d{i}.txt") for i in range(100)]  # the warm-index path
    code, out, err = run(
        capsys, "validate", *files, "--format", "modern", "--db", _not_a_database(tmp_path)
    )
    assert_cannot_judge(code, err, "is not a card database")
    assert out == ""


def test_library_raises_database_error_at_open(tmp_path):
    with pytest.raises(validator.DatabaseError) as info:
        validator.open_db(_not_a_database(tmp_path))
    assert info.value.code == "database-unavailable" and "\n" not in str(info.value)
    with pytest.raises(validator.DatabaseError, match="is not installed"):
        validator.open_db("mysql://user@127.0.0.1/cards")
    with pytest.raises(validator.DatabaseError, match="not a deckcheck card database"):
        validator.validate("4 Island", "modern", db=_empty_sqlite(tmp_path))


def test_sync_into_a_url_without_driver_exits_2(tmp_path, capsys):
    code, _, err = run(
        capsys,
        "sync",
        "--from",
        str(FIXTURES / "cards_core.json"),
        "--db",
        "mysql://user@127.0.0.1/cards",
    )
    assert code == 2 and "Traceback" not in err and "is not installed" in err


def test_sync_from_a_directory_says_it_is_one(tmp_path, capsys):
    code, _, err = run(capsys, "sync", "--from", str(tmp_path), "--db", str(tmp_path / "c.sqlite3"))
    assert_cannot_judge(code, err, "is a directory, not a bulk file")


def test_real_process_has_no_traceback_and_exit_2(tmp_path):
    """The installed entry point, as a user runs it (an uncaught exception would exit 1)."""
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "validator",
            "validate",
            deck(tmp_path),
            "--format",
            "modern",
            "--db",
            _not_a_database(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert_cannot_judge(result.returncode, result.stderr, "is not a card database")


# ------------------------------------------------------------------------------ files


def test_report_path_is_checked_before_validating(core_db, tmp_path, capsys):
    target = tmp_path / "no-such-dir" / "event.csv"
    code, out, err = run(
        capsys,
        "validate",
        deck(tmp_path),
        "--format",
        "modern",
        "--db",
        core_db,
        "--report",
        str(target),
    )
    assert_cannot_judge(code, err, "cannot write --report", "directory that exists")
    assert out == ""  # nothing was validated


@pytest.mark.parametrize(
    "report, hint", [("DIR", "is a directory"), ("event.txt", "use one of .csv, .json")]
)
def test_report_path_that_is_a_directory_or_has_no_known_type(
    report, hint, core_db, tmp_path, capsys
):
    target = str(tmp_path) if report == "DIR" else str(tmp_path / report)
    code, out, err = run(
        capsys,
        "validate",
        deck(tmp_path),
        "--format",
        "modern",
        "--db",
        core_db,
        "--report",
        target,
    )
    assert_cannot_judge(code, err, hint)
    assert out == ""


def test_report_check_leaves_no_file_behind_when_the_run_fails(tmp_path, capsys):
    target = tmp_path / "event.json"
    code, _, _ = run(
        capsys,
        "validate",
        deck(tmp_path),
        "--format",
        "modern",
        "--db",
        str(tmp_path / "none.sqlite3"),
        "--report",
        str(target),
    )
    assert code == 2 and not target.exists()


def test_report_is_still_written_after_the_check(core_db, tmp_path, capsys):
    target = tmp_path / "event.json"
    code, _, _ = run(
        capsys,
        "validate",
        deck(tmp_path),
        "--format",
        "modern",
        "--db",
        core_db,
        "--report",
        str(target),
    )
    assert code == 0 and json.loads(target.read_text())["reports"][0]["legal"] is True


def test_directory_given_as_a_decklist(core_db, tmp_path, capsys):
    # Directories are walked (README "Events"); one without decklists cannot be judged.
    code, _, err = run(capsys, "validate", str(tmp_path), "--format", "modern", "--db", core_db)
    assert_cannot_judge(code, err, "no decklist files in this directory")
    assert err.count(str(tmp_path)) == 1  # the name once: not repeated


def test_directory_given_as_the_formats_file(core_db, tmp_path, capsys):
    code, _, err = run(
        capsys,
        "validate",
        deck(tmp_path),
        "--format",
        "modern",
        "--db",
        core_db,
        "--formats-file",
        str(tmp_path),
    )
    assert_cannot_judge(code, err, "is a directory", "TOML file")


def test_unknown_format_suggests_the_near_one(core_db, tmp_path, capsys):
    code, _, err = run(capsys, "validate", deck(tmp_path), "--format", "modren", "--db", core_db)
    assert_cannot_judge(code, err, "unknown format 'modren'", "did you mean modern?")


def test_unknown_input_format_is_a_usage_error(core_db, tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(
            [
                "validate",
                deck(tmp_path),
                "--format",
                "modern",
                "--db",
                core_db,
                "--input-format",
                "word",
            ]
        )
    assert info.value.code == 2
    assert "mtgo-dek" in capsys.readouterr().err


def test_bad_companion_sentence_exits_2(capsys):
    code, _, err = run(capsys, "companion", "Each card is fine.")
    assert code == 2 and "Traceback" not in err


def test_companion_with_db_reads_a_card_by_name(core_db, capsys):
    code, out, _ = run(capsys, "companion", "lurrus of the dream-den", "--db", core_db)
    assert code == 0 and out.startswith("Lurrus of the Dream-Den: companion condition")
    assert "mana value 2 or less" in out
    code, _, err = run(capsys, "companion", "Lightning Bolt", "--db", core_db)
    assert_cannot_judge(code, err, "Lightning Bolt has no companion ability")


def test_an_unexpected_error_is_exit_2_not_a_verdict(core_db, capsys, monkeypatch):
    def broken(args):
        raise RuntimeError("boom")

    monkeypatch.setitem(__import__("validator.cli.commands").cli.commands.COMMANDS, "info", broken)
    code, _, err = run(capsys, "info", "--db", core_db)
    assert_cannot_judge(code, err, "internal error (RuntimeError: boom)", "DECKCHECK_DEBUG=1")


def test_a_driver_error_that_escapes_is_converted_at_the_boundary(core_db, capsys, monkeypatch):
    def broken(args):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setitem(__import__("validator.cli.commands").cli.commands.COMMANDS, "info", broken)
    code, _, err = run(capsys, "info", "--db", core_db)
    assert_cannot_judge(code, err, "database is locked", "--db")


# ------------------------------------------------------------------------------ formats files


def house(tmp_path, text: str) -> str:
    path = tmp_path / "house.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "body, hint",
    [
        (
            '[hl]\nname = "HL"\nlegality = "vintage"\nmin_deck = "sixty"\n',
            "format [hl]: min_deck must be a whole number (0 or more), not 'sixty'",
        ),
        (
            '[hl]\nname = "HL"\nlegality = "vintage"\ncompanions = "no"\n',
            "format [hl]: companions must be true or false",
        ),
        (
            '[hl]\nname = "HL"\nlegality = "vintage"\nmin_deck = true\n',
            "format [hl]: min_deck must be",
        ),
        (
            '[hl]\nname = "HL"\nlegality = "vintage"\nkind = "cube"\n',
            "format [hl]: kind must be one of constructed, commander, oathbreaker",
        ),
        (
            '[hl]\nname = "HL"\nlegality = "vintage"\nbanned_as_commander = "Sol Ring"\n',
            "format [hl]: banned_as_commander must be a list of strings",
        ),
        (
            '[hl]\nname = "HL"\nlegality = "vintage"\ncitations = { deck_sise = "CR 1" }\n',
            "format [hl]: citations.deck_sise is not a check that cites",
        ),
        (
            '[hl]\nname = "HL"\nlegality = "vintage"\nmin_dek = 40\n',
            "format [hl]: unknown key min_dek; did you mean min_deck?",
        ),
        ('[hl]\nname = "HL"\n', "format [hl] needs a `legality`"),
        (
            '[hl]\nname = "HL"\nlegality = "vintage"\nmin_deck = 100\nmax_deck = 60\n',
            "max_deck (60) is smaller than min_deck (100)",
        ),
        ("[defaults]\nsideboard_max = -1\n", "[defaults]: sideboard_max must be a whole number"),
        ("hl = 3\n", "`hl` must be a table"),
        (
            '[my-house]\nname = "A"\nlegality = "vintage"\n[my_house]\nname = "B"\nlegality = "vintage"\n',
            "[my-house] and [my_house] name the same format",
        ),
        ("[hl\n", "not valid TOML"),
    ],
)
def test_formats_file_errors_name_file_table_and_key(body, hint, core_db, tmp_path, capsys):
    path = house(tmp_path, body)
    with pytest.raises(FormatError) as info:
        load_formats(path)
    assert hint in str(info.value) and str(path) in str(info.value)
    code, _, err = run(
        capsys,
        "validate",
        deck(tmp_path),
        "--format",
        "modern",
        "--db",
        core_db,
        "--formats-file",
        path,
    )
    assert_cannot_judge(code, err, hint)


def test_documented_keys_are_exactly_the_format_fields():
    import dataclasses

    # points_cap and points_sideboard are read into the `points` list they belong to;
    # name_status is derived from banned / restricted / allowed, _by_name is its cache;
    # list_version and list_note say which dated list's version the format is as of (`on`).
    derived = {"key", "name_status", "_by_name", "list_version", "list_note"}
    fields = {f.name for f in dataclasses.fields(FormatRules)} - derived
    assert set(KEY_TYPES) == fields | {"points_cap", "points_sideboard"}


def test_format_names_ignore_hyphens_underscores_and_case(tmp_path):
    assert (
        get_format("standard-brawl") is get_format("standard_brawl") is get_format("Standard Brawl")
    )
    assert get_format("pauper-commander").key == "paupercommander"
    formats = load_formats(
        house(
            tmp_path,
            """
        [standard-brawl]
        name = "House Standard Brawl"
        legality = "standardbrawl"
        kind = "commander"
        min_deck = 60
        max_deck = 60
        copy_limit = 1
        [my_house]
        name = "My House"
        legality = "vintage"
    """,
        )
    )
    assert get_format("standard_brawl", formats).name == "House Standard Brawl"
    assert "standard-brawl" not in formats  # one spelling per format: it replaced the built-in
    assert get_format("my-house", formats).name == "My House"


def test_cli_format_names_with_underscores(commander_db, tmp_path, capsys):
    code, out, _ = run(
        capsys, "validate", deck(tmp_path), "--format", "standard_brawl", "--db", commander_db
    )
    assert code == 1 and "Standard Brawl" in out


# ------------------------------------------------------------------------------ options


@pytest.mark.parametrize(
    "option, value, kwargs",
    [
        ("--bracket", "2", {"bracket": 2}),
        ("--commander", "Tymna the Weaver", {"commanders": ["Tymna the Weaver"]}),
    ],
)
def test_commander_options_outside_the_commander_family_are_usage_errors(
    commander_db, tmp_path, capsys, option, value, kwargs
):
    """The option cannot apply to a Modern deck: refused, not ignored with exit 0, on the CLI
    (with the way out) and in the library."""
    code, out, err = run(
        capsys,
        "validate",
        deck(tmp_path),
        "--format",
        "modern",
        "--db",
        commander_db,
        option,
        value,
    )
    assert_cannot_judge(
        code, err, f"{option} applies only to the Commander family", "--format commander"
    )
    assert out == ""
    # The library names its own argument (`bracket=`), not the CLI's flag.
    argument = f"{next(iter(kwargs))}="
    with pytest.raises(validator.UsageError, match=f"^{argument} applies only") as info:
        validator.validate(LEGAL_MODERN, "modern", cards=validator.CardIndex(), **kwargs)
    assert info.value.code == "usage" and "--" not in str(info.value)


def test_commander_short_name_suggests_the_full_one(commander_db, tmp_path, capsys):
    code, out, err = run(
        capsys,
        "validate",
        deck(tmp_path),
        "--format",
        "commander",
        "--db",
        commander_db,
        "--commander",
        "Tymna",
    )
    assert_cannot_judge(
        code, err, "commander 'Tymna' is not a card name", "did you mean 'Tymna the Weaver'?"
    )
    assert out == ""


def test_commander_section_with_an_unknown_card_says_it_is_unknown(commander_db, tmp_path, capsys):
    text = "Commander\n1 Tymna the Weavr\n\nDeck\n1 Sol Ring\n1 Plains\n"
    code, out, _ = run(
        capsys,
        "validate",
        deck(tmp_path, text),
        "--format",
        "commander",
        "--db",
        commander_db,
        "--json",
    )
    problems = {p["code"]: p for p in json.loads(out)["problems"]}
    assert code == 1
    assert "commander-missing" not in problems and "No commander found" not in out
    unknown = problems["commander-unknown"]
    assert unknown["lines"] == [2] and unknown["cards"] == ["Tymna the Weavr"]
    assert "'Tymna the Weavr', which is not a known card" in unknown["message"]


def test_text_output_shows_the_lines_the_json_has(core_db, tmp_path, capsys):
    text = "3 Lightning Bolt\n56 Mountain\n\n2 Lightning Bolt\n"
    code, out, _ = run(
        capsys, "validate", deck(tmp_path, text), "--format", "modern", "--db", core_db
    )
    assert code == 1
    assert "5 copies of Lightning Bolt" in out and "(line 1, 4) [CR 100.2a]" in out


# ------------------------------------------------------------------------------ --help and JSON


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


@pytest.mark.parametrize("name", sorted(_subparsers()))
def test_every_subcommand_help_describes_itself_its_options_and_exit_codes(name, capsys):
    sub = _subparsers()[name]
    assert sub.description and sub.description.splitlines()[0].endswith(".")
    for action in sub._actions:
        assert action.help, f"{name} {action.option_strings or action.dest} has no help"
    with pytest.raises(SystemExit) as info:
        main([name, "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0 and "exit codes:" in out and "2  " in out
    assert "--db" in out or name == "completion"  # the one command that reads no card data


@pytest.mark.parametrize("name", ["validate", "check-formats"])
def test_help_lists_the_parser_registry_input_formats(name, capsys):
    from validator.decklist import INPUT_FORMATS

    with pytest.raises(SystemExit):
        main([name, "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "one of: " + ", ".join(INPUT_FORMATS) in out


def test_info_and_changes_json(core_db, capsys):
    code, out, _ = run(capsys, "info", "--db", core_db, "--json")
    info = json.loads(out)
    assert code == 0 and info["schema"] == "deckcheck.info/1" and info["cards"] > 0
    assert info["last_sync"]["finished_at"]  # a date, as ISO text
    assert info["printed_names"] == {}  # no `sync --languages`
    code, out, _ = run(capsys, "changes", "--db", core_db, "--json")
    assert code == 0 and json.loads(out) == {"schema": "deckcheck.changes/1", "changes": []}


def test_info_counts_the_printed_names_by_language(core_db, localized_db, capsys):
    """`info` says which languages' names a list can be written in, and how to get them."""
    code, out, _ = run(capsys, "info", "--db", localized_db, "--json")
    printed = json.loads(out)["printed_names"]
    assert code == 0 and printed["ja"] >= 1 and printed["de"] >= 1
    code, out, _ = run(capsys, "info", "--db", localized_db)
    total = sum(printed.values())
    assert f"printed names: {total:,} in {len(printed)} languages (de {printed['de']:,}" in out
    code, out, _ = run(capsys, "info", "--db", core_db)
    assert code == 0 and "printed names: none (`deckcheck sync --languages`" in out


def test_check_formats_json_has_a_schema(core_db, tmp_path, capsys):
    code, out, _ = run(capsys, "check-formats", deck(tmp_path), "--db", core_db, "--json")
    data = json.loads(out)
    assert code == 0 and data["schema"] == "deckcheck.check-formats/1"
    assert "modern" in data["legal_in"] and data["formats"]["modern"]["legal"] is True
    assert data["formats"]["commander"]["problems"][0]["severity"] == "error"


def test_formats_with_db_marks_formats_the_database_lacks(core_db, tmp_path, capsys):
    path = house(tmp_path, '[hl]\nname = "HL"\nlegality = "highlander"\n')
    code, out, _ = run(capsys, "formats", "--db", core_db, "--formats-file", path, "--json")
    data = json.loads(out)
    assert code == 0 and data["hl"]["in_database"] is False and data["modern"]["in_database"]


# ------------------------------------------------------------------------------ the docstring


def test_package_docstring_example_runs_as_written(core_db, monkeypatch, capsys):
    doc = validator.__doc__
    block = doc[
        doc.index("    import validator") : doc.index("\n\n", doc.index("validator.validate("))
    ]
    monkeypatch.setenv("DECKCHECK_DB", core_db)
    exec(compile(textwrap.dedent(block), "validator.__doc__", "exec"), {})
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("True [] deckcheck.report/1")
    assert out[1].startswith("bad-format unknown format 'no-such-format'")
