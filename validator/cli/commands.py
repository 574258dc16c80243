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
from pathlib import Path
from typing import Any

from validator.errors import DeckcheckError, UsageError
from validator.history.schema import CHANGES_SCHEMA

EXIT_OK, EXIT_ILLEGAL, EXIT_USAGE, EXIT_UNCONFIRMED = 0, 1, 2, 3
#: Set to print the traceback of an internal error (a bug) after its one-line message.
DEBUG_ENV = "DECKCHECK_DEBUG"
#: The schema of the JSON `info --json` prints (`changes --json`: validator.history.changes).
INFO_SCHEMA = "deckcheck.info/1"
#: The shells `deckcheck completion` writes a script for (shtab's).
COMPLETION_SHELLS = ("bash", "zsh")


#: The exit codes, as every command's --help shows them (README "CLI reference").
EXITS_JUDGING = """exit codes:
  0  the deck is legal (check-formats: legal in at least one format)
  1  a deck is not legal
  2  deckcheck could not judge: bad input or usage, an unknown format, an invalid formats
     file, no usable card database, a file that cannot be read or a report that cannot be
     written (one line on stderr says what to do)
  3  unconfirmed: no deck is found illegal, but some error is one deckcheck cannot decide
     (a name not in the card data, a rarity without --printings, a companion condition it
     cannot read, an unknown legality status); the output says what would settle it"""
EXITS_PLAIN = """exit codes:
  0  success
  2  it could not be done: bad input or usage, no usable card database, a file that cannot
     be read (one line on stderr says what to do)"""


def _err(message: str) -> None:
    from validator.report import (
        escape_controls,
    )  # a file or player name can carry terminal controls

    print(f"deckcheck: {escape_controls(message)}", file=sys.stderr)


def _one_line(message: str) -> str:
    """Errors are one line on stderr, whatever the layer below put in the message."""
    return "; ".join(part.strip() for part in message.splitlines() if part.strip())


class _Parser(argparse.ArgumentParser):
    """argparse with its errors as one line on stderr (README "CLI reference": a `2` is always
    one line): the option, the bad value and what is allowed, then where to read more; not
    argparse's multi-line usage block."""

    def error(self, message: str) -> Any:
        for kind, what in (("int", "a whole number"), ("float", "a number")):
            if f"invalid {kind} value" in message:  # not "float" anywhere: `--jobs float`
                message += f" (give {what})"
        _err(_one_line(f"{message}; see {self.prog} --help"))
        self.exit(EXIT_USAGE)

    def unrecognized(self, extras: Sequence[str]) -> Any:
        """The error for arguments this (sub)command does not take, with the closest option
        for each mistyped one (`--fromat`: did you mean --format?), pointing at this
        command's own --help rather than the top level's."""
        import difflib

        options = [o for a in self._actions for o in a.option_strings if o.startswith("--")]
        hints = []
        for extra in extras:
            if extra.startswith("-") and extra != "-":
                close = difflib.get_close_matches(extra.split("=", 1)[0], options, n=1, cutoff=0.6)
                if close and close[0] not in hints:
                    hints.append(close[0])
        hint = f" (did you mean {' or '.join(hints)}?)" if hints else ""
        self.error(f"unrecognized arguments: {' '.join(extras)}{hint}")


EXITS_RECHECK = """exit codes:
  0  no verdict changed
  1  at least one stored deck's verdict changed (listed, and in --report)
  2  it could not be done: bad DECKS, a STATE that is not deckcheck's, no usable card
     database, a notice that was not delivered (STATE keeps the new verdicts), or a deck
     row that could not be judged (the others were; one line on stderr each)"""


def _examples(examples: Sequence[str]) -> str:
    return "examples:\n" + "".join(f"  {line}\n" for line in examples) + "\n"


def _command(
    sub,
    name: str,
    summary: str,
    epilog: str = EXITS_PLAIN,
    details: str = "",
    examples: Sequence[str] = (),
) -> argparse.ArgumentParser:
    """A subcommand whose --help starts with its one-line summary and ends with a few real
    invocations and its exit codes."""
    import textwrap  # the raw formatter keeps the epilog's layout, so wrap the details here

    description = f"{summary}\n\n{textwrap.fill(details, 78)}" if details else summary
    return sub.add_parser(
        name,
        help=summary,
        description=description,
        epilog=_examples(examples) + epilog if examples else epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        metavar="PATH_OR_URL",
        help="card database: a SQLite path or a SQLAlchemy URL (default: "
        "$DECKCHECK_DB, else cards.sqlite3 in the user data directory)",
    )


def _add_input_format(p: argparse.ArgumentParser) -> None:
    from validator.decklist import INPUT_FORMATS  # the parser registry: every name it accepts

    p.add_argument(
        "--input-format",
        type=str.lower,
        choices=INPUT_FORMATS,
        metavar="NAME",
        help="read the decklist as this format instead of detecting it; one of: "
        + ", ".join(INPUT_FORMATS),
    )


def _add_formats_file(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--formats-file",
        type=Path,
        metavar="TOML",
        help="a TOML file of house formats with the keys of data/formats.toml (a "
        "table with a built-in name replaces that format)",
    )


def build_parser() -> argparse.ArgumentParser:
    from validator import __version__

    parser = _Parser(
        prog="deckcheck",
        description="Magic: The Gathering deck-legality checker.",
        epilog=_examples(
            [
                "deckcheck sync",
                "deckcheck validate deck.txt --format modern",
                "deckcheck card Lightning Bolt",
            ]
        )
        + EXITS_JUDGING,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"deckcheck {__version__}")
    # Not required: a bare `deckcheck` prints this help (its command list) rather than an
    # error naming COMMAND (_main).
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = _command(
        sub,
        "sync",
        "Download Scryfall's bulk card data into the card database.",
        details="Skips the download when Scryfall's data has not changed; ends with the "
        "legality changes since the last sync.",
        examples=[
            "deckcheck sync",
            "deckcheck sync --from oracle-cards.json",
            "deckcheck sync --printings --languages ja,it",
        ],
    )
    _add_db(p)
    p.add_argument(
        "--from",
        dest="from_file",
        type=Path,
        metavar="FILE",
        help="import a bulk file (JSON or JSON Lines, gzip or not) instead of "
        "downloading: a file on disk, or a pipe (`-` or /dev/stdin: "
        "curl ... | deckcheck sync --from -)",
    )
    p.add_argument("--force", action="store_true", help="import even if the data has not changed")
    p.add_argument(
        "--allow-shrink",
        action="store_true",
        help="let a file with fewer than half the database's cards replace them",
    )
    p.add_argument(
        "--printings",
        action="store_true",
        help="also sync printings (default_cards): set codes, rarities, flavor names",
    )
    p.add_argument(
        "--languages",
        metavar="CODES",
        help="also read the cards' printed names in these languages (Scryfall's codes, "
        "comma-separated: ja,it,fr,de,es,pt,ko,ru,zhs,zht..., or all) from Scryfall's "
        "all_cards bulk data, so that decklists in them resolve",
    )
    p.add_argument(
        "--languages-from",
        type=Path,
        metavar="ALL_CARDS_FILE",
        help="with --from: read the printed names from this all_cards file (JSON or JSON "
        "Lines, gzip or not) instead of downloading it (every language it has, unless "
        "--languages says which)",
    )
    p.add_argument(
        "--min-rate",
        type=float,
        metavar="KIB_PER_S",
        help="give up a download slower than this on average, after the stall "
        "timeout's grace (default: $DECKCHECK_SYNC_MIN_RATE or 32)",
    )
    p.add_argument(
        "--stall-timeout",
        type=float,
        metavar="SECONDS",
        help="give up a download when no data arrives for this long "
        "(default: $DECKCHECK_SYNC_STALL_TIMEOUT or 60)",
    )
    p.add_argument(
        "--request-timeout",
        type=float,
        metavar="SECONDS",
        help="give up when Scryfall's answer (or a download's headers) has not "
        "fully arrived after this long, however its bytes trickle "
        "(default: $DECKCHECK_SYNC_REQUEST_TIMEOUT or 60)",
    )
    p.add_argument(
        "--max-retry-after",
        type=float,
        metavar="SECONDS",
        help="wait at most this long when Scryfall answers 429 or 503 with a "
        "Retry-After header, then try again "
        "(default: $DECKCHECK_SYNC_MAX_RETRY_AFTER or 120)",
    )
    p.add_argument(
        "--lock-timeout",
        type=float,
        metavar="SECONDS",
        help="wait this long for another sync of the same database to finish "
        "(default: $DECKCHECK_SYNC_LOCK_TIMEOUT or 600)",
    )

    p = _command(
        sub,
        "validate",
        "Check decklists against a format.",
        EXITS_JUDGING,
        details="Inputs are decklist files, directories (walked recursively; files "
        "that are no decklists are skipped and reported), glob patterns, "
        "FILE:FORMAT, manifests (a CSV with a file column and optional player, "
        "format, commander, as_of columns) and event files (one deck per "
        "player). With several decks, prints one line per deck, a summary per "
        "format and the card data's provenance; an input that cannot be read "
        "is reported and the others are still checked.",
        examples=[
            "deckcheck validate deck.txt --format modern",
            "deckcheck validate decks/ --format pioneer --report results.csv",
            "deckcheck validate atraxa.txt -f commander --bracket 3 --json",
        ],
    )
    _add_db(p)
    p.add_argument(
        "files",
        nargs="+",
        metavar="INPUT",
        help="decklist files, directories, glob patterns, FILE:FORMAT, manifests, "
        "event files, or - for stdin",
    )
    p.add_argument(
        "--format",
        "-f",
        help="format name, e.g. modern, commander, standard-brawl (see `deckcheck "
        "formats`; case, hyphens and underscores do not matter): the default "
        "for inputs that do not name their own",
    )
    _add_input_format(p)
    p.add_argument(
        "--json",
        action="store_true",
        help="print the JSON report (schema deckcheck.report/1) instead of text",
    )
    p.add_argument(
        "--report",
        type=Path,
        metavar="OUT",
        action="append",
        default=[],
        help="also write every deck's result to OUT: CSV (.csv, a row per "
        "problem), JSON (.json) or a printable page (.html); repeatable; "
        "checked before any deck is validated",
    )
    p.add_argument(
        "--as-of",
        metavar="DATE",
        help="judge legality as of DATE (YYYY-MM-DD; a month YYYY-MM is judged as "
        "of its last day), or 'today' for the card data's current legality (default: "
        "a deck of an event file or of a manifest with a date column as of its event's "
        "date, any other as of today)",
    )
    p.add_argument(
        "--jobs",
        "-j",
        type=int,
        metavar="N",
        help="validate in N processes (default: as many as the batch repays on the "
        "cores other processes leave free, one on a busy machine; N is used only when "
        "the batch is large enough to repay it)",
    )
    p.add_argument(
        "--commander",
        action="append",
        default=[],
        metavar="NAME",
        help="the deck's commander (repeat for partners, or an oathbreaker and its "
        "signature spell)",
    )
    p.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="SENTENCE",
        help='a house rule in companion English, e.g. "Each nonland card in your '
        'starting deck has mana value 3 or less." (repeatable)',
    )
    p.add_argument(
        "--bracket",
        type=int,
        choices=range(1, 6),
        metavar="N",
        help="Commander family only: check the Game Changer count against "
        "Commander Bracket N (1-5)",
    )
    _add_formats_file(p)
    p.add_argument(
        "--verbose",
        "-v",
        action="store_true",
        help="also show notes (how the commander was found, the bracket...) and "
        "the files skipped as not decklists",
    )
    p.add_argument(
        "--only-problems",
        action="store_true",
        help="with several decks, list only those that need attention (illegal, "
        "unconfirmed, unreadable); the summary still counts every deck",
    )

    p = _command(
        sub,
        "check-formats",
        "List every format a deck is legal in, and why not in the others.",
        EXITS_JUDGING,
        examples=["deckcheck check-formats deck.txt", "deckcheck check-formats deck.txt --json"],
    )
    _add_db(p)
    # nargs="+": more than one decklist is refused with what to use instead (cmd_check_formats)
    p.add_argument(
        "file",
        nargs="+",
        metavar="FILE",
        help="a decklist file, or - for stdin (one: `deckcheck validate` checks many)",
    )
    _add_input_format(p)
    p.add_argument(
        "--commander",
        action="append",
        default=[],
        metavar="NAME",
        help="the deck's commander for the Commander formats (repeat for partners)",
    )
    _add_formats_file(p)
    p.add_argument(
        "--json",
        action="store_true",
        help="print JSON (schema deckcheck.check-formats/1) instead of text",
    )
    p.add_argument(
        "--as-of",
        metavar="DATE",
        help="judge legality as of DATE (YYYY-MM-DD; a month YYYY-MM is judged as of its last day)",
    )

    p = _command(
        sub,
        "formats",
        "List the formats and their deck rules.",
        examples=["deckcheck formats", "deckcheck formats --formats-file house.toml"],
    )
    _add_db(p)
    _add_formats_file(p)
    p.add_argument("--json", action="store_true", help="print the rules as JSON")

    p = _command(
        sub,
        "card",
        "Show a card as the validator sees it.",
        examples=["deckcheck card Lightning Bolt", 'deckcheck card "Fire // Ice" --json'],
    )
    _add_db(p)
    p.add_argument(
        "name",
        nargs="+",
        metavar="NAME",
        help="the card's name (any face; case and accents do not matter); its words "
        "are joined with one space, so quotes are not needed",
    )
    p.add_argument("--json", action="store_true", help="print the card's facts as JSON")

    p = _command(
        sub,
        "info",
        "Show the card database's location, last sync and counts.",
        examples=["deckcheck info", "deckcheck info --db /srv/deckcheck/cards.sqlite3"],
    )
    _add_db(p)
    p.add_argument(
        "--json", action="store_true", help=f"print JSON (schema {INFO_SCHEMA}) instead of text"
    )

    p = _command(
        sub,
        "changes",
        "List the legality changes recorded between syncs.",
        details="With --format or --since: bans, unbans, restrictions, rotations and "
        "releases from deckcheck's shipped legality history (2015-02-24 to "
        "2026-08-22) and the database's change log, oldest first.",
        examples=["deckcheck changes", "deckcheck changes --format modern --since 2025-01-01"],
    )
    _add_db(p)
    p.add_argument(
        "--limit",
        type=int,
        default=None,
        metavar="N",
        help="show the N most recent changes, oldest first (default: 200, or with "
        "--format/--since every change; 0 for all)",
    )
    p.add_argument(
        "--format",
        dest="format_name",
        metavar="F",
        help="only changes in format F, from the shipped history and the change log",
    )
    p.add_argument(
        "--since",
        metavar="DATE",
        help="only changes on or after DATE (YYYY-MM-DD), from both sources",
    )
    p.add_argument(
        "--json", action="store_true", help=f"print JSON (schema {CHANGES_SCHEMA}) instead of text"
    )

    p = _command(
        sub,
        "recheck",
        "Re-check stored decks after a sync: only the decks a change touches.",
        epilog=EXITS_RECHECK,
        details="DECKS: a JSON Lines, CSV or Parquet file of rows (id, format, decklist "
        "text or a JSON deck, optional as_of), a folder, manifest or event file, or a "
        "SQLAlchemy URL with --table or --query. The first run judges every deck and "
        "writes STATE; later runs judge again only new or edited decks, decks holding a "
        "card whose legality changed in their format since, and decks with a name the "
        "card data did not know. Prints (and --report writes) the decks whose verdict "
        "changed, and a summary per format.",
        examples=[
            "deckcheck recheck decks.jsonl --report changed.csv",
            "deckcheck recheck postgresql://site/db --table decks --store postgresql://site/db",
            "deckcheck recheck decks.parquet --notify https://example.org/hooks/deckcheck",
        ],
    )
    _add_db(p)
    p.add_argument("decks", metavar="DECKS", help="the stored decks (see above)")
    p.add_argument(
        "--store",
        metavar="STATE",
        help="what deckcheck last concluded per deck: a SQLite file or a SQLAlchemy URL "
        "(tables recheck_*; default: recheck.sqlite3 in the user data directory)",
    )
    p.add_argument("--table", help="with a SQL URL as DECKS: the table of deck rows")
    p.add_argument("--query", help="with a SQL URL as DECKS: a SELECT giving the deck rows")
    p.add_argument(
        "--since",
        metavar="SYNC|DATE",
        help="also judge again the decks touched by the changes of that sync id "
        "(as the last re-check reports it: 'judged against sync N') or of the card data of "
        "that date and later",
    )
    p.add_argument(
        "--full", action="store_true", help="judge every deck again (the result is the same)"
    )
    p.add_argument(
        "--report",
        metavar="OUT",
        help="write the changed decks: .csv, .jsonl, .parquet (one row per deck) or .json "
        "(the whole result)",
    )
    p.add_argument(
        "--notify",
        metavar="URL",
        help="when a verdict changed, POST a JSON notice (schema deckcheck.recheck-notice/1) "
        "to URL, signed with $DECKCHECK_NOTIFY_SECRET when set",
    )
    p.add_argument(
        "--json", action="store_true", help="print the result as JSON (schema deckcheck.recheck/1)"
    )

    p = _command(
        sub,
        "companion",
        "Show how a companion condition sentence is read.",
        details="SENTENCE may also be a companion card's name: its condition is read "
        "from the card database (--db, $DECKCHECK_DB or the default one).",
        examples=[
            'deckcheck companion "Each nonland card in your starting deck has '
            'mana value 3 or less."',
            'deckcheck companion "Lurrus of the Dream-Den"',
        ],
    )
    _add_db(p)
    p.add_argument(
        "sentence",
        metavar="SENTENCE",
        help='a companion condition, e.g. "Each permanent card in your starting deck '
        "has mana value 2 or less.\", or a companion's card name",
    )

    p = _command(
        sub,
        "serve",
        "Run the upload-check web service and its page (needs the serve extra: pip install '.[serve]').",
        details="Serves the JSON API under /v1 and the paste-a-deck page at / until "
        "interrupted. The card data is loaded once at start-up and swapped "
        "when a `deckcheck sync` has finished against the same database.",
        examples=[
            "deckcheck serve",
            "deckcheck serve --port 0",
            "deckcheck serve --host 0.0.0.0 --port 8080 --workers 2",
        ],
    )
    _add_db(p)
    p.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    p.add_argument(
        "--port",
        type=int,
        default=8000,
        help="port (default 8000; 0: the OS picks a free one, logged at start-up)",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="worker processes sharing the loaded card data (default 1)",
    )
    p.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="allow browser requests from ORIGIN (repeatable; default: CORS off)",
    )
    _add_formats_file(p)
    p.add_argument(
        "--poll",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="how often to look for a new sync to load (default 5; 0: never)",
    )
    p.add_argument(
        "--root-path",
        default="",
        help="the path prefix when served behind a reverse proxy under one",
    )
    p.add_argument("--access-log", action="store_true", help="log every request")
    p.add_argument(
        "--max-connections",
        type=int,
        default=1000,
        metavar="N",
        help="connections each worker holds at once; near it idle keep-alives are closed "
        "first, past it a connection is answered 503 (default 1000)",
    )
    p.add_argument(
        "--max-client-connections",
        type=int,
        default=100,
        metavar="N",
        help="connections one client address holds at once on each worker; past it a "
        "connection is answered 429 (default 100)",
    )
    p.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy's address or network (repeatable): only its X-Forwarded-For is "
        "believed, and its connections are not bounded per address (default: none)",
    )

    p = _command(
        sub,
        "completion",
        "Print the shell completion script for bash or zsh.",
        details="Completes commands, options, their fixed choices (--input-format, "
        "--bracket...) and file paths. Load it "
        "from your shell's start-up file, or save it where the shell looks "
        "for completions.",
        examples=[
            'eval "$(deckcheck completion bash)"',
            "deckcheck completion bash > ~/.local/share/bash-completion/completions/deckcheck",
            'deckcheck completion zsh > "${fpath[1]}/_deckcheck"',
        ],
    )
    p.add_argument(
        "shell", choices=COMPLETION_SHELLS, help="the shell: " + " or ".join(COMPLETION_SHELLS)
    )
    return parser


# ---------------------------------------------------------------------------- commands


def cmd_sync(args: argparse.Namespace) -> int:
    from validator.sync import DownloadLimits, SyncError, SyncTerminated, sync

    if args.from_file is not None:
        from validator.sync.bulkfile import source_problem

        if (
            str(args.from_file) == "-"
        ):  # as validate reads `-`: `curl ... | deckcheck sync --from -`
            args.from_file = Path("/dev/stdin")
        problem = source_problem(args.from_file)  # a file or a pipe: `--from /dev/stdin`
        if problem:
            raise UsageError(f"--from: {problem}")
    for option in ("min_rate", "stall_timeout", "request_timeout"):
        if getattr(args, option) is not None and not getattr(args, option) > 0:
            raise UsageError(f"--{option.replace('_', '-')} must be greater than 0")
    if args.max_retry_after is not None and not args.max_retry_after >= 0:
        raise UsageError("--max-retry-after must not be negative")
    languages: set[str] | None = None
    if args.languages is not None:
        from validator.sync.printednames import parse_languages

        try:
            languages = parse_languages(args.languages)
        except ValueError as exc:
            raise UsageError(f"--languages: {exc}") from exc
    if args.languages_from is not None:
        from validator.sync.bulkfile import source_problem

        if args.from_file is None:
            raise UsageError(
                "--languages-from goes with --from ORACLE_FILE (the names are written with "
                "the cards); online, --languages downloads all_cards itself"
            )
        problem = source_problem(args.languages_from)
        if problem:
            raise UsageError(f"--languages-from: {problem}")
    elif args.languages is not None and args.from_file is not None:
        raise UsageError(
            "--languages with --from needs --languages-from ALL_CARDS_FILE (the file the "
            "printed names are read from)"
        )
    quiet_log = not sys.stderr.isatty()
    try:
        results = sync(
            args.db,
            from_file=args.from_file,
            force=args.force,
            printings=args.printings,
            languages=languages if args.languages is not None else None,
            all_languages=args.languages is not None and languages is None,
            languages_from=args.languages_from,
            allow_shrink=args.allow_shrink,
            limits=DownloadLimits.from_env(
                args.min_rate, args.stall_timeout, args.request_timeout, args.max_retry_after
            ),
            lock_timeout=args.lock_timeout,
            echo=(lambda s: print(s, file=sys.stderr)) if quiet_log else (lambda s: None),
        )
    except SyncError as exc:
        # One line: the failure, then (when known) what to do and the database's state.
        _err(
            f"sync failed: {_one_line(str(exc))}" + (f"; {_one_line(exc.hint)}" if exc.hint else "")
        )
        return EXIT_USAGE
    except SyncTerminated:
        _err(
            "sync terminated (SIGTERM): its partial download was removed and its import rolled back"
        )
        return 128 + 15
    for result in results:
        print(result.summary())
    return EXIT_OK


def _read_input(name: str) -> tuple[bytes, str]:
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


def _open_cards(db: str | None, many: bool):
    """The card source for this run, checked now: a database that cannot be used stops the
    run with one line before any deck is read, however many were given."""
    from validator.api import open_db

    cards = open_db(db)
    if many:
        from validator.store.index import CardIndex

        return CardIndex.from_db(cards)
    return cards


def _check_rules(rules: Sequence[str]) -> None:
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


def _check_report_path(path: Path, suffixes: Sequence[str] | None = None) -> None:
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


def _check_as_of(value: str | None) -> None:
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


def _check_commander_options(inputs: Any, args: argparse.Namespace, formats: Any) -> None:
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


def cmd_validate(args: argparse.Namespace) -> int:
    import json

    from validator.api import commander_names
    from validator.event import EventTerminated, RunOptions, collect, report_clash, run_event
    from validator.event.reports import render_event_json, render_event_text, write_event_report
    from validator.history.provenance import provenance_line
    from validator.report import render_text
    from validator.rules.formats import get_format, load_formats

    # Everything that would stop the run is checked before the first deck is read.
    formats = load_formats(args.formats_file)
    commander_names(args.commander)  # an empty name
    if args.format:
        get_format(args.format, formats)  # an unknown --format stops the run at once
    _check_rules(args.rule)
    _check_as_of(args.as_of)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: give 1 or more processes")
    for path in args.report:
        _check_report_path(path)
    from validator.decklist import read_limited

    inputs = collect(
        args.files,
        formats=formats,
        default_as_of=args.as_of,
        read_stdin=lambda: read_limited(sys.stdin.buffer),
    )
    for path in args.report:  # a report over an input would destroy it
        clash = report_clash(inputs, path)
        if clash:
            raise UsageError(f"--report {path}: {clash}; choose a file elsewhere")
    _check_commander_options(inputs, args, formats)
    options = RunOptions(
        default_format=args.format,
        formats=formats,
        commanders=tuple(args.commander),
        rules=tuple(args.rule),
        bracket=args.bracket,
        input_format=args.input_format,
        as_of=args.as_of,
    )
    try:
        result = run_event(inputs, db=args.db, options=options, jobs=args.jobs)
    except EventTerminated:  # its workers were stopped (validator/event/pool.py _run_pool)
        _err(
            "validate terminated (SIGTERM): its worker processes were stopped; no report "
            "was written"
        )
        return 128 + 15
    reports = [r.report for r in result.results if r.report is not None]
    failed = [r for r in result.results if r.report is None]
    # An input that cannot be read or is no decklist: say so; the others were checked. The
    # decks of one input stopped for one reason (an event file naming no format) are one line;
    # the reports still list each deck.
    by_reason: dict[tuple[str, str | None], list] = {}
    for r in failed:
        by_reason.setdefault((r.source, r.error), []).append(r)
    for (source, error), same in by_reason.items():
        who = same[0].id if len(same) == 1 else f"{source} ({len(same)} decks)"
        _err(_one_line(f"{who}: {error}"))
    single = len(result.results) == 1 and len(args.files) == 1 and not result.skipped
    if args.json:
        if single and reports:
            print(
                json.dumps(
                    dict(reports[0].to_dict(), provenance=result.provenance),
                    indent=2,
                    ensure_ascii=False,
                )
            )
        else:
            print(render_event_json(result))
    elif single and reports:
        from dataclasses import replace

        # Headed by the deck's id: an event file's one deck is "file#player", not the file.
        print(
            render_text(
                replace(reports[0], source=reports[0].deck_id or reports[0].source),
                verbose=args.verbose,
            )
        )
        print(f"  ({provenance_line(result.provenance)})")
    elif reports or len(result.results) > 1 or result.skipped:
        print(render_event_text(result, verbose=args.verbose, only_problems=args.only_problems))
    for path in args.report:
        try:
            write_event_report(path, result)
        except OSError as exc:  # checked before validating; a full disk can still fail here
            raise UsageError(f"cannot write --report {path}: {exc.strerror or exc}") from exc
    if failed:
        return EXIT_USAGE
    return _verdict_exit([r.verdict for r in reports])


def _verdict_exit(verdicts: Sequence[str]) -> int:
    """1 when a deck is illegal, else 3 when one is unconfirmed, else 0."""
    if "illegal" in verdicts:
        return EXIT_ILLEGAL
    return EXIT_UNCONFIRMED if "unconfirmed" in verdicts else EXIT_OK


def cmd_check_formats(args: argparse.Namespace) -> int:
    import json

    from validator.api import check_formats, parse_decklist
    from validator.decklist import DecklistError
    from validator.history.provenance import provenance, provenance_line
    from validator.report import check_formats_dict, render_check_formats
    from validator.rules.formats import load_formats

    if len(args.file) > 1:
        raise UsageError(
            f"check-formats takes one decklist, not {len(args.file)} "
            f"({', '.join(args.file[:3])}{', ...' if len(args.file) > 3 else ''}); "
            "to check many, use `deckcheck validate FILE... --format F`"
        )
    args.file = args.file[0]
    formats = load_formats(args.formats_file)
    _check_as_of(args.as_of)
    as_of = None if args.as_of == "today" else args.as_of  # today: current legality
    cards = _open_cards(args.db, many=False)
    data, label = _read_input(args.file)
    try:
        deck = parse_decklist(data, input_format=args.input_format, filename=label)
    except DecklistError as exc:
        raise UsageError(f"{args.file}: {exc}") from exc
    reports = check_formats(
        deck,
        cards=cards,
        formats=formats,
        commanders=args.commander,
        source=label,
        as_of=as_of,
    )
    prov = provenance(cards, as_of or deck.as_of)
    if args.json:
        out = dict(check_formats_dict(reports, label), provenance=prov)
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(render_check_formats(reports, label))
        print(f"  ({provenance_line(prov)})")
    if any(r.legal for r in reports):
        return EXIT_OK
    return EXIT_UNCONFIRMED if any(r.verdict == "unconfirmed" for r in reports) else EXIT_ILLEGAL


def cmd_formats(args: argparse.Namespace) -> int:
    import json

    from validator.rules.formats import load_formats

    formats = load_formats(args.formats_file)
    # With --db, say which formats the database has no legalities for (a sync older than the
    # format, or a house format's legality key that Scryfall does not have).
    cards = _open_cards(args.db, many=False) if args.db else None
    known = set(cards.formats()) if cards is not None else None
    if cards is not None:
        _warn_unknown_list_names(formats, cards)
    if args.json:
        out = {k: f.to_dict() for k, f in formats.items()}
        if known is not None:
            for key, f in formats.items():
                out[key]["in_database"] = f.legality in known
        print(json.dumps(out, indent=2))
        return EXIT_OK
    print(f"{'format':<16} {'name':<24} {'deck':<9} {'side':>4} {'copies':>6}  card pool")
    for key, f in formats.items():
        size = (
            f"{f.min_deck}"
            if f.max_deck is None
            else (f"={f.min_deck}" if f.max_deck == f.min_deck else f"{f.min_deck}-{f.max_deck}")
        )
        missing = known is not None and f.legality not in known
        print(
            f"{key:<16} {f.name:<24} {size:<9} {f.sideboard_max:>4} {f.copy_limit:>6}  "
            f"scryfall:{f.legality}"
            + ("  (commander)" if f.is_commander else "")
            + (_points_label(f.points) if f.points is not None else "")
            + (_lists_label(f.lists) if f.lists is not None else "")
            + ("  (not in the card database)" if missing else "")
        )
    return EXIT_OK


def _points_label(points) -> str:
    """ "  (10 points, list of 2025-07-19)": a points format's cap and the version in force."""
    info = points.summary()
    version = info["version"] or f"none before {info['first_version']}"
    return f"  ({info['cap']} points, list of {version})"


def _lists_label(lists) -> str:
    """ "  (ban list of 2023-07-15)": the version of a dated ban list in force today, and its
    legal sets where it has them (Old School)."""
    from datetime import date

    info = lists.summary()
    current = lists.in_force(date.today())
    sets = f": legal sets {', '.join(current.sets)}" if current and current.sets else ""
    return f"  (ban list of {info['version'] or 'none before ' + info['first_version']}{sets})"


def _warn_unknown_list_names(formats, cards) -> None:
    """Each points or ban list name the card data does not know, on stderr as the formats are
    read (a misspelled name never applies; validating a deck says it too)."""
    from datetime import date

    from validator.rules.points import point_name_problems

    for fmt in formats.values():
        if fmt.points is not None or fmt.lists is not None:
            for problem in point_name_problems(fmt, date.today(), cards):
                print(f"warning: format [{fmt.key}]: {problem.message}", file=sys.stderr)


def cmd_card(args: argparse.Namespace) -> int:
    import json

    args.name = " ".join(args.name)  # `deckcheck card Lightning Bolt` needs no quotes
    if not args.name.strip():
        raise UsageError('give a card name: deckcheck card "Lightning Bolt"')
    db = _open_cards(args.db, many=False)
    card = db.card(args.name)
    from validator.rules.other_names import cards_by_other_name, printed_names_of

    if card is None:  # a printed name (稲妻), an MTGO/Arena name
        found, problems = cards_by_other_name(args.name, db)
        if problems:
            raise UsageError(problems[0].message)
        card = found[0] if found else None
    if card is None:
        raise UsageError(f"no card named {args.name!r}{_did_you_mean(args.name, db)}")
    from validator.report import card_facts

    facts = card_facts(card, db.formats())
    printed = printed_names_of(card, db)
    if printed:  # only cards printed under other names: other cards' answers are unchanged
        facts["printed_names"] = printed
    from validator.rules.formats import load_formats
    from validator.rules.points import card_points

    facts["points"] = card_points(card.name, load_formats(getattr(args, "formats_file", None)))
    if args.json:
        print(json.dumps(facts, indent=2, ensure_ascii=False))
        return EXIT_OK
    for key, value in facts.items():
        label = key.replace("_", " ")  # read by people: the JSON keeps the keys
        if key == "legalities":
            print("legalities:")
            for fmt, status in value.items():
                print(f"  {fmt:<16} {status}")
        elif key == "points":
            print("points:")
            for fmt, entry in value.items():
                own = f", {entry['as_companion']} as companion" if "as_companion" in entry else ""
                print(
                    f"  {fmt:<20} {entry['points']}{own} (cap {entry['cap']}, "
                    f"list of {entry['version']})"
                )
        elif key == "printed_names":
            print("printed names:")
            for lang, names in value.items():
                print(f"  {lang:<16} {'; '.join(names)}")
        elif key in ("deck_card", "commander_eligible") and facts.get("meld_from"):
            # CR 712.4b: said, not left out as an unremarkable False
            print(f"{label}: no (the back face of a meld pair is not a card, CR 712.4b)")
        elif value not in (None, False, [], ""):
            print(f"{label}: {_human(value)}")
    return EXIT_OK


def _human(value: object) -> str:
    """A fact as text: yes for True, a whole mana value without its ".0", a list by commas."""
    if value is True:
        return "yes"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ", ".join(map(str, value))
    return str(value)


def _did_you_mean(name: str, cards) -> str:
    """ "; did you mean 'A' or 'B'?" for a name that is no card (a first name too: "Lurrus"),
    or nothing when no name is close."""
    from validator.rules.resolve import suggestions

    hint = suggestions(name, cards, short_names=True)
    return f"; did you mean {' or '.join(repr(h) for h in hint)}?" if hint else ""


def _print_json(data: object) -> None:
    import json

    def encode(value: object) -> str:  # dates from the database
        if hasattr(value, "isoformat"):
            return value.isoformat()
        raise TypeError(f"not JSON: {type(value).__name__}")

    print(json.dumps(data, indent=2, ensure_ascii=False, default=encode))


def cmd_info(args: argparse.Namespace) -> int:
    from validator.store.database import shown_location  # the one way a database is shown

    info = _open_cards(args.db, many=False).info()
    if args.json:
        _print_json(
            {
                "schema": INFO_SCHEMA,
                "database": shown_location(info.url),
                "cards": info.card_count,
                "names": info.name_count,
                "printings": info.printing_count,
                "formats": info.formats,
                "last_sync": info.last_sync,
            }
        )
        return EXIT_OK
    print(f"database: {shown_location(info.url)}")
    print(f"cards: {info.card_count}  names: {info.name_count}  printings: {info.printing_count}")
    print(f"formats: {', '.join(info.formats)}")
    if info.last_sync:
        s = info.last_sync
        print(
            f"last sync: {s['finished_at']} ({s['bulk_type']}, {s['card_count']} cards, "
            f"{s['duration_s']:.1f} s) from {s['source_uri']}"
        )
        # None: a `sync --from` file that does not carry Scryfall's updated_at
        print(f"  updated_at: {s['updated_at'] or 'unknown'}  sha256: {s['sha256'] or 'unknown'}")
    else:
        print("last sync: never")
    return EXIT_OK


def cmd_recheck(args: argparse.Namespace) -> int:
    import json

    from validator.rechecking import recheck
    from validator.rechecking.output import REPORT_KINDS, render_text, write_report

    if args.report:  # a report that cannot be written stops the run before any deck
        _check_report_path(Path(args.report), tuple(REPORT_KINDS))
    result = recheck(
        args.decks,
        state=args.store,
        db=args.db,
        since=args.since,
        table=args.table,
        query=args.query,
        full=args.full,
    )
    # STATE is committed from here on: a report or notice that fails does not undo it.
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        print(render_text(result))
    if args.report:
        write_report(args.report, result)
    if args.notify and result.changed:
        from validator.rechecking.notify import NotifyError, notice, send

        report = str(Path(args.report).resolve()) if args.report else None
        try:
            send(args.notify, notice(result, report))
        except NotifyError as exc:
            raise NotifyError(
                f"{exc}; the new verdicts are stored in STATE"
                + (f" and written to {args.report}" if args.report else " and printed above")
            ) from exc
    if result.failures:
        return EXIT_USAGE
    return EXIT_ILLEGAL if result.changed else EXIT_OK


def cmd_changes(args: argparse.Namespace) -> int:
    from validator.history.changes import recorded_changes

    if args.limit is not None and args.limit < 0:
        raise UsageError(
            f"--limit {args.limit} is negative; give a number of changes, or 0 for all"
        )
    # Given at all, even empty: an empty --format or --since is refused there, never read as
    # "not given" (which would list every change without a word).
    if args.format_name is not None or args.since is not None:
        return _changes_history(args)
    from validator.history.changes import with_oracle_ids

    cards = _open_cards(args.db, many=False)
    changes = recorded_changes(cards, args.limit)
    if args.json:  # one shape with --format/--since (deckcheck.changes/1)
        changes = with_oracle_ids(changes, cards)
        _print_json({"schema": CHANGES_SCHEMA, "changes": [c.to_dict() for c in changes]})
        return EXIT_OK
    if not changes:
        print(
            "no legality changes recorded in this database (they are recorded from its second "
            "sync on); `deckcheck changes --format F --since DATE` lists the bans and unbans of "
            "the legality history deckcheck ships"
        )
        return EXIT_OK
    for c in changes:
        print(_change_line(c))
    return EXIT_OK


def _change_line(c: Any) -> str:
    """One change as both forms of `deckcheck changes` print it."""
    sources = ", ".join(c.sources or (c.source,))
    return (
        f"{c.on.isoformat()}  {c.format:<10} {c.kind:<13} {c.name}: {c.old} -> {c.new}"
        f"  (between {c.after.isoformat()} and {c.on.isoformat()}; {sources})"
    )


def _changes_history(args: argparse.Namespace) -> int:
    """`changes --format F --since DATE` (validator.history.changes.format_changes)."""
    from validator.dates import parse_date
    from validator.history.changes import format_changes, with_oracle_ids
    from validator.rules.formats import get_format, load_formats

    if args.format_name is not None and not args.format_name.strip():  # not "every format"
        raise UsageError(
            f"--format {args.format_name!r} is not a format; give a format's name "
            "(e.g. modern; `deckcheck formats` lists them), or leave --format out "
            "for every format"
        )
    if args.since is not None and not args.since.strip():  # not a date, and not "every change"
        raise UsageError(
            f"--since {args.since!r} is not a date; write it as YYYY-MM-DD (e.g. "
            "2026-02-22), or leave --since out for every change"
        )
    key = get_format(args.format_name, load_formats(None)).legality if args.format_name else None
    since = parse_date(args.since, "--since")
    cards = _open_cards(args.db, many=False)
    found = format_changes(cards, key, since, args.limit)
    if args.json:
        changes = with_oracle_ids(found.changes, cards)
        _print_json({"schema": CHANGES_SCHEMA, "changes": [c.to_dict() for c in changes]})
        return EXIT_OK
    if not found.changes:
        print(
            "no legality changes"
            + (f" in {key}" if key else "")
            + (f" since {since.isoformat()}" if since else "")
        )
    for c in found.changes:
        print(_change_line(c))
    if found.known_from:  # not "no changes": nothing is known before then
        print(f"(deckcheck knows {key}'s changes only from {found.known_from})")
    return EXIT_OK


def cmd_companion(args: argparse.Namespace) -> int:
    from validator.rules.companion.reader import ConditionError, explain

    try:  # a sentence needs no card database
        print(explain(args.sentence))
        return EXIT_OK
    except ConditionError as exc:
        not_a_sentence = exc
    # A card's name: read the condition printed on it (CR 702.139a), from the card database
    # every other command uses (--db, $DECKCHECK_DB, else the default one when it exists).
    from validator.store.location import ENV_DB, default_db_path

    if not (args.db or os.environ.get(ENV_DB) or default_db_path().is_file()):
        raise UsageError(
            f"{not_a_sentence}; to read a companion card's condition by its name, "
            f"give --db (or set ${ENV_DB})"
        ) from not_a_sentence
    cards = _open_cards(args.db, many=False)
    card = cards.card(args.sentence)
    if card is None:
        raise UsageError(
            f"{not_a_sentence}; nor is it a card's name in the card database"
            f"{_did_you_mean(args.sentence, cards)}"
        ) from not_a_sentence
    if not card.companion_condition:
        raise UsageError(
            f"{card.name} has no companion ability; give a companion's name or a condition sentence"
        )
    print(f"{card.name}: companion condition")
    print(explain(card.companion_condition))
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    try:
        from validator.service.server import require_serve_extra, serve
    except ImportError as exc:
        raise UsageError(
            f"the service needs its extra: pip install '.[serve]' in deckcheck's folder ({exc})"
        ) from exc
    require_serve_extra()  # fastapi and uvicorn are imported only once serving starts
    if (
        args.workers < 1
        or not 0 <= args.port < 65536
        or args.poll < 0
        or args.max_connections < 1
        or args.max_client_connections < 1
    ):
        raise UsageError(
            "--workers, --max-connections and --max-client-connections must be at least 1, "
            "--port 0-65535 (0: the OS picks a free port), --poll 0 or more"
        )
    from validator.service.connections import Limits, check_trusted

    trusted = check_trusted(args.trusted_proxy)
    try:
        serve(
            host=args.host,
            port=args.port,
            workers=args.workers,
            db=args.db,
            cors_origins=args.cors_origin,
            formats_file=args.formats_file,
            poll_seconds=args.poll,
            access_log=args.access_log,
            root_path=args.root_path,
            limits=Limits(
                connections=args.max_connections,
                per_client=args.max_client_connections,
                trusted_proxies=trusted,
            ),
        )
    except DeckcheckError as exc:
        raise UsageError(str(exc)) from exc
    return EXIT_OK


def cmd_completion(args: argparse.Namespace) -> int:
    import shtab

    parser = build_parser()
    for action in _all_actions(parser):
        # Paths complete as files: inputs, --db, --report, --from, --formats-file.
        if action.type is Path or action.dest in ("files", "file", "db"):
            action.complete = shtab.FILE  # type: ignore[attr-defined]
    print(shtab.complete(parser, shell=args.shell), end="")
    return EXIT_OK


def _all_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    actions = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                actions += _all_actions(sub)
    return actions


def _subcommand(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser:
    """The subcommand's parser (the top-level one without a command)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            return action.choices[name]
    return parser


COMMANDS = {
    "sync": cmd_sync,
    "validate": cmd_validate,
    "check-formats": cmd_check_formats,
    "formats": cmd_formats,
    "card": cmd_card,
    "info": cmd_info,
    "changes": cmd_changes,
    "recheck": cmd_recheck,
    "companion": cmd_companion,
    "serve": cmd_serve,
    "completion": cmd_completion,
}


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


class _Output:
    """sys.stdout or sys.stderr during a command. A reader that stops reading (`| head -1`)
    ends the output, not the run: the verdict was reached, so the exit code stays the run's
    own (1 for an illegal deck, 2 for an input that could not be read; never 0 because the
    pipe closed), `--report` files are still written, and nothing more is printed. The
    stream's descriptor is pointed at os.devnull, so Python's flush at exit does not print
    "Exception ignored ... BrokenPipeError" either (Python docs, "Note on SIGPIPE")."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._reader_gone()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._reader_gone()

    def _reader_gone(self) -> None:
        self.gone = True
        try:
            fd = self._stream.fileno()
        except (AttributeError, OSError, ValueError):
            return  # no file behind it (a test's capture): nothing is flushed at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Exit 0 legal/success, 1 a deck is not legal, 2 anything that stopped
    deckcheck from judging: never a traceback, never 1 for an error, and a closed output
    changes none of them (`_Output`)."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (s if s is None else _Output(s) for s in streams)
    try:
        return _main(argv)
    finally:
        for out in (sys.stdout, sys.stderr):
            if isinstance(out, _Output):
                out.flush()  # now, while a closed pipe is still caught
        sys.stdout, sys.stderr = streams


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    # Known arguments first, so that one a subcommand does not take is refused by that
    # subcommand's parser (its options suggested, its --help named), not the top level's.
    args, extras = parser.parse_known_args(argv)
    if extras:
        _subcommand(parser, args.command).unrecognized(extras)  # type: ignore[attr-defined]
    if args.command is None:  # nothing was done: the command list, and exit 2 (usage)
        parser.print_help()
        _err("give a command (listed above); deckcheck COMMAND --help shows its options")
        return EXIT_USAGE
    try:
        return COMMANDS[args.command](args)
    except DeckcheckError as exc:
        _err(_one_line(str(exc)))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except Exception as exc:  # noqa: BLE001 - exit 1 would claim a deck is illegal
        _err(_one_line(_unexpected(args, exc)))
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
