"""Commander Brackets (beta, February 2026 update): what a card list can tell about them.

Brackets describe a deck's intent, which no list shows. The one hard, countable line is the
Game Changers list (Scryfall's `game_changer` flag): brackets 1-2 allow none, bracket 3 up to
three, brackets 4-5 any number. So this module reports the lowest bracket the Game Changer
count allows, and whether a requested bracket is exceeded.
"""

from __future__ import annotations

from validator.model import Problem, ResolvedDeck, Section, Severity, entry_lines

CITATION = "format:commander-brackets"
#: Game Changers each bracket allows; None = any number.
GAME_CHANGERS_ALLOWED: dict[int, int | None] = {1: 0, 2: 0, 3: 3, 4: None, 5: None}
_WORDS = {0: "no", 3: "up to three"}
#: The deck proper: commanders count, sideboard cards do not. A companion is never a Game
#: Changer, but it is played, so it would count.
_PLAYED = (Section.MAIN, Section.COMMANDER, Section.COMPANION)


def game_changers(deck: ResolvedDeck) -> list[str]:
    """Names of the Game Changers in the deck, one per copy, in list order."""
    return [
        e.card.name
        for e in deck.cards_in(*_PLAYED)
        if e.card.game_changer
        for _ in range(e.quantity)
    ]


def _game_changer_lines(deck: ResolvedDeck) -> tuple[int, ...]:
    """The decklist lines of the Game Changer entries, for the problem's `lines`."""
    return entry_lines(e for e in deck.cards_in(*_PLAYED) if e.card.game_changer)


def bracket_floor(deck: ResolvedDeck) -> tuple[int, list[str]]:
    """The lowest bracket the Game Changer count allows, and the Game Changers."""
    found = game_changers(deck)
    for bracket in sorted(GAME_CHANGERS_ALLOWED):
        allowed = GAME_CHANGERS_ALLOWED[bracket]
        if allowed is None or len(found) <= allowed:
            return bracket, found
    raise AssertionError("bracket 5 allows any number")  # pragma: no cover


def _summary(count: int, names: list[str]) -> str:
    listed = f" ({', '.join(names)})" if names else ""
    return f"Game Changers: {count}{listed}"


def bracket_problems(deck: ResolvedDeck, requested: int | None = None) -> list[Problem]:
    """INFO `bracket` with the lowest bracket the list allows, or ERROR `bracket-exceeded` when
    `requested` allows fewer Game Changers than the list has."""
    if requested is not None and requested not in GAME_CHANGERS_ALLOWED:
        raise ValueError(f"bracket must be 1 to 5, not {requested}")
    floor, names = bracket_floor(deck)
    if requested is not None and requested < floor:
        allowed = GAME_CHANGERS_ALLOWED[requested] or 0
        return [
            Problem(
                "bracket-exceeded",
                f"Bracket {requested} allows {_WORDS.get(allowed, str(allowed))} Game Changers; this "
                f"list has {len(names)}: {', '.join(names)}. Lowest bracket this list allows is "
                f"{floor}.",
                CITATION,
                Severity.ERROR,
                cards=tuple(dict.fromkeys(names)),
                lines=_game_changer_lines(deck),
            )
        ]
    return [
        Problem(
            "bracket",
            f"{_summary(len(names), names)}: lowest bracket this list allows is {floor}. Brackets are "
            "about intent; only the Game Changer count is checked.",
            CITATION,
            Severity.INFO,
            cards=tuple(dict.fromkeys(names)),
            lines=_game_changer_lines(deck),
        )
    ]
