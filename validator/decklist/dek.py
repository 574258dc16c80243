"""MTGO .dek files: `<Deck><Cards Quantity="4" Sideboard="false" Name="..."/>...</Deck>`."""

from __future__ import annotations

import re
from collections import deque

from validator.decklist.base import (
    DecklistError,
    check_entry_count,
    clip,
    digits_value,
    name_issue,
    printable,
    quantity_issue,
)
from validator.decklist.xmlsafe import Element, describe, read_xml
from validator.model import Deck, DeckEntry, ParseIssue, Section

_NEGATIVE = re.compile(r"-[0-9]+", re.ASCII)
#: What MTGO writes beside its <Cards> rows: deck ids, no cards. Anything else is reported, so
#: that a card element spelled otherwise (<Card>, <cards>) is never dropped silently.
_DEK_METADATA = frozenset({"NetDeckID", "PreconstructedDeckID"})


def parse_dek(data: str | bytes) -> Deck:
    """Read an MTGO .dek; trade-list rows such as "Event Ticket" are kept for the resolver."""
    root = read_xml(data)
    if root.tag != "Deck":
        raise DecklistError(wrong_root(root.tag))
    cards = [child for child in root.children if child.tag == "Cards"]
    check_entry_count(len(cards))
    deck = Deck(input_format="mtgo-dek")
    for element in root.children:
        if element.tag == "Cards":
            unexpected_children(deck, element, "<Cards>")
            read_card(
                deck,
                element,
                element.attrs.get("Quantity"),
                element.attrs.get("Name"),
                _section(deck, element),
            )
        elif element.tag in _DEK_METADATA:
            unexpected_children(deck, element, f"<{element.tag}>")
        else:
            unknown_element(
                deck,
                element,
                "an MTGO .dek lists cards as <Cards Quantity=... Sideboard=... Name=.../>",
            )
    return deck


def carried_name(element: Element) -> str | None:
    """The card name an element seems to carry: a name-like attribute, or its text."""
    queue = deque([element])
    while queue:  # the element itself first, then what it holds
        current = queue.popleft()
        for key, value in current.attrs.items():
            if "name" in key.lower() and value.strip():
                return value.strip()
        text = " ".join(current.text.split())
        if text:
            return text
        queue.extend(current.children)
    return None


def unknown_element(deck: Deck, element: Element, expected: str) -> None:
    """An element deckcheck does not know is an error naming its line: it may hold a card that
    would otherwise be dropped silently (a fail-closed reader)."""
    name = carried_name(element)
    holds = f" naming {clip(printable(name), 80)!r}" if name else ""
    deck.issues.append(
        ParseIssue(
            element.line,
            f"unknown element <{clip(element.tag, 40)}>{holds} is not read, so a card "
            f"in it would not be counted; {expected}",
            clip(element.source or describe(element)),
        )
    )


def unexpected_children(deck: Deck, element: Element, where: str) -> None:
    """Elements nested where no element belongs (a <Cards> inside <Cards>)."""
    for child in element.children:
        unknown_element(deck, child, f"nothing is nested inside {where}")


#: Root element -> (what the file is, its --input-format name).
_ROOTS = {
    "Deck": ("an MTGO .dek deck", "mtgo-dek"),
    "cockatrice_deck": ("a Cockatrice deck", "cockatrice"),
}


def wrong_root(tag: str, reading: str = "mtgo-dek") -> str:
    """Why the root element `tag` is not the one the `reading` parser ("mtgo-dek",
    "cockatrice") reads: the other XML deck format's root says which to use; any other root
    is neither."""
    known = _ROOTS.get(tag)
    if known is not None and known[1] != reading:
        wanted = next(what for what, name in _ROOTS.values() if name == reading)
        return (
            f"this is {known[0]} (XML root element <{tag}>), not {wanted}: use "
            f"--input-format {known[1]} (or auto)"
        )
    return (
        f"XML root element is <{clip(tag, 40)}>, neither an MTGO .dek <Deck> nor a "
        "Cockatrice <cockatrice_deck>"
    )


def _section(deck: Deck, element: Element) -> Section | None:
    flag = element.attrs.get("Sideboard", "false").strip().lower()
    if flag in ("true", "1"):
        return Section.SIDEBOARD
    if flag in ("false", "0", ""):
        return Section.MAIN
    deck.issues.append(
        ParseIssue(
            element.line,
            f"Sideboard={clip(flag, 40)!r} is neither true nor false",
            clip(element.source or describe(element)),
        )
    )
    return None


def read_card(
    deck: Deck,
    element: Element,
    quantity: str | None,
    name: str | None,
    section: Section | None,
    set_code: str | None = None,
    collector: str | None = None,
) -> None:
    """Append one XML card element as an entry, or as an issue when it cannot be read."""
    if section is None:
        return
    text = clip(element.source or describe(element))
    written = (quantity or "").strip()
    if written.isascii() and written.isdigit():
        value = digits_value(written)
        issue = quantity_issue(value, written, element.line, text)
    elif _NEGATIVE.fullmatch(written):
        value, issue = (
            None,
            ParseIssue(element.line, "quantity must be at least 1", text, "bad-quantity"),
        )
    else:
        value, issue = (
            None,
            ParseIssue(
                element.line,
                f"quantity {written!r} is not a whole number"
                if written
                else "card element without a quantity",
                text,
            ),
        )
    if issue is not None:
        deck.issues.append(issue)
        return
    name = " ".join((name or "").split())
    if not name:
        deck.issues.append(ParseIssue(element.line, "card element without a name", text))
        return
    too_long = name_issue(name, element.line, text)
    if too_long is not None:
        deck.issues.append(too_long)
        return
    deck.entries.append(
        DeckEntry(
            value or 0, name, section, element.line, set_code or None, collector or None, text
        )
    )
