"""Benchmark helper: fingerprints of the reports of real decks, to show a change keeps them.

    python bench/bench_companion_reports.py --save /tmp/before.json    # on the old code
    python bench/bench_companion_reports.py --compare /tmp/before.json # on the new code
    python bench/bench_companion_reports.py --db cards.sqlite3

Every deck of ../shared/data/decklists/companions/ (the 151 decks carrying an Ikoria companion)
and ../shared/data/decklists/tournaments/ (2,220 decks) is validated through the Python API
against the full-size derived card file, and the JSON of each `report.to_dict()` is hashed
(SHA-256 of `json.dumps(..., sort_keys=True)`). Reports per deck:

* `as-listed`: the deck as MTGO text in its own format (companion cards in the sideboard get
  their notes; Commander events list the commander in the sideboard);
* `declared` (companion decks of constructed formats): the companion moved to an Arena
  `Companion` section, so its condition is checked as a declared companion (errors listing
  offenders, "; and N more");
* `house-rules`: every companion sentence the grammar reads, checked as a house rule
  (`validate(rules=...)`), so every predicate shape lists real offenders.

It prints how many reports were hashed, how many carry companion/house-rule problems, one
digest over all of them, and the CPU time of the validations. `--save` writes the per-report
hashes; `--compare` reads such a file and names every report whose hash changed (exit 1).
Without ../shared/data it says so and exits 0.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SHARED_DATA, derived_db, format_key, render_mtgo_text  # noqa: E402

CARD_FILE = SHARED_DATA / "scryfall" / "oracle-cards-derived-20260822.jsonl.gz"
COMPANION_DECKS = (
    SHARED_DATA / "decklists" / "companions" / "companion_decks_mtgo_melee_2024-2026.json"
)
TOURNAMENTS = SHARED_DATA / "decklists" / "tournaments"
#: Companion decks whose "format" is an event name (the MTGO file had no format field).
FALLBACK_FORMAT = "vintage"
COMPANION_CODES = ("companion-", "house-rule-")


def fingerprint(report) -> str:
    text = json.dumps(report.to_dict(), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _declared_text(main, side, companion: str) -> str:
    """Arena export: the companion in its own section, the rest of the sideboard after."""
    rest, taken = [], False
    for n, name in side:
        if name == companion and not taken:
            taken = True
            if n > 1:
                rest.append((n - 1, name))
            continue
        rest.append((n, name))
    lines = ["Companion", f"1 {companion}", "", "Deck", *(f"{n} {name}" for n, name in main)]
    if rest:
        lines += ["", "Sideboard", *(f"{n} {name}" for n, name in rest)]
    return "\n".join(lines) + "\n"


def decks():
    """(id, format key, text, companion or None) for every deck of both corpora."""
    for i, rec in enumerate(json.loads(COMPANION_DECKS.read_text(encoding="utf-8"))):
        main = [(c["count"], c["name"]) for c in rec["mainboard"]]
        side = [(c["count"], c["name"]) for c in rec["sideboard"]]
        fmt = format_key(rec["format"], rec["source_path"]) or FALLBACK_FORMAT
        companion = rec["companion_card"] if rec["found_in"] == "sideboard" else None
        yield f"companions#{i}", fmt, render_mtgo_text(main, side), (main, side, companion)
    manifest = json.loads((TOURNAMENTS / "MANIFEST.json").read_text(encoding="utf-8"))
    for item in manifest:
        fmt = format_key(item["format"], item["file"])
        if fmt is None:
            continue
        data = json.loads((TOURNAMENTS.parent / item["file"]).read_text(encoding="utf-8"))
        for i, deck in enumerate(data["Decks"]):
            main = [(c["Count"], c["CardName"]) for c in deck.get("Mainboard") or []]
            side = [(c["Count"], c["CardName"]) for c in deck.get("Sideboard") or []]
            yield f"{item['file']}#{i}", fmt, render_mtgo_text(main, side), (main, side, None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="a synced card database (default: derived file)")
    parser.add_argument("--save", type=Path, help="write the per-report hashes here (JSON)")
    parser.add_argument("--compare", type=Path, help="compare with hashes written by --save")
    args = parser.parse_args(argv)
    if args.db is None and not (CARD_FILE.is_file() and COMPANION_DECKS.is_file()):
        print(f"SKIP: the real data is absent ({SHARED_DATA}); nothing to fingerprint")
        return 0

    from validator.api import validate
    from validator.rules.companion.reader import ConditionError, parse_condition
    from validator.rules.formats import load_formats
    from validator.store.database import CardDB
    from validator.store.index import CardIndex

    db = CardDB(args.db or derived_db(CARD_FILE))
    index = CardIndex.from_db(db)
    sentences = []
    for _, card in db.all_cards():
        if card.companion_condition and card.companion_condition not in sentences:
            try:
                parse_condition(card.companion_condition)
            except ConditionError:
                continue
            sentences.append(card.companion_condition)
    db.close()
    commander_formats = {k for k, f in load_formats().items() if f.is_commander}

    hashes: dict[str, str] = {}
    codes: Counter[str] = Counter()
    more = 0
    cpu = 0.0
    for deck_id, fmt, text, (main, side, companion) in decks():
        runs = [("as-listed", text, ())]
        if companion and fmt not in commander_formats:
            runs.append(("declared", _declared_text(main, side, companion), ()))
        runs.append(("house-rules", text, tuple(sentences)))
        for kind, body, rules in runs:
            start = time.process_time()
            report = validate(body, fmt, cards=index, rules=rules)
            cpu += time.process_time() - start
            hashes[f"{deck_id} {kind}"] = fingerprint(report)
            for p in report.problems:
                if p.code.startswith(COMPANION_CODES):
                    codes[p.code] += 1
                    more += "; and " in p.message and p.message.endswith(" more")

    digest = hashlib.sha256(
        "\n".join(f"{k} {v}" for k, v in sorted(hashes.items())).encode()
    ).hexdigest()
    print(
        f"{len(hashes):,} reports ({len(sentences)} companion sentences as house rules); "
        f"validation CPU {cpu:.2f} s"
    )
    print(
        "companion / house-rule problems: "
        + ", ".join(f"{code} {n:,}" for code, n in sorted(codes.items()))
        + f"; {more:,} of them list '... and N more'"
    )
    print(f"digest: {digest}")
    if args.save:
        args.save.write_text(json.dumps(hashes, indent=0, sort_keys=True), encoding="utf-8")
        print(f"saved {len(hashes):,} hashes to {args.save}")
    if args.compare:
        before = json.loads(args.compare.read_text(encoding="utf-8"))
        changed = sorted(k for k in hashes.keys() & before.keys() if hashes[k] != before[k])
        missing = sorted(before.keys() ^ hashes.keys())
        print(
            f"compared with {args.compare}: {len(changed)} of {len(hashes):,} reports differ, "
            f"{len(missing)} present on one side only"
        )
        for key in (changed + missing)[:20]:
            print(f"  {key}")
        return 1 if changed or missing else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
