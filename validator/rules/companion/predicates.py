"""The companion conditions' predicates and their card-level vocabulary (CR 702.139a).

A predicate is what the grammar's reader (`reader`) makes of one sentence; `findings` checks it
against the starting deck. This module knows no grammar and no deck sections: the deck checks
(`checks`) pick the starting deck and turn findings into problems.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from validator.cards.types import DeckTypes, deck_types
from validator.model import CARD_TYPES, PERMANENT_TYPES, Card

if TYPE_CHECKING:
    from validator.rules.formats import FormatRules

CardCounts = Sequence[tuple[Card, int]]
#: How a test reads a card's types off the battlefield (113.6c): `deck_types`, or `types_of`,
#: which reads each card once per process.
TypesFn = Callable[[Card], DeckTypes]

#: How many offending cards a one-line message spells out before "... and N more".
MAX_LISTED = 8


@dataclass(frozen=True, slots=True)
class Offense:
    """One reason the starting deck fails a condition; `card` is "" for the deck as a whole."""

    card: str
    reason: str

    def render(self) -> str:
        return f"{self.card}: {self.reason}" if self.card else self.reason


@dataclass(frozen=True, slots=True)
class StartingDeck:
    """What a condition may need besides the cards: the deck-size rules of the game."""

    minimum_deck_size: int = 60
    #: Commander, Brawl, Oathbreaker: the deck has exactly its minimum size (903.5a, 903.12d),
    #: so "more than the minimum deck size" can never hold.
    exact_size: bool = False

    @classmethod
    def for_format(cls, fmt: FormatRules) -> StartingDeck:
        return cls(
            minimum_deck_size=fmt.min_deck,
            exact_size=fmt.max_deck is not None and fmt.max_deck == fmt.min_deck,
        )


# ---------------------------------------------------------------------------------------------
# Card-level vocabulary: adjectives ("nonland"), kinds ("a Cat card") and features ("has mana
# value 2 or less"). Each answers `holds(card)` and says what the card has (`fact`).
# ---------------------------------------------------------------------------------------------

#: Supertypes a kind or adjective may name (205.4a).
_SUPERTYPES = {"basic": "Basic", "legendary": "Legendary", "snow": "Snow", "world": "World"}
_TYPES = {t.lower(): t for t in CARD_TYPES} | {"tribal": "Kindred"}  # kindred was tribal


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _deck_type_line(card: Card) -> str:
    """The type line of the deck characteristics: front face, or both halves of a split card."""
    if card.layout == "split" and len(card.faces) > 1:
        return " // ".join(f.type_line for f in card.faces)
    return card.faces[0].type_line if card.faces else card.type_line


def _deck_cost_text(card: Card) -> str:
    if card.layout == "split" and len(card.faces) > 1:
        return " // ".join(f.mana_cost for f in card.faces)
    return card.mana_cost


@dataclass(frozen=True, slots=True)
class Adjective:
    """A card-type adjective: "permanent", "nonland", "creature", "legendary", "historic"."""

    word: str  # canonical lower-case word without "non"
    negated: bool = False

    @classmethod
    def parse(cls, text: str) -> Adjective:
        word = text.lower().replace("-", "")
        negated = word.startswith("non")
        return cls(word[3:] if negated else word, negated)

    def _positive(self, card: Card, types: TypesFn) -> bool:
        if self.word in _SUPERTYPES:
            return _SUPERTYPES[self.word] in card.supertypes
        # CR 113.6c: the card's types off the battlefield (Grist is a creature card there).
        found = types(card)
        if self.word == "permanent":  # CR 110.4a
            return bool(found.types & PERMANENT_TYPES)
        if self.word == "historic":  # CR 700.6: artifacts, legendaries and Sagas
            return "Artifact" in found.types or card.is_legendary or "Saga" in found.subtypes
        return _TYPES[self.word] in found.types

    def holds(self, card: Card, types: TypesFn = deck_types) -> bool:
        return self._positive(card, types) != self.negated

    def describe(self) -> str:
        return ("non" if self.negated else "") + ("kindred" if self.word == "tribal" else self.word)


@dataclass(frozen=True, slots=True)
class Subtype:
    """A subtype a card must have ("Cat", "Time Lord"); changelings have every creature type."""

    name: str

    def holds(self, card: Card, types: TypesFn = deck_types) -> bool:
        # 113.6c (Grist is an Insect off the battlefield), 702.73a (changelings).
        return types(card).has_subtype(self.name)

    def describe(self) -> str:
        return self.name


Kind = Adjective | Subtype


@dataclass(frozen=True, slots=True)
class Selection:
    """Which cards a sentence talks about: all adjectives must hold ("nonland permanent card")."""

    adjectives: tuple[Adjective, ...] = ()

    def holds(self, card: Card, types: TypesFn = deck_types) -> bool:
        for adjective in self.adjectives:  # a loop, not all(): this runs for every card
            if not adjective.holds(card, types):
                return False
        return True

    def noun(self, plural: bool = False) -> str:
        words = [a.describe() for a in self.adjectives] + ["cards" if plural else "card"]
        return " ".join(words)

    def pick(self, cards: CardCounts, types: TypesFn = deck_types) -> list[tuple[Card, int]]:
        if not self.adjectives:  # "each card": every card, no test to run
            return list(cards)
        return [(c, q) for c, q in cards if self.holds(c, types)]


_COMPARE = {
    "le": (lambda v, n: v <= n, "{n} or less"),
    "ge": (lambda v, n: v >= n, "{n} or greater"),
    "lt": (lambda v, n: v < n, "less than {n}"),
    "gt": (lambda v, n: v > n, "greater than {n}"),
    "eq": (lambda v, n: v == n, "{n}"),
}


@dataclass(frozen=True, slots=True)
class ManaValue:
    """ "mana value 2 or less": CR 202.3 mana value outside the stack (Card.mana_value: X is 0,
    split cards sum their halves, DFC/adventure/prototype cards use the front/normal face)."""

    op: str
    value: int

    def holds(self, card: Card, types: TypesFn = deck_types) -> bool:
        return _COMPARE[self.op][0](card.mana_value, self.value)

    def describe(self) -> str:
        return "mana value " + _COMPARE[self.op][1].format(n=self.value)

    def fact(self, card: Card, types: TypesFn = deck_types) -> str:
        return f"with mana value {_number(card.mana_value)}"


@dataclass(frozen=True, slots=True)
class Parity:
    """ "an even mana value" / "odd mana values"; a fractional (Un-card) value is neither."""

    even: bool

    def holds(self, card: Card, types: TypesFn = deck_types) -> bool:
        mv = card.mana_value
        return mv.is_integer() and (int(mv) % 2 == 0) == self.even

    def describe(self) -> str:
        return "an even mana value" if self.even else "an odd mana value"

    def fact(self, card: Card, types: TypesFn = deck_types) -> str:
        mv = card.mana_value
        if not mv.is_integer():
            return f"with mana value {_number(mv)}"
        return f"with {'even' if int(mv) % 2 == 0 else 'odd'} mana value {int(mv)}"


@dataclass(frozen=True, slots=True)
class ActivatedAbility:
    """ "an activated ability": Card.has_activated_ability, computed at sync time by
    abilities.has_activated_ability (mana, loyalty and keyword abilities included)."""

    def holds(self, card: Card, types: TypesFn = deck_types) -> bool:
        return card.has_activated_ability

    def describe(self) -> str:
        return "an activated ability"

    def fact(self, card: Card, types: TypesFn = deck_types) -> str:
        return ("with" if card.has_activated_ability else "without") + " an activated ability"


_SYMBOL = re.compile(r"\{[^{}]+\}")


def _repeated_symbols(card: Card, more_than: int) -> tuple[tuple[str, int], ...]:
    """Mana symbols appearing more than `more_than` times in the card's mana cost. Exact
    symbols are compared ({R/G} is not {R}); a split card's cost is both halves (709.4b)."""
    return _repeated_in_cost(card.mana_cost, more_than)


@functools.lru_cache(maxsize=4096)
def _repeated_in_cost(cost: str, more_than: int) -> tuple[tuple[str, int], ...]:
    """`_repeated_symbols` of one mana cost, in the order the symbols first appear. Cached:
    a deck of thousands of cards has far fewer distinct costs."""
    symbols = _SYMBOL.findall(cost)
    if len(symbols) <= more_than or len(set(symbols)) == len(symbols):
        return ()  # too few symbols, or no symbol twice
    return tuple((s, n) for s, n in Counter(symbols).items() if n > more_than)


def _article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def _times(n: int) -> str:
    return {2: "twice", 3: "three times"}.get(n, f"{n} times")


@dataclass(frozen=True, slots=True)
class RepeatedManaSymbol:
    """ "more than one of the same mana symbol in its mana cost" (Jegantha)."""

    more_than: int = 1

    def holds(self, card: Card, types: TypesFn = deck_types) -> bool:
        return bool(_repeated_symbols(card, self.more_than))

    def describe(self) -> str:
        count = "one" if self.more_than == 1 else str(self.more_than)
        return f"more than {count} of the same mana symbol in its mana cost"

    def fact(self, card: Card, types: TypesFn = deck_types) -> str:
        repeated = _repeated_symbols(card, self.more_than)
        if not repeated:
            return "with no repeated mana symbol"
        which = ", ".join(f"{s} {_times(n)}" for s, n in repeated)
        return f"with {which} in its mana cost {_deck_cost_text(card)}"


@dataclass(frozen=True, slots=True)
class KindOf:
    """ "is a Cat, Elemental, Nightmare, Dinosaur, or Beast card": any one kind suffices."""

    kinds: tuple[Kind, ...]

    def holds(self, card: Card, types: TypesFn = deck_types) -> bool:
        for kind in self.kinds:  # a loop, not any(): this runs for every card
            if kind.holds(card, types):
                return True
        return False

    def describe(self) -> str:
        names = [k.describe() for k in self.kinds]
        if len(names) <= 2:
            listed = " or ".join(names)
        else:  # the printed serial comma: "Cat, Elemental, Nightmare, Dinosaur, or Beast"
            listed = ", ".join(names[:-1]) + ", or " + names[-1]
        return f"{_article(listed)} {listed} card"

    def fact(self, card: Card, types: TypesFn = deck_types) -> str:
        verdict = "" if self.holds(card, types) else f", not {self.describe()}"
        return f"({_deck_type_line(card)}){verdict}"


Feature = ManaValue | Parity | ActivatedAbility | RepeatedManaSymbol | KindOf


def _verb(feature: Feature) -> str:
    return "be" if isinstance(feature, KindOf) else "have"


# ---------------------------------------------------------------------------------------------
# Predicates: one per sentence shape. evaluate() returns the offenses (empty: condition met).
# ---------------------------------------------------------------------------------------------


#: Each card's types off the battlefield, once per process: a fact of the card that every deck
#: holding it asks again (a companion's condition reads every card of the starting deck).
#: Each entry holds its card, so that the id stays that card's; bounded (cleared when full)
#: so that a service swapping in new card data does not keep the old cards for long.
_DECK_TYPES: dict[int, tuple[Card, DeckTypes]] = {}
_DECK_TYPES_MAX = 8_192


def types_of(card: Card) -> DeckTypes:
    """`deck_types`, read once per card (`_DECK_TYPES`): several tests ask about the same card
    ("creature card", then five creature types for Kaheera), and reading a card's types off
    the battlefield (113.6c, 702.73a) costs more than the tests themselves."""
    hit = _DECK_TYPES.get(id(card))
    if hit is not None and hit[0] is card:
        return hit[1]
    found = deck_types(card)
    if len(_DECK_TYPES) >= _DECK_TYPES_MAX:
        _DECK_TYPES.clear()
    _DECK_TYPES[id(card)] = (card, found)
    return found


#: One offense as found: the card's name ("" for the deck as a whole) and a function that
#: writes the reason, called only for the offenses a message spells out.
Found = tuple[str, Callable[[], str]]


@dataclass(frozen=True, slots=True)
class Findings:
    """What a condition found, written out only as far as a report shows it.

    `listed`: the first offenses with their reasons (MAX_LISTED for a one-line message);
    `cards`: the name of every offending card, in order (a problem names them all, with their
    lines); `total`: how many offenses there are (for "; and N more").
    """

    listed: tuple[Offense, ...]
    cards: tuple[str, ...]
    total: int


class Predicate:
    """A parsed condition. `findings` says what fails (total 0: the condition is met),
    writing reasons only for the offenses a message lists; `evaluate` returns every offense
    with its reason; `describe` reads the tree back in plain words."""

    __slots__ = ()

    def offenses(self, cards: CardCounts, ctx: StartingDeck, types: TypesFn) -> Iterator[Found]:
        """Each offense in report order, its reason not yet written."""
        raise NotImplementedError

    def findings(
        self,
        cards: CardCounts,
        ctx: StartingDeck,
        listed: int | None = MAX_LISTED,
    ) -> Findings:
        """Every offense counted and named; the first `listed` (all with None) with reasons.
        Every card is still tested: the count and the names are exact."""
        shown: list[Offense] = []
        names: list[str] = []
        total = 0
        for name, reason in self.offenses(cards, ctx, types_of):
            if listed is None or total < listed:
                shown.append(Offense(name, reason()))
            if name:
                names.append(name)
            total += 1
        return Findings(tuple(shown), tuple(names), total)

    def evaluate(self, cards: CardCounts, ctx: StartingDeck) -> list[Offense]:
        """Every offense with its reason (an empty list: the condition is met)."""
        return list(self.findings(cards, ctx, listed=None).listed)

    def describe(self) -> str:
        raise NotImplementedError


def _merged(cards: CardCounts) -> list[tuple[Card, int]]:
    """One (card, total copies) per card name, in first-seen order: a deck may list the same
    card on several lines, and copies count together (Lutri)."""
    merged: dict[str, list] = {}  # name -> [first card, copies]
    for card, qty in cards:
        seen = merged.get(card.name)
        if seen is None:
            merged[card.name] = [card, qty]
        else:
            seen[1] += qty
    return [(card, copies) for card, copies in merged.values()]


@dataclass(frozen=True, slots=True)
class EachCard(Predicate):
    """ "Each <selection> in your starting deck <feature>", or with `negated` "No <selection>
    ... <feature>": checked card by card."""

    selection: Selection
    feature: Feature
    negated: bool = False

    def offenses(self, cards: CardCounts, ctx: StartingDeck, types: TypesFn) -> Iterator[Found]:
        noun, feature = self.selection.noun(), self.feature
        for c, _ in _merged(self.selection.pick(cards, types)):
            if feature.holds(c, types) == self.negated:
                yield c.name, lambda c=c: f"{noun} {feature.fact(c, types)}"  # type: ignore[misc]

    def describe(self) -> str:
        if self.negated:
            return f"no {self.selection.noun()} may {_verb(self.feature)} {self.feature.describe()}"
        return f"each {self.selection.noun()} must {_verb(self.feature)} {self.feature.describe()}"


@dataclass(frozen=True, slots=True)
class CardClass:
    """A class of cards a "contains only/no" sentence names: "cards with odd mana values",
    "land cards"."""

    selection: Selection
    feature: Feature | None = None

    def holds(self, card: Card, types: TypesFn = deck_types) -> bool:
        return self.selection.holds(card, types) and (
            self.feature is None or self.feature.holds(card, types)
        )

    def describe(self) -> str:
        noun = self.selection.noun(plural=True)
        if self.feature is None:
            return noun
        if isinstance(self.feature, KindOf):
            return f"{noun} that are {self.feature.describe()}"
        return f"{noun} with {self.feature.describe()}"

    def why_not(self, card: Card, types: TypesFn = deck_types) -> str:
        """Why `card` is not in this class (the card's own fact, or the missing type)."""
        if not self.selection.holds(card, types) or self.feature is None:
            noun = self.selection.noun()
            return f"not {_article(noun)} {noun}"
        return self.feature.fact(card, types)

    def why(self, card: Card, types: TypesFn = deck_types) -> str:
        """What puts `card` in this class: "creature card with mana value 5"."""
        noun = self.selection.noun()
        return f"{noun} {self.feature.fact(card, types)}" if self.feature else noun


@dataclass(frozen=True, slots=True)
class ContainsOnly(Predicate):
    """ "Your starting deck contains only <class> and <class>": each card is in some class."""

    allowed: tuple[CardClass, ...]

    def offenses(self, cards: CardCounts, ctx: StartingDeck, types: TypesFn) -> Iterator[Found]:
        for card, _ in _merged(cards):
            if not any(a.holds(card, types) for a in self.allowed):
                yield card.name, lambda card=card: self._why_not(card, types)  # type: ignore[misc]

    def _why_not(self, card: Card, types: TypesFn) -> str:
        """ "card with mana value 1, not a land card": the card's facts, then missing types."""
        reasons = list(dict.fromkeys(a.why_not(card, types) for a in self.allowed))
        facts = [r for r in reasons if not r.startswith("not ")]
        missing = [r for r in reasons if r.startswith("not ")]
        return ("card " if facts else "") + ", ".join(facts + missing)

    def describe(self) -> str:
        return "every card must be one of: " + "; ".join(a.describe() for a in self.allowed)


@dataclass(frozen=True, slots=True)
class ContainsNo(Predicate):
    """ "Your starting deck contains no <class>"."""

    forbidden: CardClass

    def offenses(self, cards: CardCounts, ctx: StartingDeck, types: TypesFn) -> Iterator[Found]:
        for c, _ in _merged(cards):
            if self.forbidden.holds(c, types):
                yield c.name, lambda c=c: self.forbidden.why(c, types)  # type: ignore[misc]

    def describe(self) -> str:
        return f"the deck may contain no {self.forbidden.describe()}"


@dataclass(frozen=True, slots=True)
class DifferentNames(Predicate):
    """ "Each nonland card in your starting deck has a different name" (Lutri): a second copy
    of a card, or a second entry with the same name, fails (201.2: the English name)."""

    selection: Selection

    def offenses(self, cards: CardCounts, ctx: StartingDeck, types: TypesFn) -> Iterator[Found]:
        noun = self.selection.noun()
        for c, q in _merged(self.selection.pick(cards, types)):
            if q > 1:
                yield (
                    c.name,
                    lambda q=q: (  # type: ignore[misc]
                        f"{q} copies of {_article(noun)} {noun}; each needs a different name"
                    ),
                )

    def describe(self) -> str:
        return f"no two {self.selection.noun(plural=True)} may have the same name (copies count)"


@dataclass(frozen=True, slots=True)
class SharesCardType(Predicate):
    """ "Each nonland card in your starting deck shares a card type" (Umori): one card type
    (205.2a, kindred included) common to all of them; subtypes and supertypes don't count."""

    selection: Selection

    def offenses(self, cards: CardCounts, ctx: StartingDeck, types: TypesFn) -> Iterator[Found]:
        picked = _merged(self.selection.pick(cards, types))
        if not picked:
            return
        # CR 113.6c: types in the library (Grist is a creature card there).
        held = [(card, qty, types(card).types) for card, qty in picked]
        common = frozenset.intersection(*(own for _, _, own in held))
        if common:
            return
        counts: Counter[str] = Counter()
        for _, qty, own in held:
            counts.update({t: qty for t in own})
        # Most copies first, ties by name: a frozenset's order changes from run to run (string
        # hashing), so Counter.most_common() alone would word the same deck differently.
        ranked = sorted(counts.items(), key=lambda tn: (-tn[1], tn[0]))
        best = ranked[0][0] if ranked else None
        found = ", ".join(f"{t} \u00d7{n}" for t, n in ranked)
        noun = self.selection.noun(plural=True)
        yield "", lambda: f"no card type is shared by all {noun} (found: {found or 'none'})"
        if best is None:
            return
        for card, _, own in held:
            if best not in own:
                # Named against the most common type; the summary above lists them all.
                yield (
                    card.name,
                    lambda own=own: (  # type: ignore[misc]
                        f"{'/'.join(sorted(own)) or 'typeless'} card, "
                        f"not {_article(best)} {best} card"
                    ),
                )

    def describe(self) -> str:
        return f"all {self.selection.noun(plural=True)} must share at least one card type"


_SIZE_OPS = {"at_least": "ge", "at_most": "le", "exactly": "eq"}


@dataclass(frozen=True, slots=True)
class DeckSize(Predicate):
    """ "Your starting deck contains at least twenty cards more than the minimum deck size"
    (Yorion), or an absolute count. Commander-style decks have an exact size (903.5a, 903.12d),
    so nothing above the minimum is possible there (Yorion ruling 2020-04-17)."""

    bound: str  # "at_least" | "at_most" | "exactly"
    count: int
    relative: bool  # count is on top of the minimum deck size

    def offenses(self, cards: CardCounts, ctx: StartingDeck, types: TypesFn) -> Iterator[Found]:
        size = sum(q for _, q in cards)
        needed = self.count + (ctx.minimum_deck_size if self.relative else 0)
        if self.relative and ctx.exact_size and self.bound != "at_most" and self.count > 0:
            yield (
                "",
                lambda: (
                    f"the deck must have exactly {ctx.minimum_deck_size} cards, so "
                    f"it can never have {self.count} more than the minimum"
                ),
            )
            return
        if _COMPARE[_SIZE_OPS[self.bound]][0](size, needed):
            return
        how = {"at_least": "at least", "at_most": "at most", "exactly": "exactly"}[self.bound]
        base = f" (minimum {ctx.minimum_deck_size} + {self.count})" if self.relative else ""
        yield "", lambda: f"deck has {size} cards, needs {how} {needed}{base}"

    def describe(self) -> str:
        how = self.bound.replace("_", " ")
        if self.relative:
            return f"the deck must have {how} the minimum deck size + {self.count} cards"
        return f"the deck must have {how} {self.count} cards"
