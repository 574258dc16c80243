"""`deckcheck` command line: a thin layer over the library API.

Exit codes: 0 legal (or success), 1 a deck is not legal, 2 an input or usage error.
Heavy modules are imported inside the commands that need them, so the CLI starts fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from .errors import DeckcheckError

EXIT_OK, EXIT_ILLEGAL, EXIT_USAGE = 0, 1, 2
#: Above this many decks, load every card into memory once instead of querying per deck.
WARM_INDEX_THRESHOLD = 25


class UsageError(DeckcheckError):
    """Bad input or usage; the message is shown as is and the exit code is 2."""

    code = "usage"


def _err(message: str) -> None:
    print(f"deckcheck: {message}", file=sys.stderr)


def _add_db(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", help="card database: a path or SQLAlchemy URL (default: "
                                "$DECKCHECK_DB or a SQLite file in the user data directory)")


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="deckcheck", description="Magic: The Gathering deck-legality checker.")
    parser.add_argument("--version", action="version", version=f"deckcheck {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("sync", help="download Scryfall's bulk card data into the card database")
    _add_db(p)
    p.add_argument("--from", dest="from_file", type=Path, metavar="FILE",
                   help="import a bulk file already on disk (JSON or JSON Lines, gzip or not)")
    p.add_argument("--force", action="store_true", help="import even if the data has not changed")
    p.add_argument("--printings", action="store_true",
                   help="also sync printings (default_cards): set codes, rarities, flavor names")

    p = sub.add_parser("validate", help="check decklists against a format")
    _add_db(p)
    p.add_argument("files", nargs="+", metavar="FILE", help="decklist files, or - for stdin")
    p.add_argument("--format", "-f", required=True, help="format name (see `deckcheck formats`)")
    p.add_argument("--input-format", help="force the decklist format (default: detected)")
    p.add_argument("--json", action="store_true", help="print the JSON report")
    p.add_argument("--report", type=Path, metavar="OUT",
                   help="also write all reports to OUT (.csv or .json)")
    p.add_argument("--commander", action="append", default=[], metavar="NAME",
                   help="designate a commander (repeat for partners)")
    p.add_argument("--rule", action="append", default=[], metavar="SENTENCE",
                   help='a house rule in companion English, e.g. "Each nonland card in your '
                        'starting deck has mana value 3 or less."')
    p.add_argument("--bracket", type=int, choices=range(1, 6), metavar="N",
                   help="Commander: check the Game Changer count against bracket N (1-5)")
    p.add_argument("--formats-file", type=Path, help="a TOML file of house formats")
    p.add_argument("--verbose", "-v", action="store_true", help="show notes as well as problems")

    p = sub.add_parser("check-formats", help="list every format a deck is legal in")
    _add_db(p)
    p.add_argument("file", metavar="FILE")
    p.add_argument("--input-format")
    p.add_argument("--commander", action="append", default=[], metavar="NAME")
    p.add_argument("--formats-file", type=Path)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("formats", help="list formats and their deck rules")
    p.add_argument("--formats-file", type=Path)
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("card", help="show a card as the validator sees it")
    _add_db(p)
    p.add_argument("name")
    p.add_argument("--json", action="store_true")

    p = sub.add_parser("info", help="database location, last sync and counts")
    _add_db(p)

    p = sub.add_parser("changes", help="legality changes recorded between syncs")
    _add_db(p)
    p.add_argument("--limit", type=int, default=200)

    p = sub.add_parser("companion", help="show how a companion condition sentence is read")
    p.add_argument("sentence")
    return parser


# ---------------------------------------------------------------------------- commands

def cmd_sync(args: argparse.Namespace) -> int:
    from .sync import SyncError, sync

    if args.from_file is not None and not args.from_file.is_file():
        raise UsageError(f"--from: no such file: {args.from_file}")
    quiet_log = not sys.stderr.isatty()
    try:
        results = sync(args.db, from_file=args.from_file, force=args.force,
                       printings=args.printings,
                       echo=(lambda s: print(s, file=sys.stderr)) if quiet_log else (lambda s: None))
    except SyncError as exc:
        _err(f"sync failed: {exc}\nthe previous card database is unchanged")
        return EXIT_USAGE
    for result in results:
        print(result.summary())
    return EXIT_OK


def _read_input(name: str) -> tuple[bytes, str]:
    if name == "-":
        return sys.stdin.buffer.read(), "-"
    path = Path(name)
    try:
        return path.read_bytes(), path.name
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from exc


def _load_formats(path: Path | None):
    from .formats import FormatError, load_formats

    try:
        return load_formats(path)
    except FormatError as exc:
        raise UsageError(str(exc)) from exc


def _get_format(name: str, formats):
    from .formats import FormatError, get_format

    try:
        return get_format(name, formats)
    except FormatError as exc:
        raise UsageError(str(exc)) from exc


def _open_cards(db: str | None, many: bool):
    from .db import CardDB, DatabaseError

    try:
        cards = CardDB(db)
        if many:
            from .resolve import CardIndex

            return CardIndex.from_db(cards)
        return cards
    except DatabaseError as exc:
        raise UsageError(str(exc)) from exc


def _check_rules(rules: Sequence[str]) -> None:
    if not rules:
        return
    from .companion import ConditionError, parse_condition

    for sentence in rules:
        try:
            parse_condition(sentence)
        except ConditionError as exc:
            raise UsageError(f"--rule {sentence!r}: {exc}") from exc


def cmd_validate(args: argparse.Namespace) -> int:
    from .api import parse_decklist, validate
    from .decklist import DecklistError
    from .report import render_json, render_summary_table, render_text

    formats = _load_formats(args.formats_file)
    fmt = _get_format(args.format, formats)
    _check_rules(args.rule)
    cards = _open_cards(args.db, many=len(args.files) > WARM_INDEX_THRESHOLD)
    reports, failed = [], []
    for name in args.files:
        try:
            data, label = _read_input(name)
            deck = parse_decklist(data, input_format=args.input_format, filename=label)
        except (UsageError, DecklistError) as exc:
            failed.append((name, str(exc)))
            _err(f"{name}: {exc}")
            continue
        reports.append(validate(deck, fmt, cards=cards, commanders=args.commander,
                                rules=args.rule, bracket=args.bracket, source=label))
    if args.json:
        print(render_json(reports[0] if len(reports) == 1 and len(args.files) == 1 else reports))
    elif len(args.files) == 1 and reports:
        print(render_text(reports[0], verbose=args.verbose))
    elif reports:
        print(render_summary_table(reports))
    if args.report:
        _write_report(args.report, reports, failed)
    if failed:
        return EXIT_USAGE
    return EXIT_OK if all(r.legal for r in reports) else EXIT_ILLEGAL


def _write_report(path: Path, reports, failed) -> None:
    import csv

    from .report import CSV_FIELDS, csv_row, render_json

    if path.suffix.lower() == ".json":
        path.write_text(render_json(reports), encoding="utf-8")
        return
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_FIELDS)
        writer.writeheader()
        for report in reports:
            writer.writerow(csv_row(report))
        for name, message in failed:
            writer.writerow({"source": name, "legal": "", "first_problem": f"unreadable: {message}"})


def cmd_check_formats(args: argparse.Namespace) -> int:
    import json

    from .api import check_formats, parse_decklist
    from .decklist import DecklistError

    formats = _load_formats(args.formats_file)
    data, label = _read_input(args.file)
    try:
        deck = parse_decklist(data, input_format=args.input_format, filename=label)
    except DecklistError as exc:
        raise UsageError(f"{args.file}: {exc}") from exc
    reports = check_formats(deck, cards=_open_cards(args.db, many=False), formats=formats,
                            commanders=args.commander, source=label)
    if args.json:
        print(json.dumps({r.format: {"legal": r.legal, "problems": [p.to_dict() for p in r.errors]}
                          for r in reports}, indent=2, ensure_ascii=False))
    else:
        legal = [r.format_name for r in reports if r.legal]
        print(f"{label}: legal in {', '.join(legal) if legal else 'no format'}")
        for r in reports:
            if not r.legal:
                reasons = "; ".join(p.message for p in r.errors[:2])
                more = f" (+{len(r.errors) - 2} more)" if len(r.errors) > 2 else ""
                print(f"  not {r.format_name}: {reasons}{more}")
    return EXIT_OK if any(r.legal for r in reports) else EXIT_ILLEGAL


def cmd_formats(args: argparse.Namespace) -> int:
    import json

    formats = _load_formats(args.formats_file)
    if args.json:
        print(json.dumps({k: f.to_dict() for k, f in formats.items()}, indent=2))
        return EXIT_OK
    print(f"{'format':<16} {'name':<24} {'deck':<9} {'side':>4} {'copies':>6}  card pool")
    for key, f in formats.items():
        size = f"{f.min_deck}" if f.max_deck is None else (
            f"={f.min_deck}" if f.max_deck == f.min_deck else f"{f.min_deck}-{f.max_deck}")
        print(f"{key:<16} {f.name:<24} {size:<9} {f.sideboard_max:>4} {f.copy_limit:>6}  "
              f"scryfall:{f.legality}" + ("  (commander)" if f.is_commander else ""))
    return EXIT_OK


def cmd_card(args: argparse.Namespace) -> int:
    import json

    db = _open_cards(args.db, many=False)
    card = db.card(args.name)
    if card is None:
        from .resolve import suggestions

        hint = suggestions(args.name, db)
        _err(f"no card named {args.name!r}" + (f"; did you mean {' or '.join(hint)}?" if hint else ""))
        return EXIT_USAGE
    limit = ("any number" if card.any_number else "unlimited (basic land)" if card.is_basic
             else str(card.copy_limit) if card.copy_limit else "format's limit")
    facts = {
        "name": card.name, "oracle_id": card.oracle_id, "layout": card.layout,
        "faces": [f.name for f in card.faces], "mana_cost": card.mana_cost,
        "mana_value": card.mana_value, "type_line": card.type_line,
        "types": sorted(card.types), "subtypes": sorted(card.subtypes),
        "supertypes": sorted(card.supertypes), "color_identity": card.color_identity or "colorless",
        "copy_limit": limit, "commander_eligible": card.commander_eligible,
        "partner": card.partner, "companion_condition": card.companion_condition,
        "game_changer": card.game_changer, "reserved": card.reserved,
        "deck_card": card.is_deck_card,
        "legalities": {f: card.legality(f) for f in sorted(set(db.formats()) | set(card.legalities))},
    }
    if args.json:
        print(json.dumps(facts, indent=2, ensure_ascii=False))
        return EXIT_OK
    for key, value in facts.items():
        if key == "legalities":
            print("legalities:")
            for fmt, status in value.items():
                print(f"  {fmt:<16} {status}")
        elif value not in (None, False, [], ""):
            print(f"{key}: {', '.join(map(str, value)) if isinstance(value, list) else value}")
    return EXIT_OK


def cmd_info(args: argparse.Namespace) -> int:
    from .db import DatabaseError

    db = _open_cards(args.db, many=False)
    try:
        info = db.info()
    except DatabaseError as exc:
        raise UsageError(str(exc)) from exc
    print(f"database: {info.url}")
    print(f"cards: {info.card_count}  names: {info.name_count}  printings: {info.printing_count}")
    print(f"formats: {', '.join(info.formats)}")
    if info.last_sync:
        s = info.last_sync
        print(f"last sync: {s['finished_at']} ({s['bulk_type']}, {s['card_count']} cards, "
              f"{s['duration_s']:.1f} s) from {s['source_uri']}")
        print(f"  updated_at: {s['updated_at']}  sha256: {s['sha256']}")
    else:
        print("last sync: never")
    return EXIT_OK


def cmd_changes(args: argparse.Namespace) -> int:
    db = _open_cards(args.db, many=False)
    changes = db.changes(args.limit)
    if not changes:
        print("no legality changes recorded (they are recorded from the second sync on)")
        return EXIT_OK
    for ch in changes:
        when = ch["changed_at"].strftime("%Y-%m-%d") if hasattr(ch["changed_at"], "strftime") else ch["changed_at"]
        print(f"{when}  {ch['format']:<16} {ch['name']}: {ch['old_status']} -> {ch['new_status']}")
    return EXIT_OK


def cmd_companion(args: argparse.Namespace) -> int:
    from .companion import ConditionError, explain

    try:
        print(explain(args.sentence))
    except ConditionError as exc:
        raise UsageError(str(exc)) from exc
    return EXIT_OK


COMMANDS = {
    "sync": cmd_sync, "validate": cmd_validate, "check-formats": cmd_check_formats,
    "formats": cmd_formats, "card": cmd_card, "info": cmd_info, "changes": cmd_changes,
    "companion": cmd_companion,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except UsageError as exc:
        _err(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
