"""The shipped MTGO/Arena names (`data/alt-names.tsv`): rebuilt from the shared pairs by
scripts/build_alt_names.py, byte for byte, and every name a card of the real card data."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from support import shared_data

from validator.cards.names import lookup_key
from validator.cards.printed import alt_names
from validator.resources import resource_path

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location(
        "build_alt_names", ROOT / "scripts" / "build_alt_names.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shipped_table_is_the_scripts_output():
    pairs = shared_data("scryfall", "omenpaths-alt-names.tsv")
    oracle = shared_data("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
    text, skipped = _script().build(pairs, oracle)
    shipped = resource_path("data", "alt-names.tsv").read_text(encoding="utf-8")
    assert shipped == text, "data/alt-names.tsv is stale: run python scripts/build_alt_names.py"
    # 164 pairs: 4 MTGO names are cards' own names, 2 Vanguard avatars are no card.
    assert len(alt_names()) == 158
    assert skipped == {"is a card's own name": 4, "no other name is a card": 2}


def test_table_reads_mtgo_names_as_oracle_names():
    table = alt_names()
    assert table[lookup_key("Leyline Weaver")] == "Spider Manifestation"
    # a face's other name gives its card's full name
    assert table[lookup_key("Cren, Undercity Dreamer")] == "Miles Morales // Ultimate Spider-Man"
    # folded as English names are: case, curly apostrophes
    assert table[lookup_key("FLEEM, GOBEN\u2019S CREATION")] == "Norman Osborn // Green Goblin"
    # a name that is a card's own is never an alias (English names are read first)
    assert lookup_key("The Irencrag") not in table
