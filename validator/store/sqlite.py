"""The lean read path for a SQLite card database: the standard library's `sqlite3`, no SQLAlchemy.

A cold `deckcheck validate` of one deck would spend most of its time importing SQLAlchemy and
building ORM classes to run three SELECTs. `SqliteCards` runs the same statements as
`database.CardDB` (store/rows.py writes them and decodes their rows once for both; database.py
defines the tables and sync writes them through SQLAlchemy), so verdicts and reports are
identical. Every method that builds an answer reads in one transaction,
one snapshot (a sync committing meanwhile is seen wholly or not at all).

`changes` and `last_sync` are read here too (every report's provenance and every as-of run ask);
`info` delegates to `CardDB`, off the hot path. A database of another schema version
(`compact.SCHEMA_VERSION`) goes to `CardDB`, which says what to do. `open_cards` picks the reader: this one for a SQLite file, `CardDB` for any other URL.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from validator.cards.compact import SCHEMA_VERSION, IndexData, SyncStamp
from validator.cards.names import lookup_key
from validator.model import Card
from validator.store import rows as sql
from validator.store.location import database_url, read_only_uri, sqlite_file


def open_cards(db: str | os.PathLike[str] | None = None) -> Any:
    """The card source for `db` (path, URL, `DECKCHECK_DB` or the default): `SqliteCards` for
    an existing SQLite file holding cards in this schema version, else `db.CardDB`
    (PostgreSQL, a missing or empty file, an older layout: CardDB gives those their
    messages)."""
    url = database_url(db)
    path = sqlite_file(url)
    if path is not None and path.is_file():
        reader = SqliteCards(path, url)
        try:
            if reader.has_cards():
                return reader
        except Exception:  # noqa: BLE001 - not a card database: CardDB says what is wrong
            pass
        reader.close()
    from validator.store.database import CardDB

    return CardDB(db)


class SqliteCards:
    """Read access to a synced SQLite card database with `sqlite3`: the `CardSource` protocol
    (`lookup`, `all_names`, `printing`, `card_by_id`, `rarities`) plus what the CLI reads."""

    def __init__(self, path: str | os.PathLike[str], url: str | None = None):
        self.path = Path(path)
        self.url = url or "sqlite:///" + str(self.path.resolve())
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._all_names: list[str] | None = None
        self._printed_pairs: list[tuple[str, str, str]] | None = None
        self._full_db: Any = None

    # -------------------------------------------------------------- connections, snapshots

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            # isolation_level=None: no implicit transactions; `_snapshot` begins them. One
            # connection per thread (sqlite3 connections are not shared between threads).
            # On a read-only file system a synced (WAL) file opens as immutable (`read_only_uri`).
            uri = read_only_uri(self.path)
            conn = sqlite3.connect(
                uri or self.path, isolation_level=None, check_same_thread=False, uri=uri is not None
            )
            conn.execute("PRAGMA query_only=1")  # a reader never writes
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    @contextmanager
    def _snapshot(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every statement inside sees the same committed database."""
        try:
            conn = self._conn()
            conn.execute("BEGIN")
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        try:
            yield conn
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")  # ends the read transaction; nothing was written

    def _error(self, exc: BaseException) -> Exception:
        """A DatabaseError (from `db`, imported only on this failure path) naming the file."""
        from validator.store import database as db

        return db.database_error(self.url, exc)

    def _full(self) -> Any:
        """The SQLAlchemy `CardDB` on the same file, for the information commands."""
        if self._full_db is None:
            from validator.store.database import CardDB

            self._full_db = CardDB(self.url)
        return self._full_db

    @property
    def database(self) -> SqliteCards:
        """The database itself (`CardSource.database`): its sync record and change log."""
        return self

    def close(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
        for conn in conns:
            conn.close()
        self._local = threading.local()
        if self._full_db is not None:
            self._full_db.close()
            self._full_db = None

    def __enter__(self) -> SqliteCards:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -------------------------------------------------------------- cards

    def check(self) -> None:
        """Nothing to do: `open_cards` returns this reader only for a card database that
        holds cards (anything else goes to `CardDB`, whose check says what is wrong)."""

    def has_cards(self) -> bool:
        """Whether the file holds cards in the layout this reader reads."""
        with self._snapshot() as conn:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'"
            ).fetchone()
            version = (
                found
                and conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            )
            if not version or version[0] != str(SCHEMA_VERSION):
                return False
            return conn.execute("SELECT 1 FROM cards LIMIT 1").fetchone() is not None

    def _decode(self, conn: sqlite3.Connection, rows: list[tuple[Any, ...]]) -> list[Card]:
        """`Card`s of compact rows (`rows.decode_rows`), their legality sets read here. The
        standard library's json: a handful of rows on the cold path (orjson costs an import)."""
        loads = json.loads
        wanted = sorted({r[2] for r in rows})
        sets: dict[int, dict[str, str]] = {}
        for chunk in sql.chunks(wanted):
            for i, statuses in conn.execute(sql.legality_sets_by_id(len(chunk)), sql.params(chunk)):
                sets[i] = loads(statuses)
        return sql.decode_rows(rows, sets, loads)

    def _cards(self, conn: sqlite3.Connection, oracle_ids: Iterable[str]) -> dict[str, Card]:
        ids = list(set(oracle_ids))
        rows: list[tuple[Any, ...]] = []
        for chunk in sql.chunks(ids):
            rows += conn.execute(sql.cards_by_id(len(chunk)), sql.params(chunk)).fetchall()
        return {card.oracle_id: card for card in self._decode(conn, rows)}

    def lookup(
        self, names: Iterable[str], *, deck_cards_only: bool = True
    ) -> dict[str, list[Card]]:
        """Cards for each name (folded); see `db.CardDB.lookup`."""
        return self.lookup_folded({lookup_key(n) for n in names}, deck_cards_only=deck_cards_only)

    def lookup_folded(
        self, folded: Iterable[str], *, deck_cards_only: bool = True
    ) -> dict[str, list[Card]]:
        """`lookup` for names already folded; names and cards read in one snapshot."""
        hits: dict[str, list[str]] = {}
        with self._snapshot() as conn:
            for chunk in sql.chunks(sorted(set(folded))):
                query = sql.names_matching(len(chunk), deck_cards_only=deck_cards_only)
                for f, oid in conn.execute(query, sql.params(chunk)):
                    hits.setdefault(f, []).append(oid)
            cards = self._cards(conn, (o for ids in hits.values() for o in ids))
        return {f: [cards[o] for o in ids if o in cards] for f, ids in hits.items()}

    def card_by_id(self, oracle_id: str) -> Card | None:
        with self._snapshot() as conn:
            return self._cards(conn, [oracle_id]).get(oracle_id)

    def card(self, name: str) -> Card | None:
        """The card a decklist line `name` means; failing that, a non-deck object of that
        name (see `db.CardDB.card`)."""
        from validator.store.source import choose

        folded = lookup_key(name)
        for deck_cards_only in (True, False):
            found = choose(
                folded,
                self.lookup_folded([folded], deck_cards_only=deck_cards_only).get(folded, []),
            )
            if found:
                return found[0]
        return None

    @staticmethod
    def _has_printed_names(conn: sqlite3.Connection) -> bool:
        return conn.execute(sql.HAS_PRINTED_NAMES_SQLITE).fetchone()[0] == len(
            sql.PRINTED_NAME_TABLES
        )

    def lookup_printed(self, folded: Iterable[str]) -> dict[str, list[tuple[str, str, str, int]]]:
        """See `db.CardDB.lookup_printed`."""
        rows: list[Any] = []
        with self._snapshot() as conn:
            if not self._has_printed_names(conn):
                return {}
            for chunk in sql.chunks(sorted(set(folded))):
                rows += conn.execute(sql.printed_names_matching(len(chunk)), sql.params(chunk))
        return sql.printed_hits(rows)

    def printed_name_rows(self) -> list[tuple[str, str, str, int, str]]:
        """See `db.CardDB.printed_name_rows`."""
        with self._snapshot() as conn:
            if not self._has_printed_names(conn):
                return []
            return conn.execute(sql.ALL_PRINTED_NAMES).fetchall()

    def all_printed_names(self) -> list[tuple[str, str, str]]:
        """See `db.CardDB.all_printed_names`."""
        if self._printed_pairs is None:
            with self._snapshot() as conn:
                self._printed_pairs = (
                    sql.printed_name_pairs(
                        conn.execute(sql.PRINTED_NAME_CARDS),
                        conn.execute(sql.PRINTED_NAMES_IN_ORDER).fetchall(),
                    )
                    if self._has_printed_names(conn)
                    else []
                )
        return self._printed_pairs

    def printed_names_of(self, oracle_id: str) -> list[tuple[str, int, str]]:
        """See `db.CardDB.printed_names_of`."""
        with self._snapshot() as conn:
            if not self._has_printed_names(conn):
                return []
            return conn.execute(sql.PRINTED_NAMES_OF, {"p0": oracle_id}).fetchall()

    def all_names(self) -> list[str]:
        """Every deck card's Oracle name, in table order as `CardDB.all_names` (suggestions)."""
        if self._all_names is None:
            with self._snapshot() as conn:
                self._all_names = [r[0] for r in conn.execute(sql.DECK_CARD_NAMES)]
        return self._all_names

    def all_cards(self) -> Iterator[tuple[list[str], Card]]:
        """Every deck card with its folded names, from the card tables (one snapshot)."""
        with self._snapshot() as conn:
            cards = self._all_cards(conn)
        yield from cards

    def index_data(self) -> IndexData:
        """What `CardIndex` is built from, in one snapshot (see `db.CardDB.index_data`)."""
        with self._snapshot() as conn:
            stamp = sql.sync_stamp(conn.execute(sql.LAST_SYNC).fetchone())
            texts = dict(conn.execute(sql.ALL_LEGALITY_SETS).fetchall())
            rows = sql.index_rows(conn.execute(sql.DECK_CARDS), texts)
            names = conn.execute(sql.ALL_NAMES).fetchall()
        return IndexData(sync=stamp, rows=rows, names=names)

    def deck_card_rows(
        self, folded: Iterable[str] = (), oracle_ids: Iterable[str] = ()
    ) -> tuple[list[tuple[str, str]], list[tuple[int, str, str, str, Any]], SyncStamp | None]:
        """What `index_data` reads, for only the deck cards these folded names (the name
        table's rows of them) or oracle ids give, in one snapshot: (names: (folded,
        oracle_id)), (rows: (position, oracle_id, name, legalities text, data): position is
        the card's place in `index_data`'s table order), the sync. The reads of a
        `PartialCardIndex`."""
        with self._snapshot() as conn:
            stamp = sql.sync_stamp(conn.execute(sql.LAST_SYNC).fetchone())
            names: list[tuple[str, str]] = []
            for chunk in sql.chunks(sorted(set(folded))):
                query = sql.names_matching(len(chunk), deck_cards_only=True)
                names += conn.execute(query, sql.params(chunk)).fetchall()
            wanted = sorted({oid for _, oid in names}.union(oracle_ids))
            raw: list[tuple[Any, ...]] = []
            for chunk in sql.chunks(wanted):
                # rowid: a table scan's order (`DECK_CARDS` in `index_data`), which orders
                # the cards of one name in an index.
                raw += conn.execute(
                    "SELECT cards.rowid, cards.oracle_id, cards.name, cards.legalities, "
                    f"cards.data FROM cards WHERE cards.oracle_id IN ({sql.in_list(len(chunk))}) "
                    f"AND {sql.DECK_CARD}",
                    sql.params(chunk),
                ).fetchall()
            texts: dict[int, str] = {}
            for chunk in sql.chunks(sorted({r[3] for r in raw})):
                texts.update(conn.execute(sql.legality_sets_by_id(len(chunk)), sql.params(chunk)))
        rows = [(pos, oid, name, texts[sid], data) for pos, oid, name, sid, data in raw]
        return names, rows, stamp

    def _all_cards(self, conn: sqlite3.Connection) -> list[tuple[list[str], Card]]:
        names: dict[str, list[str]] = {}
        for folded, oid in conn.execute(sql.ALL_NAMES):
            names.setdefault(oid, []).append(folded)
        rows = conn.execute(sql.DECK_CARDS).fetchall()
        return [(names.get(card.oracle_id, []), card) for card in self._decode(conn, rows)]

    # -------------------------------------------------------------- printings, formats

    def printing(self, set_code: str, collector_number: str) -> tuple[str, str] | None:
        """(oracle_id, rarity) of a printing, when printings were synced."""
        with self._snapshot() as conn:
            row = conn.execute(
                "SELECT oracle_id, rarity FROM printings WHERE set_code = ? "
                "AND collector_number = ? LIMIT 1",
                (set_code.lower(), collector_number),
            ).fetchone()
        return (row[0], row[1]) if row else None

    def rarities(self, oracle_id: str) -> set[str] | None:
        """Rarities the card was printed at; None when printings were never synced."""
        with self._snapshot() as conn:
            if conn.execute("SELECT 1 FROM printings LIMIT 1").fetchone() is None:
                return None
            return {
                r[0]
                for r in conn.execute(
                    "SELECT rarity FROM printings WHERE oracle_id = ?", (oracle_id,)
                )
            }

    def printed_sets(self, oracle_ids: Iterable[str]) -> dict[str, set[str]] | None:
        """The set codes each card was printed in; None when printings were never synced."""
        wanted = list(dict.fromkeys(oracle_ids))
        with self._snapshot() as conn:  # "none synced" and the sets from one snapshot
            if conn.execute("SELECT 1 FROM printings LIMIT 1").fetchone() is None:
                return None
            found: dict[str, set[str]] = {oid: set() for oid in wanted}
            for chunk in sql.chunks(wanted):  # under SQLite's bound-variable limit
                for oid, code in conn.execute(
                    "SELECT oracle_id, set_code FROM printings "
                    f"WHERE oracle_id IN ({sql.in_list(len(chunk))})",
                    sql.params(chunk),
                ):
                    found[oid].add(code)
            return found

    def has_printings(self) -> bool:
        with self._snapshot() as conn:
            return conn.execute("SELECT 1 FROM printings LIMIT 1").fetchone() is not None

    def formats(self) -> list[str]:
        """The legality keys the last sync saw (see `db.known_formats`)."""
        with self._snapshot() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'formats'").fetchone()
            return sorted(json.loads(row[0])) if row is not None else []

    # -------------------------------------------------------------- information (CardDB)

    def info(self) -> Any:
        return self._full().info()

    def last_sync(self, bulk_type: str) -> dict[str, Any] | None:
        """The last sync of `bulk_type`, as `CardDB.last_sync` gives it, read without
        SQLAlchemy: every report's provenance asks for it, the cold CLI included."""
        return self._sync_run(bulk_type, "DESC")

    def first_sync(self, bulk_type: str) -> dict[str, Any] | None:
        """The first sync of `bulk_type` (where the change log begins), as `CardDB.first_sync`
        gives it."""
        return self._sync_run(bulk_type, "ASC")

    def syncs(self, bulk_type: str) -> list[dict[str, Any]]:
        """Every sync of `bulk_type`, oldest first, as `CardDB.syncs` gives them."""
        return self._sync_runs(bulk_type, "ASC")

    def _sync_run(self, bulk_type: str, order: str) -> dict[str, Any] | None:
        found = self._sync_runs(bulk_type, order, " LIMIT 1")
        return found[0] if found else None

    def _sync_runs(self, bulk_type: str, order: str, limit: str = "") -> list[dict[str, Any]]:
        with self._snapshot() as conn:
            cur = conn.execute(
                f"SELECT * FROM sync_runs WHERE bulk_type = ? ORDER BY id {order}{limit}",
                (bulk_type,),
            )
            keys = [d[0] for d in cur.description]
            rows = [dict(zip(keys, row)) for row in cur]
        for row in rows:
            row["finished_at"] = _datetime(row.get("finished_at"))
        return rows

    def changes(self, limit: int | None = None) -> list[dict[str, Any]]:
        """The change log, newest first, as `CardDB.changes` gives it, read without
        SQLAlchemy: every as-of run reads it (importing SQLAlchemy cost a cold CLI ~0.3 s)."""
        sql = (
            "SELECT id, sync_id, changed_at, oracle_id, name, format, old_status, "
            "new_status FROM legality_changes ORDER BY id DESC"
        )
        with self._snapshot() as conn:
            cur = conn.execute(sql + (" LIMIT ?" if limit else ""), (limit,) if limit else ())
            keys = [d[0] for d in cur.description]
            rows = [dict(zip(keys, row)) for row in cur]
        for row in rows:
            row["changed_at"] = _datetime(row["changed_at"])
        return rows


def _datetime(value: Any) -> Any:
    """SQLAlchemy's SQLite DateTime text as the datetime `CardDB` gives (else as it is)."""
    if isinstance(value, str):
        from datetime import datetime

        try:
            return datetime.fromisoformat(value)
        except ValueError:
            pass
    return value


def quick_check(path: str | os.PathLike[str]) -> str | None:
    """What SQLite's `PRAGMA quick_check` finds wrong with the database file at `path` (its
    first lines), or None when it finds nothing: pages overwritten in place, a file cut
    short. It reads every page (about 20 ms for the full card data) but checks no index
    against its table, which `integrity_check` would (seconds)."""
    path = Path(path)
    uri = read_only_uri(path) or f"{path.resolve().as_uri()}?mode=ro"
    try:
        con = sqlite3.connect(uri, uri=True, check_same_thread=False)
        try:
            found = [row[0] for row in con.execute("PRAGMA quick_check(5)")]
        finally:
            con.close()
    except sqlite3.Error as exc:
        return str(exc)
    if found == ["ok"]:
        return None
    return "; ".join(str(line) for line in found)
