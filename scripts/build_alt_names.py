"""Build deckcheck's shipped alias table, `data/alt-names.tsv`: the English names MTGO and MTG
Arena print on Universes Beyond cards ("Through the Omenpaths": `Leyline Weaver`,
`Kavaero, Mind-Bitten`), each with the Oracle name of its card.

    python scripts/build_alt_names.py [--pairs PAIRS.tsv] [--oracle ORACLE.jsonl.gz] [--out FILE]

The pairs come from `../shared/data/scryfall/omenpaths-alt-names.tsv` (mojp's `alt=` entries:
MTGO name, the other name(s) `|`-separated); the Oracle file says which of the other names is a
card and gives that card's full name (a face's name, "Miles Morales", gives its card's,
"Miles Morales // Ultimate Spider-Man"). A pair is left out when its MTGO name is itself a
card's name (English names are read first, so the alias could never apply) or none of its other
names is a card (Vanguard avatars "(Alt.)"); both are counted on stderr. Deterministic (same
input, same bytes; tests/cards/test_alt_names.py rebuilds the file and compares).
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRYFALL = ROOT.parent / "shared" / "data" / "scryfall"
DEFAULT_PAIRS = SCRYFALL / "omenpaths-alt-names.tsv"
DEFAULT_ORACLE = SCRYFALL / "oracle-cards-derived-20260822.jsonl.gz"
DEFAULT_OUT = ROOT / "data" / "alt-names.tsv"

HEADER = (
    "# The English names MTGO and MTG Arena print on Universes Beyond cards, with the Oracle\n"
    "# name of the card. Built by scripts/build_alt_names.py from mojp's alt= pairs\n"
    "# (shared/data/scryfall/omenpaths-alt-names.tsv); do not edit by hand.\n"
    "printed_name\tcard_name\n"
)


def _fold(name: str) -> str:
    if str(ROOT) not in sys.path:  # run as a script from a checkout: this checkout's code
        sys.path.insert(0, str(ROOT))
    from validator.cards.names import fold_name

    return fold_name(name)


def build(pairs: Path, oracle: Path) -> tuple[str, dict[str, int]]:
    """The table's text and the counts of pairs left out, by reason."""
    cards: dict[str, str] = {}  # folded card or face name -> the card's full name
    faces: dict[str, set[str]] = {}
    opener = gzip.open if oracle.suffix == ".gz" else open
    with opener(oracle, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                card = json.loads(line)
                cards[_fold(card["name"])] = card["name"]
                for face in card.get("card_faces") or ():
                    faces.setdefault(_fold(face["name"]), set()).add(card["name"])
    for folded, named in faces.items():
        if folded not in cards and len(named) == 1:
            cards[folded] = next(iter(named))
    table: dict[str, str] = {}
    skipped = {"is a card's own name": 0, "no other name is a card": 0}
    with open(pairs, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if not line.startswith("#")]
    for row in rows[1:]:  # the column header
        if not row or not row[0].strip():
            continue
        printed, others = row[0].strip(), row[1].split("|")
        if _fold(printed) in cards or _fold(printed) in faces:
            skipped["is a card's own name"] += 1
            continue
        named = sorted({cards[_fold(o)] for o in others if _fold(o) in cards})
        if len(named) != 1:
            skipped["no other name is a card"] += 1
            continue
        table[printed] = named[0]
    body = "".join(f"{p}\t{table[p]}\n" for p in sorted(table))
    return HEADER + body, skipped


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=Path, default=DEFAULT_PAIRS)
    ap.add_argument("--oracle", type=Path, default=DEFAULT_ORACLE)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    for path in (args.pairs, args.oracle):
        if not path.is_file():
            print(f"build_alt_names: {path} not found (see --help)", file=sys.stderr)
            return 2
    text, skipped = build(args.pairs, args.oracle)
    args.out.write_text(text, encoding="utf-8")
    kept = text.count("\n") - HEADER.count("\n")
    print(f"{args.out}: {kept} names; left out: {skipped}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
