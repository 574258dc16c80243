"""Every real decklist under shared/data/decklists/{text,dek} parses cleanly and completely.

Expected counts come from the tournament JSON each INDEX.json entry points to.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from validator.decklist import parse_decklist
from validator.model import Deck, Section

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
DECKLISTS = DATA / "decklists"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not DECKLISTS.is_dir(), reason=f"shared decklist data not found at {DECKLISTS}"
    ),
]


def _files(kind: str) -> list[Path]:
    if not DECKLISTS.is_dir():
        return []
    return sorted(
        p for p in (DECKLISTS / kind).rglob("*") if p.is_file() and p.name != "INDEX.json"
    )


TEXT_FILES = _files("text")
DEK_FILES = _files("dek")


def _id(path: Path) -> str:
    return str(path.relative_to(DECKLISTS))


def _parse(path: Path) -> Deck:
    return parse_decklist(path.read_bytes(), filename=path.name)


def test_the_data_is_there():
    assert len(TEXT_FILES) >= 40 and len(DEK_FILES) >= 8


@pytest.mark.parametrize("path", TEXT_FILES + DEK_FILES, ids=_id)
def test_parses_without_issues(path):
    deck = _parse(path)
    assert deck.issues == []
    assert deck.entries
    assert all(e.quantity >= 1 and e.name == e.name.strip() and e.name for e in deck.entries)


# --- counts from the source tournament JSON --------------------------------------------------


@cache
def _load(relative: str):
    return json.loads((DECKLISTS / relative).read_text(encoding="utf-8"))


def _source_counts(meta: dict) -> tuple[Counter, Counter] | None:
    """(main, sideboard) name counts of the deck an INDEX entry was rendered from."""
    source = DECKLISTS / meta["source_json"]
    if not source.is_file():
        return None
    data = _load(meta["source_json"])
    if isinstance(data, dict):  # a tournament file: Decks[deck_index]
        deck = data["Decks"][meta["deck_index"]]
        main, side = deck["Mainboard"], deck["Sideboard"]
        key, name = "Count", "CardName"
    else:  # the companion collection: find the deck by companion, player and date
        deck = next(
            d
            for d in data
            if d["companion_card"] == meta["companion"]
            and d["player"] == meta["player"]
            and d["date"] == meta["date"]
        )
        main, side = deck["mainboard"], deck["sideboard"]
        key, name = "count", "name"
    return _count(main, key, name), _count(side, key, name)


def _count(cards: list[dict], key: str, name: str) -> Counter:
    total: Counter = Counter()
    for card in cards:
        total[card[name]] += card[key]
    return total


def _names(deck: Deck, *sections: Section) -> Counter:
    total: Counter = Counter()
    for entry in deck.entries:
        if entry.section in sections:
            total[entry.name] += entry.quantity
    return total


def _index(kind: str) -> list[tuple[Path, dict]]:
    index = DECKLISTS / kind / "rendered_from_tournament_json" / "INDEX.json"
    if not index.is_file():
        return []
    pairs = []
    for item in json.loads(index.read_text(encoding="utf-8")):
        if kind == "text":
            pairs += [(index.parent / name, item) for name in item["files"]]
        else:
            pairs.append((index.parent / item["file"], item["from"]))
    return pairs


def _commander_deck(meta: dict) -> bool:
    return "commanders" in meta or "Commander section" in meta.get("note", "")


def _parsed_with_source_counts(path, meta):
    """The parsed file and the main/sideboard name counts of the deck it was rendered from."""
    expected = _source_counts(meta)
    if expected is None:
        pytest.skip(f"{meta['source_json']} not available")
    return (_parse(path), *expected)


@pytest.mark.parametrize("path, meta", _index("text"), ids=lambda v: getattr(v, "name", ""))
def test_text_counts_match_the_source(path, meta):
    deck, main, side = _parsed_with_source_counts(path, meta)
    assert _names(deck, Section.MAIN) == main
    if path.name.endswith(".arena-style.txt") and _commander_deck(meta):
        # Arena-style renderings put the source sideboard (MTGO's commander) under Commander.
        assert _names(deck, Section.COMMANDER) == side
        assert deck.count(Section.SIDEBOARD) == 0
        assert deck.commander_source == "arena-section"
    else:
        assert _names(deck, Section.SIDEBOARD) == side
    if "commanders" in meta:
        assert sorted(e.name for e in deck.section(Section.COMMANDER)) == sorted(meta["commanders"])
    if "companion" in meta and path.name.endswith(".arena-style.txt"):
        assert [(e.quantity, e.name) for e in deck.section(Section.COMPANION)] == [
            (1, meta["companion"])
        ]
        assert side[meta["companion"]] >= 1  # also in the sideboard, as written
    else:
        assert deck.count(Section.COMPANION) == 0


@pytest.mark.parametrize("path, meta", _index("dek"), ids=lambda v: getattr(v, "name", ""))
def test_dek_counts_match_the_source(path, meta):
    deck, main, side = _parsed_with_source_counts(path, meta)
    assert deck.input_format == "mtgo-dek"
    assert _names(deck, Section.MAIN) == main
    assert _names(deck, Section.SIDEBOARD) == side


def test_mtgo_and_arena_renderings_agree():
    pairs = [p for p in TEXT_FILES if p.name.endswith(".mtgo.txt")]
    assert pairs
    for mtgo in pairs:
        arena = mtgo.with_name(mtgo.name.replace(".mtgo.txt", ".arena-style.txt"))
        if not arena.is_file():
            continue
        a, b = _parse(mtgo), _parse(arena)
        assert (a.input_format, b.input_format) == ("text", "arena")
        for section in (Section.MAIN, Section.SIDEBOARD):
            assert _names(a, section) == _names(b, section), mtgo.name


def test_forge_and_arena_versions_of_the_same_deck_agree():
    folder = DECKLISTS / "text" / "LilBeaky-mtg-data"
    dck, txt = _parse(folder / "Coles_Niv_Combo.dck"), _parse(folder / "Coles_Niv_Combo.txt")
    assert (dck.input_format, txt.input_format) == ("forge", "arena")
    assert dck.name == txt.name == "Coles Niv Combo"
    for section in Section:
        assert _names(dck, section) == _names(txt, section)
    assert dck.count(Section.MAIN) == 99 and dck.count(Section.COMMANDER) == 1


def test_python_mtg_pools_have_forty_cards():
    for path in (DECKLISTS / "text" / "python-mtg").glob("*.txt"):
        deck = _parse(path)
        assert deck.count(Section.MAIN) == 40, path.name
        assert deck.count(Section.SIDEBOARD) == 0


def test_trade_list_keeps_event_tickets():
    path = (
        DECKLISTS
        / "dek"
        / "CramBL-mtgo-collection-manager-old"
        / "Full Trade List-small-5cards.dek"
    )
    deck = _parse(path)
    assert [(e.quantity, e.name) for e in deck.entries][0] == (453, "Event Ticket")
    assert [e.line for e in deck.entries] == [5, 6, 7, 8, 9]


# --- nothing is lost -------------------------------------------------------------------------

_HEADER_WORDS = {
    "deck",
    "main",
    "sideboard",
    "commander",
    "companion",
    "about",
    "maybeboard",
    "considering",
    "tokens",
}


def _card_lines(text: str) -> list[int]:
    """Line numbers that must become an entry or an issue, by a rule independent of the parser."""
    numbers = []
    in_metadata = False
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().lstrip("\ufeff")
        if line.startswith("[") and line.endswith("]"):
            in_metadata = line.lower() == "[metadata]"
            continue
        if (
            not line
            or line.startswith(("#", "//"))
            or in_metadata
            or line.rstrip(":").lower() in _HEADER_WORDS
            or line.startswith("Name ")
        ):
            continue
        numbers.append(number)
    return numbers


@pytest.mark.parametrize("path", TEXT_FILES, ids=_id)
def test_every_card_line_gives_exactly_one_entry_or_issue(path):
    deck = _parse(path)
    produced = Counter([e.line for e in deck.entries] + [i.line for i in deck.issues])
    expected = _card_lines(path.read_text(encoding="utf-8"))
    assert sorted(produced.elements()) == expected
    lines = path.read_text(encoding="utf-8").splitlines()
    for entry in deck.entries:
        assert entry.text == lines[entry.line - 1].rstrip().lstrip("\ufeff")


@pytest.mark.parametrize("path", DEK_FILES, ids=_id)
def test_every_dek_card_element_gives_one_entry(path):
    text = path.read_text(encoding="utf-8")
    deck = _parse(path)
    assert len(deck.entries) + len(deck.issues) == text.count("<Cards ")
    assert all(e.line is not None and "<Cards " in e.text for e in deck.entries)
