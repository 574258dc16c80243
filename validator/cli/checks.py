"""The checks a command makes before any work: its input files, report paths, dates, rules and
commander options, each refused in one line naming what is wrong and what to do."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from validator.errors import UsageError


def read_input(name: str) -> tuple[bytes, str]:
    """A decklist file (or `-`, standard input): at most the size limit + 1 bytes are read."""
    from validator.decklist import DecklistError, read_limited

    path = Path(name)
    try:
        if name == "-":
            return read_limited(sys.stdin.buffer), "-"
        with open(path, "rb") as f:
            return read_limited(f), path.name
    except DecklistError as exc:
        raise UsageError(f"cannot read {name}: {exc}") from exc
    except IsADirectoryError as exc:
        raise UsageError(
            f"{name} is a directory; give the decklist files in it (e.g. {path / '*.txt'})"
        ) from exc
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from exc


def open_cards(db: str | None, many: bool):
    """The card source for this run, checked now: a database that cannot be used stops the
    run with one line before any deck is read, however many were given."""
    from validator.api import open_db

    cards = open_db(db)
    if many:
        from validator.store.index import CardIndex

        return CardIndex.from_db(cards)
    return cards


def check_rules(rules: Sequence[str]) -> None:
    if not rules:
        return
    from validator.rules.companion.reader import ConditionError, parse_condition

    for sentence in rules:
        try:
            parse_condition(sentence)
        except ConditionError as exc:
            raise UsageError(f"--rule {sentence!r}: {exc}") from exc


#: Report files `--report` writes, by extension.
REPORT_SUFFIXES = (".csv", ".json", ".html", ".htm")


def check_report_path(path: Path, suffixes: Sequence[str] | None = None) -> None:
    """Fail before validating, not after judging a whole event, when `--report` cannot be
    written: an unknown extension, a directory, a directory that does not exist, no right
    to write. The file is opened for appending (nothing is truncated) and removed again if
    this created it."""
    if path.is_dir():
        raise UsageError(
            f"--report {path} is a directory; give a file name such as {path / 'report.csv'}"
        )
    suffixes = REPORT_SUFFIXES if suffixes is None else suffixes
    if path.suffix.lower() not in suffixes:
        raise UsageError(
            f"--report {path}: the report's type comes from its extension; "
            f"use one of {', '.join(suffixes)}"
        )
    from validator.event.reports import check_report_writable

    try:
        check_report_writable(path)
    except OSError as exc:
        raise UsageError(
            f"cannot write --report {path}: {exc.strerror or exc}; choose a file in "
            "a directory that exists and that you can write to"
        ) from exc


def check_as_of(value: str | None) -> None:
    """A bad --as-of is a usage error before any deck is read; an empty one too (it would
    otherwise mean current legality, silently)."""
    if value is None or value in ("event", "today"):
        return
    from validator.dates import AS_OF_FORMS, parse_as_of
    from validator.history.legality import check_history_start, shipped_history

    when = parse_as_of(value, "--as-of")
    if when is None:
        raise UsageError(
            f"--as-of is empty; give a date, {AS_OF_FORMS}, or 'event' (validate), "
            "or leave --as-of out to judge by current legality"
        )
    check_history_start(when.day, shipped_history().start, "--as-of")


def check_commander_options(inputs: Any, args: argparse.Namespace, formats: Any) -> None:
    """--commander and --bracket are for the run's Commander-family decks (the others are
    judged without them, `event.judge`): a run with none of those cannot use them, so they are
    refused before any deck is judged, not silently ignored (as the library's check_bracket)."""
    from validator.api import check_bracket
    from validator.rules.formats import FormatError, get_format

    if not args.commander and args.bracket is None:
        return
    found = []
    names = {job.format or args.format for job in inputs.jobs if job.error is None} - {None}
    for name in sorted(names):
        try:
            found.append(get_format(name, formats))
        except FormatError:
            continue  # said on the deck itself
    if not found and args.format:
        found.append(get_format(args.format, formats))
    leader = next((f for f in found if f.is_commander), found[0] if found else None)
    if leader is not None:
        check_bracket(leader, args.bracket, args.commander)
