"""Companion conditions (CR 702.139): read the sentence, check it against the starting deck.

The condition comes from the card's own Oracle text ("Companion — <sentence>"), is parsed by
`grammar/companion.lark` into a small predicate tree, and the tree is evaluated against the
starting deck. Nothing here dispatches on a card's name: a companion whose sentence the grammar
reads works without code changes, and one it cannot read is reported, never guessed.

The same predicates check house rules (`deckcheck validate --rule "..."`).

Rules that decide:
- The starting deck is the deck after the sideboard is set aside (103.2a); in Commander it is
  taken before the commander is set aside, so the commander must meet the condition
  (702.139b). The companion itself and the sideboard are not checked (ruling 2020-04-17).
- A player may reveal at most one companion (103.2b).
- Mana value is that of the card outside the stack (202.3, 709.4, 712.8a, 715.4): `Card.mana_value`.
"""

from __future__ import annotations

from .errors import DeckcheckError

import functools
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Sequence

from .cardtypes import DeckTypes, deck_types
from .model import CARD_TYPES, PERMANENT_TYPES, Card, Problem, ResolvedDeck, ResolvedEntry, Section, Severity
from .names import fold_name
from .resources import resource_path

if TYPE_CHECKING:  # imported lazily: `import validator.companion` must stay cheap
    from lark import Lark, Tree

    from .formats import FormatRules

CardCounts = Sequence[tuple[Card, int]]
#: How a test reads a card's types off the battlefield (113.6c): `deck_types`, or `TypesOf`,
#: which reads each card once for a whole evaluation.
TypesFn = Callable[[Card], DeckTypes]

#: The rule the companion problems of constructed formats cite (702.139a: reveal only if the
#: starting deck fulfils the condition).
COMPANION_CITATION = "CR 702.139a"
HOUSE_RULE_CITATION = "house-rule"
#: How many offending cards a one-line message spells out before "... and N more".
MAX_LISTED = 8
#: Undeclared companion cards in a sideboard whose conditions get a note each (issue 11).
MAX_SIDEBOARD_COMPANIONS = 2


class ConditionError(DeckcheckError, ValueError):
    """A sentence the companion grammar cannot read, with where reading stopped."""

    code = "bad-condition"

    def __init__(self, message: str, sentence: str = "", position: int | None = None,
                 expected: tuple[str, ...] = (), detail: str = "") -> None:
        super().__init__(message)
        self.sentence = sentence  # the condition as read (without "Companion —" / reminder)
        self.position = position  # 0-based offset into `sentence`, None for semantic errors
        self.expected = expected  # what the grammar could have read at `position`
        self.detail = detail or message  # the message without the sentence


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
    def for_format(cls, fmt: "FormatRules") -> "StartingDeck":
        return cls(minimum_deck_size=fmt.min_deck,
                   exact_size=fmt.max_deck is not None and fmt.max_deck == fmt.min_deck)


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
    def parse(cls, text: str) -> "Adjective":
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


class TypesOf:
    """`deck_types` read once per card for one evaluation (or one deck's companion checks).

    Several tests ask about the same card ("creature card", then five creature types for
    Kaheera), and reading a card's types off the battlefield (113.6c, 702.73a) costs more than
    the tests themselves.
    """

    __slots__ = ("_known", "_held")

    def __init__(self) -> None:
        self._known: dict[int, DeckTypes] = {}
        self._held: list[Card] = []  # keeps each card alive, so its id stays its own

    def __call__(self, card: Card) -> DeckTypes:
        found = self._known.get(id(card))
        if found is None:
            found = self._known[id(card)] = deck_types(card)
            self._held.append(card)
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

    def findings(self, cards: CardCounts, ctx: StartingDeck, listed: int | None = MAX_LISTED,
                 types: TypesFn | None = None) -> Findings:
        """Every offense counted and named; the first `listed` (all with None) with reasons.
        Every card is still tested: the count and the names are exact."""
        shown: list[Offense] = []
        names: list[str] = []
        total = 0
        for name, reason in self.offenses(cards, ctx, types or TypesOf()):
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
                yield c.name, lambda c=c: f"{noun} {feature.fact(c, types)}"

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
        return self.selection.holds(card, types) and (self.feature is None
                                                      or self.feature.holds(card, types))

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
                yield card.name, lambda card=card: self._why_not(card, types)

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
                yield c.name, lambda c=c: self.forbidden.why(c, types)

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
                yield c.name, lambda q=q: (f"{q} copies of {_article(noun)} {noun}; "
                                           "each needs a different name")

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
                yield card.name, lambda own=own: (f"{'/'.join(sorted(own)) or 'typeless'} card, "
                                                  f"not {_article(best)} {best} card")

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
            yield "", lambda: (f"the deck must have exactly {ctx.minimum_deck_size} cards, so "
                               f"it can never have {self.count} more than the minimum")
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


# ---------------------------------------------------------------------------------------------
# Parsing: sentence -> lark tree -> predicate.
# ---------------------------------------------------------------------------------------------

_PREFIX = re.compile(r"^\s*(?:old\s+)?companion\s*[\u2014\u2013-]\s*", re.IGNORECASE)
_REMINDER_TAIL = re.compile(r"\s*\([^()]*\)\s*$")
_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
}
#: How error messages name the grammar's pattern terminals.
_TERMINAL_NAMES = {
    "SELECTOR": "a card type word (permanent, nonland, creature, ...)",
    "PARITY": '"even" or "odd"',
    "NUMBER_WORD": "a number",
    "INT": "a number",
    "NAME": "a word",
    "$END": "the end of the sentence",
}


@functools.cache
def _parser() -> "Lark":
    """The companion grammar's LALR parser, built once (lark imported only when needed)."""
    from lark import Lark

    grammar = resource_path("grammar", "companion.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer="basic")


def _clean(sentence: str) -> str:
    """The bare condition: without a leading "Companion —" and trailing reminder text."""
    text = _PREFIX.sub("", sentence.strip())
    while True:
        shorter = _REMINDER_TAIL.sub("", text)
        if shorter == text:
            return text.strip()
        text = shorter


def _expected(names: Iterable[str]) -> tuple[str, ...]:
    terminals = {t.name: t.pattern for t in _parser().terminals}
    out: list[str] = []
    for name in sorted(names):
        if name in _TERMINAL_NAMES:
            label = _TERMINAL_NAMES[name]
        elif name in terminals and terminals[name].type == "str":
            label = f'"{terminals[name].value}"'
        else:
            label = name.lower()
        if label not in out:
            out.append(label)
    return tuple(out)


def _syntax_error(sentence: str, exc: Exception) -> ConditionError:
    """A ConditionError saying where reading stopped and what could have come there."""
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedToken

    if isinstance(exc, UnexpectedToken):
        # `accepts` replays the parser, so LALR's merged lookaheads don't show up as "expected".
        expected = exc.accepts or exc.expected
        position = len(sentence) if exc.token.type == "$END" else exc.token.start_pos
    elif isinstance(exc, UnexpectedCharacters):
        # The basic lexer "allows" every terminal here, so listing them would not help.
        position, expected = exc.pos_in_stream, set()
    elif isinstance(exc, UnexpectedEOF):
        position, expected = len(sentence), set(exc.expected or ())
    else:
        position, expected = None, set()
    labels = _expected(expected)
    wanted = f"; expected {', '.join(labels)}" if labels else ""
    if position is None or position >= len(sentence):
        where = f'the sentence ends too early after "{sentence}"'
    else:
        start = position
        while start > 0 and sentence[start - 1].isalnum():  # point at the whole word
            start -= 1
        word = re.match(r"[\w'\u2019-]+|\S", sentence[start:])
        shown = word.group(0) if word else sentence[start:start + 1]
        where = f'stopped at column {start + 1}, at "{shown}"'
        position = start
    return ConditionError(f'cannot read condition "{sentence}": {where}{wanted}',
                          sentence, position, labels, detail=where)


def parse_condition(sentence: str) -> Predicate:
    """Parse one condition sentence into a predicate; ConditionError if it can't be read."""
    text = _clean(sentence)
    if not text:
        raise ConditionError("empty condition", sentence, 0)
    return _parse_clean(text)


@functools.lru_cache(maxsize=1024)
def _parse_clean(text: str) -> Predicate:
    """Predicates are frozen: each companion's sentence is parsed once per process (an error
    is not cached, so it is raised again each time)."""
    from lark.exceptions import UnexpectedInput

    try:
        tree = _parser().parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(text, exc) from None
    return _Builder(text).sentence(tree.children[0])


def explain(sentence: str) -> str:
    """The sentence and how it was read, for `deckcheck companion "SENTENCE"`."""
    predicate = parse_condition(sentence)
    return f"{_clean(sentence)}\n  reads as: {predicate.describe()}\n  predicate: {predicate!r}"


def _tokens(tree: "Tree", kind: str) -> list[str]:
    return [str(c) for c in tree.children if getattr(c, "type", None) == kind]


def _subtrees(tree: "Tree") -> list["Tree"]:
    return [c for c in tree.children if hasattr(c, "data")]


class _Builder:
    """Turns the parse tree into predicates (a plain tree walk: no lark import needed)."""

    def __init__(self, sentence: str) -> None:
        self.text = sentence

    def fail(self, message: str) -> ConditionError:
        return ConditionError(f'cannot use condition "{self.text}": {message}', self.text,
                              detail=message)

    def sentence(self, tree: "Tree") -> Predicate:
        parts = _subtrees(tree)
        kind = tree.data
        if kind in ("each", "no_card"):
            selection, test = self.selection(parts[0]), parts[1]
            if test.data == "different_names":
                if kind == "no_card":
                    raise self.fail('"No ... has a different name" is not a condition')
                return DifferentNames(selection)
            if test.data == "shared_card_type":
                if kind == "no_card":
                    raise self.fail('"No ... shares a card type" is not a condition')
                return SharesCardType(selection)
            return EachCard(selection, self.test(test), negated=kind == "no_card")
        if kind == "contains_only":
            return ContainsOnly(tuple(self.card_class(p) for p in parts))
        if kind == "contains_no":
            return ContainsNo(self.card_class(parts[0]))
        if kind == "deck_size":
            bound, count = parts[0].data, self.number(parts[1])
            return DeckSize(str(bound), count, relative=len(parts) > 2)
        raise self.fail(f"unknown sentence shape {kind}")  # grammar and builder out of step

    def selection(self, tree: "Tree") -> Selection:
        return Selection(tuple(Adjective.parse(w) for w in _tokens(tree, "SELECTOR")))

    def card_class(self, tree: "Tree") -> CardClass:
        features = _subtrees(tree)
        return CardClass(self.selection(tree), self.feature(features[0]) if features else None)

    def test(self, tree: "Tree") -> Feature:
        if tree.data == "is_kind":
            return KindOf(tuple(self.kind(k) for k in _subtrees(_subtrees(tree)[0])))
        return self.feature(_subtrees(tree)[0])  # "has" <feature>

    def kind(self, tree: "Tree") -> Kind:
        selectors = _tokens(tree, "SELECTOR")
        if selectors:
            return Adjective.parse(selectors[0])
        words = _tokens(tree, "NAME")
        name = " ".join(words)
        lowered = name.lower()
        if lowered in _TYPES or lowered in _SUPERTYPES:
            return Adjective.parse(lowered)
        return Subtype(name.replace("\u2019", "'"))

    def feature(self, tree: "Tree") -> Feature:
        kind = tree.data
        if kind == "mana_value":
            bound = _subtrees(tree)[0]
            return ManaValue(str(bound.data), self.number(_subtrees(bound)[0]))
        if kind == "parity":
            return Parity(even=_tokens(tree, "PARITY")[0].lower() == "even")
        if kind == "activated_ability":
            return ActivatedAbility()
        if kind == "repeated_symbol":
            return RepeatedManaSymbol(self.number(_subtrees(tree)[0]))
        raise self.fail(f"unknown feature {kind}")

    @staticmethod
    def number(tree: "Tree") -> int:
        token = str(tree.children[0])
        return int(token) if token.isdigit() else _NUMBER_WORDS[token.lower()]


# ---------------------------------------------------------------------------------------------
# Deck-level checks: which cards are companions, and the problems they raise.
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CompanionCards:
    """The companion cards of a deck, by where they sit.

    `declared`: the Arena `Companion` section, one entry per distinct name (Arena exports list
    the same card in the Sideboard too: that is the same card, not a second companion).
    `sideboard`: companion cards in the sideboard that are not declared (a player may reveal
    one of them, or just be sideboarding it). `main`: companion cards in the main deck, where
    the companion ability has no effect (ruling 2020-04-17).
    """

    declared: tuple[ResolvedEntry, ...]
    sideboard: tuple[ResolvedEntry, ...]
    main: tuple[ResolvedEntry, ...]


def _distinct(entries: Iterable[ResolvedEntry]) -> tuple[ResolvedEntry, ...]:
    seen: dict[str, ResolvedEntry] = {}
    for e in entries:
        seen.setdefault(e.card.name, e)
    return tuple(seen.values())


def companion_cards(deck: ResolvedDeck) -> CompanionCards:
    declared = _distinct(deck.cards_in(Section.COMPANION))
    names = {e.card.name for e in declared}
    sideboard = _distinct(e for e in deck.cards_in(Section.SIDEBOARD)
                          if e.card.companion_condition is not None and e.card.name not in names)
    main = _distinct(e for e in deck.cards_in(Section.MAIN)
                     if e.card.companion_condition is not None)
    return CompanionCards(declared, sideboard, main)


def starting_deck(deck: ResolvedDeck, fmt: "FormatRules") -> list[tuple[Card, int]]:
    """CR 103.2a / 702.139b: the deck after setting the sideboard aside; in Commander formats
    the commander(s) are still in it."""
    return [(e.card, e.quantity) for e in deck.cards_in(*_starting_sections(fmt))]


def _starting_sections(fmt: "FormatRules") -> tuple[Section, ...]:
    return (Section.MAIN, Section.COMMANDER) if fmt.is_commander else (Section.MAIN,)


def _lines_by_name(deck: ResolvedDeck, *sections: Section) -> dict[str, tuple[int, ...]]:
    """Input line numbers of each card name in `sections`, for Problem.lines."""
    lines: dict[str, list[int]] = {}
    for e in deck.cards_in(*sections):
        if e.entry.line is not None:
            lines.setdefault(e.card.name, []).append(e.entry.line)
    return {k: tuple(v) for k, v in lines.items()}


def _listing(found: Findings) -> str:
    """The first MAX_LISTED offenses, then how many more there are."""
    shown = "; ".join(o.render() for o in found.listed[:MAX_LISTED])
    more = found.total - MAX_LISTED
    return shown + (f"; and {more} more" if more > 0 else "")


def _involved(first: Sequence[str], found: Findings) -> tuple[str, ...]:
    """Every card a problem is about: the companion, then every offender (listed or not)."""
    return tuple(dict.fromkeys([*first, *found.cards]))


def _lines_of(names: Iterable[str], lines: Mapping[str, tuple[int, ...]]) -> tuple[int, ...]:
    return tuple(sorted({n for name in names for n in lines.get(name, ())}))


def companion_condition_problems(companion: Card, starting: CardCounts, ctx: StartingDeck,
                                 citation: str, *, declared: bool = True,
                                 lines: Mapping[str, tuple[int, ...]] | None = None,
                                 types: TypesFn | None = None) -> list[Problem]:
    """Whether `companion`'s condition holds for the starting deck (702.139a), as problems.

    Declared companions get an error when the condition fails and a WARNING when it cannot be
    read; undeclared ones (a companion card sitting in the sideboard) get INFO either way.
    `starting` must already include the commander(s) in Commander games (702.139b). `types`:
    a `TypesOf` to share between the checks of one deck.
    """
    sentence = companion.companion_condition
    if sentence is None:
        return []
    name, lines = companion.name, lines or {}
    where = "" if declared else " (sideboard)"
    try:
        predicate = parse_condition(sentence)
    except ConditionError as exc:
        severity = Severity.WARNING if declared else Severity.INFO
        check = "could not check" if declared else "cannot check"
        return [Problem("companion-condition-unsupported",
                        f'{name}{where}: {check} its companion condition "{sentence}" '
                        f"(not in the condition grammar: {exc.detail})",
                        citation, severity, (name,), _lines_of([name], lines))]
    offenses = predicate.findings(starting, ctx, MAX_LISTED, types)
    if not offenses.total:
        return [Problem("companion-condition-met",
                        f'{name}{where}: companion condition met ("{sentence}")',
                        citation, Severity.INFO, (name,), _lines_of([name], lines))]
    cards = _involved([name], offenses)
    if declared:
        return [Problem("companion-condition-failed",
                        f'{name} can\'t be your companion, its condition "{sentence}" is not met: '
                        f"{_listing(offenses)}", citation, Severity.ERROR, cards,
                        _lines_of(cards, lines))]
    return [Problem("companion-condition-not-met",
                    f'{name}{where}: companion condition "{sentence}" is not met, so it can only '
                    f"be a sideboard card: {_listing(offenses)}", citation, Severity.INFO, cards,
                    _lines_of(cards, lines))]


def _declaration_problems(declared: Sequence[ResolvedEntry], fmt: "FormatRules",
                          lines: Mapping[str, tuple[int, ...]]) -> list[Problem]:
    """Problems with the declaration itself: companions in the format, how many, bans."""
    problems: list[Problem] = []
    names = [e.card.name for e in declared]
    if len(declared) > 1:
        problems.append(Problem("too-many-companions",
                                f"{len(declared)} companions declared ({', '.join(names)}); "
                                "a player may reveal only one", "CR 103.2b", Severity.ERROR,
                                tuple(names), _lines_of(names, lines)))
    banned = {fold_name(n) for n in fmt.banned_as_companion}
    for e in declared:
        card = e.card
        if card.companion_condition is None:
            problems.append(Problem("not-a-companion",
                                    f"{card.name} is declared as companion but has no companion "
                                    "ability", COMPANION_CITATION, Severity.ERROR, (card.name,),
                                    _lines_of([card.name], lines)))
        elif fold_name(card.name) in banned:
            problems.append(Problem("banned-as-companion",
                                    f"{card.name} is banned as a companion in {fmt.name}",
                                    f"format:{fmt.key}", Severity.ERROR, (card.name,),
                                    _lines_of([card.name], lines)))
    return problems


def constructed_companion_problems(deck: ResolvedDeck, fmt: "FormatRules") -> list[Problem]:
    """Companion problems of a constructed deck.

    The companion is a sideboard card, or declared in an Arena `Companion` section. Declared
    companions are checked (error when the condition fails); undeclared companion cards in the
    sideboard get an INFO note saying whether their condition holds.
    """
    slots = companion_cards(deck)
    if not slots.declared and not slots.sideboard:
        return []  # no companion card: nothing to check (most decks)
    lines = _lines_by_name(deck, Section.COMPANION, Section.SIDEBOARD)
    if not fmt.companions:
        return [Problem("companions-not-allowed",
                        f"{fmt.name} does not allow a companion ({e.card.name} is declared)",
                        f"format:{fmt.key}", Severity.ERROR, (e.card.name,),
                        _lines_of([e.card.name], lines)) for e in slots.declared]
    problems = _declaration_problems(slots.declared, fmt, lines)
    starting = starting_deck(deck, fmt)
    ctx = StartingDeck.for_format(fmt)
    starting_lines = _lines_by_name(deck, *_starting_sections(fmt))
    types = TypesOf()  # each card's types read once for all the conditions checked
    # One companion at most (103.2b): with more declared, that error says it at once, and a
    # hostile list's every companion is not weighed against the deck (issue 11). Likewise the
    # sideboard's notes are for the few companion cards a real sideboard holds.
    checked = [(e, True) for e in slots.declared] if len(slots.declared) <= 1 else []
    if len(slots.declared) <= 1 and len(slots.sideboard) <= MAX_SIDEBOARD_COMPANIONS:
        checked += [(e, False) for e in slots.sideboard]
    elif slots.sideboard:
        names = tuple(e.card.name for e in slots.sideboard)
        problems.append(Problem(
            "companion-condition-unchecked", f"{len(names)} companion cards in the sideboard "
            f"({', '.join(names[:MAX_LISTED])}{' ...' if len(names) > MAX_LISTED else ''}); "
            "their conditions are checked only for a declared companion (a Companion section)",
            COMPANION_CITATION, Severity.INFO, names, _lines_of(names, lines)))
    for e, declared in checked:
        # Offenders are pointed at in the starting deck, the companion where it is listed.
        own = {**starting_lines, e.card.name: lines.get(e.card.name, ())}
        problems += companion_condition_problems(e.card, starting, ctx, COMPANION_CITATION,
                                                 declared=declared, lines=own, types=types)
    return problems


def house_rule_problems(deck: ResolvedDeck, fmt: "FormatRules", sentence: str) -> list[Problem]:
    """Check a house rule written like a companion condition against the starting deck (main
    deck, plus the commanders in Commander formats). An unreadable sentence raises
    ConditionError (the CLI reports it as a usage error)."""
    predicate = parse_condition(sentence)
    offenses = predicate.findings(starting_deck(deck, fmt), StartingDeck.for_format(fmt))
    if not offenses.total:
        return []
    cards = _involved([], offenses)
    return [Problem("house-rule-failed",
                    f'house rule "{_clean(sentence)}" is not met: {_listing(offenses)}',
                    HOUSE_RULE_CITATION, Severity.ERROR, cards,
                    _lines_of(cards, _lines_by_name(deck, *_starting_sections(fmt))))]
