"""Exit codes never lie, whatever happens around the verdict: a reader that stops reading, an
input of an unexpected shape, an option that does not apply, a library argument of the wrong
type. 0 legal, 1 a deck is not legal, 2 anything that stopped deckcheck from judging, with one
line that says what to do (README "CLI reference"; validator/errors.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from validator.cli import main

LEGAL_MODERN = "4 Lightning Bolt\n56 Mountain\n"
ILLEGAL_MODERN = "4 Lightning Bolt\n"  # 4 cards: too small (CR 100.2a)
NOT_UTF16 = b"\xff\xfe4\x00 \x00B"  # a UTF-16 BOM, then an odd byte count: no text


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(code: int, err: str, *hints: str) -> None:
    """Exit 2, one line on stderr, no traceback, and the words that say what to do."""
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for hint in hints:
        assert hint in err, err


# ------------------------------------------------------------------ a reader that goes away

def _reader_gone(argv: list[str], *, unbuffered: bool, stderr_too: bool = False
                 ) -> tuple[int, str]:
    """Run the CLI in its own process with stdout (and with `stderr_too`, stderr) a pipe
    whose reader closed it before the first line was written, as `| head -1` does to a long
    output. Returns the exit code and what was written to stderr."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:  # every print reaches the pipe at once (and fails at once)
        env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.Popen([sys.executable, "-m", "validator", *argv], env=env,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT if stderr_too else subprocess.PIPE)
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
def test_closed_stdout_keeps_the_verdict_of_an_illegal_deck(core_db, tmp_path, unbuffered,
                                                            json_out):
    deck = tmp_path / "bad.txt"
    deck.write_text(ILLEGAL_MODERN, encoding="utf-8")
    argv = ["validate", str(deck), "--format", "modern", "--db", core_db]
    code, err = _reader_gone(argv + ["--json"] * json_out, unbuffered=unbuffered)
    assert code == 1, err  # was 0 (a broken pipe read as "legal"), or 120 (Python's flush)
    assert err == ""  # no traceback, no "Exception ignored ... BrokenPipeError"


@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
def test_closed_stdout_keeps_exit_2_for_an_unreadable_input(core_db, three_decks, unbuffered):
    code, err = _reader_gone(["validate", str(three_decks), "--format", "modern",
                              "--db", core_db], unbuffered=unbuffered)
    assert code == 2, err
    assert err.strip() == "deckcheck: c.txt: input is not valid UTF-16 text: truncated data"


def test_closed_stdout_and_stderr_keep_exit_2(core_db, three_decks):
    code, _ = _reader_gone(["validate", str(three_decks), "--format", "modern", "--db", core_db],
                           unbuffered=True, stderr_too=True)
    assert code == 2


def test_closed_stdout_still_writes_the_report(core_db, three_decks, tmp_path):
    report = tmp_path / "event.csv"
    code, err = _reader_gone(["validate", str(three_decks), "--format", "modern", "--db", core_db,
                              "--report", str(report)], unbuffered=True)
    assert code == 2, err
    text = report.read_text(encoding="utf-8")
    assert "b.txt" in text and "c.txt" in text


@pytest.mark.parametrize("argv, expected", [
    (["formats", "--json"], 0),  # longer than a pipe's buffer: fails inside the command
    (["check-formats", "DECK"], 1),  # four cards: legal in no format
    (["card", "Lightning Bolt"], 0),
    (["info"], 0),
    (["companion", "Each permanent card in your starting deck has mana value 2 or less."], 0),
    (["--help"], 0),
])
@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
def test_every_command_that_prints_survives_a_closed_stdout(core_db, tmp_path, argv, expected,
                                                            unbuffered):
    deck = tmp_path / "bad.txt"
    deck.write_text(ILLEGAL_MODERN, encoding="utf-8")
    argv = [str(deck) if a == "DECK" else a for a in argv]
    if argv[0] in ("check-formats", "card", "info"):
        argv += ["--db", core_db]
    code, err = _reader_gone(argv, unbuffered=unbuffered)
    assert (code, err) == (expected, "")
