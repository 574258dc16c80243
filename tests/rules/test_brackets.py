"""Commander Brackets: only the Game Changer count is checkable from a list."""

from __future__ import annotations

import pytest
from support import load_cards, make_deck

from validator.model import Severity
from validator.rules.brackets import bracket_floor, bracket_problems

CARDS = load_cards("cards_commander.json")
GAME_CHANGERS = [
    "Demonic Tutor",
    "Enlightened Tutor",
    "Rhystic Study",
    "Cyclonic Rift",
    "Smothering Tithe",
]


def deck_with(n, commander="Oloro, Ageless Ascetic", extra=()):
    main = [(1, name) for name in GAME_CHANGERS[:n]] + [(1, name) for name in extra]
    return make_deck(
        CARDS,
        main=main + [(90, "Plains")],
        sideboard=[(1, "Cyclonic Rift")],
        commanders=[commander],
    )


@pytest.mark.parametrize("n, floor", [(0, 1), (1, 3), (3, 3), (4, 4), (5, 4)])
def test_floor_from_game_changer_count(n, floor):
    assert bracket_floor(deck_with(n)) == (floor, GAME_CHANGERS[:n])


def test_sideboard_does_not_count_but_commanders_do():
    deck = make_deck(
        CARDS,
        main=[(1, "Demonic Tutor")],
        sideboard=[(1, "Rhystic Study")],
        commanders=["Oloro, Ageless Ascetic"],
    )
    assert bracket_floor(deck) == (3, ["Demonic Tutor"])
    assert CARDS["Demonic Tutor"].game_changer and not CARDS["Oloro, Ageless Ascetic"].game_changer


def test_info_without_a_requested_bracket():
    [problem] = bracket_problems(deck_with(3))
    assert problem.code == "bracket"
    assert problem.severity == Severity.INFO
    assert problem.citation == "format:commander-brackets"
    assert problem.message == (
        "Game Changers: 3 (Demonic Tutor, Enlightened Tutor, Rhystic Study): lowest bracket this "
        "list allows is 3. Brackets are about intent; only the Game Changer count is checked."
    )
    assert problem.cards == ("Demonic Tutor", "Enlightened Tutor", "Rhystic Study")


def test_no_game_changers():
    [problem] = bracket_problems(deck_with(0), 1)
    assert problem.code == "bracket"
    assert problem.message.startswith("Game Changers: 0: lowest bracket this list allows is 1.")


@pytest.mark.parametrize("requested, n", [(2, 1), (3, 4), (1, 2)])
def test_requested_bracket_exceeded(requested, n):
    [problem] = bracket_problems(deck_with(n), requested)
    assert problem.code == "bracket-exceeded"
    assert problem.severity == Severity.ERROR
    assert problem.cards == tuple(GAME_CHANGERS[:n])
    assert f"Bracket {requested} allows" in problem.message


@pytest.mark.parametrize("requested, n", [(3, 3), (4, 5), (5, 5), (2, 0)])
def test_requested_bracket_within(requested, n):
    [problem] = bracket_problems(deck_with(n), requested)
    assert problem.code == "bracket"
    assert problem.severity == Severity.INFO


def test_unknown_bracket_is_a_usage_error():
    with pytest.raises(ValueError):
        bracket_problems(deck_with(0), 6)


@pytest.mark.parametrize("requested", [None, 2])
def test_bracket_problems_name_the_game_changer_lines(requested):
    # make_deck numbers lines in order: the Game Changers are lines 1-2, Plains 3, the
    # sideboard's Cyclonic Rift 4 (not counted, so not named), the commander 5.
    [problem] = bracket_problems(deck_with(2), requested)
    assert problem.code == ("bracket" if requested is None else "bracket-exceeded")
    assert problem.lines == (1, 2)
