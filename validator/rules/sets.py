"""Legal sets (Old School 93/94 and its variants): a card is legal only when it was printed in
one of the format's sets, whichever printing the player brings (the source's rule, XMage's
`Constructed.legalSets`: any printing of the card in a legal set). The format's own names still
decide first: an allowed card is legal, a banned one is the card-pool check's error.

Which sets a card was printed in is known only from printings (`deckcheck sync --printings`,
Scryfall's default_cards): oracle cards carry one printing each, not all of them. Without
printings the deck is not judged legal, and the problem says why and what to run: unknown is
neither "allowed" nor "illegal" (the fail-closed rule of an unknown legality, as Pauper
Commander's commander rarity does).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from validator.model import COMPANION, ERROR, Problem, ResolvedDeck, ResolvedEntry, entry_lines
from validator.rules.checks import deck_and_sideboard
from validator.rules.formats import FormatRules

#: oracle ids -> the set codes each was printed in; None when printings are not known.
PrintedSets = Callable[[Iterable[str]], "dict[str, set[str]] | None"]

#: Set codes named in a message at most (a card reprinted in hundreds of sets).
_SHOWN = 8


def _codes(codes: Iterable[str]) -> str:
    shown = sorted(codes)
    more = len(shown) - _SHOWN
    return ", ".join(shown[:_SHOWN]) + (f" and {more} more" if more > 0 else "")


def set_problems(
    deck: ResolvedDeck, fmt: FormatRules, printed_sets: PrintedSets | None
) -> list[Problem]:
    """A `not-in-legal-sets` error for each card of the deck, sideboard and companion (CR
    100.4a: the sideboard is held to the deck's rules) printed in none of the format's legal
    sets; a `sets-unchecked` error naming the cards when printings are not known."""
    if not fmt.sets:
        return []
    groups: dict[str, list[ResolvedEntry]] = {}
    for e in deck_and_sideboard(deck, fmt) + deck.cards_in(COMPANION):
        # a name the format allows is legal whatever its sets; a banned one is already an error
        if fmt.listed(e.card) not in ("legal", "banned"):
            groups.setdefault(e.card.oracle_id, []).append(e)
    if not groups:
        return []
    cite = fmt.cite("card_pool")
    legal = f"{fmt.name}'s legal sets{fmt.as_of_list}: {', '.join(sorted(fmt.sets))}"
    printed = printed_sets(list(groups)) if printed_sets is not None else None
    if printed is None:
        entries = [e for group in groups.values() for e in group]
        return [
            Problem(
                "sets-unchecked",
                f"could not check that the deck's cards were printed in {legal}: the card "
                "data has no printings, so the deck is not judged legal (nor known to be "
                "illegal); run `deckcheck sync --printings`",
                cite,
                ERROR,
                cards=tuple(dict.fromkeys(e.card.name for e in entries)),
                lines=entry_lines(entries),
            )
        ]
    problems = []
    for oracle_id, group in groups.items():
        seen = printed.get(oracle_id) or set()
        if seen & fmt.sets:
            continue
        name = group[0].card.name
        problems.append(
            Problem(
                "not-in-legal-sets",
                f"{name} was not printed in any of {legal} (printed in: "
                f"{_codes(seen) or 'no set the printings know'})",
                cite,
                ERROR,
                cards=(name,),
                lines=entry_lines(group),
            )
        )
    return problems
