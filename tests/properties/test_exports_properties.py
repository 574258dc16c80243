"""Property tests for the deck-site readers: whatever values a Moxfield, Archidekt, MTGJSON or
CSV export holds, parsing returns a Deck whose entries are sane, or raises DecklistError:
never another exception (no traceback reaches a user)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from validator.decklist import MAX_QUANTITY, DecklistError, parse_decklist

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
NAMES = st.one_of(
    st.sampled_from(["Lightning Bolt", "Sol Ring", "", " ", "Fire // Ice"]),
    st.text(max_size=40),
    VALUES,
)
QUANTITIES = st.one_of(st.integers(-3, 10**25), st.sampled_from(["4", "x", "", "1.5"]), VALUES)
BOARDS = st.sampled_from(
    [
        "mainboard",
        "sideboard",
        "commanders",
        "companions",
        "signatureSpells",
        "attractions",
        "stickers",
        "maybeboard",
        "tokens",
        "other",
    ]
)


def _check(document) -> None:
    try:
        text = json.dumps(document) if not isinstance(document, str) else document
    except (ValueError, TypeError):
        return
    try:
        deck = parse_decklist(text)
    except DecklistError:
        return
    for entry in deck.entries:
        assert 1 <= entry.quantity <= MAX_QUANTITY
        assert isinstance(entry.name, str) and entry.name.strip() == entry.name and entry.name


moxfield_entry = st.fixed_dictionaries(
    {
        "quantity": QUANTITIES,
        "card": st.one_of(
            st.fixed_dictionaries({"name": NAMES, "set": VALUES, "cn": VALUES}), VALUES
        ),
    },
    optional={"isCompanion": VALUES, "boardType": VALUES},
)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        BOARDS,
        st.dictionaries(st.text(max_size=8), moxfield_entry, max_size=4),
        min_size=1,
        max_size=4,
    ),
    st.booleans(),
    VALUES,
)
def test_moxfield_shapes(boards, v3, extra):
    if v3:
        document = {
            "boards": {k: {"count": 1, "cards": v} for k, v in boards.items()},
            "name": extra,
        }
    else:
        document = {**boards, "name": extra, "main": extra}
    _check(document)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "quantity": QUANTITIES,
                "categories": st.one_of(
                    st.lists(
                        st.sampled_from(
                            ["Commander", "Maybeboard", "Sideboard", "Land", "Cuts", "Attractions"]
                        ),
                        max_size=3,
                    ),
                    VALUES,
                ),
                "card": st.one_of(
                    st.fixed_dictionaries(
                        {
                            "oracleCard": st.one_of(st.fixed_dictionaries({"name": NAMES}), VALUES),
                            "edition": VALUES,
                            "collectorNumber": VALUES,
                        }
                    ),
                    VALUES,
                ),
            },
            optional={"deletedAt": VALUES, "companion": VALUES},
        ),
        max_size=6,
    ),
    st.one_of(
        st.lists(
            st.fixed_dictionaries(
                {"name": st.sampled_from(["Maybeboard", "Cuts", "Land"]), "includedInDeck": VALUES}
            ),
            max_size=3,
        ),
        VALUES,
    ),
)
def test_archidekt_shapes(cards, categories):
    _check({"cards": cards, "categories": categories, "name": "x"})


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["mainBoard", "sideBoard", "commander", "tokens"]),
        st.one_of(
            st.lists(
                st.one_of(
                    st.fixed_dictionaries({"count": QUANTITIES, "name": NAMES, "setCode": VALUES}),
                    VALUES,
                ),
                max_size=4,
            ),
            VALUES,
        ),
        max_size=4,
    )
)
def test_mtgjson_shapes(data):
    _check({"meta": {"version": "5.3.0"}, "data": {"mainBoard": [], **data}})


CELL = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=15)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(
        [
            "count,name,section",
            "Quantity;Card Name",
            "qty\tcard",
            "section,count,name,set_code,collector_number",
        ]
    ),
    st.lists(st.lists(CELL, max_size=6), max_size=8),
)
def test_csv_rows(header, rows):
    delimiter = ";" if ";" in header else "\t" if "\t" in header else ","
    text = header + "\n" + "\n".join(delimiter.join(r) for r in rows)
    _check(text)
