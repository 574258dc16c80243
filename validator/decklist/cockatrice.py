"""Cockatrice .cod files: `<cockatrice_deck><zone name="main"><card number="4" name="..."/>`."""

from __future__ import annotations

from validator.decklist.base import DecklistError, check_entry_count, clip
from validator.decklist.dek import read_card, unexpected_children, unknown_element, wrong_root
from validator.decklist.sections import lookup_section
from validator.decklist.xmlsafe import Element, read_xml
from validator.model import Deck, ParseIssue, Section

#: Zones that are read but not counted, with why (the report says what was skipped).
_SKIPPED_ZONES = {
    "tokens": "tokens are not part of the deck",
    "maybe": "maybeboard cards are not part of the deck",
    "maybeboard": "maybeboard cards are not part of the deck",
}
#: Cockatrice elements beside the zones that hold no deck card (the banner card is a picture).
_METADATA = frozenset({"deckname", "comments", "bannerCard", "tags", "tag"})


def parse_cockatrice(data: str | bytes) -> Deck:
    """Read a Cockatrice deck; the "tokens" zone is kept as IGNORED entries."""
    root = read_xml(data)
    if root.tag != "cockatrice_deck":
        raise DecklistError(wrong_root(root.tag, "cockatrice"))
    deck = Deck(input_format="cockatrice")
    zones = [child for child in root.children if child.tag == "zone"]
    check_entry_count(sum(len(zone.children) for zone in zones))
    for child in root.children:
        if child.tag == "deckname" and child.text.strip():
            deck.name = clip(" ".join(child.text.split()), 200)
        elif child.tag != "zone" and child.tag not in _METADATA:
            unknown_element(deck, child, _EXPECTED)
    for zone in zones:
        _read_zone(deck, zone)
    return deck


_EXPECTED = (
    "a Cockatrice deck lists cards as <card number=... name=.../> inside "
    '<zone name="main"> or <zone name="side">'
)


def _read_zone(deck: Deck, zone: Element) -> None:
    zone_name = zone.attrs.get("name", "")
    key = zone_name.strip().lower()
    # Cockatrice's zones are "main", "side" and "tokens"; any name is read by the shared
    # vocabulary (validator/decklist/sections.py), and one it does not know is named.
    known = lookup_section(zone_name)
    section = known.section if known is not None else Section.IGNORED
    if known is None:
        deck.issues.append(
            ParseIssue(
                zone.line,
                f"unknown zone {clip(zone_name, 40)!r}; its cards are not counted",
                f'<zone name="{clip(zone_name, 40)}">',
                "unknown-section",
            )
        )
    start = len(deck.entries)
    for card in zone.children:
        if card.tag == "card":
            unexpected_children(deck, card, "<card>")
            attrs = card.attrs
            read_card(
                deck,
                card,
                attrs.get("number"),
                attrs.get("name"),
                section,
                attrs.get("setShortName"),
                attrs.get("collectorNumber"),
            )
        else:
            unknown_element(deck, card, _EXPECTED)
    skipped = deck.entries[start:]
    for entry in skipped:
        entry.board = clip(zone_name, 40)
    if key in _SKIPPED_ZONES and skipped:
        names = list(dict.fromkeys(e.name for e in skipped))
        shown = ", ".join(names[:10]) + (
            f" and {len(names) - 10:,} more" if len(names) > 10 else ""
        )
        deck.issues.append(
            ParseIssue(
                zone.line,
                f"skipped the {key} zone ({sum(e.quantity for e in skipped):,} card(s): "
                f"{shown}): {_SKIPPED_ZONES[key]}",
                f'<zone name="{clip(zone_name, 40)}">',
                "skipped-cards",
            )
        )
