"""Name resolution: exact and folded names only, split/DFC spellings, suggestions."""

from __future__ import annotations

import pytest

from conftest import FIXTURES
from validator.cardfacts import card_from_scryfall
from validator.model import Deck, DeckEntry, ParseIssue, Section
from validator.names import fold_name
from validator.resolve import CardIndex, resolve


@pytest.fixture(scope="module")
def index() -> CardIndex:
    import json

    objs = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    return CardIndex(((), card_from_scryfall(o)) for o in objs)


def deck_of(*names: str) -> Deck:
    return Deck(entries=[DeckEntry(quantity=1, name=n, line=i + 1) for i, n in enumerate(names)])


@pytest.mark.parametrize("written, oracle", [
    ("Lightning Bolt", "Lightning Bolt"),
    ("lightning bolt", "Lightning Bolt"),
    ("Lim-Dul's Vault", "Lim-Dûl's Vault"),
    ("Lim\u2013D\u00fbl\u2019s Vault", "Lim-Dûl's Vault"),
    ("Æther Vial", "Aether Vial"),
    ("Fire // Ice", "Fire // Ice"),
    ("Fire/Ice", "Fire // Ice"),
    ("Fire", "Fire // Ice"),
    ("Delver of Secrets", "Delver of Secrets // Insectile Aberration"),
    ("Minsc & Boo, Timeless Heroes", "Minsc & Boo, Timeless Heroes"),
    ("Circle of Protection: Red", "Circle of Protection: Red"),
    ("Borrowing 100,000 Arrows", "Borrowing 100,000 Arrows"),
    ("B.F.M. (Big Furry Monster)", "B.F.M. (Big Furry Monster)"),
])
def test_spellings_resolve_to_the_card(index, written, oracle):
    result = resolve(deck_of(written), index)
    assert result.problems == []
    assert result.entries[0].card.name == oracle


def test_full_name_beats_a_face_of_another_card(index):
    result = resolve(deck_of("Ancestral Recall"), index)
    assert result.entries[0].card.name == "Ancestral Recall"


def test_never_a_prefix_match(index):
    result = resolve(deck_of("Tundra"), index)
    assert result.entries[0].card.name == "Tundra"
    result = resolve(deck_of("Tundra Wol"), index)
    assert result.entries == []
    [problem] = result.problems
    assert problem.code == "unknown-card" and problem.lines == (1,)


def test_unknown_card_suggests_close_names(index):
    result = resolve(deck_of("Lightnig Bolt"), index)
    [problem] = result.problems
    assert problem.code == "unknown-card"
    assert "did you mean 'Lightning Bolt'" in problem.message
    assert result.unresolved[0].name == "Lightnig Bolt"


def test_unreadable_lines_become_problems(index):
    deck = Deck(issues=[ParseIssue(line=7, message="cannot read this line", text="x Bolt")])
    result = resolve(deck, index)
    [problem] = result.problems
    assert problem.code == "unreadable-line" and problem.lines == (7,)


def test_ignored_sections_are_not_resolved(index):
    deck = Deck(entries=[DeckEntry(1, "Not A Card At All", Section.IGNORED, 1)])
    assert resolve(deck, index).problems == []


def test_fold_name_keeps_every_letter():
    assert fold_name("Fire/Ice") == fold_name("fire // ice") == "fire // ice"
    assert fold_name("Æther  Vial") == "aether vial"
    assert fold_name("Tundra") != fold_name("Tundra Wolves")


def test_suggestions_ignore_names_that_only_share_a_word(index):
    from validator.resolve import suggestions

    assert suggestions("Goblin Guid", index) == ["Goblin Guide"]
    assert suggestions("Tundra of the Mind", index) == []


def test_sticker_sheets_resolve_apart_from_the_deck():
    from validator.cardfacts import card_from_scryfall

    sheet = card_from_scryfall({"object": "card", "oracle_id": "s1", "name": "Trendy Circus Pirate",
                                "layout": "normal", "type_line": "Stickers", "cmc": 0,
                                "color_identity": []})
    result = resolve(deck_of("Trendy Circus Pirate"), CardIndex([((), sheet)]))
    assert result.entries == [] and result.sticker_sheets[0].card.name == "Trendy Circus Pirate"
