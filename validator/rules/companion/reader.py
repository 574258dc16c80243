"""The companion grammar's reader: sentence -> lark tree -> predicate (CR 702.139a).

`grammar/companion.lark` (LALR, basic lexer) reads the sentence; `_Builder` walks the tree into
the predicates of `predicates`. lark is imported only when a sentence is first read.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from validator.errors import DeckcheckError
from validator.resources import resource_path
from validator.rules.companion.predicates import (
    _SUPERTYPES,
    _TYPES,
    ActivatedAbility,
    Adjective,
    CardClass,
    ContainsNo,
    ContainsOnly,
    DeckSize,
    DifferentNames,
    EachCard,
    Feature,
    Kind,
    KindOf,
    ManaValue,
    Parity,
    Predicate,
    RepeatedManaSymbol,
    Selection,
    SharesCardType,
    Subtype,
)

if TYPE_CHECKING:  # imported lazily: reading no sentence must not import lark
    from lark import Lark, Tree


class ConditionError(DeckcheckError, ValueError):
    """A sentence the companion grammar cannot read, with where reading stopped."""

    code = "bad-condition"

    def __init__(
        self,
        message: str,
        sentence: str = "",
        position: int | None = None,
        expected: tuple[str, ...] = (),
        detail: str = "",
    ) -> None:
        super().__init__(message)
        self.sentence = sentence  # the condition as read (without "Companion —" / reminder)
        self.position = position  # 0-based offset into `sentence`, None for semantic errors
        self.expected = expected  # what the grammar could have read at `position`
        self.detail = detail or message  # the message without the sentence


# ---------------------------------------------------------------------------------------------
# Parsing: sentence -> lark tree -> predicate.
# ---------------------------------------------------------------------------------------------

_PREFIX = re.compile(r"^\s*(?:old\s+)?companion\s*[\u2014\u2013-]\s*", re.IGNORECASE)
_REMINDER_TAIL = re.compile(r"\s*\([^()]*\)\s*$")
_NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
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
def _parser() -> Lark:
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
        shown = word.group(0) if word else sentence[start : start + 1]
        where = f'stopped at column {start + 1}, at "{shown}"'
        position = start
    return ConditionError(
        f'cannot read condition "{sentence}": {where}{wanted}',
        sentence,
        position,
        labels,
        detail=where,
    )


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
    return _Builder(text).sentence(tree.children[0])  # type: ignore[arg-type]  # a Tree


def explain(sentence: str) -> str:
    """The sentence and how it was read, for `deckcheck companion "SENTENCE"`."""
    predicate = parse_condition(sentence)
    return f"{_clean(sentence)}\n  reads as: {predicate.describe()}\n  predicate: {predicate!r}"


def _tokens(tree: Tree, kind: str) -> list[str]:
    return [str(c) for c in tree.children if getattr(c, "type", None) == kind]


def _subtrees(tree: Tree) -> list[Tree]:
    return [c for c in tree.children if hasattr(c, "data")]


class _Builder:
    """Turns the parse tree into predicates (a plain tree walk: no lark import needed)."""

    def __init__(self, sentence: str) -> None:
        self.text = sentence

    def fail(self, message: str) -> ConditionError:
        return ConditionError(
            f'cannot use condition "{self.text}": {message}', self.text, detail=message
        )

    def sentence(self, tree: Tree) -> Predicate:
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

    def selection(self, tree: Tree) -> Selection:
        return Selection(tuple(Adjective.parse(w) for w in _tokens(tree, "SELECTOR")))

    def card_class(self, tree: Tree) -> CardClass:
        features = _subtrees(tree)
        return CardClass(self.selection(tree), self.feature(features[0]) if features else None)

    def test(self, tree: Tree) -> Feature:
        if tree.data == "is_kind":
            return KindOf(tuple(self.kind(k) for k in _subtrees(_subtrees(tree)[0])))
        return self.feature(_subtrees(tree)[0])  # "has" <feature>

    def kind(self, tree: Tree) -> Kind:
        selectors = _tokens(tree, "SELECTOR")
        if selectors:
            return Adjective.parse(selectors[0])
        words = _tokens(tree, "NAME")
        name = " ".join(words)
        lowered = name.lower()
        if lowered in _TYPES or lowered in _SUPERTYPES:
            return Adjective.parse(lowered)
        return Subtype(name.replace("\u2019", "'"))

    def feature(self, tree: Tree) -> Feature:
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
    def number(tree: Tree) -> int:
        token = str(tree.children[0])
        return int(token) if token.isdigit() else _NUMBER_WORDS[token.lower()]
