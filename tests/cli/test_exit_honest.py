"""Exit codes never lie, whatever happens around the verdict: a reader that stops reading, an
input of an unexpected shape, an option that does not apply, a library argument of the wrong
type. 0 legal, 1 a deck is not legal, 2 anything that stopped deckcheck from judging, with one
line that says what to do (README "CLI reference"; validator/errors.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# The CLI-error helpers and the Commander fixture database of the CLI error tests.
from cli_support import LEGAL_MODERN, run
from cli_support import assert_cannot_judge as one_error_line
from cli_support import deck as _deck

ILLEGAL_MODERN = "4 Lightning Bolt\n"  # 4 cards: too small (CR 100.2a)
NOT_UTF16 = b"\xff\xfe4\x00 \x00B"  # a UTF-16 BOM, then an odd byte count: no text


# ------------------------------------------------------------------ a reader that goes away


def _reader_gone(argv: list[str], *, unbuffered: bool, stderr_too: bool = False) -> tuple[int, str]:
    """Run the CLI in its own process with stdout (and with `stderr_too`, stderr) a pipe
    whose reader closed it before the first line was written, as `| head -1` does to a long
    output. Returns the exit code and what was written to stderr."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:  # every print reaches the pipe at once (and fails at once)
        env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen(
        [sys.executable, "-m", "validator", *argv],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if stderr_too else subprocess.PIPE,
    )
    proc.stdout.close()  # the process is still starting: nothing has been written yet
    err = b"" if stderr_too else proc.stderr.read()
    if proc.stderr is not None:
        proc.stderr.close()
    return proc.wait(timeout=120), err.decode("utf-8", "replace")


@pytest.fixture()
def three_decks(tmp_path):
    """A directory of a legal, an illegal and an unreadable Modern deck."""
    folder = tmp_path / "decks"
    folder.mkdir()
    (folder / "a.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    (folder / "b.txt").write_text(ILLEGAL_MODERN, encoding="utf-8")
    (folder / "c.txt").write_bytes(NOT_UTF16)
    return folder


@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize("json_out", [False, True], ids=["text", "json"])
def test_closed_stdout_keeps_the_verdict_of_an_illegal_deck(
    core_db, tmp_path, unbuffered, json_out
):
    deck = tmp_path / "bad.txt"
    deck.write_text(ILLEGAL_MODERN, encoding="utf-8")
    argv = ["validate", str(deck), "--format", "modern", "--db", core_db]
    code, err = _reader_gone(argv + ["--json"] * json_out, unbuffered=unbuffered)
    assert code == 1, err  # was 0 (a broken pipe read as "legal"), or 120 (Python's flush)
    assert err == ""  # no traceback, no "Exception ignored ... BrokenPipeError"


@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
def test_closed_stdout_keeps_exit_2_for_an_unreadable_input(core_db, three_decks, unbuffered):
    code, err = _reader_gone(
        ["validate", str(three_decks), "--format", "modern", "--db", core_db], unbuffered=unbuffered
    )
    assert code == 2, err
    assert err.strip() == "deckcheck: c.txt: input is not valid UTF-16 text: truncated data"


def test_closed_stdout_and_stderr_keep_exit_2(core_db, three_decks, tmp_path):
    """Exit 2 for the unreadable input, not for a crash (which would also exit 2, silently
    with stderr closed): the report shows the run went through."""
    report = tmp_path / "event.csv"
    code, _ = _reader_gone(
        [
            "validate",
            str(three_decks),
            "--format",
            "modern",
            "--db",
            core_db,
            "--report",
            str(report),
        ],
        unbuffered=True,
        stderr_too=True,
    )
    assert code == 2
    rows = report.read_text(encoding="utf-8").splitlines()
    assert any("c.txt" in row and "unreadable" in row for row in rows), rows


def test_closed_stdout_still_writes_the_report(core_db, three_decks, tmp_path):
    report = tmp_path / "event.csv"
    code, err = _reader_gone(
        [
            "validate",
            str(three_decks),
            "--format",
            "modern",
            "--db",
            core_db,
            "--report",
            str(report),
        ],
        unbuffered=True,
    )
    assert code == 2, err
    text = report.read_text(encoding="utf-8")
    assert "b.txt" in text and "c.txt" in text


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["formats", "--json"], 0),  # longer than a pipe's buffer: fails inside the command
        (["check-formats", "DECK"], 1),  # four cards: legal in no format
        (["card", "Lightning Bolt"], 0),
        (["info"], 0),
        (["companion", "Each permanent card in your starting deck has mana value 2 or less."], 0),
        (["--help"], 0),
    ],
)
@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
def test_every_command_that_prints_survives_a_closed_stdout(
    core_db, tmp_path, argv, expected, unbuffered
):
    deck = tmp_path / "bad.txt"
    deck.write_text(ILLEGAL_MODERN, encoding="utf-8")
    argv = [str(deck) if a == "DECK" else a for a in argv]
    if argv[0] in ("check-formats", "card", "info"):
        argv += ["--db", core_db]
    code, err = _reader_gone(argv, unbuffered=unbuffered)
    assert (code, err) == (expected, "")


# ------------------------------------------------------------------ JSON scalars in a .json file


@pytest.mark.parametrize(
    "content, what",
    [
        ("null", "a JSON null"),
        ('"hello"', "a JSON string"),
        ("42", "a JSON number"),
        ("[]", "a JSON list"),
    ],
)
def test_a_json_file_holding_no_deck_is_refused_not_judged(
    core_db, tmp_path, capsys, content, what
):
    path = tmp_path / "j11.json"
    path.write_text(content + "\n", encoding="utf-8")
    code, out, err = run(capsys, "validate", str(path), "--format", "modern", "--db", core_db)
    one_error_line(
        code, err, f"this JSON is not a deck deckcheck can read (it is {what})", "--input-format"
    )
    assert out == ""


def test_a_truncated_json_file_says_malformed_json(core_db, tmp_path, capsys):
    path = tmp_path / "deck.json"
    path.write_text('  "main": [[4, "Lightning Bolt"]', encoding="utf-8")  # lost its "{"
    code, _, err = run(capsys, "validate", str(path), "--format", "modern", "--db", core_db)
    one_error_line(code, err, "malformed JSON", "line 1 column")


def test_json_scalar_content_without_a_json_name_is_still_a_text_deck():
    import validator
    from validator.decklist import DecklistError

    deck = validator.parse_decklist("42\n")  # stdin, deck.txt: a one-line text deck
    assert deck.input_format == "text" and deck.issues
    assert validator.parse_decklist(b"null", filename="deck.txt").entries[0].name == "null"
    with pytest.raises(DecklistError, match="it is a JSON null"):
        validator.parse_decklist(b"null", filename="deck.JSON")


# ------------------------------------------------------------------ a JSON deck's as_of


@pytest.mark.parametrize("as_of", [20260101, "", [2026, 1, 1], {"date": "2026-01-01"}])
def test_a_json_deck_as_of_that_is_no_date_string_is_an_input_error(
    core_db, tmp_path, capsys, as_of
):
    import json

    import validator

    body = json.dumps({"main": [[4, "Lightning Bolt"], [56, "Mountain"]], "as_of": as_of})
    path = tmp_path / "deck.json"
    path.write_text(body, encoding="utf-8")
    code, out, err = run(capsys, "validate", str(path), "--format", "modern", "--db", core_db)
    one_error_line(code, err, "deck.json: as_of", "is not a date", "YYYY-MM-DD")
    assert out == ""  # no verdict by current legality
    with pytest.raises(validator.DecklistError, match="as_of .* is not a date") as info:
        validator.validate(body, "modern", db=core_db)
    assert info.value.code == "bad-decklist"


def test_a_json_deck_as_of_null_means_no_date(core_db):
    import validator

    body = '{"main": [[4, "Lightning Bolt"], [56, "Mountain"]], "as_of": null}'
    assert validator.validate(body, "modern", db=core_db).legal


def test_the_service_refuses_a_json_deck_as_of_that_is_no_date_string(core_db):
    """The service reads decklists with the same parser: a 400, not a 200 judged as of today."""
    pytest.importorskip("fastapi", reason="the service needs the serve extra")
    pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (in the test extra)")
    from fastapi.testclient import TestClient

    from validator.service.app import ServiceConfig, create_app

    deck = '{"main": [[4, "Lightning Bolt"], [56, "Mountain"]], "as_of": 20260101}'
    with TestClient(create_app(ServiceConfig(db=core_db, poll_seconds=0))) as client:
        response = client.post("/v1/validate", json={"decklist": deck, "format": "modern"})
    assert response.status_code == 400, response.text
    assert response.json()["code"] == "bad-decklist"
    assert "as_of 20260101 is not a date" in response.json()["detail"]


# ------------------------------------------------------------------ options that would be ignored


@pytest.mark.parametrize("command", ["validate", "check-formats"])
def test_empty_as_of_is_a_usage_error_naming_the_forms(core_db, tmp_path, capsys, command):
    argv = [command, _deck(tmp_path), "--db", core_db, "--as-of", ""]
    code, out, err = run(capsys, *argv, *(["--format", "modern"] if command == "validate" else []))
    one_error_line(code, err, "--as-of is empty", "YYYY-MM-DD", "YYYY-MM")
    assert out == ""


def test_empty_as_of_in_the_library_is_an_as_of_error(core_db):
    import validator

    for call in (
        lambda: validator.validate(LEGAL_MODERN, "modern", db=core_db, as_of=""),
        lambda: validator.check_formats(LEGAL_MODERN, db=core_db, as_of=""),
    ):
        with pytest.raises(validator.AsOfError, match="as_of '' is not a date.*YYYY-MM-DD"):
            call()


def test_commander_with_a_file_naming_a_non_commander_format_stops_like_bracket(
    commander_db, tmp_path, capsys
):
    """Many inputs, one naming its own format: --commander (like --bracket) is an option of
    the whole run, so a deck it cannot apply to stops the run rather than being ignored."""
    legal = _deck(tmp_path)
    for option in (["--bracket", "3"], ["--commander", "Tymna the Weaver"]):
        code, _, err = run(capsys, "validate", f"{legal}:modern", "--db", commander_db, *option)
        one_error_line(code, err, f"{option[0]} applies only to the Commander family")


def test_commander_options_apply_to_the_commander_decks_of_a_mixed_run(core_db, tmp_path, capsys):
    """--commander with a Commander default and one FILE:modern: the Modern deck is judged
    without it (as before this session), not the whole run refused."""
    cmd = _deck(tmp_path, "1 Lurrus of the Dream-Den\n1 Mountain\n", "cmd.txt")
    modern = _deck(tmp_path, LEGAL_MODERN, "modern.txt")
    code, out, err = run(
        capsys,
        "validate",
        cmd,
        f"{modern}:modern",
        "--format",
        "commander",
        "--db",
        core_db,
        "--commander",
        "Lurrus of the Dream-Den",
    )
    assert code == 1 and err == ""  # the Commander deck is too small, and judged
    assert "modern.txt" in out and "UNREADABLE" not in out


def test_a_manifest_commander_cell_on_another_format_is_a_warning(core_db, tmp_path, capsys):
    """A stray commander cell on a Modern row: the deck is judged, its report says the cell
    was ignored (it was silently ignored before; then, briefly, the deck was unreadable)."""
    import json

    _deck(tmp_path, LEGAL_MODERN, "modern.txt")
    manifest = tmp_path / "m.csv"
    manifest.write_text(
        "file,format,commander\nmodern.txt,modern,Lightning Bolt\n", encoding="utf-8"
    )
    code, out, _ = run(capsys, "validate", str(manifest), "--db", core_db, "--json")
    assert code == 0
    report = json.loads(out)  # one deck: its report, as validate --json prints one
    assert [(p["code"], p["severity"]) for p in report["problems"]] == [
        ("commander-ignored", "warning")
    ]


def test_commander_in_a_commander_format_still_works(commander_db, tmp_path, capsys):
    text = "1 Tymna the Weaver\n1 Sol Ring\n"
    code, out, _ = run(
        capsys,
        "validate",
        _deck(tmp_path, text),
        "--format",
        "commander",
        "--db",
        commander_db,
        "--commander",
        "Tymna the Weaver",
    )
    assert code == 1 and "Tymna the Weaver" in out  # too small, but judged


@pytest.mark.parametrize("name", ["", "   "])
def test_empty_commander_name_is_refused_plainly(commander_db, tmp_path, capsys, name):
    code, out, err = run(
        capsys,
        "validate",
        _deck(tmp_path),
        "--format",
        "commander",
        "--db",
        commander_db,
        "--commander",
        name,
    )
    one_error_line(code, err, "a commander's name is empty", "full card name")
    assert "did you mean" not in err and out == ""


def test_an_empty_commander_name_given_as_one_string_is_refused_too(commander_db):
    import validator

    for names in ("", "  ", ["Tymna the Weaver", ""]):
        with pytest.raises(validator.UsageError, match="a commander's name is empty"):
            validator.validate(LEGAL_MODERN, "commander", db=commander_db, commanders=names)


# ------------------------------------------------------------------ companion and $DECKCHECK_DB


def test_companion_card_name_uses_deckcheck_db(core_db, capsys, monkeypatch):
    monkeypatch.setenv("DECKCHECK_DB", core_db)
    code, out, err = run(capsys, "companion", "Lurrus of the Dream-Den")
    assert code == 0, err
    assert out.startswith("Lurrus of the Dream-Den: companion condition")
    assert "mana value 2 or less" in out


def test_companion_sentence_needs_no_database(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DECKCHECK_DB", str(tmp_path / "missing.sqlite3"))
    code, out, _ = run(
        capsys, "companion", "Each permanent card in your starting deck has mana value 2 or less."
    )
    assert code == 0 and "reads as:" in out


def test_companion_name_without_any_database_says_how_to_give_one(tmp_path, capsys, monkeypatch):
    import validator.store.location as location

    monkeypatch.delenv("DECKCHECK_DB", raising=False)
    monkeypatch.setattr(location, "default_db_path", lambda: tmp_path / "none.sqlite3")
    code, _, err = run(capsys, "companion", "Lurrus of the Dream-Den")
    one_error_line(code, err, "cannot read condition", "give --db (or set $DECKCHECK_DB)")


def test_companion_unknown_name_with_a_database(core_db, capsys):
    code, _, err = run(capsys, "companion", "Lurrus of the Dream Dens", "--db", core_db)
    one_error_line(code, err, "cannot read condition", "nor is it a card's name")


# ------------------------------------------------------------------ library arguments


def _usage(call, *words: str) -> None:
    """The call raises a UsageError (a DeckcheckError, code "usage") saying `words`."""
    import validator

    with pytest.raises(validator.DeckcheckError) as info:
        call()
    assert isinstance(info.value, validator.UsageError) and info.value.code == "usage", info.value
    for word in words:
        assert word in str(info.value), str(info.value)


@pytest.fixture(scope="module")
def index(core_db):
    import validator

    return validator.CardIndex.from_db(validator.open_db(core_db))


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"format": "commander", "bracket": 9}, ["bracket=", "1 to 5", "9"]),
        ({"format": "commander", "bracket": "3"}, ["bracket=", "'3'"]),
        ({"format": "commander", "bracket": True}, ["bracket="]),
        ({"format": None}, ["format=", "'modern'", "None"]),
        ({"format": 5}, ["format=", "an int"]),
        ({"format": "commander", "commanders": [None]}, ["commanders=", "list of strings", "None"]),
        ({"format": "commander", "commanders": 5}, ["commanders=", "list of strings"]),
        ({"format": "modern", "rules": [None]}, ["rules=", "list of strings", "None"]),
        ({"format": "commander", "commanders": [""]}, ["commander's name is empty"]),
        (
            {"format": "house", "formats": {"house": {"name": "x"}}},
            ["formats=", "FormatRules", "load_formats", "'house'"],
        ),
        ({"format": "modern", "formats": ["modern"]}, ["formats=", "mapping"]),
    ],
)
def test_validate_argument_of_the_wrong_type_is_a_usage_error(index, kwargs, words):
    import validator

    fmt = kwargs.pop("format")
    _usage(lambda: validator.validate(LEGAL_MODERN, fmt, cards=index, **kwargs), *words)


def test_cards_given_a_path_says_to_pass_db(core_db):
    import validator

    _usage(
        lambda: validator.validate(LEGAL_MODERN, "modern", cards=core_db),
        "cards=",
        "open_db",
        "CardIndex",
        "pass db=",
    )
    _usage(lambda: validator.check_formats(LEGAL_MODERN, cards=core_db), "pass db=")


def test_check_formats_checks_its_arguments_too(index):
    import validator

    _usage(
        lambda: validator.check_formats(LEGAL_MODERN, cards=index, commanders=[None]), "commanders="
    )
    _usage(
        lambda: validator.check_formats(
            LEGAL_MODERN, cards=index, formats={"house": {"name": "x"}}
        ),
        "'house'",
    )
    _usage(lambda: validator.check_formats(None, cards=index), "a decklist is text", "None")


@pytest.mark.parametrize(
    "deck, words",
    [
        (None, ["a decklist is text", "None"]),
        (5, ["an int"]),
        ({"main": [[4, "Lightning Bolt"]]}, ["a dict", "json.dumps"]),
    ],
)
def test_a_decklist_of_the_wrong_type_is_a_usage_error(index, deck, words):
    import validator

    _usage(lambda: validator.parse_decklist(deck), *words)
    _usage(lambda: validator.validate(deck, "modern", cards=index), *words)


def test_parse_decklist_reads_text_streams_like_binary_ones(tmp_path):
    import io

    import validator
    from validator.decklist import MAX_BYTES

    assert validator.parse_decklist(io.StringIO(LEGAL_MODERN)) == validator.parse_decklist(
        io.BytesIO(LEGAL_MODERN.encode())
    )
    path = tmp_path / "deck.txt"
    path.write_text(LEGAL_MODERN, encoding="utf-8")
    with open(path, encoding="utf-8") as text_file:
        assert len(validator.parse_decklist(text_file).entries) == 2
    with pytest.raises(validator.DecklistError, match="limit"):  # read at most limit + 1
        validator.parse_decklist(io.StringIO("1 Island\n" * (MAX_BYTES // 9 + 10)))


def test_one_string_is_one_commander_and_one_rule(commander_db, index):
    import validator

    text = "1 Tymna the Weaver\n1 Sol Ring\n"
    one = validator.validate(text, "commander", db=commander_db, commanders="Tymna the Weaver")
    listed = validator.validate(text, "commander", db=commander_db, commanders=["Tymna the Weaver"])
    assert one.to_dict() == listed.to_dict()
    rule = "Each nonland card in your starting deck has mana value 2 or less."
    big = "4 Lightning Bolt\n4 Sol Ring\n52 Mountain\n"
    one = validator.validate(big, "vintage", cards=index, rules=rule)
    listed = validator.validate(big, "vintage", cards=index, rules=[rule])
    assert one.to_dict() == listed.to_dict()


def test_event_collect_takes_one_path(tmp_path, monkeypatch):
    from pathlib import Path

    from validator.event import collect

    monkeypatch.chdir(tmp_path)  # a relative path: its characters "d", "1" are no files
    Path("d1").mkdir()
    Path("d1", "a.txt").write_text(LEGAL_MODERN, encoding="utf-8")
    for one in ("d1", Path("d1")):
        jobs = collect(one).jobs
        assert [(j.source, j.error) for j in jobs] == [("a.txt", None)]


# ------------------------------------------------------------------ what a JSON file is not


def test_a_truncated_event_file_without_format_says_malformed_json(core_db, tmp_path, capsys):
    path = tmp_path / "event.json"
    path.write_text(
        '{"Tournament": {"Date": "2026-07-18"}, "Decks": [{"Player": "a", ', encoding="utf-8"
    )
    code, _, err = run(capsys, "validate", str(path), "--db", core_db)
    one_error_line(code, err, "event.json: malformed JSON", "line 1 column")
    assert "no format" not in err


def test_sync_from_an_event_file_says_what_a_bulk_file_holds(tmp_path, capsys):
    path = tmp_path / "event.json"
    path.write_text(
        '{\n  "Tournament": {"Date": "2026-07-18"},\n  "Decks": []\n}\n', encoding="utf-8"
    )
    code, _, err = run(capsys, "sync", "--from", str(path), "--db", str(tmp_path / "c.sqlite3"))
    assert code == 2 and "Traceback" not in err
    assert 'Scryfall card objects (with "name" and "oracle_id")' in err, err
    assert "one per line (JSON Lines) or in one JSON array" in err
