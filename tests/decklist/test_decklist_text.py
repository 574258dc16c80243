"""Plain-text decklists: MTGO, Arena, Moxfield, Archidekt, MTGGoldfish and Forge variations."""

from __future__ import annotations

import time

import pytest

from validator.decklist import MAX_QUANTITY, parse_decklist
from validator.model import Section

MAIN, SIDE, CMDR, COMP, IGN = (
    Section.MAIN,
    Section.SIDEBOARD,
    Section.COMMANDER,
    Section.COMPANION,
    Section.IGNORED,
)


def rows(deck):
    return [(e.quantity, e.name, e.section, e.line) for e in deck.entries]


def one(line: str):
    deck = parse_decklist(line)
    assert not deck.issues, deck.issues
    assert len(deck.entries) == 1
    return deck.entries[0]


@pytest.mark.parametrize(
    "line, quantity, name",
    [
        ("4 Lightning Bolt", 4, "Lightning Bolt"),
        ("4x Lightning Bolt", 4, "Lightning Bolt"),
        ("4X Lightning Bolt", 4, "Lightning Bolt"),
        ("4 x Lightning Bolt", 4, "Lightning Bolt"),
        ("Lightning Bolt", 1, "Lightning Bolt"),
        ("12 Mountain", 12, "Mountain"),
        ("04 Island", 4, "Island"),
        ("1 Xenagos, the Reveler", 1, "Xenagos, the Reveler"),
    ],
)
def test_quantity_forms(line, quantity, name):
    entry = one(line)
    assert (entry.quantity, entry.name, entry.section, entry.line) == (quantity, name, MAIN, 1)
    assert entry.text == line


@pytest.mark.parametrize(
    "name",
    [
        "Minsc & Boo, Timeless Heroes",
        "Circle of Protection: Red",
        "Borrowing 100,000 Arrows",
        "B.F.M. (Big Furry Monster)",
        "Fire // Ice",
        "Fire/Ice",
        "Who // What // When // Where // Why",
        "+2 Mace",
        '"Ach! Hans, Run!"',
        "1996 World Champion",
        "Gaea’s Cradle",
        "Lim-Dûl's Vault",
        "Æther Vial",
        'Kongming, "Sleeping Dragon"',
        "Our Market Research Shows That Players Like Really Long Card Names So We Made this Card "
        "to Have the Absolute Longest Card Name Ever Elemental",
    ],
)
def test_names_are_kept_whole(name):
    entry = one(f"1 {name}")
    assert (entry.quantity, entry.name) == (1, name)
    assert entry.set_code is None and entry.collector_number is None


def test_names_without_quantity_keep_punctuation():
    assert one("+2 Mace").name == "+2 Mace"
    assert one("B.F.M. (Big Furry Monster)").name == "B.F.M. (Big Furry Monster)"
    assert one('"Ach! Hans, Run!"').quantity == 1


def test_leading_digits_are_the_quantity():
    entry = one("1996 World Champion")
    assert (entry.quantity, entry.name) == (1996, "World Champion")
    entry = one("1 1996 World Champion")
    assert (entry.quantity, entry.name) == (1, "1996 World Champion")


@pytest.mark.parametrize(
    "line, set_code, number, name",
    [
        ("4 Lightning Bolt (M11) 146", "M11", "146", "Lightning Bolt"),
        ("1 Sol Ring (CMM) 400", "CMM", "400", "Sol Ring"),
        ("1 Sol Ring (CMM)", "CMM", None, "Sol Ring"),
        ("1 Delver of Secrets (ISD) 51a", "ISD", "51a", "Delver of Secrets"),
        ("1 Growth Spiral (PRNA) GR5", "PRNA", "GR5", "Growth Spiral"),
        ("1 Llanowar Elves (PLST) 2024-1", "PLST", "2024-1", "Llanowar Elves"),
        ("1 Sol Ring (SLD) ★12", "SLD", "★12", "Sol Ring"),
        ("1 Mox Pearl (2ED) 262", "2ED", "262", "Mox Pearl"),
        ("1 Fire // Ice (MH2) 290", "MH2", "290", "Fire // Ice"),
        ("1 B.F.M. (Big Furry Monster) (UGL) 28", "UGL", "28", "B.F.M. (Big Furry Monster)"),
    ],
)
def test_set_and_collector_number(line, set_code, number, name):
    entry = one(line)
    assert (entry.name, entry.set_code, entry.collector_number) == (name, set_code, number)
    assert entry.text == line


@pytest.mark.parametrize(
    "line",
    [
        "1 Goblin (20)",  # digits only: not a set code
        "1 Goblin (TOOLONGX) 12",  # 8 characters
        "1 Goblin (ABC) 12 34",  # two numbers
        "1 Goblin (ABC) twelve",  # no digit: not a collector number
    ],
)
def test_parenthesised_text_that_is_not_a_printing_stays_in_the_name(line):
    entry = one(line)
    assert entry.name == line[2:]
    assert entry.set_code is None


def test_moxfield_markers():
    deck = parse_decklist(
        "1 Sol Ring (CMM) 400 *F*\n"
        "1 Arcane Signet (CMM) 374 *E*\n"
        "1 Atraxa, Praetors' Voice (2XM) 190 *CMDR*\n"
        "1 Command Tower (F)\n"
    )
    assert not deck.issues
    assert [(e.name, e.section, e.set_code, e.collector_number) for e in deck.entries] == [
        ("Sol Ring", MAIN, "CMM", "400"),
        ("Arcane Signet", MAIN, "CMM", "374"),
        ("Atraxa, Praetors' Voice", CMDR, "2XM", "190"),
        ("Command Tower", MAIN, None, None),
    ]
    assert deck.commander_source == "cmdr-marker"
    assert deck.input_format == "arena"


def test_archidekt_categories():
    deck = parse_decklist(
        "1x Sol Ring (cmm) 400 [Ramp]\n"
        "1x Kenrith, the Returned King (eld) 303 [Commander{top}]\n"
        "1x Opt (xln) 65 [Maybeboard{noDeck}{noPrice}]\n"
        "1x Duress (m19) 94 [Sideboard{noDeck}{noPrice}]\n"
        "1x Rhystic Study (pcy) 45 *F* [Draw,Enchantment] ^Have,#37d67a^\n"
        "1x Treasure (tcmm) 1 [Tokens{noDeck}]\n"
        "1x Lurrus of the Dream-Den (iko) 226 [Companion]\n"
        "1x Island [Land]\n"
    )
    assert not deck.issues
    assert [
        (e.quantity, e.name, e.section, e.set_code, e.collector_number) for e in deck.entries
    ] == [
        (1, "Sol Ring", MAIN, "cmm", "400"),
        (1, "Kenrith, the Returned King", CMDR, "eld", "303"),
        (1, "Opt", IGN, "xln", "65"),
        (1, "Duress", SIDE, "m19", "94"),
        (1, "Rhystic Study", MAIN, "pcy", "45"),
        (1, "Treasure", IGN, "tcmm", "1"),
        (1, "Lurrus of the Dream-Den", COMP, "iko", "226"),
        (1, "Island", MAIN, None, None),
    ]
    assert deck.commander_source == "category"


def test_mtggoldfish_variant_tags_are_not_part_of_the_name():
    entry = one("1 Sol Ring <borderless> (CMM) 400 (F)")
    assert (entry.name, entry.set_code, entry.collector_number) == ("Sol Ring", "CMM", "400")
    entry = one("4 Lightning Bolt <retro> (F)")
    assert entry.name == "Lightning Bolt"


def test_mtgo_blank_line_sideboard():
    deck = parse_decklist("4 Lightning Bolt\n56 Mountain\n\n3 Smash to Smithereens\n")
    assert rows(deck) == [
        (4, "Lightning Bolt", MAIN, 1),
        (56, "Mountain", MAIN, 2),
        (3, "Smash to Smithereens", SIDE, 4),
    ]
    assert deck.input_format == "text"


def test_only_the_last_block_is_the_sideboard():
    deck = parse_decklist("4 A\n4 B\n\n4 C\n\n\n2 D\n1 E\n\n\n")
    assert [(e.name, e.section) for e in deck.entries] == [
        ("A", MAIN),
        ("B", MAIN),
        ("C", MAIN),
        ("D", SIDE),
        ("E", SIDE),
    ]


def _sections(text: str) -> list[tuple[str, Section]]:
    return [(e.name, e.section) for e in parse_decklist(text).entries]


_NINETY_NINE = "".join(f"1 Card {i}\n" for i in range(99))


@pytest.mark.parametrize(
    "lead", ["1 Kinnan, Bonder Prodigy\n", "1 Tymna the Weaver\n1 Kraum, Ludevic's Opus\n"]
)
def test_commander_pasted_first_is_the_sideboard_like_block(lead):
    """ "1 Kinnan", a blank line, the 99: the 99 are the deck, not the sideboard; the first
    block is read as MTGO's sideboard, where Commander designation looks (CR 903.3)."""
    lead_names = [line[2:] for line in lead.splitlines()]
    rest = "".join(f"1 Card {i}\n" for i in range(100 - len(lead_names)))
    deck = parse_decklist(lead + "\n" + rest)
    assert [(e.name, e.section) for e in deck.entries[: len(lead_names)]] == [
        (name, SIDE) for name in lead_names
    ]
    assert {e.section for e in deck.entries[len(lead_names) :]} == {MAIN}


@pytest.mark.parametrize(
    ("text", "sideboard"),
    [
        ("2 A\n\n3 B\n", ["A"]),  # two cards first, more after: the commander pair pasted first
        ("1 A\n1 B\n\n2 C\n1 D\n", ["A", "B"]),
        ("2 A\n\n2 B\n", ["B"]),  # not more after: MTGO's order, the sideboard last
        ("3 A\n\n40 B\n", ["B"]),  # three cards are no commander block
        ("1 A\n1 B\n1 C\n\n40 D\n", ["D"]),
    ],
)
def test_of_two_blocks_the_first_is_the_sideboard_only_when_it_is_a_commander_block(
    text, sideboard
):
    assert [name for name, section in _sections(text) if section == SIDE] == sideboard


def test_mtgo_commander_export_keeps_the_commander_last():
    # MTGO writes the 99, a blank line, the commander.
    sections = _sections(_NINETY_NINE + "\n1 Kinnan, Bonder Prodigy\n")
    assert sections[-1] == ("Kinnan, Bonder Prodigy", SIDE)
    assert {s for _, s in sections[:-1]} == {MAIN}


def test_blank_lines_grouping_the_main_deck_make_no_sideboard():
    # 8 creatures, 8 spells, 44 lands: the last block outweighs the rest, so it is no sideboard
    # (reading it as one gave a 16-card main deck and a 44-card sideboard).
    text = (
        "4 Goblin Guide\n4 Monastery Swiftspear\n\n4 Lightning Bolt\n4 Lava Spike\n\n"
        "20 Mountain\n24 Mountain\n"
    )
    assert {s for _, s in _sections(text)} == {MAIN}
    assert parse_decklist(text).count(MAIN) == 60


@pytest.mark.parametrize(
    "text, sideboard",
    [
        ("60 Mountain\n\n16 Island\n", ["Island"]),  # oversize, still the sideboard (CR 100.4a)
        ("30 Mountain\n\n30 Forest\n\n16 Island\n", ["Island"]),
        ("4 A\n\n4 B\n", ["B"]),  # as many as the rest: still the sideboard
        ("36 A\n\n24 B\n", ["B"]),  # two blocks cannot be told from main + sideboard
        # Two blocks are MTGO's shape, whatever their sizes (a draft pool's 45-card sideboard).
        ("30 A\n\n45 B\n", ["B"]),
        ("3 A\n\n57 B\n", ["B"]),
        ("2 A\n\n58 B\n", ["A"]),  # ... unless the first is 1-2 cards: a commander pasted first
        # Three or more: groups of the main deck when the last outweighs the rest.
        ("20 A\n\n10 B\n\n40 C\n", []),
        ("1 A\n\n40 B\n\n59 C\n", ["A"]),
        # ... and the first is the commander pasted first in a list of 100 (CR 903.5a), whatever
        # the groups after it ("1 A, 59 B, 40 C" used to give a 40-card sideboard).
        ("1 A\n\n59 B\n\n40 C\n", ["A"]),
        ("1 A\n\n50 B\n\n49 C\n", ["A"]),
        ("2 A\n\n60 B\n\n39 C\n", ["A"]),  # two commanders and a companion, 101 cards
        # ... but a 1-2 card last block is the commander as MTGO writes it, last (a regression
        # of the rule above made Sol Ring, pasted first, the commander)
        ("2 A\n\n97 B\n\n1 C\n", ["C"]),
        ("1 A\n\n97 B\n\n2 C\n", ["C"]),
        ("1 Jegantha, the Wellspring\n\n60 Mountain\n\n16 Island\n", ["Island"]),
        # A last group of more than 15 cards (CR 100.4a) after fewer than 60 (100.2a) is the main
        # deck's lands, not a sideboard; after 60 or more, an oversize sideboard to report.
        ("16 A\n\n20 B\n\n24 C\n", []),
        ("16 A\n\n20 B\n\n24 C\n\n15 D\n", ["D"]),
        ("30 A\n\n30 B\n\n20 C\n", ["C"]),
        ("1 A\n\n20 B\n\n10 C\n", ["C"]),  # not 100 cards: the small last block
    ],
)
def test_which_block_is_the_sideboard(text, sideboard):
    assert [name for name, s in _sections(text) if s == SIDE] == sideboard


def test_a_block_of_marked_commanders_is_not_a_block():
    # "*CMDR*" marks the commander; the one unmarked block after it is the deck (it was read as
    # a 99-card sideboard).
    deck = parse_decklist("1 Kinnan, Bonder Prodigy *CMDR*\n\n" + _NINETY_NINE)
    assert deck.entries[0].section == CMDR
    assert {e.section for e in deck.entries[1:]} == {MAIN}


@pytest.mark.parametrize(
    "header, section",
    [("Commander", CMDR), ("Companion", COMP), ("Commander:", CMDR), ("// Companion", COMP)],
)
def test_a_blank_line_ends_a_commander_or_companion_section(header, section):
    """Header, its card, a blank line, the deck with no `Deck` header: the deck is the main
    deck, not 99 more commanders (or 60 companions)."""
    deck = parse_decklist(
        f"{header}\n1 Jegantha, the Wellspring\n\n4 Lightning Bolt\n56 Mountain\n"
    )
    assert [(e.name, e.section) for e in deck.entries] == [
        ("Jegantha, the Wellspring", section),
        ("Lightning Bolt", MAIN),
        ("Mountain", MAIN),
    ]
    assert deck.commander_source == ("arena-section" if section == CMDR else None)


def test_type_groups_after_a_commander_section_are_the_main_deck():
    # Moxfield/TappedOut "by type": group headers do not change the section, so every group
    # stayed in the Commander section.
    deck = parse_decklist(
        "Commander (1)\n1 Kinnan, Bonder Prodigy\n\nCreatures (2)\n"
        "1 Birds of Paradise\n1 Llanowar Elves\n\nLands (2)\n1 Island\n"
        "1 Forest\n"
    )
    assert [e.section for e in deck.entries] == [CMDR, MAIN, MAIN, MAIN, MAIN]


def test_commander_section_ends_only_after_its_cards():
    deck = parse_decklist(
        "Commander\n\n1 Tymna the Weaver\n1 Kraum, Ludevic's Opus\n\n1 Sol Ring\n"
    )
    assert [(e.name, e.section) for e in deck.entries] == [
        ("Tymna the Weaver", CMDR),
        ("Kraum, Ludevic's Opus", CMDR),
        ("Sol Ring", MAIN),
    ]


def test_after_a_companion_section_the_blank_line_sideboard_still_counts():
    # The Companion header marks its own card only: "60, blank, 16" after it is still a
    # 16-card sideboard, never a 76-card main deck.
    deck = parse_decklist("Companion\n1 Jegantha, the Wellspring\n\n60 Mountain\n\n16 Island\n")
    assert [(e.name, e.section) for e in deck.entries] == [
        ("Jegantha, the Wellspring", COMP),
        ("Mountain", MAIN),
        ("Island", SIDE),
    ]
    deck = parse_decklist(
        "Companion\n1 Jegantha, the Wellspring\n\nDeck\n60 Mountain\n\n16 Island\n"
    )
    assert deck.count(SIDE) == 0  # a Deck header: no blank-line sideboard, as before


def test_sideboard_header_section_is_not_ended_by_a_blank_line():
    deck = parse_decklist("60 Mountain\nSideboard\n2 Duress\n\n3 Negate\n")
    assert [(e.name, e.section) for e in deck.entries] == [
        ("Mountain", MAIN),
        ("Duress", SIDE),
        ("Negate", SIDE),
    ]


def test_trailing_blank_lines_do_not_make_a_sideboard():
    deck = parse_decklist("4 A\n4 B\n\n\n   \n")
    assert {e.section for e in deck.entries} == {MAIN}


def test_leading_comments_and_blank_lines_do_not_make_a_sideboard():
    deck = parse_decklist("# My deck\n// notes\n\n\n4 A\n4 B\n")
    assert {e.section for e in deck.entries} == {MAIN}
    assert [e.line for e in deck.entries] == [5, 6]


def test_headers_turn_off_the_blank_line_rule():
    deck = parse_decklist("Deck\n4 A\n\n4 B\n")
    assert {e.section for e in deck.entries} == {MAIN}
    deck = parse_decklist("4 A\n\n4 B\nSB: 2 C\n")
    assert [(e.name, e.section) for e in deck.entries] == [("A", MAIN), ("B", MAIN), ("C", SIDE)]


@pytest.mark.parametrize(
    "header",
    [
        "Sideboard",
        "Sideboard:",
        "SIDEBOARD",
        "sideboard",
        "Sideboard (15)",
        "SIDEBOARD:",
        "// Sideboard",
        "# Sideboard",
        "Side board",
    ],
)
def test_sideboard_headers(header):
    deck = parse_decklist(f"Main\n4 A\n{header}\n2 B\n")
    assert [(e.name, e.section) for e in deck.entries] == [("A", MAIN), ("B", SIDE)]


@pytest.mark.parametrize(
    "header", ["Deck", "Main", "Mainboard", "Maindeck", "Main Deck", "Deck (60)", "MAINBOARD:"]
)
def test_main_headers(header):
    deck = parse_decklist(f"Sideboard\n2 B\n{header}\n4 A\n")
    assert [(e.name, e.section) for e in deck.entries] == [("B", SIDE), ("A", MAIN)]


def test_sb_prefix():
    deck = parse_decklist("4 Lightning Bolt\nSB: 2 Duress\nSB:1 Abrade\nsb: Pyroblast\n")
    assert rows(deck) == [
        (4, "Lightning Bolt", MAIN, 1),
        (2, "Duress", SIDE, 2),
        (1, "Abrade", SIDE, 3),
        (1, "Pyroblast", SIDE, 4),
    ]


ARENA = """\
About
Name Kaheera Control

Companion
1 Kaheera, the Orphanguard (IKO) 5

Deck
4 Counterspell (MH2) 267
2 Island (UNF) 236

Sideboard
1 Kaheera, the Orphanguard (IKO) 5
2 Rest in Peace (A25) 32
"""


def test_arena_export():
    deck = parse_decklist(ARENA)
    assert not deck.issues
    assert deck.name == "Kaheera Control"
    assert deck.input_format == "arena"
    assert [
        (e.quantity, e.name, e.section, e.line, e.set_code, e.collector_number)
        for e in deck.entries
    ] == [
        (1, "Kaheera, the Orphanguard", COMP, 5, "IKO", "5"),
        (4, "Counterspell", MAIN, 8, "MH2", "267"),
        (2, "Island", MAIN, 9, "UNF", "236"),
        # The companion is also in the sideboard; both entries are kept as written.
        (1, "Kaheera, the Orphanguard", SIDE, 12, "IKO", "5"),
        (2, "Rest in Peace", SIDE, 13, "A25", "32"),
    ]
    assert deck.commander_source is None


def test_arena_commander_section():
    deck = parse_decklist(
        "Commander\n1 Rograkh, Son of Rohgahh\n1 Silas Renn, Seeker Adept\n\nDeck\n1 Sol Ring\n"
    )
    assert [(e.name, e.section) for e in deck.entries] == [
        ("Rograkh, Son of Rohgahh", CMDR),
        ("Silas Renn, Seeker Adept", CMDR),
        ("Sol Ring", MAIN),
    ]
    assert deck.commander_source == "arena-section"
    assert deck.input_format == "arena"


@pytest.mark.parametrize("header", ["Maybeboard", "Considering", "Tokens", "Maybeboard (3)"])
def test_ignored_sections(header):
    deck = parse_decklist(f"4 A\n{header}\n1 B\n")
    assert [(e.name, e.section) for e in deck.entries] == [("A", MAIN), ("B", IGN)]
    assert deck.count(MAIN) == 4


def test_type_group_headers_do_not_change_the_section():
    deck = parse_decklist(
        "Creatures (4)\n4 Goblin Guide\n\nInstants\n4 Lightning Bolt\n\nLands (20)\n20 Mountain\n"
    )
    assert {e.section for e in deck.entries} == {MAIN}
    assert not deck.issues


def test_comments_are_skipped_and_name_comment_sets_the_name():
    deck = parse_decklist("# name: Coles Niv Combo\n# bracket: 4\n// whatever\n4 A\n")
    assert deck.name == "Coles Niv Combo"
    assert rows(deck) == [(4, "A", MAIN, 4)]


def test_about_section_with_unexpected_line():
    deck = parse_decklist("About\nName X\nAuthor Y\nDeck\n1 A\n")
    assert deck.name == "X"
    assert [(i.line, i.code) for i in deck.issues] == [(3, "unreadable-line")]


def test_about_block_ends_at_a_blank_line():
    deck = parse_decklist("About\nName X\n\n4 Lightning Bolt\n")
    assert deck.name == "X"
    assert not deck.issues
    assert rows(deck) == [(4, "Lightning Bolt", MAIN, 4)]


def test_forge_dck():
    deck = parse_decklist(
        "[metadata]\nName=Niv Test\nDescription=x\n[Commander]\n"
        "1 Niv-Mizzet, Parun|GRN\n[Main]\n1 Sol Ring|CMM|1\n4 Island\n"
        "[Sideboard]\n1 Duress\n[Planes]\n1 Akoum|OPCA\n"
    )
    assert not deck.issues
    assert deck.name == "Niv Test"
    assert deck.input_format == "forge"
    assert deck.commander_source == "arena-section"
    assert [(e.quantity, e.name, e.section, e.set_code) for e in deck.entries] == [
        (1, "Niv-Mizzet, Parun", CMDR, "GRN"),
        (1, "Sol Ring", MAIN, "CMM"),
        (4, "Island", MAIN, None),
        (1, "Duress", SIDE, None),
        (1, "Akoum", IGN, "OPCA"),
    ]


def test_unknown_bracket_section_is_a_warning_naming_it_and_its_cards_stay_counted():
    deck = parse_decklist("[Main]\n1 A\n[Trade Binder]\n1 B\n")
    assert [(i.line, i.code) for i in deck.issues] == [(3, "unknown-section")]
    assert "[Trade Binder]" in deck.issues[0].message
    assert [(e.name, e.section) for e in deck.entries] == [("A", MAIN), ("B", MAIN)]


@pytest.mark.parametrize(
    "header",
    [
        "Maybeboard",
        "Maybe",
        "Considering",
        "Tokens",
        "Wishlist",
        "[Maybeboard]",
        "[Maybeboard{noDeck}]",
        "[Considering{noDeck}{noPrice}]",
        "# Maybeboard",
        "// Maybeboard",
        "Maybeboard (1):",
        "[Planes]",
        "[Schemes]",
        "[Avatar]",
        "[Dungeon]",
    ],
)
def test_sections_outside_the_deck_keep_their_cards_with_the_header_named(header):
    deck = parse_decklist(f"Deck\n4 Island\n{header}\n1 Black Lotus\n")
    lotus = deck.entries[-1]
    assert (lotus.name, lotus.section, lotus.line) == ("Black Lotus", IGN, 4)
    assert lotus.board and lotus.board.lower().startswith(header.strip("[#/ ").lower()[:5])


def test_a_conspiracy_section_is_the_sideboard_cr_315():
    deck = parse_decklist("[Main]\n4 Island\n[Conspiracy]\n1 Backup Plan\n")
    assert (deck.entries[-1].section, deck.entries[-1].board) == (SIDE, "Conspiracy")


@pytest.mark.parametrize(
    "tag",
    ["[Maybeboard]", "[Maybeboard{noDeck}]", "[Considering{noDeck}{noPrice}]", "[Ramp{noDeck}]"],
)
def test_a_card_tagged_outside_the_deck_names_its_tag(tag):
    deck = parse_decklist(f"4 Island\n1 Black Lotus {tag}\n")
    assert (deck.entries[-1].section, deck.entries[-1].board) == (
        IGN,
        tag[1:].split("{")[0].rstrip("]"),
    )


@pytest.mark.parametrize(
    "line, code",
    [
        ("4", "unreadable-line"),
        ("x Lightning Bolt", "unreadable-line"),
        ("X Lightning Bolt", "unreadable-line"),
        ("4 x", "unreadable-line"),
        ("2 X", "unreadable-line"),
        ("4xLightning Bolt", "unreadable-line"),
        ("3. Island", "unreadable-line"),
        ("SB:", "unreadable-line"),
        ("SB: 4", "unreadable-line"),
        ("1 Sol Ring|", "unreadable-line"),
        ("-3 Island", "bad-quantity"),
        ("0 Island", "bad-quantity"),
        ("00 Island", "bad-quantity"),
        ("4294967296 Island", "quantity-too-large"),
        (f"{MAX_QUANTITY + 1} Island", "quantity-too-large"),
        ("9" * 5000 + " Island", "quantity-too-large"),
    ],
)
def test_unreadable_lines(line, code):
    deck = parse_decklist(f"4 Lightning Bolt\n{line}\n1 Island\n")
    assert len(deck.issues) == 1
    issue = deck.issues[0]
    assert (issue.line, issue.code) == (2, code)
    assert issue.text.startswith(line[:200])
    assert issue.message
    assert [e.line for e in deck.entries] == [1, 3]


def test_quantity_at_the_limit_is_fine():
    assert one(f"{MAX_QUANTITY} Island").quantity == MAX_QUANTITY


def test_runaway_name_is_an_issue():
    deck = parse_decklist("1 " + "a" * 1000)
    assert not deck.entries
    assert deck.issues[0].code == "unreadable-line"
    assert len(deck.issues[0].text) <= 300


def test_whitespace_bom_crlf_tabs_nbsp():
    data = (
        "\ufeff4\tLightning Bolt  \r\n4 Goblin\u00a0Guide\u00a0\r\n"
        "  2   Monastery   Swiftspear\r\n\r\nSideboard:\r\n2\u2009Duress\r\n"
    ).encode()
    deck = parse_decklist(data)
    assert not deck.issues
    assert rows(deck) == [
        (4, "Lightning Bolt", MAIN, 1),
        (4, "Goblin Guide", MAIN, 2),
        (2, "Monastery Swiftspear", MAIN, 3),
        (2, "Duress", SIDE, 6),
    ]
    assert deck.entries[0].text == "4\tLightning Bolt"


def test_old_mac_line_endings_and_utf16():
    deck = parse_decklist("4 A\r4 B\r\r2 C\r")
    assert rows(deck) == [(4, "A", MAIN, 1), (4, "B", MAIN, 2), (2, "C", SIDE, 4)]
    deck = parse_decklist("4 Lim-Dûl's Vault\n".encode("utf-16"))
    assert rows(deck) == [(4, "Lim-Dûl's Vault", MAIN, 1)]


def test_same_card_on_two_lines_is_not_merged():
    deck = parse_decklist("2 Island\n3 Island\n")
    assert rows(deck) == [(2, "Island", MAIN, 1), (3, "Island", MAIN, 2)]


def test_empty_input():
    """No card line at all (empty, blank, comments only) is nothing to judge: refused."""
    from validator.decklist import DecklistError

    for data in ("", "\n\n  \n", "# only a comment\n// and another\n"):
        with pytest.raises(DecklistError, match="no card lines found"):
            parse_decklist(data)


def test_every_card_line_gives_one_entry_or_one_issue():
    text = (
        "About\nName Test\n# a comment\n\nDeck\n4 Lightning Bolt (M11) 146\n4\n"
        "x Bolt\n0 Island\n1 Sol Ring (CMM) 400 *F*\n-3 Island\nSideboard\n2 Duress\n"
        "SB: 1 Abrade\n99999999999 Forest\n\n"
    )
    deck = parse_decklist(text)
    produced = sorted([e.line for e in deck.entries] + [i.line for i in deck.issues])
    expected = [6, 7, 8, 9, 10, 11, 13, 14, 15]
    assert produced == expected


def _typical_deck() -> str:
    names = [
        "Lightning Bolt",
        "Goblin Guide",
        "Monastery Swiftspear",
        "Lava Spike",
        "Rift Bolt",
        "Skewer the Critics",
        "Light Up the Stage",
        "Eidolon of the Great Revel",
        "Searing Blaze",
        "Boros Charm",
        "Skullcrack",
        "Inspiring Vantage",
        "Sacred Foundry",
        "Sunbaked Canyon",
        "Mountain",
    ]
    main = [f"{i % 4 + 1} {names[i % len(names)]} (M11) {i + 1}" for i in range(60)]
    side = [f"1 {names[i % len(names)]}" for i in range(13)]
    return "Deck\n" + "\n".join(main) + "\n\nSideboard\n" + "\n".join(side) + "\n"


def test_speed_of_a_75_line_deck():
    data = _typical_deck().encode()
    parse_decklist(data)
    best = min(_timed(data) for _ in range(30))
    # Typically ~0.2-0.3 ms; the bound leaves room for slow CI machines.
    assert best < 1.5e-3, f"parsing took {best * 1e3:.2f} ms"


def _timed(data: bytes) -> float:
    start = time.perf_counter()
    parse_decklist(data)
    return time.perf_counter() - start


@pytest.mark.parametrize(
    "data",
    [
        "1" * 999_000,
        "1 A|" + "1" * 999_000,
        "1 A" + " [x]" * 240_000,
        "1 A" + " *F*" * 240_000,
        "1 A" + " (ab)" * 190_000,
        "1 A " + "(" * 999_000,
        "\n".join(["1 A" + " [x]" * 40] * 4900),
        "#" * 999_000 + "\n1 A",
    ],
    ids=lambda d: repr(d[:12]),
)
def test_pathological_lines_stay_fast(data):
    start = time.perf_counter()
    deck = parse_decklist(data)
    assert time.perf_counter() - start < 2.0
    assert len(deck.entries) + len(deck.issues) <= 4900
    assert all(len(issue.text or "") <= 300 for issue in deck.issues)


def test_repeated_lines_read_the_same_in_every_deck():
    """Card lines are read once per process and reused: the second deck must come out the
    same, issues included (a line with an issue is never taken from the cache)."""
    from validator.decklist.text import parse_text

    text = "4 Lightning Bolt\n2x Fire // Ice (MH2) 290\n0 Black Lotus\nSB: 1 Duress *F*\n"
    first, second = parse_text(text), parse_text(text)
    assert first.entries == second.entries and first.issues == second.issues
    assert [e.name for e in second.entries] == ["Lightning Bolt", "Fire // Ice", "Duress"]
    assert [i.line for i in second.issues] == [3]
    assert second.entries[1].set_code == "MH2" and second.entries[2].section.value == "sideboard"


def _reading(deck):
    return (
        [
            (e.quantity, e.name, e.section, e.line, e.set_code, e.collector_number, e.text)
            for e in deck.entries
        ],
        [(i.line, i.message, i.code) for i in deck.issues],
        deck.input_format,
        deck.commander_source,
    )


def test_card_lines_read_before_give_the_same_deck(monkeypatch):
    """Card lines are read once per process: a deck whose lines were all read before
    (the blank-line sideboard, SB: lines, *CMDR*, printings, headers) reads exactly as fresh."""
    from validator.decklist import text

    decklist = (
        "Commander\n1 Tymna the Weaver *CMDR*\nDeck\n4 Lightning Bolt (M11) 146\n"
        "SB: 2 Duress\n  4   Lightning   Bolt  \n\n3 Counterspell\n4 Lightning Bolt\n"
    )
    mtgo = "4 Lightning Bolt\n3 Counterspell\n\n2 Duress\n4 Lightning Bolt\n"
    for source in (decklist, mtgo):
        monkeypatch.setattr(text, "_LINES", {})
        fresh = _reading(parse_decklist(source))
        assert text._LINES  # the clean card lines are kept ...
        assert _reading(parse_decklist(source)) == fresh  # ... and read back alike


_MIXED = (
    "1 Sol Ring\n4 Lightning Bolt\n1 Sol Ring  \n1 Sol Ring|CMR\nSB: 1 Duress\n"
    "1 Tymna the Weaver *CMDR*\n1 Island (M11) 230\nCommander\n1 Kraum, Ludevic's Opus\n"
    "Sideboard\n2 Duress\n\nCompanion\n1 Lurrus of the Dream-Den\n"
)
_MTGO = "1 Sol Ring\n4 Lightning Bolt\n1 Counterspell\n\n1 Duress\n3 Negate\n"
_LEAD_FIRST = (
    "Companion\n1 Lurrus of the Dream-Den\n\n1 Sol Ring\n4 Lightning Bolt\n\n"
    "1 Duress\n\n1 Kinnan, Bonder Prodigy\n\n4 Lightning Bolt\n1 Sol Ring\n"
)


@pytest.mark.parametrize(
    "source",
    [
        _MIXED,
        _MTGO,
        _LEAD_FIRST,
        "1 Sol Ring\n\n" + "4 Lightning Bolt\n" * 3,
        "1 Sol Ring\n" * 3 + "Maybeboard\n1 Sol Ring\n",
        "[Main]\n1 Sol Ring|CMR\n1 Sol Ring\n[Sideboard]\n1 Sol Ring\n",
    ],
)
def test_runs_of_lines_read_before_give_the_same_deck(monkeypatch, source):
    """Runs of plain card lines read before are made into entries in one go: the deck a fresh
    read gives, with sections from headers, the blank-line sideboard, the text kept for reports ("1 Sol Ring  "
    is quoted without its trailing spaces) and the commander source."""
    from validator.decklist import text

    monkeypatch.setattr(text, "_LINES", {})
    monkeypatch.setattr(text, "_MARKED_LINES", {})
    fresh = _reading(parse_decklist(source))
    assert text._LINES  # the plain lines were kept
    assert _reading(parse_decklist(source)) == fresh


def test_a_line_read_as_a_card_is_not_one_in_metadata_or_about_blocks(monkeypatch):
    """What a line is depends on its text only outside Forge [metadata] and Arena About
    blocks: a line read before as a card line is still metadata or a deck name there."""
    from validator.decklist import text

    monkeypatch.setattr(text, "_LINES", {})
    parse_decklist("1 Sol Ring\nName Burn\n")
    assert "1 Sol Ring" in text._LINES and "Name Burn" in text._LINES
    forge = parse_decklist("[metadata]\n1 Sol Ring\n[Main]\n4 Lightning Bolt\n")
    assert [e.name for e in forge.entries] == ["Lightning Bolt"]
    assert [i.line for i in forge.issues] == [2]  # "expected 'key=value'"
    arena = parse_decklist("About\nName Burn\n\nDeck\n1 Sol Ring\n")
    assert arena.name == "Burn" and [e.name for e in arena.entries] == ["Sol Ring"]


def test_card_line_cache_is_bounded(monkeypatch):
    """Thousands of distinct lines (hostile input) cannot grow the line cache past its bound;
    overlong lines are not kept at all."""
    from validator.decklist import text

    monkeypatch.setattr(text, "_LINES", {})
    monkeypatch.setattr(text, "_MARKED_LINES", {})
    monkeypatch.setattr(text, "_LINES_MAX", 50)
    deck = parse_decklist("".join(f"1 Card Number {i}\n" for i in range(500)))
    assert len(deck.entries) == 500 and 0 < len(text._LINES) <= 50
    # Plain and marked lines ("SB:", printings) share the bound.
    deck = parse_decklist(
        "".join(f"{i % 3 + 1} Card {i}\nSB: 1 Card {i}\n1 Card (SET) {i}\n" for i in range(500))
    )
    assert len(deck.entries) == 1500
    assert text._MARKED_LINES and len(text._LINES) + len(text._MARKED_LINES) <= 50
    monkeypatch.setattr(text, "_LINES", {})
    parse_decklist("1 " + "x" * (text._CACHED_LINE_CHARS + 10) + "\n")
    assert text._LINES == {}


def test_blank_line_blocks_end_to_end(commander_db, core_db):
    """The verdicts of these pastes: commander first, a Commander header with no
    `Deck` header, blank-line groups; and an oversize sideboard stays illegal."""
    import validator

    cards = validator.open_db(commander_db)
    for text in (
        "1 Krenko, Mob Boss\n\n99 Mountain\n",
        "Commander\n1 Krenko, Mob Boss\n\n99 Mountain\n",
    ):
        report = validator.validate(text, "commander", cards=cards)
        assert report.legal, [p.message for p in report.errors]
        assert report.commanders == ["Krenko, Mob Boss"]
        assert (report.main_count, report.sideboard_count) == (99, 0)
    cards = validator.open_db(core_db)
    groups = "4 Goblin Guide\n\n4 Lightning Bolt\n\n52 Mountain\n"
    report = validator.validate(groups, "modern", cards=cards)
    assert report.legal and (report.main_count, report.sideboard_count) == (60, 0)
    oversize = "4 Goblin Guide\n4 Lightning Bolt\n52 Mountain\n\n16 Island\n"
    report = validator.validate(oversize, "modern", cards=cards)
    assert [p.code for p in report.errors] == ["sideboard-too-large"]
