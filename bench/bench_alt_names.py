"""The English names MTGO and Arena print on Universes Beyond cards (`data/alt-names.tsv`):
how many real MTGO decks they change the verdict of.

    python bench/bench_alt_names.py [--limit N]
    python bench/bench_alt_names.py --baseline DIR   # ... and every report against older code

Every deck of `decklists/bulk/` in the six formats with real legalities (Standard, Pioneer,
Modern, Legacy, Vintage, Pauper), judged as of its date (the shipped legality history) with a
warm `CardIndex` of the full derived card file, twice in the same process: with the alias table
empty (the names read as before it shipped) and with it. Prints the decks judged not legal
each way, those not legal only by an unknown name, and the names that made the difference.

With `--baseline DIR` (older code: `git archive REV | tar -x -C DIR`) it also judges every
bulk deck as bench/report_hashes.py does (the library API, MTGO text, today's legality) in
both trees and compares the sha256 of each report: every deck whose report changed must name
an MTGO/Arena name, every other report must be byte-identical. Exit 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import BULK_DECKS, derived_db, format_key, iter_bulk_decks, render_mtgo_text  # noqa: E402

SIX = ("standard", "pioneer", "modern", "legacy", "vintage", "pauper")

#: Run inside the measured tree: the sha256 of every bulk deck's report, as report_hashes.py.
PER_DECK = r"""
import hashlib, json, sys
sys.path[0:0] = [sys.argv[3], sys.argv[2]]  # the tree measured first (not the current dir)
from common import iter_bulk_decks, format_key, render_mtgo_text
import validator
index = validator.CardIndex.from_db(validator.open_db(sys.argv[1]))
out = []
for obj in iter_bulk_decks():
    fmt = format_key(obj.get("format"), obj.get("src") or "") or "vintage"
    report = validator.validate(validator.parse_decklist(
        render_mtgo_text(obj["main"], obj["side"])), fmt, cards=index)
    out.append(hashlib.sha256(json.dumps(report.to_dict(), sort_keys=True,
                                         ensure_ascii=False).encode()).hexdigest())
print(json.dumps(out))
"""


def compare_with(baseline: Path) -> int:
    """Every bulk deck's report in this checkout and in `baseline`: the changed ones must all
    name an MTGO/Arena name."""
    import os
    import subprocess

    from validator.cards.names import lookup_key
    from validator.cards.printed import alt_names

    db = derived_db()
    hashes = {}
    for label, code in (("checkout", HERE.parent), ("baseline", baseline)):
        run = subprocess.run(
            [sys.executable, "-c", PER_DECK, str(db), str(HERE), str(code)],
            env=dict(os.environ, PYTHONPATH=str(code), DECKCHECK_NO_PROGRESS="1"),
            capture_output=True,
            text=True,
            check=True,
        )
        hashes[label] = json.loads(run.stdout.splitlines()[-1])
    table = alt_names()
    changed = with_alt = 0
    for obj, new, old in zip(iter_bulk_decks(), hashes["checkout"], hashes["baseline"]):
        named = any(lookup_key(n) in table for _, n in [*obj["main"], *obj["side"]])
        with_alt += named
        if new != old:
            changed += 1
            if not named:
                print(f"DIFFERENT without an MTGO name: {obj.get('src')}")
                return 1
    total = len(hashes["checkout"])
    print(
        f"reports: {total:,} decks; {with_alt:,} name an MTGO/Arena name, {changed:,} reports "
        f"changed, all of them among those; the other {total - with_alt:,} byte-identical"
    )
    return 0


def judge(decks, index, history) -> tuple[int, int, Counter]:
    """(decks not legal, of them not legal only by unknown names, unknown names by decks)."""
    import validator

    illegal = only_unknown = 0
    names: Counter = Counter()
    for text, fmt, day in decks:
        report = validator.validate(text, fmt, cards=index, as_of=day, history=history)
        if not report.legal:
            illegal += 1
            codes = {p.code for p in report.errors}
            if codes == {"unknown-card"}:
                only_unknown += 1
            for p in report.errors:
                if p.code == "unknown-card":
                    names.update(p.cards)
    return illegal, only_unknown, names


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, help="only the first N decks (a quick look)")
    ap.add_argument("--baseline", type=Path, help="an older source tree: compare every report")
    args = ap.parse_args()
    if not BULK_DECKS.is_file():
        print(f"skipped: the bulk decks are not here ({BULK_DECKS})")
        return 0
    import validator
    from validator.cards import printed

    decks = []
    for obj in iter_bulk_decks():
        fmt = format_key(obj.get("format"), obj.get("src") or "")
        if fmt in SIX and obj.get("date"):
            decks.append(
                (render_mtgo_text(obj["main"], obj["side"]), fmt, date.fromisoformat(obj["date"]))
            )
        if args.limit and len(decks) >= args.limit:
            break
    database = validator.open_db(derived_db())
    index = validator.CardIndex.from_db(database)
    from validator.api import legality_history
    from validator.rules import other_names

    history = legality_history(database)
    table = printed.alt_names()
    try:
        other_names.alt_names = dict  # type: ignore[assignment]  # an empty table
        before = judge(decks, index, history)
    finally:
        other_names.alt_names = printed.alt_names  # type: ignore[assignment]
    index.deck_cards.clear()
    after = judge(decks, index, history)
    folded = set(table)
    from validator.cards.names import lookup_key

    made = {n: c for n, c in before[2].items() if lookup_key(n) in folded}
    print(f"decks: {len(decks):,} ({', '.join(SIX)}), judged as of their dates")
    print(f"not legal without the alias table: {before[0]:,} (only unknown names: {before[1]:,})")
    print(f"not legal with it:                 {after[0]:,} (only unknown names: {after[1]:,})")
    print(f"decks changed: {before[0] - after[0]:,}; MTGO names read: {len(made)}")
    for name, count in sorted(made.items(), key=lambda i: -i[1])[:10]:
        print(f"  {count:6,} decks  {name}")
    return compare_with(args.baseline) if args.baseline else 0


if __name__ == "__main__":
    sys.exit(main())
