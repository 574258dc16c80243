"""The registry of problem codes: every code a report can carry, the severity it is raised
with, the rule it cites and what it means.

Problem codes are public API (added, never renamed): this is the one list of them.
tests/rules/test_codes.py scans validator/ and fails on a code raised but not registered
here, a code registered that nothing raises, or a severity the registry does not allow;
docs/problem-codes.md is generated from it (scripts/build_code_table.py).

`citation` is the usual one: several codes cite the format's own rule where its table in
data/formats.toml names one (`format:<key>`: the format's own lists and page).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

#: The severities of validator.model.Severity, as a report writes them.
SEVERITIES: Final = ("error", "warning", "info")


@dataclass(frozen=True, slots=True)
class Code:
    """One problem code. `severity` is the one it is usually raised with; `also` lists the
    others it can be raised with (a companion condition deckcheck cannot read is an error for
    a declared companion, a note for a sideboard card).

    `undecidable`: an error of this code says deckcheck cannot tell, not that a rule is
    broken (a name that is no card in the card data, a rarity not synced...). A report whose
    errors are all undecidable is `unconfirmed`, not `illegal` (report.py `verdict`);
    `settled_by` says what would let deckcheck decide (a sync, `--printings`, a corrected
    name), for the text output and for a job that rechecks such decks later.

    `unknown_names`: the problem's cards are names the card data does not know (yet), so a
    sync that brings a card of one of those names may change it, whatever its severity: the
    re-check judges a deck with such a problem again after each sync that does
    (`validator.rechecking`)."""

    code: str
    severity: str
    citation: str
    meaning: str
    also: tuple[str, ...] = ()
    undecidable: bool = False
    settled_by: str = ""
    unknown_names: bool = False

    def __post_init__(self) -> None:
        for severity in (self.severity, *self.also):
            if severity not in SEVERITIES:
                raise ValueError(
                    f"problem code {self.code!r}: severity {severity!r} is not "
                    f"one of {', '.join(SEVERITIES)}"
                )

    @property
    def severities(self) -> tuple[str, ...]:
        """Every severity the code can be raised with, its usual one first."""
        return (self.severity, *self.also)


_INPUT = "deckcheck:input"
_POOL = "format:<key>"

_ALL: Final[tuple[Code, ...]] = (
    # The decklist itself (parsing and name lookup).
    Code("unreadable-line", "error", _INPUT, "a line (or entry) of the decklist could not be read"),
    Code("bad-quantity", "error", _INPUT, "a quantity that is not a whole number of at least 1"),
    Code("quantity-too-large", "error", _INPUT, "a quantity over deckcheck's limit per entry"),
    Code(
        "unknown-card",
        "error",
        _INPUT,
        "a name that is no card in the card data (suggestions in the message)",
        undecidable=True,
        settled_by="a corrected card name, or `deckcheck sync` when the card is newer than "
        "the card data",
        unknown_names=True,
    ),
    Code(
        "ambiguous-card",
        "error",
        _INPUT,
        "a name that could be several cards: write the full name",
        undecidable=True,
        settled_by="the card's full name",
    ),
    # CR 201.2: a card's name is its English name whatever language it is printed in, so a
    # printed name is read as the English name of its card, and only when it is one card's.
    Code(
        "ambiguous-printed-name",
        "error",
        "CR 201.2",
        "a printed (non-English) name of several cards: write the card's English name",
        undecidable=True,
        settled_by="the card's English name",
    ),
    Code(
        "bilingual-names-differ",
        "warning",
        "CR 201.2",
        "a bilingual line's two names are different cards: read by its English name",
    ),
    Code(
        "ignored-field", "info", _INPUT, "a JSON field that is not part of a decklist was ignored"
    ),
    Code("skipped-cards", "info", _INPUT, "a zone read but not counted (Cockatrice tokens)"),
    Code(
        "unknown-section",
        "warning",
        _INPUT,
        "a section, board, zone or category name deckcheck does not know, named (its cards "
        "are counted where the message says, or listed as not counted)",
    ),
    Code("meld-result", "error", "CR 712.4b", "the back face of a meld pair is not a card"),
    Code(
        "commander-section-ignored",
        "warning",
        _POOL,
        "a Commander section in a format without commanders: its cards count as main deck",
    ),
    Code(
        "commander-ignored",
        "warning",
        "CR 903.3",
        "a manifest names a commander for a deck of a format without one",
    ),
    Code(
        "unreadable",
        "error",
        _INPUT,
        "an event report's row for an input that could not be read as a decklist",
    ),
    # Legality as of a date.
    Code("unreleased-card", "error", _POOL, "a card released after the deck's date"),
    Code(
        "legality-date-uncertain",
        "info",
        _POOL,
        "a release or legality change close to the deck's date; a warning when the date is "
        "inside its window (judged by the more permissive status)",
        also=("warning",),
    ),
    Code(
        "legality-history-missing",
        "warning",
        _POOL,
        "the format's bans and unbans (or restricted list) before the date, or after the card "
        "data's date, are not known",
    ),
    # Every format.
    Code("deck-too-small", "error", "CR 100.2a", "fewer cards than the format's minimum"),
    Code("deck-too-large", "error", "CR 100.2a", "more cards than the format's maximum"),
    Code("sideboard-too-large", "error", "CR 100.4a", "more sideboard cards than allowed"),
    Code("sideboard-not-allowed", "error", "CR 903.5e", "a sideboard in a format without one"),
    Code("too-many-copies", "error", "CR 100.2a", "more copies of a card than the format allows"),
    Code("banned", "error", _POOL, "a card banned in the format"),
    Code("restricted", "error", _POOL, "more copies of a restricted card than its limit"),
    Code("not-legal", "error", _POOL, "a card not legal in the format"),
    Code(
        "unknown-legality",
        "error",
        _POOL,
        "a legality status deckcheck does not know: not known to be allowed",
        undecidable=True,
        settled_by="a deckcheck release that knows the status, or a check of the format's own list",
    ),
    # Points formats (Canadian / Australian Highlander): the dated points list in force.
    Code(
        "points-over-cap",
        "error",
        _POOL,
        "the deck's pointed cards cost more than the format's cap (every one named, with the "
        "list's version date)",
    ),
    Code("points-total", "info", _POOL, "the points the deck spends, under the cap"),
    Code(
        "points-list-missing",
        "warning",
        _POOL,
        "the deck's date is before the format's first known points list: points not checked",
    ),
    Code(
        "format-list-missing",
        "warning",
        _POOL,
        "the deck's date is before the format's first dated ban list: judged by the card data",
    ),
    Code(
        "points-date-uncertain",
        "info",
        _POOL,
        "only the deck's month is known and the points list changed within it (a warning "
        "when the two lists' verdicts differ)",
        also=("warning",),
    ),
    Code(
        "list-unknown-card",
        "warning",
        _POOL,
        "the format's dated banned / restricted list names a card the card data does not know",
        unknown_names=True,
    ),
    Code(
        "points-unknown-card",
        "warning",
        _POOL,
        "the points list names a card the card data does not know: its points never apply",
        unknown_names=True,
    ),
    # Legal sets (Old School 93/94 and its variants): the dated list's sets in force.
    Code(
        "not-in-legal-sets",
        "error",
        _POOL,
        "a card printed in none of the format's legal sets (the list's version date and sets "
        "named)",
    ),
    Code(
        "sets-unchecked",
        "error",
        _POOL,
        "the format's card pool is its legal sets and the card data has no printings: not "
        "judged legal; run `deckcheck sync --printings`",
        undecidable=True,
        settled_by="`deckcheck sync --printings` (the sets each card was printed in)",
    ),
    Code(
        "sticker-sheets",
        "info",
        "CR 123.2",
        "sticker sheets listed: not cards, not counted in the deck",
    ),
    Code(
        "sticker-sheets-invalid",
        "error",
        "CR 123.2a",
        "fewer than 10 sticker sheets, or one listed twice",
    ),
    Code(
        "not-a-sticker-sheet",
        "error",
        "CR 123.2",
        "a card listed with the sticker sheets that is not one",
    ),
    Code(
        "attraction-deck", "info", "CR 717.2", "an Attraction deck listed: not counted in the deck"
    ),
    Code(
        "attraction-deck-invalid",
        "error",
        "CR 717.2a",
        "fewer than 10 Attractions, or one listed twice",
    ),
    Code(
        "not-an-attraction",
        "error",
        "CR 717.2",
        "a card listed with the Attraction deck that is not an Attraction",
    ),
    # Companions and house rules.
    Code(
        "companion-condition-failed",
        "error",
        "CR 702.139a",
        "the declared companion's condition is not met",
    ),
    Code("companion-condition-met", "info", "CR 702.139a", "a companion's condition is met"),
    Code(
        "companion-condition-not-met",
        "info",
        "CR 702.139a",
        "a sideboard companion's condition is not met: it can only be a sideboard card",
    ),
    Code(
        "companion-condition-unchecked",
        "info",
        "CR 702.139a",
        "several undeclared companion cards in the sideboard: their conditions not checked",
    ),
    Code(
        "companion-condition-unsupported",
        "error",
        "CR 702.139a",
        "a companion condition outside the grammar: the deck is not judged legal (info for "
        "a card only in the sideboard)",
        also=("info",),
        undecidable=True,
        settled_by="a person checking the companion's condition (deckcheck's grammar does not "
        "read it yet)",
    ),
    Code("too-many-companions", "error", "CR 702.139a", "more than one companion"),
    Code(
        "not-a-companion",
        "error",
        "CR 702.139a",
        "a card declared as companion that has no companion ability",
    ),
    Code("banned-as-companion", "error", _POOL, "a card banned as a companion in the format"),
    Code("companions-not-allowed", "error", _POOL, "a companion in a format that allows none"),
    Code("house-rule-failed", "error", "house-rule", "a house rule (--rule) is not met"),
    # Commander family.
    Code("commander-found", "info", "CR 903.3", "how the commander was found"),
    Code("companion-found", "info", "CR 903.11a", "a companion taken from the sideboard"),
    Code(
        "duplicate-listing",
        "info",
        "CR 903.3",
        "a commander listed more than once (or also in the deck): counted once",
    ),
    Code(
        "commander-guessed",
        "warning",
        "CR 903.3",
        "several sideboard cards could be the commander: the first that fits was taken",
    ),
    Code("commander-missing", "error", "CR 903.3", "no commander found"),
    Code(
        "commander-unknown",
        "error",
        "CR 903.3",
        "the Commander section names no known card: the commander rules could not be checked",
        undecidable=True,
        settled_by="a corrected commander name, or `deckcheck sync` when the card is newer than "
        "the card data",
        unknown_names=True,
    ),
    Code("commander-not-eligible", "error", "CR 903.3", "a card that cannot be a commander"),
    Code(
        "invalid-partners",
        "error",
        "CR 702.124",
        "two (or more) commanders whose partner abilities do not allow it",
    ),
    Code("banned-as-commander", "error", _POOL, "a card banned as a commander in the format"),
    Code(
        "commander-rarity-unchecked",
        "error",
        "format:paupercommander",
        "the commander's rarity could not be checked (no printings synced)",
        undecidable=True,
        settled_by="`deckcheck sync --printings` (the printings' rarities)",
    ),
    Code("color-identity", "error", "CR 903.5c", "cards outside the commander's color identity"),
    Code(
        "chosen-color",
        "info",
        "CR 903.4b",
        "the color taken as chosen for a commander that lets the player choose",
    ),
    Code(
        "companion-color-identity",
        "error",
        "CR 903.11a",
        "the companion is outside the commander's color identity",
    ),
    Code("companion-in-deck", "error", "CR 903.11a", "the companion is also in the deck"),
    Code(
        "companion-unchecked",
        "warning",
        "CR 702.139b",
        "the companion's condition could not be checked",
    ),
    Code("oathbreaker-missing", "error", "format:oathbreaker", "no oathbreaker found"),
    Code(
        "signature-spell-missing",
        "error",
        "format:oathbreaker",
        "an oathbreaker without its signature spell",
    ),
    Code(
        "signature-spell-invalid",
        "error",
        "format:oathbreaker",
        "too many signature spells, or one outside its oathbreaker's color identity",
    ),
    Code(
        "bracket",
        "info",
        "format:commander-brackets",
        "the lowest Commander bracket the Game Changer count allows",
    ),
    Code(
        "bracket-exceeded",
        "error",
        "format:commander-brackets",
        "more Game Changers than the requested bracket allows",
    ),
)

#: Every problem code, by code.
CODES: Final[dict[str, Code]] = {c.code: c for c in _ALL}
if len(CODES) != len(_ALL):  # not an assert: it must hold under python -O too
    raise RuntimeError("validator/codes.py registers a problem code twice")


#: The codes whose cards are names the card data does not know yet (`Code.unknown_names`).
UNKNOWN_NAMES: Final[frozenset[str]] = frozenset(c.code for c in _ALL if c.unknown_names)
#: The codes whose error means "cannot tell" (`Code.undecidable`).
UNDECIDABLE: Final[frozenset[str]] = frozenset(c.code for c in _ALL if c.undecidable)


def is_undecidable(code: str) -> bool:
    """Whether an error of this code says deckcheck cannot decide, not that a rule is broken:
    a deck whose errors are all such is `unconfirmed` (a code not registered: False)."""
    return code in UNDECIDABLE


def lookup(code: str) -> Code:
    """The registry entry of a problem code; KeyError naming it when it is none."""
    try:
        return CODES[code]
    except KeyError:
        raise KeyError(
            f"{code!r} is not a deckcheck problem code (validator/codes.py lists all {len(CODES)})"
        ) from None
