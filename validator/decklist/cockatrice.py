"""Cockatrice .cod files: `<cockatrice_deck><zone name="main"><card number="4" name="..."/>`."""

from __future__ import annotations

from validator.decklist.base import DecklistError, check_entry_count, clip
from validator.decklist.dek import read_card, wrong_root
from validator.decklist.xmlsafe import read_xml
from validator.model import Deck, ParseIssue, Section

_ZONES = {"main": Section.MAIN, "side": Section.SIDEBOARD, "tokens": Section.IGNORED}


def parse_cockatrice(data: str | bytes) -> Deck:
    """Read a Cockatrice deck; the "tokens" zone is kept as IGNORED entries."""
    root = read_xml(data)
    if root.tag != "cockatrice_deck":
        raise DecklistError(wrong_root(root.tag))
    deck = Deck(input_format="cockatrice")
    zones = [child for child in root.children if child.tag == "zone"]
    check_entry_count(sum(len(zone.children) for zone in zones))
    for child in root.children:
        if child.tag == "deckname" and child.text.strip():
            deck.name = clip(" ".join(child.text.split()), 200)
    for zone in zones:
        zone_name = zone.attrs.get("name", "")
        section = _ZONES.get(zone_name.strip().lower())
        if section is None:
            section = Section.IGNORED
            deck.issues.append(ParseIssue(
                zone.line, f"unknown zone {zone_name!r}; its cards are not counted",
                f'<zone name="{zone_name}">'))
        for card in zone.children:
            if card.tag == "card":
                attrs = card.attrs
                read_card(deck, card, attrs.get("number"), attrs.get("name"), section,
                          attrs.get("setShortName"), attrs.get("collectorNumber"))
    return deck
