"""`deckcheck` command line: a thin layer over the library API.

Exit codes: 0 legal (or success), 1 a deck is not legal, 2 anything that stopped deckcheck
from judging (bad input or usage, no usable card database, a file that cannot be read or
written), always as one line on stderr, never a traceback; 3 no deck is illegal but one is
unconfirmed (every error one deckcheck cannot decide: an unknown card name...).
Heavy modules are imported inside the commands that need them, so the CLI starts fast.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from validator.cli.commands import COMMANDS
from validator.cli.output import DEBUG_ENV, EXIT_USAGE, Output, err, one_line
from validator.cli.parser import build_parser, subcommand
from validator.errors import DeckcheckError


def _is_database_failure(exc: BaseException) -> bool:
    """A driver or SQLAlchemy error that no library call converted (the CLI's last guard)."""
    import sqlite3

    return isinstance(exc, sqlite3.Error) or any(
        k.__module__.startswith(("sqlalchemy.", "psycopg")) for k in type(exc).__mro__
    )


def _unexpected(args: argparse.Namespace, exc: Exception) -> str:
    """The one line for an exception no layer below turned into a DeckcheckError."""
    if _is_database_failure(exc):
        from validator.store.database import database_error, database_url

        return str(database_error(database_url(getattr(args, "db", None)), exc))
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return f"{where}{exc.strerror or exc}"
    if os.environ.get(DEBUG_ENV):
        import traceback

        traceback.print_exc()
    return (
        f"internal error ({type(exc).__name__}: {exc}); this is a bug in deckcheck: please "
        f"report it with the command that caused it ({DEBUG_ENV}=1 prints the traceback)"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Exit 0 legal/success, 1 a deck is not legal, 2 anything that stopped
    deckcheck from judging: never a traceback, never 1 for an error, and a closed output
    changes none of them (`Output`)."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (s if s is None else Output(s) for s in streams)
    try:
        return _main(argv)
    finally:
        for out in (sys.stdout, sys.stderr):
            if isinstance(out, Output):
                out.flush()  # now, while a closed pipe is still caught
        sys.stdout, sys.stderr = streams


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    # Known arguments first, so that one a subcommand does not take is refused by that
    # subcommand's parser (its options suggested, its --help named), not the top level's.
    args, extras = parser.parse_known_args(argv)
    if extras:
        subcommand(parser, args.command).unrecognized(extras)  # type: ignore[attr-defined]
    if args.command is None:  # nothing was done: the command list, and exit 2 (usage)
        parser.print_help()
        err("give a command (listed above); deckcheck COMMAND --help shows its options")
        return EXIT_USAGE
    try:
        return COMMANDS[args.command](args)
    except DeckcheckError as exc:
        err(one_line(str(exc)))
        return EXIT_USAGE
    except KeyboardInterrupt:
        err("interrupted")
        return 130
    except Exception as exc:  # noqa: BLE001 - exit 1 would claim a deck is illegal
        err(one_line(_unexpected(args, exc)))
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
