"""The `deckcheck` argument parser: every command, its options, examples and exit codes (the
CLI reference in docs/cli.md is generated from it by scripts/build_cli_docs.py)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from validator.cli.output import EXIT_USAGE, INFO_SCHEMA, err, one_line
from validator.history.schema import CHANGES_SCHEMA

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


class _Parser(argparse.ArgumentParser):
    """argparse with its errors as one line on stderr (README "CLI reference": a `2` is always
    one line): the option, the bad value and what is allowed, then where to read more; not
    argparse's multi-line usage block."""

    def error(self, message: str) -> Any:
        for kind, what in (("int", "a whole number"), ("float", "a number")):
            if f"invalid {kind} value" in message:  # not "float" anywhere: `--jobs float`
                message += f" (give {what})"
        err(one_line(f"{message}; see {self.prog} --help"))
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
        "card data did not know. Prints the decks whose verdict changed, the new decks "
        "that are not legal and a summary per format; --report writes the changed decks "
        "(as .json, the whole result).",
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
        "(the whole result, with the new decks not legal)",
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


def all_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    actions = list(parser._actions)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                actions += all_actions(sub)
    return actions


def subcommand(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser:
    """The subcommand's parser (the top-level one without a command)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            return action.choices[name]
    return parser
