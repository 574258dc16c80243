"""ResolvedDeck's section lists, kept in place by `move`: whatever the moves, every
answer is the one a scan of `entries` gives, in listing order."""

from __future__ import annotations

import random

import pytest
from support import load_cards, make_deck

from validator.model import Deck, DeckEntry, ResolvedDeck, ResolvedEntry, Section
from validator.rules.commander.designation import designate_commanders
from validator.rules.formats import get_format

CARDS = load_cards("cards_commander.json")
NAMES = sorted({c.name for c in CARDS.values()})[:6]
SECTIONS = [Section.MAIN, Section.SIDEBOARD, Section.COMMANDER, Section.COMPANION, Section.IGNORED]


def _expected_move(rows, index, section, quantity):
    """The listing after a move, as `move` documents it, on (quantity, section, line) rows."""
    have, old, line = rows[index]
    if have <= quantity:
        rows[index] = (have, section, line)
        return index
    rows[index] = (have - quantity, old, line)
    if section == Section.IGNORED:
        rows.append((quantity, section, line))
        return len(rows) - 1
    rows.insert(index + 1, (quantity, section, line))
    return index + 1


def _check(deck: ResolvedDeck, rng: random.Random) -> None:
    """Ask like the checks do (several tuples, repeated) and compare with a scan."""
    _check_runs(deck)
    for _ in range(3):
        asked = tuple(rng.sample(SECTIONS, rng.randint(1, 3)))
        want = [e for e in deck.entries if e.entry.section in asked]
        assert [id(e) for e in deck.cards_in(*asked)] == [id(e) for e in want], asked
        assert deck.count(*asked) == sum(e.entry.quantity for e in want)
        assert deck.has(*asked) == bool(want)
        _check_runs(deck)


def _check_runs(deck: ResolvedDeck) -> None:
    """While the sections' order is kept, it is the order of their runs in `entries`."""
    index = deck._index
    if index.order is not None and index.fresh(deck.entries):
        runs = [
            s
            for i, s in enumerate(e.entry.section for e in deck.entries)
            if i == 0 or deck.entries[i - 1].entry.section != s
        ]
        assert index.order == runs


@pytest.mark.parametrize("seed", range(120))
def test_section_lists_follow_any_moves(seed):
    rng = random.Random(seed)
    small = seed % 2  # a few lines in runs, listed anew often: the sections' order is kept
    runs = small or rng.random() < 0.5  # the usual shape: each section in one run
    plan = []
    for line in range(1, rng.randint(1, 7 if small else 40)):
        section = rng.choice(SECTIONS[:4])
        plan.append((rng.randint(0, 4), rng.choice(NAMES), section, line))
    if runs:
        plan.sort(key=lambda p: SECTIONS.index(p[2]))
    entries = [DeckEntry(q, n, s, line) for q, n, s, line in plan]
    deck = ResolvedDeck(
        deck=Deck(entries=list(entries)), entries=[ResolvedEntry(e, CARDS[e.name]) for e in entries]
    )
    rows = [(e.quantity, e.section, e.line) for e in entries]
    for _ in range(60):
        if not deck.entries:
            break
        roll = rng.random()
        if roll < 0.6:
            index = rng.randrange(len(deck.entries))
            section, quantity = rng.choice(SECTIONS), rng.randint(1, 4)
            at = _expected_move(rows, index, section, quantity)
            moved = deck.move(deck.entries[index], section, quantity)
            assert moved is deck.entries[at]
        elif roll < 0.7:  # entries added or removed by hand are seen (the length changes)
            if rng.random() < 0.5:
                index = rng.randrange(len(deck.entries))
                deck.entries.pop(index)
                rows.pop(index)
            else:
                entry = DeckEntry(1, rng.choice(NAMES), rng.choice(SECTIONS), 100 + len(rows))
                deck.entries.append(ResolvedEntry(entry, CARDS[entry.name]))
                rows.append((1, entry.section, entry.line))
        elif roll < (0.9 if small else 0.75):  # a new list
            deck.entries = list(deck.entries)
        assert [(e.entry.quantity, e.entry.section, e.entry.line) for e in deck.entries] == rows
        _check(deck, rng)
    assert deck.deck.entries == entries  # the parsed deck is never touched


def test_thousands_of_repeated_commanders_rebuild_the_lists_once(monkeypatch):
    """A hostile list repeating its commander on every sideboard line: each repeat is moved
    aside (duplicate-listing), and the section lists are rebuilt a bounded number of times,
    not once per move."""
    krenko = "Krenko, Mob Boss"
    deck = make_deck(
        CARDS, main=[(99, "Mountain")], sideboard=[(1, krenko)] * 3000, commanders=[krenko]
    )
    rebuilds = []
    index_type = type(deck._index)
    for name in ("rebuild", "refresh"):
        original = getattr(index_type, name)
        monkeypatch.setattr(
            index_type,
            name,
            lambda self, entries, original=original, name=name: (
                rebuilds.append(name),
                original(self, entries),
            )[1],
        )
    problems = designate_commanders(deck, get_format("commander"))
    assert sum(p.code == "duplicate-listing" for p in problems) == 3000
    assert deck.count(Section.IGNORED) == 3000 and deck.count(Section.SIDEBOARD) == 0
    assert [e.card.name for e in deck.cards_in(Section.COMMANDER)] == [krenko]
    assert len(rebuilds) <= 3, rebuilds


def test_an_entry_removed_by_hand_then_a_split_rebuilds_the_lists():
    """Removing an entry by hand, then a move that splits one (adding an entry back), leaves
    `entries` as long as when the lists were built: they must still be rebuilt."""
    deck = make_deck(CARDS, main=[(1, "Mountain")], sideboard=[(2, "Krenko, Mob Boss")])
    assert deck.count(Section.MAIN) == 1  # the lists are built
    deck.entries.pop(0)
    deck.move(deck.entries[0], Section.COMMANDER, 1)
    assert deck.cards_in(Section.MAIN) == []
    assert [e.card.name for e in deck.cards_in(Section.COMMANDER)] == ["Krenko, Mob Boss"]
    assert deck.count(Section.SIDEBOARD) == 1 and deck.count(Section.MAIN) == 0


def test_clone_shares_lines_but_not_moves():
    deck = make_deck(CARDS, main=[(99, "Mountain")], sideboard=[(2, "Krenko, Mob Boss")])
    clone = deck.clone()
    assert [e.entry for e in clone.entries] == [e.entry for e in deck.entries]
    clone.move(clone.cards_in(Section.SIDEBOARD)[0], Section.COMMANDER)
    assert deck.count(Section.SIDEBOARD) == 2 and not deck.has(Section.COMMANDER)
    assert clone.count(Section.SIDEBOARD) == 1 and clone.count(Section.COMMANDER) == 1
    assert [e.entry.quantity for e in deck.entries] == [99, 2]


def _general_steps(deck, fmt):
    """designate_commanders' general steps for a list with no Commander section."""
    from validator.rules.commander import designation as c

    problems = c._sideboard_leaders(deck, fmt)
    if deck.has(Section.COMMANDER):
        problems += c._ignore_duplicates(deck, fmt, Section.COMMANDER, "commander")
        problems += c._commander_also_in_main(deck, fmt)
    problems += c._designate_companion(deck, fmt)
    return problems


@pytest.mark.parametrize(
    "main, side",
    [
        ([(99, "Mountain")], "Krenko, Mob Boss"),  # the usual MTGO list
        ([(99, "Mountain")], "Lightning Bolt"),  # designated anyway: the report says why not
        ([(99, "Mountain"), (1, "Krenko, Mob Boss")], "Krenko, Mob Boss"),  # also in the deck
        ([(60, "Mountain")], "Krenko, Mob Boss"),  # too small: the size check says so
    ],
)
def test_the_usual_mtgo_path_does_what_the_general_steps_do(main, side):
    """designate_commanders takes a short path for one sideboard card: same problems, same
    sections, same listing as the general steps give."""
    fmt = get_format("duel")
    deck = make_deck(CARDS, main=main, sideboard=[(1, side)])
    general = deck.clone()
    problems = designate_commanders(deck, fmt)
    assert problems == _general_steps(general, fmt)
    assert [p.code for p in problems][0] == "commander-found"
    assert [(e.entry, e.card) for e in deck.entries] == [(e.entry, e.card) for e in general.entries]
    for section in SECTIONS:
        assert deck.cards_in(section) == general.cards_in(section)
