"""The card database: SQLAlchemy models, where the database lives, and card lookups.

Only portable SQL: the same code runs on the default SQLite file and on any SQLAlchemy URL
(PostgreSQL for sites that outgrow one machine). Sync writes through `write_cards`; everything
else only reads.
"""

from __future__ import annotations

from .errors import DeckcheckError

import json
import operator
import os
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from sqlalchemy import (
    JSON, Boolean, DateTime, Float, ForeignKey, Index, Integer, LargeBinary, String, Text,
    create_engine, delete, event, func, insert, inspect, select, text,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from .cardfacts import lookup_names
from .compact import IndexData, SyncStamp, encode_card, legality_text
from .location import ENV_DB, database_url, default_db_path  # noqa: F401 - re-exported
from .model import Card, Face
from .names import fold_name

SCHEMA_VERSION = 1


class DatabaseError(DeckcheckError, RuntimeError):
    """The card database is missing, empty or unreadable; the message says what to do."""

    code = "database-unavailable"


_SYNC_HINT = "run `deckcheck sync` (or `deckcheck sync --from FILE`) to build one there"
_DRIVER_HINTS = {"postgresql": "pip install 'deckcheck[postgres]'"}


def shown_location(url: str) -> str:
    """The database as a user named it: a SQLite file's path, or the URL without its password."""
    if url.startswith("sqlite:///"):
        return url[len("sqlite:///"):]
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:  # an unparseable URL is shown as given
        return url


def database_error(url: str, exc: BaseException) -> DatabaseError:
    """A failure to open or read the card database at `url`, as one line that says what to do.

    Takes what the layers below raise: a missing driver module (ImportError), SQLAlchemy's
    errors (an unknown scheme, a malformed URL, wrapped DB-API errors), DB-API errors (sqlite3,
    psycopg) and OSError. The original stays the new error's __cause__."""
    if isinstance(exc, DatabaseError):
        return exc
    where = shown_location(url)
    scheme = url.split("://", 1)[0] if "://" in url else "sqlite"
    dialect = scheme.split("+", 1)[0]
    orig = getattr(exc, "orig", None) or exc  # SQLAlchemy wraps the DB-API error
    detail = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
    if isinstance(exc, ImportError):
        install = _DRIVER_HINTS.get(dialect, f"install the Python driver for {scheme}")
        return DatabaseError(f"cannot open {where}: the {scheme} database driver "
                             f"({exc.name or detail}) is not installed; {install}, or use a "
                             "SQLite file path as --db")
    if isinstance(exc, NoSuchModuleError):
        return DatabaseError(f"cannot open {where}: unknown database URL scheme {scheme!r}; use "
                             "a SQLite file path or a SQLAlchemy URL such as "
                             "postgresql+psycopg://user@host/deckcheck")
    if isinstance(exc, ArgumentError):
        return DatabaseError(f"cannot open {where}: not a database URL ({detail}); use a SQLite "
                             "file path or a SQLAlchemy URL such as "
                             "postgresql+psycopg://user@host/deckcheck")
    if url.startswith("sqlite:///"):
        path = Path(where)
        if path.is_dir():
            return DatabaseError(f"{where} is a directory; --db takes the card database file "
                                 f"(e.g. {path / 'cards.sqlite3'})")
        if "file is not a database" in detail or "malformed" in detail:
            return DatabaseError(f"{where} is not a card database ({detail}); pass the file "
                                 f"`deckcheck sync` made (--db or ${ENV_DB}), or give a new path "
                                 f"and {_SYNC_HINT}")
    if "no such table" in detail or ("relation" in detail and "does not exist" in detail):
        return DatabaseError(f"{where} is not a deckcheck card database ({detail}); {_SYNC_HINT}, "
                             "or pass the right --db")
    return DatabaseError(f"cannot open the card database {where} ({detail}); check --db "
                         f"(or ${ENV_DB}) and that the database is reachable")


class Base(DeclarativeBase):
    pass


class CardRow(Base):
    """One oracle card: the facts of `model.Card` (CR citations live in `cardfacts`)."""

    __tablename__ = "cards"
    oracle_id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(300))
    layout: Mapped[str] = mapped_column(String(40))
    mana_cost: Mapped[str] = mapped_column(String(200))
    mana_value: Mapped[float] = mapped_column(Float)
    type_line: Mapped[str] = mapped_column(String(300))
    types: Mapped[list[str]] = mapped_column(JSON)
    subtypes: Mapped[list[str]] = mapped_column(JSON)
    supertypes: Mapped[list[str]] = mapped_column(JSON)
    oracle_text: Mapped[str] = mapped_column(Text)
    faces: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    color_identity: Mapped[str] = mapped_column(String(5))
    keywords: Mapped[list[str]] = mapped_column(JSON)
    game_changer: Mapped[bool] = mapped_column(Boolean)
    reserved: Mapped[bool] = mapped_column(Boolean)
    copy_limit: Mapped[int | None] = mapped_column(Integer, nullable=True)
    any_number: Mapped[bool] = mapped_column(Boolean)
    commander_eligible: Mapped[bool] = mapped_column(Boolean)
    partner: Mapped[str | None] = mapped_column(String(60), nullable=True)
    partner_with: Mapped[str | None] = mapped_column(String(300), nullable=True)
    has_activated_ability: Mapped[bool] = mapped_column(Boolean)
    companion_condition: Mapped[str | None] = mapped_column(Text, nullable=True)
    is_deck_card: Mapped[bool] = mapped_column(Boolean)
    #: Added after schema version 1 shipped: databases synced before lack it (see
    #: `_OPTIONAL_CARD_COLUMNS`); a meld result's two meld parts (CR 712.4b).
    meld_from: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)


class LegalityRow(Base):
    """Legality per (card, format) as rows: Scryfall adds and renames format keys.

    Only statuses other than `not_legal` are stored (three rows in four are `not_legal`); a
    format listed in `meta.formats` with no row for a card means not legal there."""

    __tablename__ = "legalities"
    oracle_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("cards.oracle_id", ondelete="CASCADE"), primary_key=True
    )
    format: Mapped[str] = mapped_column(String(40), primary_key=True)
    status: Mapped[str] = mapped_column(String(20))


class NameRow(Base):
    """Folded names a decklist may use: full name, face names, printed and flavor names."""

    __tablename__ = "card_names"
    folded: Mapped[str] = mapped_column(String(300), primary_key=True)
    oracle_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("cards.oracle_id", ondelete="CASCADE"), primary_key=True
    )
    kind: Mapped[str] = mapped_column(String(10))


class CardIndexRow(Base):
    """A deck card in the compact encoding of `compact` (written with the cards at sync time),
    so that a `CardIndex` loads in one read of small rows. Deleting a card deletes its row
    (foreign key), so a sync by a deckcheck that does not write this table leaves it empty and
    readers fall back to the card tables."""

    __tablename__ = "card_index"
    oracle_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("cards.oracle_id", ondelete="CASCADE"), primary_key=True
    )
    name: Mapped[str] = mapped_column(String(300))
    legalities: Mapped[str] = mapped_column(Text)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class PrintingRow(Base):
    """A printing (from `default_cards`): set + collector number -> oracle card."""

    __tablename__ = "printings"
    set_code: Mapped[str] = mapped_column(String(10), primary_key=True)
    collector_number: Mapped[str] = mapped_column(String(20), primary_key=True)
    oracle_id: Mapped[str] = mapped_column(String(36), index=True)
    rarity: Mapped[str] = mapped_column(String(20))
    printed_name: Mapped[str | None] = mapped_column(String(300), nullable=True)
    flavor_name: Mapped[str | None] = mapped_column(String(300), nullable=True)


class SyncRun(Base):
    """One completed sync: where the data came from and what it held."""

    __tablename__ = "sync_runs"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    bulk_type: Mapped[str] = mapped_column(String(40))
    source_uri: Mapped[str] = mapped_column(Text)
    updated_at: Mapped[str | None] = mapped_column(String(40), nullable=True)
    finished_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    card_count: Mapped[int] = mapped_column(Integer)
    duration_s: Mapped[float] = mapped_column(Float)
    sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    size_bytes: Mapped[int | None] = mapped_column(Integer, nullable=True)


class LegalityChange(Base):
    """A card's legality in a format changed between two syncs."""

    __tablename__ = "legality_changes"
    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    sync_id: Mapped[int] = mapped_column(Integer, index=True)
    changed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    oracle_id: Mapped[str] = mapped_column(String(36))
    name: Mapped[str] = mapped_column(String(300))
    format: Mapped[str] = mapped_column(String(40))
    old_status: Mapped[str | None] = mapped_column(String(20), nullable=True)
    new_status: Mapped[str | None] = mapped_column(String(20), nullable=True)


class MetaRow(Base):
    __tablename__ = "meta"
    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


#: Card columns added to schema version 1 after it shipped: a database synced earlier lacks
#: them and still reads (the fact takes its default); the next sync adds them.
_OPTIONAL_CARD_COLUMNS = ("meld_from",)


#: SQLite checks card_names on every delete from cards (foreign key): without an index on the
#: child column each check scans the whole name table, and a re-sync takes minutes.
Index("ix_card_names_oracle_id", NameRow.oracle_id)


# ---------------------------------------------------------------------------- where it lives

# default_db_path() and database_url() live in `location` (no SQLAlchemy there).


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    # WAL: a validation running during a sync keeps reading the last committed database.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def make_engine(url: str, *, create_dirs: bool = False) -> Engine:
    if url.startswith("sqlite:///") and create_dirs:
        Path(url[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)
    try:
        engine = create_engine(url)
    except (ImportError, SQLAlchemyError) as exc:  # no driver, unknown scheme, malformed URL
        raise database_error(url, exc) from exc
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def require_card_data(engine: Engine, url: str) -> None:
    """Raise DatabaseError when the database is empty: no tables at all, or a cards table
    without rows. (A database holding only other tables is left to `CardDB.check`: not ours.)

    A first sync killed outright (kill -9, power loss) can leave a database with no tables, or
    (before syncs created the schema in their import transaction) empty ones; read as is, every
    card would be "unknown" with no hint why."""
    try:
        with engine.connect() as conn:
            found: Any = None
            schema = inspect(conn)
            if schema.has_table(CardRow.__tablename__):
                found = conn.execute(select(CardRow.__table__.c.oracle_id).limit(1)).first()
            elif schema.get_table_names():
                return  # someone else's database: CardDB.check says so
    except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
        raise database_error(url, exc) from exc
    if found is None:
        raise DatabaseError(
            f"no card data in {shown_location(url)}: run `deckcheck sync` "
            "(or `deckcheck sync --from FILE` with a Scryfall bulk file)")


# ---------------------------------------------------------------------------- the write lock

#: PostgreSQL advisory lock key that serialises syncs ("deckchk" in ASCII): any two
#: `deckcheck sync` runs against one database wait for each other.
SYNC_LOCK_KEY = 0x6465636B63686B


class LockTimeout(DatabaseError):
    """Another sync held the database's write lock for longer than we were allowed to wait."""

    code = "database-busy"


def make_write_engine(url: str, *, lock_timeout: float, create_dirs: bool = True) -> Engine:
    """An engine for a sync: every transaction takes the database's write lock up front.

    On SQLite the transaction starts with BEGIN IMMEDIATE (the write lock, waited for up to
    `lock_timeout` seconds by SQLite's busy handler) instead of pysqlite's deferred BEGIN, whose
    read snapshot would be stale by the time the lock is free ("database is locked" at once).
    Other databases take `sync_lock` inside the transaction."""
    engine = make_engine(url, create_dirs=create_dirs)
    if engine.dialect.name == "sqlite":
        ms = max(0, int(lock_timeout * 1000))

        def connect(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.isolation_level = None  # we issue BEGIN ourselves
            dbapi_connection.execute(f"PRAGMA busy_timeout={ms}")
            # For the import only (this engine's connections): a bigger page cache and
            # in-memory temp storage. Atomicity is untouched: one transaction, still WAL.
            # 16 MiB: measured as fast as 64 MiB for a full sync, with 50 MB less resident
            # memory (issue 12: the sync's processes together under 200 MB).
            dbapi_connection.execute("PRAGMA cache_size=-16384")  # 16 MiB
            dbapi_connection.execute("PRAGMA temp_store=MEMORY")

        def begin(conn: Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        event.listen(engine, "connect", connect)
        event.listen(engine, "begin", begin)
    return engine


def sync_lock(conn: Connection, timeout: float, *, poll: float = 0.2) -> None:
    """Take the sync lock for the caller's transaction, waiting at most `timeout` seconds.

    PostgreSQL: a transaction-level advisory lock (released at commit or rollback, and when the
    session dies). SQLite: BEGIN IMMEDIATE already holds the write lock. Other databases: no
    lock (their row locks still keep one import's writes whole)."""
    import time

    if conn.dialect.name != "postgresql":
        return
    deadline = time.monotonic() + timeout
    while not conn.exec_driver_sql(f"SELECT pg_try_advisory_xact_lock({SYNC_LOCK_KEY})").scalar():
        if time.monotonic() >= deadline:
            raise LockTimeout(f"another sync is running on {conn.engine.url.render_as_string()} "
                              f"(waited {timeout:.0f} s)")
        time.sleep(poll)


# ---------------------------------------------------------------------------- rows <-> cards

def _face_dict(face: Face) -> dict[str, Any]:
    out = {"name": face.name, "mana_cost": face.mana_cost, "type_line": face.type_line,
           "oracle_text": face.oracle_text}
    for key in ("power", "toughness", "loyalty"):
        value = getattr(face, key)
        if value is not None:
            out[key] = value
    return out


def card_to_row(card: Card) -> dict[str, Any]:
    return {
        "oracle_id": card.oracle_id, "name": card.name, "layout": card.layout,
        "mana_cost": card.mana_cost, "mana_value": card.mana_value,
        "type_line": card.type_line, "types": sorted(card.types),
        "subtypes": sorted(card.subtypes), "supertypes": sorted(card.supertypes),
        "oracle_text": card.oracle_text,
        "faces": [_face_dict(f) for f in card.faces],
        "color_identity": card.color_identity, "keywords": sorted(card.keywords),
        "game_changer": card.game_changer, "reserved": card.reserved,
        "copy_limit": card.copy_limit, "any_number": card.any_number,
        "commander_eligible": card.commander_eligible, "partner": card.partner,
        "partner_with": card.partner_with, "has_activated_ability": card.has_activated_ability,
        "companion_condition": card.companion_condition, "is_deck_card": card.is_deck_card,
        "meld_from": list(card.meld_from) or None,
    }


def row_to_card(row: Any, legalities: dict[str, str]) -> Card:
    return Card(
        oracle_id=row.oracle_id, name=row.name, layout=row.layout,
        faces=tuple(Face(**f) for f in row.faces), mana_cost=row.mana_cost,
        mana_value=row.mana_value, type_line=row.type_line, types=frozenset(row.types),
        subtypes=frozenset(row.subtypes), supertypes=frozenset(row.supertypes),
        oracle_text=row.oracle_text, color_identity=row.color_identity,
        keywords=frozenset(row.keywords), legalities=legalities,
        game_changer=bool(row.game_changer), reserved=bool(row.reserved),
        copy_limit=row.copy_limit, any_number=bool(row.any_number),
        commander_eligible=bool(row.commander_eligible), partner=row.partner,
        partner_with=row.partner_with, has_activated_ability=bool(row.has_activated_ability),
        companion_condition=row.companion_condition, is_deck_card=bool(row.is_deck_card),
        meld_from=tuple(getattr(row, "meld_from", None) or ()),
    )


# ---------------------------------------------------------------------------- reading

@dataclass(frozen=True)
class DbInfo:
    url: str
    card_count: int
    name_count: int
    printing_count: int
    formats: list[str]
    last_sync: dict[str, Any] | None


class CardDB:
    """Read access to a synced card database."""

    def __init__(self, db: str | os.PathLike[str] | None = None, *, engine: Engine | None = None):
        self.url = database_url(db) if engine is None else str(engine.url)
        if engine is None:
            if self.url.startswith("sqlite:///"):
                path = Path(self.url[10:])
                if not path.exists():
                    raise DatabaseError(
                        f"no card database at {path}; run `deckcheck sync` first "
                        "(or `deckcheck sync --from FILE` with a Scryfall bulk file)"
                    )
                if path.is_dir():
                    raise database_error(self.url, IsADirectoryError(str(path)))
            engine = make_engine(self.url)
        self.engine = engine
        self._all_names: list[str] | None = None
        self._card_columns: list[Any] | None = None

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> "CardDB":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _connect(self) -> Iterator[Connection]:
        """A connection for one read. Whatever the driver raises while opening or reading
        (not a database file, no such table, server unreachable) becomes one DatabaseError
        that says what to do: the library raises one exception family."""
        try:
            with self.engine.connect() as conn:
                yield conn
        except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
            raise database_error(self.url, exc) from exc

    def check(self) -> None:
        """Raise DatabaseError now if the database cannot be opened, is not a deckcheck
        card database or holds no card data (instead of at the first card look-up)."""
        require_card_data(self.engine, self.url)
        with self._connect() as conn:
            known_formats(conn)

    def _card_select(self, conn: Connection) -> Any:
        """SELECT of the cards table's columns this database has (an older one lacks the
        `_OPTIONAL_CARD_COLUMNS`)."""
        if self._card_columns is None:
            columns = list(CardRow.__table__.columns)
            try:
                present = {c["name"] for c in inspect(conn).get_columns("cards")}
            except (SQLAlchemyError, sqlite3.Error, OSError):  # the query below says why
                present = {c.name for c in columns}
            if present:
                columns = [c for c in columns
                           if c.name in present or c.name not in _OPTIONAL_CARD_COLUMNS]
            self._card_columns = columns
        return select(*self._card_columns)

    @contextmanager
    def _snapshot(self) -> Iterator[Connection]:
        """A connection whose statements all read one snapshot (issue 11: reads never tear).

        pysqlite starts no transaction for SELECTs (each statement would see the database as
        of its own start, so a sync committing between two of them mixes old and new rows):
        BEGIN explicitly. PostgreSQL's READ COMMITTED takes a snapshot per statement: use
        REPEATABLE READ, one snapshot for the transaction."""
        with self._connect() as conn:
            if conn.dialect.name == "postgresql":
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            elif conn.dialect.name == "sqlite":
                conn.exec_driver_sql("BEGIN")
            yield conn

    def _cards(self, conn: Connection, oracle_ids: Iterable[str]) -> dict[str, Card]:
        ids = list(set(oracle_ids))
        if not ids:
            return {}
        cards_t, leg_t = CardRow.__table__, LegalityRow.__table__
        legal: dict[str, dict[str, str]] = {i: {} for i in ids}
        rows: list[Any] = []
        for chunk in _chunks(ids, 500):
            for oid, fmt, status in conn.execute(
                select(leg_t.c.oracle_id, leg_t.c.format, leg_t.c.status)
                .where(leg_t.c.oracle_id.in_(chunk))
            ):
                legal[oid][fmt] = status
            rows.extend(conn.execute(
                self._card_select(conn).where(cards_t.c.oracle_id.in_(chunk))))
        return {r.oracle_id: row_to_card(r, legal[r.oracle_id]) for r in rows}

    def lookup(self, names: Iterable[str], *, deck_cards_only: bool = True) -> dict[str, list[Card]]:
        """Cards for each name (folded), in one query for the whole deck. A name may match
        more than one card (a face name shared by two cards); the caller decides."""
        return self.lookup_folded({fold_name(n) for n in names}, deck_cards_only=deck_cards_only)

    def lookup_folded(self, folded: Iterable[str], *,
                      deck_cards_only: bool = True) -> dict[str, list[Card]]:
        """`lookup` for names already folded (`names.fold_name`). Names and cards are read in
        one snapshot."""
        names_t, cards_t = NameRow.__table__, CardRow.__table__
        hits: dict[str, list[str]] = {}
        with self._snapshot() as conn:
            for chunk in _chunks(sorted(set(folded)), 500):
                q = (select(names_t.c.folded, names_t.c.oracle_id, names_t.c.kind)
                     .join(cards_t, cards_t.c.oracle_id == names_t.c.oracle_id)
                     .where(names_t.c.folded.in_(chunk)))
                if deck_cards_only:
                    q = q.where(cards_t.c.is_deck_card.is_(True))
                for f, oid, _kind in conn.execute(q):
                    hits.setdefault(f, []).append(oid)
            cards = self._cards(conn, (o for ids in hits.values() for o in ids))
        return {f: [cards[o] for o in ids if o in cards] for f, ids in hits.items()}

    def card_by_id(self, oracle_id: str) -> Card | None:
        with self._snapshot() as conn:
            return self._cards(conn, [oracle_id]).get(oracle_id)

    def card(self, name: str) -> Card | None:
        """The card a decklist line `name` means; failing that, a non-deck object (a token,
        an art card) of that name, for `deckcheck card`."""
        from .resolve import choose

        folded = fold_name(name)
        for deck_cards_only in (True, False):
            found = choose(folded, self.lookup([name], deck_cards_only=deck_cards_only).get(folded, []))
            if found:
                return found[0]
        return None

    def all_cards(self) -> Iterator[tuple[list[str], Card]]:
        """Every deck card with its folded names, for a warm in-memory index (one snapshot)."""
        with self._snapshot() as conn:
            cards = _all_cards(conn, self._card_select(conn))
        yield from cards

    def index_data(self) -> IndexData:
        """What `CardIndex` is built from: the compact `card_index` rows and the name table,
        with the sync they belong to, all in one snapshot (see `compact.IndexData`)."""
        index_t, names_t = CardIndexRow.__table__, NameRow.__table__
        with self._snapshot() as conn:
            last = conn.execute(select(SyncRun.id, SyncRun.bulk_type, SyncRun.updated_at,
                                       SyncRun.finished_at)
                                .order_by(SyncRun.id.desc()).limit(1)).first()
            stamp = SyncStamp(last[0], last[1], last[2], str(last[3])) if last else None
            has_index = inspect(conn).has_table(index_t.name)  # written before it existed?
            rows = [tuple(r) for r in conn.execute(select(index_t))] if has_index else []
            if not rows:
                return IndexData(sync=stamp, cards=_all_cards(conn, self._card_select(conn)))
            names = [tuple(r) for r in conn.execute(select(names_t.c.folded, names_t.c.oracle_id))]
        return IndexData(sync=stamp, rows=rows, names=names)

    def all_names(self) -> list[str]:
        """Every deck card's Oracle name (for "did you mean" suggestions)."""
        if self._all_names is None:
            cards_t = CardRow.__table__
            with self._connect() as conn:
                self._all_names = [
                    r[0] for r in conn.execute(
                        select(cards_t.c.name).where(cards_t.c.is_deck_card.is_(True)))
                ]
        return self._all_names

    def printing(self, set_code: str, collector_number: str) -> tuple[str, str] | None:
        """(oracle_id, rarity) of a printing, when printings were synced."""
        t = PrintingRow.__table__
        with self._connect() as conn:
            row = conn.execute(
                select(t.c.oracle_id, t.c.rarity)
                .where(t.c.set_code == set_code.lower(), t.c.collector_number == collector_number)
            ).first()
        return (row[0], row[1]) if row else None

    def rarities(self, oracle_id: str) -> set[str] | None:
        """Rarities the card was printed at; None when printings were never synced."""
        t = PrintingRow.__table__
        with self._snapshot() as conn:  # "none synced" and the rarities from one snapshot
            if conn.execute(select(t.c.set_code).limit(1)).first() is None:
                return None
            return {r[0] for r in conn.execute(select(t.c.rarity).where(t.c.oracle_id == oracle_id))}

    def has_printings(self) -> bool:
        t = PrintingRow.__table__
        with self._connect() as conn:
            return conn.execute(select(t.c.set_code).limit(1)).first() is not None

    def formats(self) -> list[str]:
        """The legality keys the last sync saw."""
        with self._connect() as conn:
            return sorted(known_formats(conn))

    def info(self) -> DbInfo:
        with self._connect() as conn:
            def count(model: type[Base]) -> int:
                return conn.execute(select(func.count()).select_from(model.__table__)).scalar_one()
            try:
                last = conn.execute(select(SyncRun.__table__).order_by(SyncRun.id.desc())).first()
                formats = sorted(known_formats(conn))
                return DbInfo(self.url, count(CardRow), count(NameRow), count(PrintingRow),
                              formats, dict(last._mapping) if last else None)
            except Exception as exc:  # noqa: BLE001 - tables missing or not ours: not our database
                raise database_error(self.url, exc) from exc

    def last_sync(self, bulk_type: str) -> dict[str, Any] | None:
        with self._connect() as conn:
            row = conn.execute(select(SyncRun.__table__).where(SyncRun.bulk_type == bulk_type)
                               .order_by(SyncRun.id.desc())).first()
        return dict(row._mapping) if row else None

    def changes(self, limit: int | None = None) -> list[dict[str, Any]]:
        t = LegalityChange.__table__
        q = select(t).order_by(t.c.id.desc())
        if limit:
            q = q.limit(limit)
        with self._connect() as conn:
            return [dict(r._mapping) for r in conn.execute(q)]


def _chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i:i + size]


def _all_cards(conn: Connection, card_select: Any) -> list[tuple[list[str], Card]]:
    """Every deck card with its folded names, from the card tables (within the caller's
    snapshot); `card_select` is `CardDB._card_select`."""
    cards_t, leg_t, names_t = CardRow.__table__, LegalityRow.__table__, NameRow.__table__
    legal: dict[str, dict[str, str]] = {}
    for oid, fmt, status in conn.execute(select(leg_t)):
        legal.setdefault(oid, {})[fmt] = status
    names: dict[str, list[str]] = {}
    for folded, oid, _kind in conn.execute(select(names_t)):
        names.setdefault(oid, []).append(folded)
    return [(names.get(row.oracle_id, []), row_to_card(row, legal.get(row.oracle_id, {})))
            for row in conn.execute(card_select.where(cards_t.c.is_deck_card.is_(True)))]


# ---------------------------------------------------------------------------- writing

def create_schema(bind: Engine | Connection) -> None:
    """Create the tables. Given a connection, inside its transaction: a sync creates the schema
    in its import transaction, so a first sync that fails or is killed leaves no empty schema."""
    Base.metadata.create_all(bind)
    # create_all adds indexes only with new tables: add those a newer deckcheck defines to an
    # existing database too (indexes only; the schema version stays).
    for table in Base.metadata.sorted_tables:
        for index in table.indexes:
            index.create(bind, checkfirst=True)
    if isinstance(bind, Connection):
        _upgrade_and_check(bind)
    else:
        with bind.begin() as conn:
            _upgrade_and_check(conn)


def _upgrade_and_check(conn: Connection) -> None:
    present = {c["name"] for c in inspect(conn).get_columns("cards")}
    for name in _OPTIONAL_CARD_COLUMNS:
        if name not in present:  # a database synced before the column existed
            column = CardRow.__table__.c[name]
            kind = column.type.compile(dialect=conn.dialect)
            conn.execute(text(f"ALTER TABLE cards ADD COLUMN {name} {kind}"))
    found = conn.execute(select(MetaRow.value).where(MetaRow.key == "schema_version")).first()
    if found is None:
        conn.execute(insert(MetaRow.__table__), [{"key": "schema_version",
                                                  "value": str(SCHEMA_VERSION)}])
    elif int(found[0]) != SCHEMA_VERSION:
        raise DatabaseError(
            f"the database has schema version {found[0]}, this deckcheck expects "
            f"{SCHEMA_VERSION}; sync into a new --db path"
        )


@dataclass
class WriteResult:
    card_count: int
    changes: list[dict[str, Any]]


@dataclass
class CardBatch:
    """One batch of cards as the rows to insert: pure data, so it can be built in another
    process (a full sync reads and computes facts in one process while this one writes)."""

    ids: list[str]
    card_rows: list[tuple[Any, ...]]  # CardRow columns in order
    #: (oracle_id, `compact.legality_text`) of every card: its statuses other than not_legal,
    #: which are its `legalities` rows (expanded by the database on SQLite, see `_RowWriter`).
    legality_texts: list[tuple[str, str]]
    name_rows: list[tuple[str, str, str]]
    formats: set[str]  # every legality key seen, not_legal included
    #: oracle_id -> (name, legalities), only when the database had cards before (changes).
    previous_check: dict[str, tuple[str, dict[str, str]]] | None = None
    #: `card_index` rows of the batch's deck cards (see `compact`).
    index_rows: list[tuple[str, str, str, bytes]] = field(default_factory=list)


_CARD_COLUMNS = [c.name for c in CardRow.__table__.columns]
_CARD_VALUES = operator.itemgetter(*_CARD_COLUMNS)
_JSON_POSITIONS = [i for i, c in enumerate(CardRow.__table__.columns) if isinstance(c.type, JSON)]


def _card_row(card: Card, dumps: Callable[[Any], bytes] | None) -> tuple[Any, ...]:
    """A card's row in column order. With `dumps`, JSON columns are serialized here, for
    SQLite's executemany fast path (SQLAlchemy serializes them on other databases)."""
    values = _CARD_VALUES(card_to_row(card))
    if dumps is None:
        return values
    row = list(values)
    for p in _JSON_POSITIONS:
        row[p] = dumps(row[p]).decode()
    return tuple(row)


def _sync_rows(card: Card, dumps: Callable[[Any], bytes] | None,
               legality_texts: dict[tuple[tuple[str, str], ...], str]
               ) -> tuple[tuple[Any, ...], str, tuple[str, str, str, bytes] | None]:
    """(cards row, legality text, card_index row or None) of one card, each fact computed
    once: the same values as `_card_row`, `compact.legality_text` and `compact.index_row`
    (tests/test_db.py compares them). `legality_texts` caches the text of each distinct
    legalities mapping (a few hundred among 35,000 cards)."""
    types, subtypes, supertypes, keywords = sets = (
        sorted(card.types), sorted(card.subtypes), sorted(card.supertypes), sorted(card.keywords))
    faces = [_face_dict(f) for f in card.faces]
    meld = list(card.meld_from) or None
    if dumps is not None:
        j_types, j_sub, j_super, j_faces, j_kw = (
            dumps(types).decode(), dumps(subtypes).decode(), dumps(supertypes).decode(),
            dumps(faces).decode(), dumps(keywords).decode())
        j_meld = dumps(meld).decode()
    else:
        j_types, j_sub, j_super, j_faces, j_kw, j_meld = (
            types, subtypes, supertypes, faces, keywords, meld)
    row = (card.oracle_id, card.name, card.layout, card.mana_cost, card.mana_value,
           card.type_line, j_types, j_sub, j_super, card.oracle_text, j_faces,
           card.color_identity, j_kw, card.game_changer, card.reserved, card.copy_limit,
           card.any_number, card.commander_eligible, card.partner, card.partner_with,
           card.has_activated_ability, card.companion_condition, card.is_deck_card, j_meld)
    key = tuple(card.legalities.items())
    text = legality_texts.get(key)
    if text is None:
        text = legality_texts[key] = legality_text(dict(card.legalities))
    index = ((card.oracle_id, card.name, text, encode_card(card, sets))
             if card.is_deck_card else None)
    return row, text, index


def card_batches(cards: Iterable[Card], *, json_text: bool, for_changes: bool,
                 batch_size: int = 2000) -> Iterator[CardBatch]:
    """Group cards into `CardBatch`es, each oracle card once.

    A reversible card shares its oracle id with its side card ("Okaun // Okaun" and "Okaun");
    the side card's own object describes it best, so reversible objects wait until the end and
    only fill in oracle ids no other object had (there are a few dozen of them).
    """
    import orjson  # only a sync needs it

    dumps = orjson.dumps if json_text else None
    seen: set[str] = set()
    reversible: dict[str, Card] = {}
    batch: list[Card] = []
    texts: dict[tuple[tuple[str, str], ...], str] = {}

    def build() -> CardBatch:
        formats: set[str] = set()
        card_rows, legality, index_rows = [], [], []
        for c in batch:
            formats.update(c.legalities)
            row, text, index = _sync_rows(c, dumps, texts)
            card_rows.append(row)
            legality.append((c.oracle_id, text))
            if index is not None:
                index_rows.append(index)
        return CardBatch(
            ids=[c.oracle_id for c in batch],
            card_rows=card_rows,
            legality_texts=legality,
            name_rows=[(folded, c.oracle_id, kind) for c in batch
                       for folded, kind in lookup_names(c)],
            formats=formats,
            previous_check={c.oracle_id: (c.name, c.legalities) for c in batch}
            if for_changes else None,
            index_rows=index_rows,
        )

    for card in cards:
        if card.oracle_id in seen:
            continue  # the same oracle card twice
        if card.layout == "reversible_card":
            reversible.setdefault(card.oracle_id, card)
            continue
        seen.add(card.oracle_id)
        batch.append(card)
        if len(batch) >= batch_size:
            yield build()
            batch = []
    for oid, card in reversible.items():
        if oid not in seen:
            seen.add(oid)
            batch.append(card)
    if batch:
        yield build()


#: (attribute, max length or None, nullable) for every text column of `cards`.
_TEXT_COLUMNS = [(c.name, c.type.length, bool(c.nullable)) for c in CardRow.__table__.columns
                 if isinstance(c.type, String)]
_TEXT_VALUES = operator.attrgetter(*(c for c, _, _ in _TEXT_COLUMNS))
_FORMAT_MAX = LegalityRow.__table__.c.format.type.length
_STATUS_MAX = LegalityRow.__table__.c.status.type.length
_NAME_MAX = NameRow.__table__.c.folded.type.length


def card_problem(card: Card) -> str | None:
    """Why `card` cannot be stored, or None: a text field that is not text, holds a NUL
    (PostgreSQL text cannot) or is longer than its column (PostgreSQL refuses with "value too
    long", SQLite would store it). Checked before writing, on every database alike, so the sync
    can name the card and the line of the file."""
    for (column, limit, nullable), value in zip(_TEXT_COLUMNS, _TEXT_VALUES(card)):
        if value is None:
            if nullable:
                continue
            return f"{column} is missing"
        if type(value) is not str:
            return f"{column} is {type(value).__name__}, not text"
        if limit is not None and len(value) > limit:
            return f"{column} is {len(value)} characters long; at most {limit} fit"
        if "\x00" in value:
            return f"{column} contains a NUL character"
    for face in card.faces:
        if type(face.name) is not str:
            return f"a face name is {type(face.name).__name__}, not text"
        if len(face.name) > _NAME_MAX:
            return f"face name is {len(face.name)} characters long; at most {_NAME_MAX} fit"
    legalities = card.legalities
    try:
        # A sync sees a few dozen distinct (format, status) pairs in 240,000: each is checked
        # once (a set test in C per card instead of six tests per pair).
        if _CHECKED_LEGALITIES.issuperset(legalities.items()):
            return None
    except TypeError:  # an unhashable status: the checks below name it
        pass
    for fmt, status in legalities.items():
        if type(fmt) is not str or len(fmt) > _FORMAT_MAX or "\x00" in fmt:
            return f"legality key {fmt!r} is not a format name (text, at most {_FORMAT_MAX} characters)"
        if type(status) is not str or len(status) > _STATUS_MAX or "\x00" in status:
            return (f"legality of {fmt} is {status!r}, not a status "
                    f"(text, at most {_STATUS_MAX} characters)")
        _CHECKED_LEGALITIES.add((fmt, status))
    return None


#: (format, status) pairs `card_problem` found storable.
_CHECKED_LEGALITIES: set[tuple[str, str]] = set()


def count_cards(conn: Connection) -> int:
    return conn.execute(select(func.count()).select_from(CardRow.__table__)).scalar_one()


def has_cards(conn: Connection) -> bool:
    t = CardRow.__table__
    return conn.execute(select(t.c.oracle_id).limit(1)).first() is not None


def write_cards(conn: Connection, cards: Iterable[Card], *, batch_size: int = 2000,
                now: datetime | None = None) -> WriteResult:
    """Replace the card tables with `cards` inside the caller's transaction."""
    batches = card_batches(cards, json_text=conn.dialect.name == "sqlite",
                           for_changes=has_cards(conn), batch_size=batch_size)
    return write_batches(conn, batches, now=now)


def write_batches(conn: Connection, batches: Iterable[CardBatch], *,
                  now: datetime | None = None) -> WriteResult:
    """Replace the card tables with the cards of `batches` inside the caller's transaction.

    When the database has cards, each batch first reads the old `card_index` rows of its cards
    (name, legalities as the compact index's text, and the encoded facts): the change log needs
    the old statuses, and a card whose row is byte for byte the new one is left as it is. A
    card's `cards`, `legalities` and `card_names` rows are functions of the facts its
    `card_index` row encodes in full (a change to how they are derived must bump
    `compact.ENCODING_VERSION`), so only the cards that changed are deleted and written again,
    and a `--force` re-sync of an unchanged file writes no card at all. Cards without an index
    row (tokens and other non-deck objects, or a database written before `card_index`) are
    always replaced; cards the new data no longer holds are deleted at the end. The caller
    commits once, so readers see the old or the new database, never a mix, and a failure
    anywhere leaves the old one.

    A legality change is a (card, format) whose status differs from the previous sync's; a
    format key that appears or disappears is a format Scryfall started or stopped listing, not
    a change. On SQLite rows go straight to the driver's executemany (values already in their
    stored form); other databases go through SQLAlchemy's insert.
    """
    now = now or datetime.now(timezone.utc)
    cards_t, leg_t, names_t = CardRow.__table__, LegalityRow.__table__, NameRow.__table__
    index_t = CardIndexRow.__table__
    had_cards = has_cards(conn)
    old_formats = known_formats(conn) if had_cards else set()
    new_formats: set[str] = set()
    rows = _RowWriter(conn)
    seen: set[str] = set()
    changes: list[dict[str, Any]] = []
    old_names: dict[str, str] = {}
    has_index = False
    if had_cards:
        old_names = {oid: name for oid, name in
                     conn.execute(select(cards_t.c.oracle_id, cards_t.c.name))}
        has_index = inspect(conn).has_table(index_t.name)
    index_cols = select(index_t.c.oracle_id, index_t.c.name, index_t.c.legalities,
                        index_t.c.data)
    leg_cols = select(leg_t.c.oracle_id, leg_t.c.format, leg_t.c.status)

    def old_index_rows(ids: list[str]) -> dict[str, tuple[Any, ...]]:
        """oracle_id -> its card_index row as stored, for the `ids` the database holds."""
        held = [oid for oid in ids if oid in old_names]
        found: dict[str, tuple[Any, ...]] = {}
        if has_index:
            for chunk in _chunks(held, 500):
                for row in conn.execute(index_cols.where(index_t.c.oracle_id.in_(chunk))):
                    found[row[0]] = (row[0], row[1], row[2], bytes(row[3]))
        return found

    def record_changes(batch: CardBatch, old: dict[str, tuple[Any, ...]]) -> None:
        if batch.previous_check is None:
            raise ValueError("card batches for a database that has cards need previous_check")
        new_text = dict(batch.legality_texts)
        old_dicts: dict[str, dict[str, str]] = {}  # cards without a card_index row
        missing = [oid for oid in batch.ids if oid in old_names and oid not in old]
        for chunk in _chunks(missing, 500):
            for oid, fmt, status in conn.execute(leg_cols.where(leg_t.c.oracle_id.in_(chunk))):
                old_dicts.setdefault(oid, {})[fmt] = status
        for oid, (name, legalities) in batch.previous_check.items():
            row = old.get(oid)
            if row is not None:
                if row[2] == new_text.get(oid):
                    continue  # the same statuses: no format changed
                before_all = json.loads(row[2])
            else:
                before_all = old_dicts.get(oid, {})
            for fmt in sorted(old_formats & legalities.keys()):
                before, after = before_all.get(fmt, "not_legal"), legalities[fmt]
                if after != before:
                    changes.append({"changed_at": now, "oracle_id": oid, "name": name,
                                    "format": fmt, "old_status": before, "new_status": after})

    def delete_cards(ids: list[str]) -> None:
        for chunk in _chunks(ids, 500):
            for table in (index_t, names_t, leg_t, cards_t):  # children first (foreign keys)
                conn.execute(delete(table).where(table.c.oracle_id.in_(chunk)))

    for batch in batches:
        seen.update(batch.ids)
        new_formats |= batch.formats
        card_rows, legality_texts = batch.card_rows, batch.legality_texts
        name_rows, index_rows = batch.name_rows, batch.index_rows
        if had_cards:
            old = old_index_rows(batch.ids)
            record_changes(batch, old)
            same = {row[0] for row in index_rows if old.get(row[0]) == row}
            delete_cards([oid for oid in batch.ids if oid in old_names and oid not in same])
            if same:
                card_rows = [r for r in card_rows if r[0] not in same]
                legality_texts = [r for r in legality_texts if r[0] not in same]
                name_rows = [r for r in name_rows if r[1] not in same]
                index_rows = [r for r in index_rows if r[0] not in same]
        rows.insert(cards_t, card_rows)
        rows.insert_legalities(leg_t, legality_texts)
        rows.insert(names_t, name_rows)
        rows.insert(index_t, index_rows)
    removed = sorted(old_names.keys() - seen)  # cards the new data no longer holds
    delete_cards(removed)
    for oid in removed:
        changes.append({"changed_at": now, "oracle_id": oid, "name": old_names[oid],
                        "format": "*", "old_status": "removed", "new_status": None})
    _set_meta(conn, "formats", json.dumps(sorted(new_formats)))
    return WriteResult(card_count=len(seen), changes=changes)


def known_formats(conn: Connection) -> set[str]:
    """The legality keys of the last sync (a key with no row for a card: not legal there)."""
    row = conn.execute(select(MetaRow.value).where(MetaRow.key == "formats")).first()
    if row is not None:
        return set(json.loads(row[0]))
    return {r[0] for r in conn.execute(select(LegalityRow.__table__.c.format).distinct())}


def _set_meta(conn: Connection, key: str, value: str) -> None:
    t = MetaRow.__table__
    conn.execute(delete(t).where(t.c.key == key))
    conn.execute(insert(t), [{"key": key, "value": value}])


class _RowWriter:
    """Inserts rows given as tuples in the table's column order.

    On SQLite the tuples go straight to the driver's executemany, one call per table and batch,
    with JSON columns already serialized: SQLAlchemy's per-row parameter processing costs more
    than the inserts themselves on a full sync. Other databases get dicts through SQLAlchemy's
    insert (which serializes JSON itself)."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.sqlite = conn.dialect.name == "sqlite"

    def insert(self, table: Any, rows: list[tuple[Any, ...]]) -> None:
        if not rows:
            return
        cols = [c.name for c in table.columns]
        if self.sqlite:
            self.conn.exec_driver_sql(
                f"INSERT INTO {table.name} ({', '.join(cols)}) "
                f"VALUES ({', '.join('?' * len(cols))})", rows)
        else:
            self.conn.execute(insert(table), [dict(zip(cols, r)) for r in rows])

    def insert_legalities(self, table: Any, texts: list[tuple[str, str]]) -> None:
        """The `legalities` rows of (oracle_id, legality text) pairs. SQLite expands each text
        itself (json_each, built in since 3.38): no Python tuple per (card, format)."""
        if not texts:
            return
        if self.sqlite and sqlite3.sqlite_version_info >= (3, 38):
            self.conn.exec_driver_sql(
                f"INSERT INTO {table.name} (oracle_id, format, status) "
                "SELECT ?, key, value FROM json_each(?)", texts)
        else:
            parsed: dict[str, dict[str, str]] = {}
            rows = []
            for oid, text in texts:
                statuses = parsed.get(text)
                if statuses is None:
                    statuses = parsed[text] = json.loads(text)
                rows.extend((oid, f, st) for f, st in statuses.items())
            self.insert(table, rows)


def write_printings(conn: Connection, printings: Iterable[dict[str, Any]], *,
                    batch_size: int = 5000) -> int:
    """Replace the printings table inside the caller's transaction; returns the row count.
    Printings of cards the database does not hold (tokens, art cards) are skipped."""
    t = PrintingRow.__table__
    known = {oid for (oid,) in conn.execute(select(CardRow.__table__.c.oracle_id))}
    conn.execute(delete(t))
    seen: set[tuple[str, str]] = set()
    batch: list[dict[str, Any]] = []
    count = 0
    for p in printings:
        key = (p["set_code"], p["collector_number"])
        if p["oracle_id"] not in known or key in seen:
            continue
        seen.add(key)
        batch.append(p)
        if len(batch) >= batch_size:
            conn.execute(insert(t), batch)
            count += len(batch)
            batch = []
    if batch:
        conn.execute(insert(t), batch)
        count += len(batch)
    return count


def refresh_aliases(conn: Connection) -> int:
    """Rebuild the printed/flavor-name aliases of the name index from the printings table,
    so "Godzilla, King of the Monsters" finds Zilortha whether oracle cards or printings were
    synced last."""
    names_t, t = NameRow.__table__, PrintingRow.__table__
    if conn.execute(select(t.c.set_code).limit(1)).first() is None:
        return 0  # aliases come only from printings: none synced, none to build
    conn.execute(delete(names_t).where(names_t.c.kind == "alias"))
    existing = {(f, o) for f, o in conn.execute(select(names_t.c.folded, names_t.c.oracle_id))}
    rows = []
    cards_t = CardRow.__table__
    # Printings of cards the oracle data no longer holds keep their rows, but get no alias
    # (card_names references cards).
    for oid, printed, flavor in conn.execute(
            select(t.c.oracle_id, t.c.printed_name, t.c.flavor_name)
            .join(cards_t, cards_t.c.oracle_id == t.c.oracle_id)
            .where((t.c.printed_name.is_not(None)) | (t.c.flavor_name.is_not(None)))):
        for alias in (printed, flavor):
            for part in (alias or "").split(" // "):
                key = (fold_name(part), oid)
                if part and key not in existing:
                    existing.add(key)
                    rows.append({"folded": key[0], "oracle_id": oid, "kind": "alias"})
    for i in range(0, len(rows), 5000):
        conn.execute(insert(names_t), rows[i:i + 5000])
    return len(rows)
