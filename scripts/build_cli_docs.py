"""Write docs/cli.md, the CLI reference, from `deckcheck --help` and each command's --help.

The help text is the one source of the commands and options: a command or option added to
validator/cli/parser.py appears here when the script is rerun, and tests/docs/
test_cli_reference.py fails until it is (run `python scripts/build_cli_docs.py`, commit
docs/cli.md). The notes under each command are facts --help is too short for.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "cli.md"
#: argparse wraps help to the terminal's width: a fixed one keeps the page the same everywhere.
WIDTH = "100"

INTRO = """\
# CLI reference

`deckcheck COMMAND [options]`; `python -m validator` is the same program. This page is
generated from each command's `--help` by `scripts/build_cli_docs.py` (do not edit it by hand:
edit the script's notes or the parser in `validator/cli/parser.py`, then rerun the script).

## Common to every command

- **Exit codes** (every command's `--help` lists them): `0` legal (or success), `1` a deck is
  not legal, and nothing else; `3` no deck is illegal but one is unconfirmed (every error one
  deckcheck cannot decide: a name not in the card data...; see
  [the verdict](report.md#verdict)); `2` anything that stopped deckcheck from judging: bad input or
  usage, an unknown format, an invalid `--formats-file`, a card database that is missing,
  cannot be opened, is not a card database or needs a driver that is not installed
  (`postgresql+psycopg://` without the `postgres` extra), a file that cannot be read, a
  `--report` that cannot be written, a failed sync.
- A `2` is always one line on stderr that says what to do next, never a traceback, whether one
  file or a hundred were given. A mistyped option too: the option, the bad value and what is
  allowed, then `see deckcheck CMD --help`. An internal error (a bug) is also `2`;
  `DECKCHECK_DEBUG=1` prints its traceback.
- A reader that stops reading (`| head -1`) changes no exit code: the output ends, the
  verdict's code stays, `--report` files are still written.
- Every command takes `--db` (default `$DECKCHECK_DB`, else `cards.sqlite3` in the user data
  directory; see [Operations](operations.md#configuration)).
- Format names ignore case, spaces, hyphens and underscores (`standard-brawl` =
  `standard_brawl` = `standardbrawl`).
"""

#: Per command: what its --help does not say (kept here so that the page stays generated).
NOTES: dict[str, str] = {
    "sync": """\
- Downloads Scryfall's `oracle_cards` bulk file (or imports `--from FILE`: a JSON array or JSON
  Lines, gzip or not; a regular file or a pipe such as `/dev/stdin`) into the database in one
  transaction. A device such as `/dev/zero` is refused at once.
- Skips the download when Scryfall's `updated_at` has not changed (`--force` imports anyway).
- A file with fewer than half the database's cards is refused unless `--allow-shrink`
  (`--force` does not override this).
- `--printings` also syncs `default_cards`: set code + collector number + rarity +
  printed/flavor names. With `--from`, FILE is then the default_cards file; one named as
  Scryfall names its oracle_cards file (`oracle-cards-….json`) is refused with exit 2, since one
  printing per card would misjudge Pauper Commander's rarity check (both files' objects look
  alike, so a renamed one is not caught).
- `--languages ja,it,...` (Scryfall's codes, or `all`) also downloads Scryfall's `all_cards`
  file (several GB uncompressed; streamed, with the same deadlines, retries and progress as the
  cards) and keeps the cards' printed names in those languages, written in the cards'
  transaction, so that decklists in them resolve ([Decklists in other languages](languages.md)).
  Offline: `--from ORACLE_FILE --languages-from ALL_CARDS_FILE [--languages ...]`. An unknown
  code is a usage error listing Scryfall's codes; an all_cards object without `lang` or an
  oracle id is an exit-2 error naming the key and the line; printed names of cards the oracle
  data does not hold are skipped and counted in the summary. A later sync without
  `--languages` keeps the names.
- `--from` wants the bulk file itself, not a Scryfall API page (`{"object": "list", "data":
  [...]}`, which it names as such). A file that nests JSON more than 64 levels deep, starts
  with more than 1 MiB of whitespace (or holds that much in blank lines in a row) or has a line
  over 16 MiB is refused as no bulk file, early, with the previous database kept.
- `--min-rate`, `--stall-timeout`, `--request-timeout`, `--max-retry-after` and
  `--lock-timeout` bound the download, each answer from the server, the wait a Retry-After
  header asks for and the wait for another sync (see
  [Operations](operations.md#configuration)).
- Ends with a summary of legality changes ("modern: newly banned: …; unbanned: …").
""",
    "validate": """\
- Inputs: files (`-` reads stdin), directories, glob patterns, `FILE:FORMAT`, manifests and
  event files (see [Events](events.md)). `--format` is the default for inputs that do not name
  their own.
- `--report OUT`: `.csv`, `.json` or `.html`; repeatable; each checked writable before any
  deck is validated.
- `--as-of DATE`: `YYYY-MM-DD` or a month `YYYY-MM`; `event` = each event file's own date (see
  [Legality as of a date](as-of.md)).
- `--jobs N`: processes; by default as many as the batch repays on the cores other
  processes leave free (the 1-minute load average), so one on a busy machine.
- `--commander NAME` (repeat for partners) and `--bracket N` are for the run's
  Commander-family decks: a run with none refuses both, decks of other formats are judged
  without them. A name that is no card is a usage error with suggestions (`Tymna` → "Tymna the
  Weaver"); an empty one is refused. `--bracket` checks the Game Changer count.
- `--rule "SENTENCE"`: a house rule in companion English, repeatable (see
  [House formats and rules](house-formats.md)).
- `--verbose` also shows notes and the files skipped as not decklists.
- Text output names each problem's decklist lines, as the JSON's `lines` does (`(line 3,
  64)`). With many decks it prints one line per deck, a summary per format and the provenance;
  one unreadable input never stops the others.
""",
    "check-formats": """\
- One decklist (more is a usage error: `validate` checks many): every format the deck is legal
  in, and for the others the first reasons why not.
- `--json`: `{"schema": "deckcheck.check-formats/1", "source": …, "legal_in": ["modern", …],
  "formats": {"modern": {"format_name": "Modern", "legal": true, "problems": [errors, as in the
  report], "warnings": [warnings: a legal format that needs a look, e.g.
  `legality-history-missing`]}, …}}`.
- With `--as-of` the text names each legal format that carries a warning, with its first
  warning: "legal as far as known in Pauper: …" when the legality history does not reach that
  date or the date is after the card data's, "legal in Modern, but see the warning: …" when a
  card's status changed in a window around it and the more permissive one was taken. Text and
  JSON carry the provenance.
""",
    "formats": """\
- With `--db`, formats whose legality key the database does not have are marked
  (`in_database` in the JSON).
""",
    "card": """\
- NAME is a card's name or any face's: a split card's half, a DFC's back face. Shows names,
  mana value, types, color identity, copy limit, commander facts, legalities.
- The back face of a meld pair (Brisela, Voice of Nightmares) is no card (CR 712.4b):
  `deck_card` and `commander_eligible` are false and `meld_from` names the two cards that meld
  into it (`[]` for every other card).
""",
    "info": """\
- `--json`: schema `deckcheck.info/1` (`database`, `cards`, `names`, `printings`, `formats`,
  `last_sync`, `printed_names`: the printed names stored by language code, `{}` when no
  `sync --languages` brought any).
""",
    "changes": """\
- Without `--format`/`--since`: the database's change log, the newest `--limit` changes
  (default 200; 0 for all; a negative one is a usage error, exit 2), listed oldest first: by
  date, and within a day in the order the syncs recorded them (`--limit 1` is the latest
  change). On a database with no change recorded yet (one sync), it says so and points at
  `--format F --since DATE` for the shipped history.
- Both forms print one shape, and date a database entry by the same rule: the date of the card
  data of the sync that recorded it. `--json`: `{"schema": "deckcheck.changes/1", "changes":
  [{"changed_at", "format", "name", "oracle_id", "old_status", "new_status", "after" (the
  window it took effect in), "kind", "source" (`shipped` or `database`), "sources"}]}`.
- With `--format`/`--since`: bans, unbans, restrictions, rotations and releases from the
  shipped history and the database's change log, oldest first (every one since the date, or
  the newest `--limit N` when given); a change both sources know is listed once, its
  `sources` naming both and its window the one both allow. An empty `--format ""` or
  `--since ""` is a usage error (exit 2), never "every change".
- `oracle_id` is the card's for the database's entries; the shipped history holds names only,
  so its entries get the id of the database's deck card of that name (one look-up of all their
  names), `null` when the database has no such card or the name is more than one card's.
""",
    "companion": """\
- SENTENCE may also be a companion's card name (`deckcheck companion "Lurrus of the
  Dream-Den"`), looked up in the card database (`--db`, `$DECKCHECK_DB`, or the default one).
""",
    "serve": """\
- Needs the `serve` extra: `pip install '.[serve]'` from a clone. See [HTTP API](http-api.md)
  and [Operations](operations.md).
- `--cors-origin` takes one origin: repeat it for each (`--cors-origin https://a.example
  --cors-origin https://b.example`).
- `--root-path` is for serving behind a reverse proxy under a prefix.
""",
}


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's subcommands by name, in the order --help lists them."""
    for action in parser._actions:  # argparse has no public accessor for its subparsers
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def generate() -> str:
    """The text of docs/cli.md for the parser as it is now."""
    sys.path.insert(0, str(ROOT))
    from validator.cli.parser import build_parser

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        parser = build_parser()
        parts = [INTRO, "## deckcheck\n", "```text\n" + parser.format_help().rstrip() + "\n```\n"]
        for name, sub in subcommands(parser).items():
            parts.append(f"## deckcheck {name}\n")
            parts.append("```text\n" + sub.format_help().rstrip() + "\n```\n")
            if name in NOTES:
                parts.append(NOTES[name])
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved
    return "\n".join(parts)


def main() -> int:
    OUT.write_text(generate(), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
