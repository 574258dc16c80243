"""Name resolution: exact and folded names only, split/DFC spellings, suggestions."""

from __future__ import annotations

import pytest
from support import FIXTURES

from validator.cards.facts import card_from_scryfall
from validator.cards.names import fold_name
from validator.model import Deck, DeckEntry, ParseIssue, Section
from validator.rules.resolve import resolve
from validator.store.index import CardIndex


@pytest.fixture(scope="module")
def index() -> CardIndex:
    import json

    objs = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    return CardIndex(((), card_from_scryfall(o)) for o in objs)


def deck_of(*names: str) -> Deck:
    return Deck(entries=[DeckEntry(quantity=1, name=n, line=i + 1) for i, n in enumerate(names)])


@pytest.mark.parametrize(
    "written, oracle",
    [
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
    ],
)
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
    from validator.rules.resolve import suggestions

    assert suggestions("Goblin Guid", index) == ["Goblin Guide"]
    assert suggestions("Tundra of the Mind", index) == []


def test_sticker_sheets_resolve_apart_from_the_deck():
    from validator.cards.facts import card_from_scryfall

    sheet = card_from_scryfall(
        {
            "object": "card",
            "oracle_id": "s1",
            "name": "Trendy Circus Pirate",
            "layout": "normal",
            "type_line": "Stickers",
            "cmc": 0,
            "color_identity": [],
        }
    )
    result = resolve(deck_of("Trendy Circus Pirate"), CardIndex([((), sheet)]))
    assert result.entries == [] and result.sticker_sheets[0].card.name == "Trendy Circus Pirate"


class _Names:
    """A card source that only has names (for the suggestion tests)."""

    def __init__(self, names: list[str]):
        self.names = names

    def all_names(self) -> list[str]:
        return self.names


def test_a_face_of_a_multi_face_card_is_suggested_for_a_typo_of_it():
    from validator.rules.resolve import suggestions

    source = _Names(["Nissa, Vastwood Seer // Nissa, Sage Animist", "Fire // Ice", "Ice"])
    # as MTGO and Arena write the card: its front face, here without its comma
    assert suggestions("Nissa Vastwood Seer", source) == ["Nissa, Vastwood Seer"]
    assert suggestions("Nissa Sage Animst", source) == ["Nissa, Sage Animist"]
    assert suggestions("Fire / Ice", source) == ["Fire // Ice"]  # the whole name first
    assert suggestions("Ices", source) == ["Ice"]  # a face that is a card's name: listed once


def test_length_bounded_suggestions_equal_scoring_every_name():
    """Only names whose length can reach the cutoff are scored; the answers (and their order,
    ties included) are those of scoring every name."""
    import random

    from rapidfuzz import fuzz, process, utils

    from validator.rules.resolve import suggestions

    rng = random.Random(12)
    words = [
        "Bolt",
        "Lightning",
        "Goblin",
        "Guide",
        "Ancestral",
        "Recall",
        "Fire",
        "Ice",
        "Of",
        "the",
        "Vial",
        "Aether",
        "Lotus",
        "Black",
        "Sol",
        "Ring",
        "Ring",
        "Birds",
        "Paradise",
    ]
    names = sorted(
        {" ".join(rng.choice(words) for _ in range(rng.randint(1, 5))) for _ in range(3000)}
    )
    source = _Names(names)
    processed = [utils.default_process(n) for n in names]
    queries = (
        [n[:-1] for n in names[::7]]
        + [n + "s" for n in names[::11]]
        + [n.replace("o", "0", 1) for n in names[::13]]
        + ["Bolt", "x", "Lighning Bolt"]
    )
    for query in queries:
        every = process.extract(
            utils.default_process(query),
            processed,
            scorer=fuzz.ratio,
            processor=None,
            limit=3,
            score_cutoff=80,
        )
        assert suggestions(query, source) == [names[i] for _, _, i in every], query
        assert suggestions(query, source) == [names[i] for _, _, i in every]  # cached answer


def test_suggestions_are_cached_per_source(index):
    from validator.rules import resolve as r

    first = r.suggestions("Lightnig Bolt", index)
    suggester = r._SUGGESTERS[id(index.all_names())]
    assert ("Lightnig Bolt", 3) in suggester.answers
    assert r.suggestions("Lightnig Bolt", index) == first == ["Lightning Bolt"]


def test_entries_by_section_follow_moves_between_sections(index):
    deck = resolve(
        Deck(
            entries=[
                DeckEntry(2, "Lightning Bolt", Section.MAIN, 1),
                DeckEntry(1, "Black Lotus", Section.SIDEBOARD, 2),
            ]
        ),
        index,
    )
    assert [e.card.name for e in deck.cards_in(Section.SIDEBOARD)] == ["Black Lotus"]
    bolt = deck.cards_in(Section.MAIN)[0]
    deck.move(bolt, Section.SIDEBOARD, 1)  # splits the entry: one copy moves
    assert deck.count(Section.MAIN) == 1 and deck.count(Section.SIDEBOARD) == 2
    deck.move(deck.cards_in(Section.MAIN)[0], Section.COMMANDER)
    assert deck.cards_in(Section.MAIN) == [] and deck.count(Section.COMMANDER) == 1
    deck.entries.pop()
    assert deck.count(Section.MAIN, Section.SIDEBOARD, Section.COMMANDER) == 2
    returned = deck.cards_in(Section.SIDEBOARD)
    returned.clear()  # callers may change the list they get
    assert len(deck.cards_in(Section.SIDEBOARD)) == 1


def test_section_index_sees_moved_entries_and_new_lists(index):
    """The section index is checked in O(1): an entry moved to another section (as
    `commander_section_as_deck` does), a new `entries` list, and the same-length list after a
    move are all seen, for both `cards_in` and the cached `count`."""
    deck = resolve(
        Deck(
            entries=[
                DeckEntry(3, "Lightning Bolt", Section.COMMANDER, 1),
                DeckEntry(1, "Black Lotus", Section.MAIN, 2),
            ]
        ),
        index,
    )
    assert deck.count(Section.MAIN) == 1 and deck.count(Section.COMMANDER) == 3
    bolt = deck.cards_in(Section.COMMANDER)[0]
    assert deck.move(bolt, Section.MAIN, 3) is bolt  # same list, same length
    assert deck.count(Section.MAIN) == 4 and deck.cards_in(Section.COMMANDER) == []
    assert [e.card.name for e in deck.cards_in(Section.MAIN, Section.COMMANDER)] == [
        "Lightning Bolt",
        "Black Lotus",
    ]
    deck.entries = deck.entries[1:]  # a new list
    assert deck.count(Section.MAIN) == 1
    assert deck.count(Section.MAIN, Section.SIDEBOARD) == 1


def test_lines_of_one_card_are_its_copies_and_follow_moves(index):
    """Lines naming one card however spelled are one card's copies (201.3b), over the main
    deck and sideboard (100.4a); a line moved out of them no longer counts."""
    from validator.rules.checks import check_copies
    from validator.rules.formats import get_format

    deck = resolve(
        Deck(
            entries=[
                DeckEntry(3, "Lightning Bolt", Section.MAIN, 1),
                DeckEntry(1, "Black Lotus", Section.MAIN, 2),
                DeckEntry(2, "lightning bolt", Section.SIDEBOARD, 3),
            ]
        ),
        index,
    )
    modern = get_format("modern")
    [problem] = check_copies(deck, modern)
    assert (problem.code, problem.lines) == ("too-many-copies", (1, 3))
    deck.move(deck.cards_in(Section.SIDEBOARD)[0], Section.IGNORED, 2)
    assert check_copies(deck, modern) == []


def test_names_resolved_before_give_the_same_deck(index):
    """An index keeps the names that gave one card of a deck. A deck resolved from
    them reads as from a fresh index, also where a remembered name stands in a section that
    holds no deck cards (Stickers: reported as not a sticker sheet), next to unknown names."""
    import json

    def fresh():
        objs = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
        return CardIndex(((), card_from_scryfall(o)) for o in objs)

    def summary(deck):
        return (
            [(e.entry.line, e.card.oracle_id) for e in deck.entries],
            [(e.entry.line, e.card.oracle_id) for e in deck.sticker_sheets],
            [e.line for e in deck.unresolved],
            [p.to_dict() for p in deck.problems],
        )

    warm = fresh()
    resolve(deck_of("Lightning Bolt", "fire/ice", "Ancestral Recall"), warm)
    assert {"Lightning Bolt", "fire/ice", "Ancestral Recall"} <= set(warm.deck_cards)
    deck = Deck(
        entries=[
            DeckEntry(1, "Lightning Bolt", Section.MAIN, 1),
            DeckEntry(1, "Lightning Bolt", Section.STICKER, 2),
            DeckEntry(1, "Tundra Wol", Section.MAIN, 3),
            DeckEntry(1, "fire/ice", Section.SIDEBOARD, 4),
        ]
    )
    assert summary(resolve(deck, warm)) == summary(resolve(deck, fresh()))
    assert "Tundra Wol" not in warm.deck_cards


def test_remembered_names_are_bounded_and_forgotten_when_cards_change(index, monkeypatch):
    """Distinct names (hostile input) cannot grow the index's memory of names without bound,
    and adding a card forgets them (a name may then match it too)."""
    import validator.rules.resolve as resolve_module

    monkeypatch.setattr(resolve_module, "MAX_KNOWN_NAMES", 3)
    index.deck_cards.clear()
    resolve(
        deck_of(
            "Lightning Bolt",
            "lightning bolt",
            "LIGHTNING BOLT",
            "Fire",
            "Tundra",
            "Ancestral Recall",
        ),
        index,
    )
    assert 0 < len(index.deck_cards) <= 3
    index.add(index.card_by_id(index.lookup(["Tundra"])["tundra"][0].oracle_id))
    assert index.deck_cards == {}


class _Names:
    """A card source as `suggestions` reads it: its names, in the order given."""

    def __init__(self, names: list[str]) -> None:
        self.names = names

    def all_names(self) -> list[str]:
        return self.names


@pytest.mark.parametrize("order", [1, -1])
def test_first_name_suggests_the_legends_it_stands_for_before_possessives(order):
    """ "Krenko" stands for Krenko, Mob Boss, not Krenko's Command; the answer does not depend
    on the order a card source lists its names in (the CLI's database and the service's index
    list them differently)."""
    from validator.rules.resolve import suggestions

    names = [
        "Krenko's Command",
        "Krenko's Buzzcrusher",
        "Krenko, Tin Street Kingpin",
        "Krenko, Mob Boss",
        "Krenko's Enforcer",
        "Tymna the Weaver",
    ][::order]
    assert suggestions("Krenko", _Names(names), short_names=True) == [
        "Krenko, Mob Boss",
        "Krenko, Tin Street Kingpin",
        "Krenko's Command",
    ]


@pytest.mark.parametrize("name", ["???", "\u2014", "\u2605", "   "])
def test_a_name_with_no_letter_or_digit_suggests_nothing(name):
    """Such a name is close to no card: not to the Un-card "_____", whose name has no letter
    either (an empty string matched against an empty one scores 100)."""
    from validator.rules.resolve import suggestions

    assert suggestions(name, _Names(["_____", "______", "Lightning Bolt"]), short_names=True) == []
