"""The SQL that reads cards, and the decoding of its rows, written once for both readers.

`SqliteCards` (store/sqlite.py: the standard library's sqlite3, the cold path of one deck) and
`CardDB` (store/database.py: SQLAlchemy, any URL; it also owns the tables' definitions and
writes them) run these same statements and decode their rows with these same functions, so the
two return the same `Card`s for the same database.

Statements take named parameters (`:p0`, `:p1`...), the style both sqlite3 and SQLAlchemy's
`text()` accept on every driver; `params` builds them and `in_list` writes the `IN (...)` list
of a chunk. No SQLAlchemy here: the lean reader must not import it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from validator.cards.compact import SyncStamp, decode_card
from validator.model import Card

#: Names or ids per IN (...) list: well under SQLite's 999 parameters of old builds.
CHUNK = 500

_CARD_COLUMNS = "cards.oracle_id, cards.name, cards.legalities, cards.data"
#: `IS TRUE` reads the Boolean column alike in SQLite (stored 0/1) and PostgreSQL.
DECK_CARD = "cards.is_deck_card IS TRUE"

#: Every deck card's compact row: (oracle_id, name, legality set id, data).
DECK_CARDS = f"SELECT {_CARD_COLUMNS} FROM cards WHERE {DECK_CARD}"
#: Every deck card's Oracle name, in table order (the "did you mean" suggestions).
DECK_CARD_NAMES = f"SELECT cards.name FROM cards WHERE {DECK_CARD}"
#: The name table: (folded name, oracle_id).
ALL_NAMES = "SELECT folded, oracle_id FROM card_names"
#: A printed name's row joined with its card (`database.PrintedNameRow`): `name` NULL is the
#: folded name.
_PRINTED_NAME = "COALESCE(printed_names.name, printed_names.folded)"
_PRINTED_CARDS = (
    "FROM printed_names "
    "JOIN printed_name_cards ON printed_name_cards.id = printed_names.card "
    "JOIN cards ON cards.oracle_id = printed_name_cards.oracle_id"
)
#: Every printed name of a card the database holds: (folded, oracle_id, lang, part, name).
ALL_PRINTED_NAMES = (
    "SELECT printed_names.folded, cards.oracle_id, printed_names.lang, "
    f"printed_names.part, {_PRINTED_NAME} {_PRINTED_CARDS}"
)
#: The printed-name tables: a database an older deckcheck synced has none, or its printed names
#: by oracle id without `printed_name_cards`, until its next sync (`database.create_schema`).
PRINTED_NAME_TABLES = ("printed_names", "printed_name_cards")
#: How many of them SQLite's catalogue holds.
HAS_PRINTED_NAMES_SQLITE = (
    "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ("
    + ", ".join(f"'{table}'" for table in PRINTED_NAME_TABLES)
    + ")"
)
#: Every legality set: (id, statuses as JSON text).
ALL_LEGALITY_SETS = "SELECT id, statuses FROM legality_sets"
#: The newest sync run, as a `SyncStamp`'s fields.
LAST_SYNC = "SELECT id, bulk_type, updated_at, finished_at FROM sync_runs ORDER BY id DESC LIMIT 1"


def in_list(n: int) -> str:
    """The placeholders of an IN (...) list of `n` values: `:p0, :p1, ...`."""
    return ", ".join(f":p{i}" for i in range(n))


def params(values: Sequence[Any]) -> dict[str, Any]:
    """The named parameters of `in_list(len(values))`."""
    return {f"p{i}": v for i, v in enumerate(values)}


def chunks(items: Sequence[Any], size: int = CHUNK) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def cards_by_id(n: int) -> str:
    """The compact rows of `n` cards by oracle id."""
    return f"SELECT {_CARD_COLUMNS} FROM cards WHERE cards.oracle_id IN ({in_list(n)})"


def legality_sets_by_id(n: int) -> str:
    """`n` legality sets by id: (id, statuses)."""
    return f"SELECT id, statuses FROM legality_sets WHERE id IN ({in_list(n)})"


def names_matching(n: int, *, deck_cards_only: bool) -> str:
    """(folded name, oracle_id) of `n` folded names; with `deck_cards_only`, only names of
    deck cards (not tokens, art cards, emblems)."""
    deck_only = f" AND {DECK_CARD}" if deck_cards_only else ""
    return (
        "SELECT card_names.folded, card_names.oracle_id FROM card_names "
        "JOIN cards ON cards.oracle_id = card_names.oracle_id "
        f"WHERE card_names.folded IN ({in_list(n)}){deck_only}"
    )


def printed_names_matching(n: int) -> str:
    """(folded, oracle_id, lang, part, name) of `n` folded printed names, of deck cards."""
    return f"{ALL_PRINTED_NAMES} WHERE printed_names.folded IN ({in_list(n)}) AND {DECK_CARD}"


#: (number, Oracle name) of the deck cards that have printed names.
PRINTED_NAME_CARDS = (
    "SELECT printed_name_cards.id, cards.name FROM printed_name_cards "
    f"JOIN cards ON cards.oracle_id = printed_name_cards.oracle_id WHERE {DECK_CARD}"
)
#: (name, card number, lang) of every printed name, in the suggestions' order.
PRINTED_NAMES_IN_ORDER = (
    f"SELECT {_PRINTED_NAME}, card, lang FROM printed_names ORDER BY lang, folded, part"
)


def printed_name_pairs(
    cards: Iterable[Sequence[Any]], names: Iterable[Sequence[Any]]
) -> list[tuple[str, str, str]]:
    """(printed name, Oracle name, lang) of every deck card's printed names (suggestions), from
    the rows of `PRINTED_NAME_CARDS` and `PRINTED_NAMES_IN_ORDER`: joined here, as SQL joining
    each of 200,000 names to its card's row costs half as much again."""
    oracle: dict[int, str] = {number: name for number, name in cards}
    return [(name, oracle[card], lang) for name, card, lang in names if card in oracle]


def printed_hits(rows: Iterable[Sequence[Any]]) -> dict[str, list[tuple[str, str, str, int]]]:
    """(folded, oracle_id, lang, part, name) rows as folded name -> [(oracle_id, lang, name,
    part)], what `CardSource.lookup_printed` answers."""
    out: dict[str, list[tuple[str, str, str, int]]] = {}
    for folded, oid, lang, part, name in rows:
        out.setdefault(folded, []).append((oid, lang, name, part))
    return out


#: (lang, count) of the printed names stored (`deckcheck info`).
PRINTED_NAMES_BY_LANGUAGE = "SELECT lang, count(*) FROM printed_names GROUP BY lang ORDER BY lang"

#: (lang, part, name) of one card's printed names (`deckcheck card`).
PRINTED_NAMES_OF = (
    f"SELECT lang, part, {_PRINTED_NAME} AS name FROM printed_names WHERE card IN "
    "(SELECT id FROM printed_name_cards WHERE oracle_id = :p0) ORDER BY lang, part, name"
)


def decode_rows(
    rows: Iterable[Sequence[Any]],
    sets: dict[int, dict[str, str]],
    loads: Callable[[bytes], Any] | None = None,
) -> list[Card]:
    """The `Card`s of compact rows (oracle_id, name, legality set id, data), with `sets` the
    parsed statuses of every set they name. `data` may come as a memoryview (psycopg)."""
    return [decode_card(oid, name, bytes(data), sets[sid], loads) for oid, name, sid, data in rows]


def index_rows(
    rows: Iterable[Sequence[Any]], texts: dict[int, str]
) -> list[tuple[str, str, str, Any]]:
    """`DECK_CARDS` rows with their legality set's text in place of its id: what
    `compact.IndexData` holds."""
    return [(oid, name, texts[sid], data) for oid, name, sid, data in rows]


def sync_stamp(row: Sequence[Any] | None) -> SyncStamp | None:
    """The `SyncStamp` of a `LAST_SYNC` row; `finished_at` as text, whether the driver gives
    the stored text (sqlite3) or a datetime (PostgreSQL)."""
    if row is None:
        return None
    run_id, bulk_type, updated_at, finished_at = row
    if finished_at is not None and not isinstance(finished_at, str):
        finished_at = str(finished_at)
    return SyncStamp(run_id, bulk_type, updated_at, finished_at)
