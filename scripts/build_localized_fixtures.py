"""Build the small card files the localized-name tests read, from the shared real data:

* `tests/fixtures/cards_localized.json`: the Oracle objects of a few cards (a normal card, a
  split card, a transforming card, an adventure, the two cards the German "Zwang" names, a
  Japanese name printed with furigana, one with full-width characters, the card behind an
  MTGO/Arena name) from `shared/data/scryfall/oracle-cards-derived-20260822.jsonl.gz`;
* `tests/fixtures/all_cards_localized.jsonl`: their objects in `all_cards` shape, in five
  languages, from `all-cards-localized-derived.jsonl.gz`. The German multi-face objects lose
  their root `printed_name` (Scryfall's real shape: only the faces carry one), so both shapes
  are read. One English printing carries the MTGO name of `data/alt-names.tsv` as its
  `printed_name`, as Scryfall's printings of those cards do.

    python scripts/build_localized_fixtures.py

Deterministic (same input, same bytes).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRYFALL = ROOT.parent / "shared" / "data" / "scryfall"
FIXTURES = ROOT / "tests" / "fixtures"

CARDS = [
    "Lightning Bolt",
    "Fire // Ice",
    "Delver of Secrets // Insectile Aberration",
    "Brazen Borrower // Petty Theft",
    "Duress",
    "Coercion",
    "Kaya, Ghost Assassin",
    "Fear, Fire, Foes!",
    "Mountain",
    "Island",
    "Spider Manifestation",
]
LANGUAGES = ("ja", "de", "it", "fr", "es")
#: (the card, the MTGO/Arena name its English printing carries as printed_name)
ALT_PRINTING = ("Spider Manifestation", "Leyline Weaver")


def main() -> None:
    oracle = {}
    with gzip.open(
        SCRYFALL / "oracle-cards-derived-20260822.jsonl.gz", "rt", encoding="utf-8"
    ) as f:
        for line in f:
            card = json.loads(line)
            if card["name"] in CARDS:
                oracle[card["name"]] = card
    missing = set(CARDS) - oracle.keys()
    if missing:
        raise SystemExit(f"not in the oracle file: {sorted(missing)}")
    cards = [oracle[name] for name in CARDS]
    (FIXTURES / "cards_localized.json").write_text(
        json.dumps(cards, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    ids = {c["oracle_id"] for c in cards}
    out = []
    path = SCRYFALL / "all-cards-localized-derived.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            obj = json.loads(line)
            if obj["oracle_id"] in ids and obj["lang"] in LANGUAGES:
                obj.pop("printed_name_source", None)
                if obj["lang"] == "de" and obj.get("card_faces"):
                    del obj["printed_name"]
                out.append(obj)
    card = oracle[ALT_PRINTING[0]]
    out.append(
        {
            "object": "card",
            "id": None,
            "oracle_id": card["oracle_id"],
            "name": card["name"],
            "lang": "en",
            "printed_name": ALT_PRINTING[1],
            "layout": card["layout"],
            "set": None,
        }
    )
    (FIXTURES / "all_cards_localized.jsonl").write_text(
        "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in out), encoding="utf-8"
    )
    print(f"{len(cards)} cards, {len(out)} localized objects")


if __name__ == "__main__":
    main()
