"""A validation's verdict and its renderings: human text, JSON (versioned schema), CSV rows."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from validator.codes import CODES, UNDECIDABLE
from validator.model import (
    ALT_NAME,
    COMMANDER,
    COMPANION,
    ERROR,
    INFO,
    LANGUAGES,
    MAIN,
    SIDEBOARD,
    WARNING,
    Problem,
    Severity,
)

#: Bumped only on an incompatible change; fields are added without a bump.
SCHEMA = "deckcheck.report/1"


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a `deckcheck.report/1` object: the file
    validator/report.schema.json shipped in the package (docs/report.md publishes it)."""
    import json
    from pathlib import Path

    text = (Path(__file__).parent / "report.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


#: A report's verdicts (`Report.verdict`): "unconfirmed" when every error is one deckcheck
#: cannot decide (validator/codes.py `undecidable`); `legal` is False for both others.
LEGAL, ILLEGAL, UNCONFIRMED = "legal", "illegal", "unconfirmed"

#: `deckcheck check-formats --json`: one deck against every format (same rules as SCHEMA).
CHECK_FORMATS_SCHEMA = "deckcheck.check-formats/1"

_SEVERITY_ORDER = {ERROR: 0, WARNING: 1, INFO: 2}


@dataclass
class Report:
    """The result of validating one deck against one format."""

    format: str
    format_name: str
    problems: list[Problem] = field(default_factory=list)
    source: str | None = None  # file name or "-"
    deck_name: str | None = None
    input_format: str | None = None
    main_count: int = 0
    sideboard_count: int = 0
    commanders: list[str] = field(default_factory=list)
    companion: str | None = None
    commander_source: str | None = None
    #: Supplementary decks, apart from the deck (CR 717.2a, 123.2a).
    attractions: int = 0
    sticker_sheets: int = 0
    #: The date legality was judged as of (ISO), None for the card data's current legality.
    as_of: str | None = None
    #: "month" when the deck's date is known only to its month (`as_of` is then its last day).
    as_of_precision: str | None = None
    #: Where `as_of` comes from in an event run (validator/event/judge.py `as_of_for`):
    #: "event" (the date the event file or manifest carries), "deck", "option" (--as-of).
    as_of_from: str | None = None
    #: Event runs: the deck's stable id and its player (validator/event/judge.py `_ids`).
    deck_id: str | None = None
    player: str | None = None
    #: Cards the input lists outside the counted sections (a maybeboard, tokens, a planar
    #: deck): each {"quantity", "name", "section" (as the input named it), "kind" ("outside",
    #: "supplementary"), "line", "where"} (validator/decklist/sections.py `not_counted`).
    not_counted: list[dict[str, Any]] = field(default_factory=list)
    #: Lines read by a name that is not an Oracle name (`model.NameReading`).
    readings: list[Any] = field(default_factory=list)

    @property
    def legal(self) -> bool:
        return not self.errors

    @property
    def verdict(self) -> str:
        """ "legal", "illegal", or "unconfirmed": no error but ones deckcheck cannot decide (an
        unknown card name, a rarity without printings...). A known violation beside an
        unknown card is "illegal"."""
        return verdict_of(self.problems)

    @property
    def undecided(self) -> list[Problem]:
        """The errors deckcheck cannot decide (what an unconfirmed verdict waits on)."""
        return [p for p in self.problems if p.severity == ERROR and p.code in UNDECIDABLE]

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == WARNING]

    def sorted_problems(self) -> list[Problem]:
        return sorted(
            self.problems, key=lambda p: (_SEVERITY_ORDER[p.severity], p.lines[0] if p.lines else 0)
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON schema documented in README ("JSON report")."""
        return {
            "schema": SCHEMA,
            "source": self.source,
            "format": self.format,
            "format_name": self.format_name,
            "legal": self.legal,
            "verdict": self.verdict,
            "deck": {
                "name": self.deck_name,
                "input_format": self.input_format,
                "main": self.main_count,
                "sideboard": self.sideboard_count,
                "commanders": self.commanders,
                "commander_source": self.commander_source,
                "companion": self.companion,
                "attractions": self.attractions,
                "sticker_sheets": self.sticker_sheets,
            },
            "counts": {s.value: sum(1 for p in self.problems if p.severity == s) for s in Severity},
            "problems": [p.to_dict() for p in self.sorted_problems()],
            "not_counted": self.not_counted,
            "as_of": self.as_of,
            **({"as_of_precision": self.as_of_precision} if self.as_of_precision else {}),
            **({"as_of_from": self.as_of_from} if self.as_of_from else {}),
            **({"id": self.deck_id, "player": self.player} if self.deck_id is not None else {}),
            **({"names_read": [r.to_dict() for r in self.readings]} if self.readings else {}),
        }


def verdict_of(problems: Iterable[Problem]) -> str:
    """The verdict of a deck with these problems (`Report.verdict`)."""
    errors = [p.code for p in problems if p.severity == ERROR]
    if not errors:
        return LEGAL
    return UNCONFIRMED if UNDECIDABLE.issuperset(errors) else ILLEGAL


#: The verdict as the text output heads a report with it.
VERDICT_WORDS = {LEGAL: "LEGAL", ILLEGAL: "NOT LEGAL", UNCONFIRMED: "UNCONFIRMED"}


def settle_lines(report: Report) -> list[str]:
    """What could not be checked and what would settle it, once per kind: the lines under an
    unconfirmed verdict (and under an illegal one that also has such errors)."""
    lines = []
    for code in dict.fromkeys(p.code for p in report.undecided):
        entry = CODES[code]
        lines.append(f"  could not check ({code}): settled by {entry.settled_by}")
    return lines


def summarize_deck(report: Report, deck: Any) -> None:
    """Fill the deck summary of `report` from a ResolvedDeck."""
    report.main_count = deck.count(MAIN)
    report.sideboard_count = deck.count(SIDEBOARD)
    # Cards listed under a name that is no card still count as listed, as the deck-size check
    # counts them (CR 100.2a): a 60-card list with one typo is not shown as 59.
    for e in deck.unresolved:
        if e.section == MAIN:
            report.main_count += e.quantity
        elif e.section == SIDEBOARD:
            report.sideboard_count += e.quantity
    report.commanders = [e.card.name for e in deck.cards_in(COMMANDER)]
    companions = deck.cards_in(COMPANION)
    report.companion = companions[0].card.name if companions else None
    report.deck_name = deck.deck.name
    report.input_format = deck.deck.input_format
    report.commander_source = deck.deck.commander_source
    # Lists, not generators: most decks have neither, and an empty list sums for less.
    report.attractions = sum([e.quantity for e in getattr(deck, "attractions", ())])
    report.sticker_sheets = sum([e.quantity for e in getattr(deck, "sticker_sheets", ())])
    report.readings = list(getattr(deck, "readings", ()))


#: Characters that would drive a terminal or break a line of text output (C0 and C1 controls,
#: the Unicode line separators): a decklist can put them in a card or deck name.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def escape_controls(text: str) -> str:
    """`text` as one printable line: controls written as escapes (`\\x1b`, `\\n`)."""
    if not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def render_text(report: Report, *, verbose: bool = False) -> str:
    """What a player reads at a terminal: the verdict, then one line per problem."""
    head = f"{report.source}: " if report.source else ""
    verdict = report.verdict
    lines = [f"{head}{VERDICT_WORDS[verdict]} in {report.format_name}"]
    if verdict == UNCONFIRMED:
        lines[0] += ": no rule found broken, but not everything could be checked"
    if report.commanders:
        lines.append(f"  commander: {', '.join(report.commanders)}")
    if report.companion:
        lines.append(f"  companion: {report.companion}")
    # Supplementary decks, shown apart from the deck (CR 717.2a, 123.2a).
    if report.attractions:
        lines.append(f"  attraction deck: {report.attractions} card(s), not in the deck")
    if report.sticker_sheets:
        lines.append(f"  sticker sheets: {report.sticker_sheets}, not in the deck")
    lines += not_counted_lines(report.not_counted)
    if report.readings:
        lines += names_read_lines(report.readings, verbose=verbose)
    for p in report.sorted_problems():
        if p.severity == INFO and not verbose:
            continue
        cite = f" [{p.citation}]" if p.citation else ""
        lines.append(f"  {p.severity.value}: {p.message}{shown_lines(p)}{cite}")
    lines += settle_lines(report)
    if report.as_of_from == "event":
        lines.append(
            f"  judged as of {report.as_of}, the event's date (--as-of today judges by current "
            "legality)"
        )
    hidden = sum(1 for p in report.problems if p.severity == INFO) if not verbose else 0
    if hidden:
        lines.append(f"  ({hidden} note(s) hidden; --verbose shows them)")
    return "\n".join(escape_controls(line) for line in lines)


#: At most this many cards not counted are named in the text output (the JSON has them all).
TEXT_NOT_COUNTED_SHOWN = 10


def not_counted_lines(items: list[dict[str, Any]]) -> list[str]:
    """ "  not counted: 1 Black Lotus (Maybeboard, line 6)": every card the input lists that
    is not counted, shown without --verbose (a card never vanishes from the verdict)."""
    lines = []
    for item in items[:TEXT_NOT_COUNTED_SHOWN]:
        place = f"line {item['line']}" if item.get("line") is not None else item.get("where") or ""
        where = f"{item['section']}, {place}" if place else item["section"]
        lines.append(f"  not counted: {item['quantity']} {item['name']} ({where})")
    more = len(items) - TEXT_NOT_COUNTED_SHOWN
    if more > 0:
        lines.append(f"  not counted: +{more} more (--json lists them)")
    return lines


def names_read_lines(readings: list[Any], *, verbose: bool = False) -> list[str]:
    """Once per report, how many lines were read by a name that is not an Oracle name, by
    language (and with `verbose`, each of them)."""
    counts: dict[str, int] = {}
    for r in readings:
        how = (
            "by MTGO/Arena name"
            if r.how == ALT_NAME
            else f"in {LANGUAGES.get(r.language, 'another language')}"
        )
        counts[how] = counts.get(how, 0) + 1
    said = ", ".join(f"{n} {how}" for how, n in sorted(counts.items(), key=lambda i: -i[1]))
    out = [f"  names read: {said}"]
    if verbose:
        for r in readings:
            where = f"line {r.line}: " if r.line else ""
            out.append(f"    {where}{r.written} -> {r.card} ({r.language}, {r.how})")
    return out


#: At most this many line numbers after a problem in the text output (the JSON has them all).
TEXT_LINES_SHOWN = 8


def shown_lines(problem: Problem) -> str:
    """The decklist lines of a problem, as the JSON's `lines` has them: " (line 3, 64)".
    Messages that already start with their line ("line 2: unknown card ...") get nothing."""
    if not problem.lines or problem.message.startswith("line "):
        return ""
    shown = ", ".join(str(n) for n in problem.lines[:TEXT_LINES_SHOWN])
    more = len(problem.lines) - TEXT_LINES_SHOWN
    return f" (line {shown}{f', +{more} more' if more > 0 else ''})"


def check_formats_dict(
    reports: list[Report], source: str | None = None, limit: int | None = None
) -> dict[str, Any]:
    """One deck against every format (README "check-formats JSON"): where it is legal, and
    each format's errors; with `limit`, at most that many per format and `problems_omitted`
    (the service's bound on its answer): the others are never turned into dicts."""
    formats: dict[str, Any] = {}
    for r in reports:
        ordered = r.sorted_problems()
        errors = [p for p in ordered if p.severity == ERROR]
        # Warnings too (an added field): a "legal" that needs a human look, e.g. legal only as
        # far as the legality history reaches (`legality-history-missing`), a release window.
        warnings = [p for p in ordered if p.severity == WARNING]
        entry = formats[r.format] = {
            "format_name": r.format_name,
            "legal": r.legal,
            "verdict": r.verdict,
            "problems": [p.to_dict() for p in errors[:limit]],
            "warnings": [p.to_dict() for p in warnings[:limit]],
        }
        if limit is not None:
            entry["problems_omitted"] = max(0, len(errors) - limit)
    return {
        "schema": CHECK_FORMATS_SCHEMA,
        "source": source,
        "legal_in": [r.format for r in reports if r.legal],
        "unconfirmed_in": [r.format for r in reports if r.verdict == UNCONFIRMED],
        "formats": formats,
    }


def render_check_formats(reports: list[Report], source: str | None = None, reasons: int = 2) -> str:
    """The formats a deck is legal in (each legal one that carries a warning named, with it),
    then the first reasons for each other format."""
    legal = [r.format_name for r in reports if r.legal]
    lines = [f"{source or 'deck'}: legal in {', '.join(legal) if legal else 'no format'}"]
    lines += [_legal_with_warning(r) for r in reports if r.legal and r.warnings]
    for r in reports:
        if not r.legal:
            errors = [p for p in r.sorted_problems() if p.severity == ERROR]
            shown = "; ".join(p.message + shown_lines(p) for p in errors[:reasons])
            more = f" (+{len(errors) - reasons} more)" if len(errors) > reasons else ""
            lead = "unconfirmed in" if r.verdict == UNCONFIRMED else "not"
            lines.append(f"  {lead} {r.format_name}: {shown}{more}")
    return "\n".join(escape_controls(line) for line in lines)


def _legal_with_warning(report: Report) -> str:
    """A legal format that carries a warning, as validate says it, not left to the JSON: as of
    a date the legality history does not reach, or after the card data's date, it is legal
    as far as known (asof.py `legality-history-missing`); a card whose status changed in a
    window around the date was judged by the more permissive status (`legality-date-uncertain`).
    The warning's own message says which, and what to check."""
    warnings = sorted(report.warnings, key=lambda p: p.code != "legality-history-missing")
    first = warnings[0]
    lead, but = (
        ("legal as far as known in", "")
        if first.code == "legality-history-missing"
        else ("legal in", ", but see the warning")
    )
    more = (
        f" (+{len(warnings) - 1} more warning{'s' if len(warnings) > 2 else ''}: --json lists them)"
        if len(warnings) > 1
        else ""
    )
    return f"  {lead} {report.format_name}{but}: {first.message}{shown_lines(first)}{more}"


def card_facts(card: Any, format_keys: Iterable[str]) -> dict[str, Any]:
    """A card as the validator sees it: `deckcheck card --json` and the service's
    `GET /v1/cards/{name}` (the legalities of `format_keys` and of the card's own keys)."""
    # CR 712.4b: the back face of a meld pair is not a card: it can be neither in a deck nor
    # a commander, whatever its own type line says (validate calls it `meld-result`).
    meld_result = card.is_meld_result
    limit = (
        "any number"
        if card.any_number
        else "unlimited (basic land)"
        if card.is_basic_land
        else str(card.copy_limit)
        if card.copy_limit
        else "format's limit"
    )
    return {
        "name": card.name,
        "oracle_id": card.oracle_id,
        "layout": card.layout,
        "faces": [f.name for f in card.faces],
        "mana_cost": card.mana_cost,
        "mana_value": card.mana_value,
        "type_line": card.type_line,
        "types": sorted(card.types),
        "subtypes": sorted(card.subtypes),
        "supertypes": sorted(card.supertypes),
        "color_identity": card.color_identity or "colorless",
        "copy_limit": limit,
        "commander_eligible": card.commander_eligible and not meld_result,
        "partner": card.partner,
        "companion_condition": card.companion_condition,
        "game_changer": card.game_changer,
        "reserved": card.reserved,
        "deck_card": card.is_deck_card and not meld_result,
        "meld_from": list(card.meld_from),
        "legalities": {
            f: card.legality(f) for f in sorted(set(format_keys) | set(card.legalities))
        },
    }
