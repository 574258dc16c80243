"""The `deckcheck` commands: each a thin skin over the library API (`validator`), reading its
parsed arguments and printing what the library answers."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from validator.cli.checks import (
    check_as_of,
    check_commander_options,
    check_report_path,
    check_rules,
    open_cards,
    read_input,
)
from validator.cli.output import (
    EXIT_ILLEGAL,
    EXIT_OK,
    EXIT_UNCONFIRMED,
    EXIT_USAGE,
    INFO_SCHEMA,
    err,
    human,
    one_line,
    print_json,
)
from validator.cli.parser import all_actions, build_parser
from validator.errors import DeckcheckError, UsageError
from validator.history.schema import CHANGES_SCHEMA

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
        err(f"sync failed: {one_line(str(exc))}" + (f"; {one_line(exc.hint)}" if exc.hint else ""))
        return EXIT_USAGE
    except SyncTerminated:
        err(
            "sync terminated (SIGTERM): its partial download was removed and its import rolled back"
        )
        return 128 + 15
    for result in results:
        print(result.summary())
    return EXIT_OK


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
    check_rules(args.rule)
    check_as_of(args.as_of)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: give 1 or more processes")
    for path in args.report:
        check_report_path(path)
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
    check_commander_options(inputs, args, formats)
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
        err(
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
        err(one_line(f"{who}: {error}"))
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
    check_as_of(args.as_of)
    as_of = None if args.as_of == "today" else args.as_of  # today: current legality
    cards = open_cards(args.db, many=False)
    data, label = read_input(args.file)
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
    cards = open_cards(args.db, many=False) if args.db else None
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
    db = open_cards(args.db, many=False)
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
            print(f"{label}: {human(value)}")
    return EXIT_OK


def _did_you_mean(name: str, cards) -> str:
    """ "; did you mean 'A' or 'B'?" for a name that is no card (a first name too: "Lurrus"),
    or nothing when no name is close."""
    from validator.rules.resolve import suggestions

    hint = suggestions(name, cards, short_names=True)
    return f"; did you mean {' or '.join(repr(h) for h in hint)}?" if hint else ""


def cmd_info(args: argparse.Namespace) -> int:
    from validator.store.database import shown_location  # the one way a database is shown

    info = open_cards(args.db, many=False).info()
    if args.json:
        print_json(
            {
                "schema": INFO_SCHEMA,
                "database": shown_location(info.url),
                "cards": info.card_count,
                "names": info.name_count,
                "printings": info.printing_count,
                "formats": info.formats,
                "last_sync": info.last_sync,
                "printed_names": info.printed_names,
            }
        )
        return EXIT_OK
    print(f"database: {shown_location(info.url)}")
    print(f"cards: {info.card_count}  names: {info.name_count}  printings: {info.printing_count}")
    print(f"formats: {', '.join(info.formats)}")
    if info.printed_names:
        by_language = ", ".join(f"{lang} {n:,}" for lang, n in info.printed_names.items())
        count = len(info.printed_names)
        print(
            f"printed names: {sum(info.printed_names.values()):,} in {count} "
            f"language{'s' if count > 1 else ''} ({by_language})"
        )
    else:
        print("printed names: none (`deckcheck sync --languages` reads lists in other languages)")
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
    from validator.rechecking import recheck
    from validator.rechecking.output import REPORT_KINDS, render_text, write_report

    if args.report:  # a report that cannot be written stops the run before any deck
        check_report_path(Path(args.report), tuple(REPORT_KINDS))
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
        print_json(result.to_dict())
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

    cards = open_cards(args.db, many=False)
    changes = recorded_changes(cards, args.limit)
    if args.json:  # one shape with --format/--since (deckcheck.changes/1)
        changes = with_oracle_ids(changes, cards)
        print_json({"schema": CHANGES_SCHEMA, "changes": [c.to_dict() for c in changes]})
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
    cards = open_cards(args.db, many=False)
    found = format_changes(cards, key, since, args.limit)
    if args.json:
        changes = with_oracle_ids(found.changes, cards)
        print_json({"schema": CHANGES_SCHEMA, "changes": [c.to_dict() for c in changes]})
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
    cards = open_cards(args.db, many=False)
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
    for action in all_actions(parser):
        # Paths complete as files: inputs, --db, --report, --from, --formats-file.
        if action.type is Path or action.dest in ("files", "file", "db"):
            action.complete = shtab.FILE  # type: ignore[attr-defined]
    print(shtab.complete(parser, shell=args.shell), end="")
    return EXIT_OK


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
