"""The English names MTGO and Arena print on Universes Beyond cards (`data/alt-names.tsv`):
how many real MTGO decks they change the verdict of.

    python bench/bench_alt_names.py [--limit N]

Every deck of `decklists/bulk/` in the six formats with real legalities (Standard, Pioneer,
Modern, Legacy, Vintage, Pauper), judged as of its date (the shipped legality history) with a
warm `CardIndex` of the full derived card file, twice in the same process: with the alias table
empty (the names read as before it shipped) and with it. Prints the decks judged not legal
each way, those not legal only by an unknown name, and the names that made the difference.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import BULK_DECKS, derived_db, format_key, iter_bulk_decks, render_mtgo_text  # noqa: E402

SIX = ("standard", "pioneer", "modern", "legacy", "vintage", "pauper")


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
