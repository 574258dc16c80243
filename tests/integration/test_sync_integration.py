"""The full-size derived oracle-cards file (../shared/data/scryfall), imported for real."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from support import shared_data

from validator.cards.names import fold_name
from validator.store.database import CardDB
from validator.sync import sync

DERIVED = ("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
LINES = 34_632
#: The 70 reversible_card objects share their side card's oracle id.
DISTINCT_ORACLE_CARDS = 34_562


@pytest.mark.integration
def test_full_size_derived_file(tmp_path: Path) -> None:
    path = shared_data(*DERIVED)
    with gzip.open(path, "rb") as f:
        assert sum(1 for line in f if line.strip()) == LINES
    db = str(tmp_path / "cards.sqlite3")
    [result] = sync(db, from_file=path)
    assert result.card_count == DISTINCT_ORACLE_CARDS
    with CardDB(db) as cards:
        info = cards.info()
        assert info.card_count == DISTINCT_ORACLE_CARDS
        assert {"modern", "legacy", "vintage", "commander", "pauper"} <= set(info.formats)
        last = cards.last_sync("oracle_cards")
        assert last["card_count"] == DISTINCT_ORACLE_CARDS and len(last["sha256"]) == 64
        queries = [
            "Fire // Ice",
            "Ice",
            "Lim-Dul's Vault",
            "Aether Vial",
            "Delver of Secrets",
            "Okaun, Eye of Chaos",
            "Hallowed Fountain",
        ]
        found = cards.lookup(queries)
        for q in queries:
            assert len(found.get(fold_name(q), [])) == 1, q
        # a face name may be shared: "Emeritus of Conflict // Lightning Bolt" (prepare, 2026)
        bolts = cards.lookup(["Lightning Bolt"])[fold_name("Lightning Bolt")]
        assert sorted(c.name for c in bolts) == [
            "Emeritus of Conflict // Lightning Bolt",
            "Lightning Bolt",
        ]
        bolt = next(c for c in bolts if c.name == "Lightning Bolt")
        assert bolt.legality("modern") == "legal"
        lurrus = cards.lookup(["Lurrus of the Dream-Den"])[fold_name("Lurrus of the Dream-Den")][0]
        assert lurrus.legality("modern") == "banned"
        assert (
            found[fold_name("Hallowed Fountain")][0].layout == "normal"
        )  # not its reversible twin
        assert cards.lookup(["Tazeem"]) == {}  # a plane: not a deck card
        assert found[fold_name("Fire // Ice")][0].mana_value == 4.0
    # the same file again: no legality changes, same count
    [again] = sync(db, from_file=path)
    assert again.card_count == DISTINCT_ORACLE_CARDS and again.changes == []
