"""docs/cli.md is the CLI as it is: what scripts/build_cli_docs.py writes from --help now.

A command or option added to the parser without rerunning the script fails here, so the
reference never silently lags the program."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLI_MD = ROOT / "docs" / "cli.md"


def _script():
    spec = importlib.util.spec_from_file_location(
        "build_cli_docs", ROOT / "scripts" / "build_cli_docs.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_md_is_what_the_script_generates_now() -> None:
    assert CLI_MD.read_text(encoding="utf-8") == _script().generate(), (
        "docs/cli.md is out of date: run `python scripts/build_cli_docs.py` and commit it"
    )


def test_every_command_and_option_is_in_cli_md() -> None:
    from validator.cli.parser import build_parser

    text = CLI_MD.read_text(encoding="utf-8")
    commands = _script().subcommands(build_parser())
    assert {"sync", "validate", "check-formats", "serve"} <= set(commands)
    for name, sub in commands.items():
        assert f"## deckcheck {name}\n" in text, name
        for action in sub._actions:
            for option in action.option_strings:
                assert option in text, (name, option)
            if not action.option_strings and not isinstance(action, argparse._SubParsersAction):
                assert (action.metavar or action.dest) in text, (name, action.dest)


def test_the_generated_page_does_not_depend_on_the_terminal(monkeypatch) -> None:
    """argparse wraps to the terminal's width; the script fixes it, so CI and a wide terminal
    write the same page."""
    monkeypatch.setenv("COLUMNS", "200")
    assert _script().generate() == CLI_MD.read_text(encoding="utf-8")
