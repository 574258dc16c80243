"""Helpers of the CLI tests: run the command in-process, check a could-not-judge answer, write
a deck file."""

from __future__ import annotations

from validator.cli import main

LEGAL_MODERN = "4 Lightning Bolt\n56 Mountain\n"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_cannot_judge(code: int, err: str, *hints: str) -> None:
    """Exit 2, one line on stderr, no traceback, and the hint that says what to do."""
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for hint in hints:
        assert hint in err, err


def deck(tmp_path, text: str = LEGAL_MODERN, name: str = "deck.txt") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)
