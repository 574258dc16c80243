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

Three modules, one concern each (as pypa/packaging keeps its marker tokenizer, parser and
evaluator apart):
- `predicates`: the predicates and their card-level vocabulary;
- `reader`: the grammar's reader, sentence -> lark tree -> predicate (`parse_condition`,
  `ConditionError`, `explain`);
- `checks`: the deck checks, re-exported here. Importing this package imports only them: the
  predicates and the reader are loaded when a deck has a companion card or a house rule.
"""

from __future__ import annotations

from validator.rules.companion.checks import (
    COMPANION_CITATION,
    HOUSE_RULE_CITATION,
    MAX_SIDEBOARD_COMPANIONS,
    CompanionCards,
    companion_cards,
    companion_condition_problems,
    constructed_companion_problems,
    house_rule_problems,
    shared_findings,
    starting_deck,
)

__all__ = [
    "COMPANION_CITATION",
    "HOUSE_RULE_CITATION",
    "MAX_SIDEBOARD_COMPANIONS",
    "CompanionCards",
    "companion_cards",
    "companion_condition_problems",
    "constructed_companion_problems",
    "house_rule_problems",
    "shared_findings",
    "starting_deck",
]
