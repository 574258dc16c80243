"""The card database: SQLAlchemy models, where the database lives, and card lookups.

Only portable SQL: the same code runs on the default SQLite file and on any SQLAlchemy URL
(PostgreSQL for sites that outgrow one machine). Sync writes through `write_batches` (from
`card_batches`); everything else only reads (the read statements: store/rows.py).
"""

from __future__ import annotations

import itertools
import json
import operator
import os
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    delete,
    event,
    func,
    insert,
    inspect,
    select,
    text,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

from validator.cards.compact import (
    SCHEMA_VERSION,
    IndexData,
    encode_card,
    legality_text,
)
from validator.cards.facts import lookup_names
from validator.cards.names import fold_name, lookup_key
from validator.errors import DeckcheckError
from validator.model import Card
from validator.store import rows as sql
from validator.store.location import (  # noqa: F401 - re-exported
    ENV_DB,
    database_url,
    default_db_path,
    read_only_uri,
    sqlite_file,
)

# Schema version 2 (`compact.SCHEMA_VERSION`): a card's facts are one compact blob
# (`cards.data`) and its legalities one of a few hundred `legality_sets` (version 1 had a
# column per fact, a `legalities` row per format and a second copy of every card in
# `card_index`). A sync migrates a version 1 database (`_migrate_from_v1`); readers of one say
# to run a sync.


class DatabaseError(DeckcheckError, RuntimeError):
    """The card database is missing, empty or unreadable; the message says what to do."""

    code = "database-unavailable"


_SYNC_HINT = "run `deckcheck sync` (or `deckcheck sync --from FILE`) to build one there"
_DRIVER_HINTS = {"postgresql": "pip install '.[postgres]' in deckcheck's folder"}


def shown_location(url: str) -> str:
    """The database as a user named it: a SQLite file's path, or the URL without its password."""
    if url.startswith("sqlite:///"):
        return url[len("sqlite:///") :]
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
        return DatabaseError(
            f"cannot open {where}: the {scheme} database driver "
            f"({exc.name or detail}) is not installed; {install}, or use a "
            "SQLite file path as --db"
        )
    if isinstance(exc, NoSuchModuleError):
        return DatabaseError(
            f"cannot open {where}: unknown database URL scheme {scheme!r}; use "
            "a SQLite file path or a SQLAlchemy URL such as "
            "postgresql+psycopg://user@host/deckcheck"
        )
    if isinstance(exc, ArgumentError):
        return DatabaseError(
            f"cannot open {where}: not a database URL ({detail}); use a SQLite "
            "file path or a SQLAlchemy URL such as "
            "postgresql+psycopg://user@host/deckcheck"
        )
    if url.startswith("sqlite:///"):
        path = Path(where)
        if path.is_dir():
            return DatabaseError(
                f"{where} is a directory; --db takes the card database file "
                f"(e.g. {path / 'cards.sqlite3'})"
            )
        if "file is not a database" in detail or "malformed" in detail:
            return DatabaseError(
                f"{where} is not a card database ({detail}); pass the file "
                f"`deckcheck sync` made (--db or ${ENV_DB}), or give a new path "
                f"and {_SYNC_HINT}"
            )
        if (
            ("unable to open" in detail or "readonly" in detail)
            and path.exists()
            and not os.access(path.parent, os.W_OK)
        ):
            # A WAL database (what the sync writes) is read through a shared-memory file SQLite
            # makes beside it. On a read-only file system it is opened immutable instead
            # (`location.read_only_uri`), unless a -wal file beside it holds changes; a
            # directory this user cannot write to may be written by a sync meanwhile.
            wal = Path(f"{path}-wal")
            why = (
                f"a -wal file beside it ({wal.name}) holds changes not yet in the file: copy "
                "the database again when no process has it open (SQLite then folds the -wal "
                "in and removes it), or copy it with its -wal to a writable directory"
                if wal.exists() and wal.stat().st_size
                else "SQLite needs to write a -shm file beside a synced (WAL) database; copy the "
                "file to a writable directory, make this one writable, or put it on a "
                "read-only file system (read as is)"
            )
            return DatabaseError(
                f"cannot open the card database {where} ({detail}): its "
                f"directory {path.parent} is read-only, and {why}"
            )
    if "no such table" in detail or ("relation" in detail and "does not exist" in detail):
        return DatabaseError(
            f"{where} is not a deckcheck card database ({detail}); {_SYNC_HINT}, "
            "or pass the right --db"
        )
    return DatabaseError(
        f"cannot open the card database {where} ({detail}); check --db "
        f"(or ${ENV_DB}) and that the database is reachable"
    )


# The tables are SQLAlchemy Core `Table`s, each named by a small class (`CardRow.__table__`,
# `MetaRow.value`...): no ORM is used, and not importing it saves every sync and every
# SQLAlchemy reader a tenth of a second.


class Base:
    """What the tables belong to: `Base.metadata.create_all(...)`."""

    metadata = MetaData()


class _TableClass(type):
    """The type of the classes that name a table: `__table__` is its Core table and each
    column is an attribute (set by `_table`), which the type checker learns from here."""

    __table__: Table
    __tablename__: str

    def __getattr__(cls, name: str) -> Column[Any]:
        raise AttributeError(f"{cls.__name__} has no column {name!r}")


def _table(cls: _TableClass, *columns: Any, **kwargs: Any) -> _TableClass:
    """Define table `cls.__tablename__` with `columns`: `cls.__table__` is the Core table and
    each column is also an attribute of `cls` (`MetaRow.value`)."""
    cls.__table__ = Table(cls.__tablename__, Base.metadata, *columns, **kwargs)
    for column in cls.__table__.columns:
        setattr(cls, column.name, column)
    return cls


class LegalitySetRow(metaclass=_TableClass):
    """One distinct set of legalities: a card's statuses other than `not_legal` as a JSON
    object (`compact.legality_text`). 34,000 cards hold about 200 distinct ones, so a card
    refers to its set instead of holding a row per format; a format listed in `meta.formats`
    that a card's set does not name means not legal there."""

    __tablename__ = "legality_sets"


_table(
    LegalitySetRow,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("statuses", Text, nullable=False),
)


class CardRow(metaclass=_TableClass):
    """One oracle card: every fact of `model.Card` (CR citations live in `cardfacts`) but its
    oracle id, name and legalities in the compact encoding of `compact` (`data`), the one copy
    every reader decodes (`CardDB`, `store_sqlite`, `CardIndex`). `name` and `is_deck_card`
    are columns too: lookups filter on them and suggestions read the names."""

    __tablename__ = "cards"


_table(
    CardRow,
    Column("oracle_id", String(36), primary_key=True),
    Column("name", String(300), nullable=False),
    Column("is_deck_card", Boolean, nullable=False),
    Column("legalities", Integer, ForeignKey("legality_sets.id"), nullable=False),
    Column("data", LargeBinary, nullable=False),
)


class NameRow(metaclass=_TableClass):
    """Folded names a decklist may use: full name, face names, printed and flavor names."""

    __tablename__ = "card_names"


_table(
    NameRow,
    Column("folded", String(300), primary_key=True),
    Column(
        "oracle_id", String(36), ForeignKey("cards.oracle_id", ondelete="CASCADE"), primary_key=True
    ),
    Column("kind", String(10), nullable=False),
    # SQLite: the rows live in the primary key's b-tree (no rowid table beside it): a third
    # less to write at sync time, and a name look-up reads one b-tree.
    sqlite_with_rowid=False,
)


class PrintingRow(metaclass=_TableClass):
    """A printing (from `default_cards`): set + collector number -> oracle card."""

    __tablename__ = "printings"


_table(
    PrintingRow,
    Column("set_code", String(10), primary_key=True),
    Column("collector_number", String(20), primary_key=True),
    Column("oracle_id", String(36), nullable=False, index=True),
    Column("rarity", String(20), nullable=False),
    Column("printed_name", String(300), nullable=True),
    Column("flavor_name", String(300), nullable=True),
)


class PrintedNameCardRow(metaclass=_TableClass):
    """The cards the printed names belong to, each by a number of this sync's: a printed-name
    row holds the number, not the 36-character oracle id (a third of the row, written and
    stored 200,000 times for ten languages)."""

    __tablename__ = "printed_name_cards"


_table(
    PrintedNameCardRow,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("oracle_id", String(36), nullable=False),
)


class PrintedNameRow(metaclass=_TableClass):
    """The names a card is printed under in other languages, and English printings' printed and
    flavor names (`deckcheck sync --languages`, from Scryfall's all_cards): per card, language
    and name, the whole card's printed name (`part` 0) and each face's (`part` 1, 2...).
    `card` is a `printed_name_cards` number; `name` is NULL when the name as printed is its
    folded form (a third of the rows: the Japanese, Chinese and Korean names folding leaves
    as they are). No foreign key to `cards`: an oracle-cards sync rewrites changed cards
    without touching these rows, and readers join them with the cards they hold
    (`rows.ALL_PRINTED_NAMES`)."""

    __tablename__ = "printed_names"


_table(
    PrintedNameRow,
    Column("folded", String(300), primary_key=True),  # cards.printed.fold_printed
    Column("card", Integer, primary_key=True),  # printed_name_cards.id
    Column("lang", String(5), primary_key=True),
    Column("part", Integer, primary_key=True),
    Column("name", String(300), nullable=True),  # as printed; NULL: as `folded`
    sqlite_with_rowid=False,
)


class SyncRun(metaclass=_TableClass):
    """One completed sync: where the data came from and what it held."""

    __tablename__ = "sync_runs"


_table(
    SyncRun,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("bulk_type", String(40), nullable=False),
    Column("source_uri", Text, nullable=False),
    Column("updated_at", String(40), nullable=True),
    Column("finished_at", DateTime(timezone=True), nullable=False),
    Column("card_count", Integer, nullable=False),
    Column("duration_s", Float, nullable=False),
    Column("sha256", String(64), nullable=True),
    Column("size_bytes", Integer, nullable=True),
)


class LegalityChange(metaclass=_TableClass):
    """A card's legality in a format changed between two syncs."""

    __tablename__ = "legality_changes"


_table(
    LegalityChange,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("sync_id", Integer, nullable=False, index=True),
    Column("changed_at", DateTime(timezone=True), nullable=False),
    Column("oracle_id", String(36), nullable=False),
    Column("name", String(300), nullable=False),
    Column("format", String(40), nullable=False),
    Column("old_status", String(20), nullable=True),
    Column("new_status", String(20), nullable=True),
)


class MetaRow(metaclass=_TableClass):
    __tablename__ = "meta"


_table(MetaRow, Column("key", String(40), primary_key=True), Column("value", Text, nullable=False))


#: SQLite checks card_names on every delete from cards (foreign key): without an index on the
#: child column each check scans the whole name table, and a re-sync takes minutes.
Index("ix_card_names_oracle_id", NameRow.__table__.c.oracle_id)


# ---------------------------------------------------------------------------- where it lives

# default_db_path() and database_url() live in `location` (no SQLAlchemy there).


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # Connection settings only: the journal mode is the file's, set by the sync that writes it
    # (`make_write_engine`), so reading a file never changes it.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def make_engine(url: str, *, create_dirs: bool = False, read_only_uri: str | None = None) -> Engine:
    """The engine for `url`; with `read_only_uri` (`location.read_only_uri`), a SQLite file on
    a read-only file system, opened through that URI."""
    if url.startswith("sqlite:///") and create_dirs:
        Path(url[len("sqlite:///") :]).parent.mkdir(parents=True, exist_ok=True)
    options: dict[str, Any] = {}
    if read_only_uri is not None:
        options["creator"] = lambda: sqlite3.connect(
            read_only_uri, uri=True, check_same_thread=False
        )
    try:
        engine = create_engine(url, **options)
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
    version: str | None = None
    try:
        with engine.connect() as conn:
            found: Any = None
            schema = inspect(conn)
            if schema.has_table(CardRow.__tablename__):
                found = conn.execute(select(CardRow.__table__.c.oracle_id).limit(1)).first()
                if found is not None and schema.has_table(MetaRow.__tablename__):
                    version = conn.execute(
                        select(MetaRow.value).where(MetaRow.key == "schema_version")
                    ).scalar()
            elif schema.get_table_names():
                return  # someone else's database: CardDB.check says so
    except (SQLAlchemyError, sqlite3.Error, OSError) as exc:
        raise database_error(url, exc) from exc
    if found is None:
        raise DatabaseError(
            f"no card data in {shown_location(url)}: run `deckcheck sync` "
            "(or `deckcheck sync --from FILE` with a Scryfall bulk file)"
        )
    if version is not None:  # written by a deckcheck with another card table layout?
        check_schema_version(version, shown_location(url))


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
            # WAL (kept by the file): a validation running during a sync keeps reading the
            # last committed database.
            dbapi_connection.execute("PRAGMA journal_mode=WAL")
            # For the import only (this engine's connections): a bigger page cache and
            # in-memory temp storage. Atomicity is untouched: one transaction, still WAL.
            # 16 MiB: measured as fast as 64 MiB for a full sync, with 50 MB less resident
            # memory (the sync's processes together stay under 200 MB).
            dbapi_connection.execute("PRAGMA cache_size=-16384")  # 16 MiB
            dbapi_connection.execute("PRAGMA temp_store=MEMORY")

        def begin(conn: Connection) -> None:
            conn.exec_driver_sql("BEGIN IMMEDIATE")

        event.listen(engine, "connect", connect)
        event.listen(engine, "begin", begin)
    return engine


def sync_lock(
    conn: Connection,
    timeout: float,
    *,
    poll: float = 0.2,
    key: int = SYNC_LOCK_KEY,
    what: str = "sync",
) -> None:
    """Take the sync lock for the caller's transaction, waiting at most `timeout` seconds.

    PostgreSQL: a transaction-level advisory lock (released at commit or rollback, and when the
    session dies). SQLite: BEGIN IMMEDIATE already holds the write lock. Other databases: no
    lock (their row locks still keep one import's writes whole). `key` and `what` name another
    lock of the same kind (`deckcheck recheck` serialises its runs with its own)."""
    import time

    if conn.dialect.name != "postgresql":
        return
    deadline = time.monotonic() + timeout
    while not conn.exec_driver_sql(f"SELECT pg_try_advisory_xact_lock({int(key)})").scalar():
        if time.monotonic() >= deadline:
            raise LockTimeout(
                f"another {what} is running on "
                f"{shown_location(conn.engine.url.render_as_string(hide_password=False))} "
                f"(waited {timeout:g} s)"
            )
        time.sleep(poll)


# ---------------------------------------------------------------------------- rows <-> cards


def _legality_sets(conn: Connection, ids: Iterable[int]) -> dict[int, dict[str, str]]:
    """id -> statuses of the legality sets `ids`, each parsed once."""
    sets: dict[int, dict[str, str]] = {}
    for chunk in sql.chunks(sorted(set(ids))):
        for i, statuses in conn.execute(
            text(sql.legality_sets_by_id(len(chunk))), sql.params(chunk)
        ):
            sets[i] = json.loads(statuses)
    return sets


def _decode_rows(conn: Connection, rows: Sequence[Any]) -> list[Card]:
    """`Card`s of compact rows, their legality sets read here (`rows.decode_rows`)."""
    return sql.decode_rows(rows, _legality_sets(conn, (r[2] for r in rows)))


def check_schema_version(found: str, where: str) -> None:
    """Raise DatabaseError unless `found` (meta `schema_version`) is the one this deckcheck
    reads: an older database is upgraded by a sync, a newer one needs a newer deckcheck."""
    if found.strip().isdigit() and int(found) == SCHEMA_VERSION:
        return
    if found.strip().isdigit() and int(found) < SCHEMA_VERSION:
        raise DatabaseError(
            f"{where} was written by an older deckcheck (card database schema version "
            f"{found}, this deckcheck reads {SCHEMA_VERSION}): run `deckcheck sync` (or "
            "`deckcheck sync --from FILE`) to upgrade it"
        )
    raise DatabaseError(
        f"{where} has card database schema version {found}, this deckcheck reads "
        f"{SCHEMA_VERSION}: use the deckcheck that wrote it, or sync into a new --db path"
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
    #: Printed names by language (`sync --languages`): empty when none were synced.
    printed_names: dict[str, int] = field(default_factory=dict)


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
            file = sqlite_file(self.url)
            engine = make_engine(
                self.url, read_only_uri=read_only_uri(file) if file is not None else None
            )
        self.engine = engine
        self._all_names: list[str] | None = None
        self._printed_pairs: list[tuple[str, str, str]] | None = None

    @property
    def database(self) -> CardDB:
        """The database itself (`CardSource.database`): its sync record and change log."""
        return self

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> CardDB:
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

    @contextmanager
    def _snapshot(self) -> Iterator[Connection]:
        """A connection whose statements all read one snapshot (a sync committing meanwhile
        is seen wholly or not at all).

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
        rows: list[Any] = []
        for chunk in sql.chunks(ids):
            rows.extend(conn.execute(text(sql.cards_by_id(len(chunk))), sql.params(chunk)))
        return {card.oracle_id: card for card in _decode_rows(conn, rows)}

    def lookup(
        self, names: Iterable[str], *, deck_cards_only: bool = True
    ) -> dict[str, list[Card]]:
        """Cards for each name (folded), in one query for the whole deck. A name may match
        more than one card (a face name shared by two cards); the caller decides."""
        return self.lookup_folded({lookup_key(n) for n in names}, deck_cards_only=deck_cards_only)

    def lookup_folded(
        self, folded: Iterable[str], *, deck_cards_only: bool = True
    ) -> dict[str, list[Card]]:
        """`lookup` for names already folded (`names.fold_name`). Names and cards are read in
        one snapshot."""
        hits: dict[str, list[str]] = {}
        with self._snapshot() as conn:
            for chunk in sql.chunks(sorted(set(folded))):
                query = text(sql.names_matching(len(chunk), deck_cards_only=deck_cards_only))
                for f, oid in conn.execute(query, sql.params(chunk)):
                    hits.setdefault(f, []).append(oid)
            cards = self._cards(conn, (o for ids in hits.values() for o in ids))
        return {f: [cards[o] for o in ids if o in cards] for f, ids in hits.items()}

    def card_by_id(self, oracle_id: str) -> Card | None:
        with self._snapshot() as conn:
            return self._cards(conn, [oracle_id]).get(oracle_id)

    def card(self, name: str) -> Card | None:
        """The card a decklist line `name` means; failing that, a non-deck object (a token,
        an art card) of that name, for `deckcheck card`."""
        from validator.store.source import choose

        folded = lookup_key(name)
        for deck_cards_only in (True, False):
            found = choose(
                folded, self.lookup([name], deck_cards_only=deck_cards_only).get(folded, [])
            )
            if found:
                return found[0]
        return None

    def all_cards(self) -> Iterator[tuple[list[str], Card]]:
        """Every deck card with its folded names, for a warm in-memory index (one snapshot)."""
        with self._snapshot() as conn:
            cards = _all_cards(conn)
        yield from cards

    def index_data(self) -> IndexData:
        """What `CardIndex` is built from: every deck card's compact row (its legality set's
        text in place of the set's id) and the name table, with the sync they belong to, all
        in one snapshot (see `compact.IndexData`)."""
        with self._snapshot() as conn:
            stamp = sql.sync_stamp(conn.execute(text(sql.LAST_SYNC)).first())
            texts = {i: t for i, t in conn.execute(text(sql.ALL_LEGALITY_SETS))}
            rows = sql.index_rows(conn.execute(text(sql.DECK_CARDS)), texts)
            names = [tuple(r) for r in conn.execute(text(sql.ALL_NAMES))]
        return IndexData(sync=stamp, rows=rows, names=names)

    def _has_printed_names(self, conn: Connection) -> bool:
        # A database an older deckcheck synced has neither table, or printed names by oracle
        # id alone, until its next sync.
        return set(inspect(conn).get_table_names()).issuperset(sql.PRINTED_NAME_TABLES)

    def lookup_printed(self, folded: Iterable[str]) -> dict[str, list[tuple[str, str, str, int]]]:
        """The printed names (folded by `printed.fold_printed`) of deck cards: folded ->
        [(oracle_id, lang, name, part)]."""
        rows: list[Any] = []
        with self._snapshot() as conn:
            if not self._has_printed_names(conn):
                return {}
            for chunk in sql.chunks(sorted(set(folded))):
                rows += conn.execute(
                    text(sql.printed_names_matching(len(chunk))), sql.params(chunk)
                )
        return sql.printed_hits(rows)

    def printed_name_rows(self) -> list[tuple[str, str, str, int, str]]:
        """Every printed name of a card the database holds, as (folded, oracle_id, lang, part,
        name): the whole table at once, to compare two databases' names (the readers of a
        list ask `lookup_printed` for the names it holds)."""
        with self._snapshot() as conn:
            if not self._has_printed_names(conn):
                return []
            return [tuple(r) for r in conn.execute(text(sql.ALL_PRINTED_NAMES))]

    def all_printed_names(self) -> list[tuple[str, str, str]]:
        """(printed name, Oracle name, lang) of every deck card's printed names (suggestions)."""
        if self._printed_pairs is None:
            with self._snapshot() as conn:
                self._printed_pairs = (
                    sql.printed_name_pairs(
                        conn.execute(text(sql.PRINTED_NAME_CARDS)),
                        conn.execute(text(sql.PRINTED_NAMES_IN_ORDER)),
                    )
                    if self._has_printed_names(conn)
                    else []
                )
        return self._printed_pairs

    def printed_names_of(self, oracle_id: str) -> list[tuple[str, int, str]]:
        """(lang, part, name) of a card's printed names."""
        with self._snapshot() as conn:
            if not self._has_printed_names(conn):
                return []
            return [tuple(r) for r in conn.execute(text(sql.PRINTED_NAMES_OF), {"p0": oracle_id})]

    def all_names(self) -> list[str]:
        """Every deck card's Oracle name (for "did you mean" suggestions)."""
        if self._all_names is None:
            with self._connect() as conn:
                self._all_names = [r[0] for r in conn.execute(text(sql.DECK_CARD_NAMES))]
        return self._all_names

    def printing(self, set_code: str, collector_number: str) -> tuple[str, str] | None:
        """(oracle_id, rarity) of a printing, when printings were synced."""
        t = PrintingRow.__table__
        with self._connect() as conn:
            row = conn.execute(
                select(t.c.oracle_id, t.c.rarity).where(
                    t.c.set_code == set_code.lower(), t.c.collector_number == collector_number
                )
            ).first()
        return (row[0], row[1]) if row else None

    def rarities(self, oracle_id: str) -> set[str] | None:
        """Rarities the card was printed at; None when printings were never synced."""
        t = PrintingRow.__table__
        with self._snapshot() as conn:  # "none synced" and the rarities from one snapshot
            if conn.execute(select(t.c.set_code).limit(1)).first() is None:
                return None
            return {
                r[0] for r in conn.execute(select(t.c.rarity).where(t.c.oracle_id == oracle_id))
            }

    def printed_sets(self, oracle_ids: Iterable[str]) -> dict[str, set[str]] | None:
        """The set codes each card was printed in; None when printings were never synced."""
        t = PrintingRow.__table__
        wanted = list(dict.fromkeys(oracle_ids))
        with self._snapshot() as conn:  # "none synced" and the sets from one snapshot
            if conn.execute(select(t.c.set_code).limit(1)).first() is None:
                return None
            found: dict[str, set[str]] = {oid: set() for oid in wanted}
            for part in sql.chunks(wanted):  # under SQLite's bound-variable limit
                rows = conn.execute(
                    select(t.c.oracle_id, t.c.set_code).where(t.c.oracle_id.in_(part))
                )
                for oid, code in rows:
                    found[oid].add(code)
            return found

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

            def count(model: _TableClass) -> int:
                return conn.execute(select(func.count()).select_from(model.__table__)).scalar_one()

            try:
                last = conn.execute(select(SyncRun.__table__).order_by(SyncRun.id.desc())).first()
                formats = sorted(known_formats(conn))
                return DbInfo(
                    self.url,
                    count(CardRow),
                    count(NameRow),
                    count(PrintingRow),
                    formats,
                    dict(last._mapping) if last else None,
                    {lang: n for lang, n in conn.execute(text(sql.PRINTED_NAMES_BY_LANGUAGE))}
                    if self._has_printed_names(conn)
                    else {},
                )
            except Exception as exc:  # noqa: BLE001 - tables missing or not ours: not our database
                raise database_error(self.url, exc) from exc

    def last_sync(self, bulk_type: str) -> dict[str, Any] | None:
        return self._sync_run(bulk_type, SyncRun.id.desc())

    def first_sync(self, bulk_type: str) -> dict[str, Any] | None:
        """The first sync of `bulk_type`: the database's change log covers the time since."""
        return self._sync_run(bulk_type, SyncRun.id.asc())

    def syncs(self, bulk_type: str) -> list[dict[str, Any]]:
        """Every sync of `bulk_type`, oldest first (the change log's `sync_id`s)."""
        with self._connect() as conn:
            return [
                dict(r._mapping)
                for r in conn.execute(self._sync_query(bulk_type, SyncRun.id.asc()))
            ]

    def _sync_run(self, bulk_type: str, order: Any) -> dict[str, Any] | None:
        with self._connect() as conn:
            row = conn.execute(self._sync_query(bulk_type, order)).first()
        return dict(row._mapping) if row else None

    @staticmethod
    def _sync_query(bulk_type: str, order: Any) -> Any:
        return select(SyncRun.__table__).where(SyncRun.bulk_type == bulk_type).order_by(order)

    def changes(self, limit: int | None = None) -> list[dict[str, Any]]:
        t = LegalityChange.__table__
        q = select(t).order_by(t.c.id.desc())
        if limit:
            q = q.limit(limit)
        with self._connect() as conn:
            return [dict(r._mapping) for r in conn.execute(q)]


def _all_cards(conn: Connection) -> list[tuple[list[str], Card]]:
    """Every deck card with its folded names (within the caller's snapshot)."""
    names: dict[str, list[str]] = {}
    for folded, oid in conn.execute(text(sql.ALL_NAMES)):
        names.setdefault(oid, []).append(folded)
    rows = conn.execute(text(sql.DECK_CARDS)).all()
    return [(names.get(card.oracle_id, []), card) for card in _decode_rows(conn, rows)]


# ---------------------------------------------------------------------------- writing


def create_schema(bind: Engine | Connection) -> bool:
    """Create the tables. Given a connection, inside its transaction: a sync creates the schema
    in its import transaction, so a first sync that fails or is killed leaves no empty schema;
    there a database of an older schema version is also upgraded (`_migrate_from_v1`), while
    given an engine it is refused with what to do. True when it upgraded: the card rows then
    hold no card data until the transaction writes the cards again."""
    Base.metadata.create_all(bind)
    # create_all adds indexes only with new tables: add those a newer deckcheck defines to an
    # existing database too (indexes only; the schema version stays).
    for table in Base.metadata.sorted_tables:
        for index in table.indexes:
            index.create(bind, checkfirst=True)
    if isinstance(bind, Connection):
        _number_printed_name_cards(bind)
        return _upgrade_and_check(bind, migrate=True)
    with bind.begin() as conn:
        return _upgrade_and_check(conn, migrate=False)


def _upgrade_and_check(conn: Connection, *, migrate: bool) -> bool:
    found = conn.execute(select(MetaRow.value).where(MetaRow.key == "schema_version")).first()
    if found is None:
        conn.execute(
            insert(MetaRow.__table__), [{"key": "schema_version", "value": str(SCHEMA_VERSION)}]
        )
    elif found[0] != str(SCHEMA_VERSION):
        if found[0] == "1" and migrate:
            _migrate_from_v1(conn)
            return True
        check_schema_version(found[0], "the database")  # the readers' words for it
    return False


def _number_printed_name_cards(conn: Connection) -> None:
    """Printed names an older deckcheck stored by oracle id (without `printed_name_cards`,
    which readers then ask for and do not find) get their cards numbered, in the sync's
    transaction: the names stay until the next `--languages` sync replaces them."""
    columns = {c["name"] for c in inspect(conn).get_columns(PrintedNameRow.__tablename__)}
    if "oracle_id" not in columns:
        return
    names, cards = PrintedNameRow.__table__, PrintedNameCardRow.__table__
    conn.exec_driver_sql(
        "CREATE TEMPORARY TABLE printed_names_by_oracle_id AS SELECT * FROM printed_names"
    )
    names.drop(conn)
    names.create(conn)
    conn.execute(delete(cards))
    conn.exec_driver_sql(
        "INSERT INTO printed_name_cards (id, oracle_id) "
        "SELECT row_number() OVER (ORDER BY oracle_id), oracle_id "
        "FROM (SELECT DISTINCT oracle_id FROM printed_names_by_oracle_id) AS ids"
    )
    conn.exec_driver_sql(
        "INSERT INTO printed_names (folded, card, lang, part, name) "
        "SELECT old.folded, printed_name_cards.id, old.lang, old.part, "
        "NULLIF(old.name, old.folded) FROM printed_names_by_oracle_id AS old "
        "JOIN printed_name_cards ON printed_name_cards.oracle_id = old.oracle_id"
    )
    conn.exec_driver_sql("DROP TABLE printed_names_by_oracle_id")


#: Version 1's card tables, children first (foreign keys), and version 2's legality sets (the
#: sync's `create_all` has just made the table; it is made again, empty, with the others).
_V1_CARD_TABLES = ("card_index", "legalities", "card_names", "cards", "legality_sets")


def _migrate_from_v1(conn: Connection) -> None:
    """Schema version 1 -> 2, inside the sync's transaction (a failed or killed sync leaves
    version 1 as it was). The card tables are rebuilt: each old card keeps its name and its
    legalities, as a row with empty `data` that the sync then rewrites, so the legality change
    log still records what changed since the last sync; names and facts come from the new file.
    Printings, sync runs and the change log are kept as they are."""
    schema = inspect(conn)
    statuses: dict[str, dict[str, str]] = {}
    if schema.has_table("legalities"):
        for oid, fmt, status in conn.exec_driver_sql(
            "SELECT oracle_id, format, status FROM legalities"
        ):
            statuses.setdefault(oid, {})[fmt] = status
    # The last sync's legality keys, which the change log compares against: version 1 kept
    # them in `meta.formats` too, but a database without that row had them only as the
    # legalities rows, which are dropped below.
    if not known_formats(conn) and statuses:
        _set_meta(conn, "formats", json.dumps(sorted({f for s in statuses.values() for f in s})))
    old = conn.exec_driver_sql("SELECT oracle_id, name, is_deck_card FROM cards").all()
    for table in _V1_CARD_TABLES:
        if schema.has_table(table):
            conn.exec_driver_sql(f"DROP TABLE {table}")
    Base.metadata.create_all(conn)
    set_ids: dict[str, int] = {}
    card_rows = []
    for oid, name, deck in old:
        legal = legality_text(statuses.get(oid, {}))
        if legal not in set_ids:
            set_ids[legal] = len(set_ids) + 1
        card_rows.append(
            {
                "oracle_id": oid,
                "name": name,
                "is_deck_card": bool(deck),
                "legalities": set_ids[legal],
                "data": b"",
            }
        )
    if set_ids:
        conn.execute(
            insert(LegalitySetRow.__table__), [{"id": i, "statuses": t} for t, i in set_ids.items()]
        )
    for i in range(0, len(card_rows), 5000):
        conn.execute(insert(CardRow.__table__), card_rows[i : i + 5000])
    _set_meta(conn, "schema_version", str(SCHEMA_VERSION))


@dataclass
class WriteResult:
    card_count: int
    changes: list[dict[str, Any]]


@dataclass
class CardBatch:
    """One batch of cards as the rows to insert: pure data, so it can be built in another
    process (a full sync reads and computes facts in one process while this one writes)."""

    ids: list[str]
    #: (oracle_id, name, is_deck_card, legality text, data) of every card: its `cards` row
    #: with the text of its legality set (`compact.legality_text`: its statuses other than
    #: not_legal) in place of the set's id, which only the writing process knows.
    card_rows: list[tuple[str, str, bool, str, bytes]]
    name_rows: list[tuple[str, str, str]]
    #: The legality keys (not_legal included) of the legalities mappings this batch met
    #: first (a mapping shared with an earlier batch adds none): the writer takes the union.
    formats: set[str]
    #: Each card's legalities (not_legal included), in `card_rows` order: only when the
    #: database had cards before (the change log). Equal ones are one mapping, sent once.
    legalities: list[Any] | None = None


def card_batches(
    cards: Iterable[Card], *, for_changes: bool, batch_size: int = 2000
) -> Iterator[CardBatch]:
    """Group cards into `CardBatch`es, each oracle card once.

    Each card's facts are encoded once (`compact.encode_card`): that blob is the card's one
    stored copy. A reversible card shares its oracle id with its side card ("Okaun // Okaun"
    and "Okaun"); the side card's own object describes it best, so reversible objects wait
    until the end and only fill in oracle ids no other object had (there are a few dozen).
    """
    seen: set[str] = set()
    reversible: dict[str, Card] = {}
    batch: list[Card] = []
    #: The legality text of each distinct legalities mapping (a few hundred among 35,000
    #: cards): by the mapping's identity (`cardfacts` shares equal ones; the mapping is kept,
    #: so its id is never reused), else by its items.
    by_id: dict[int, tuple[Any, str]] = {}
    texts: dict[tuple[tuple[str, str], ...], str] = {}

    def legality(legal: Any, formats: set[str]) -> str:
        known = by_id.get(id(legal))
        if known is not None and known[0] is legal:
            return known[1]
        key = tuple(legal.items())
        text = texts.get(key)
        if text is None:
            text = texts[key] = legality_text(dict(legal))
        formats.update(legal)
        if len(by_id) < 1 << 12:
            by_id[id(legal)] = (legal, text)
        return text

    def build() -> CardBatch:
        formats: set[str] = set()
        card_rows = []
        name_rows = []
        for c in batch:
            oid = c.oracle_id
            card_rows.append(
                (oid, c.name, c.is_deck_card, legality(c.legalities, formats), encode_card(c))
            )
            name_rows.extend([(folded, oid, kind) for folded, kind in lookup_names(c)])
        return CardBatch(
            ids=[c.oracle_id for c in batch],
            card_rows=card_rows,
            name_rows=name_rows,
            formats=formats,
            legalities=[c.legalities for c in batch] if for_changes else None,
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


#: (attribute, max length or None, nullable) of every text fact of a card: what the columns
#: of schema version 1 held (PostgreSQL refused longer values); kept as the limits of sane
#: card data.
_TEXT_COLUMNS = [
    ("oracle_id", 36, False),
    ("name", 300, False),
    ("layout", 40, False),
    ("mana_cost", 200, False),
    ("type_line", 300, False),
    ("color_identity", 5, False),
    ("partner", 60, True),
    ("partner_with", 300, True),
]
_TEXT_VALUES = operator.attrgetter(*(c for c, _, _ in _TEXT_COLUMNS))
# The change log's columns hold a format key and a status (PostgreSQL refuses longer values).
_FORMAT_MAX = LegalityChange.__table__.c.format.type.length  # type: ignore[attr-defined]  # a String column
_STATUS_MAX = LegalityChange.__table__.c.old_status.type.length  # type: ignore[attr-defined]  # a String column
_NAME_MAX = NameRow.__table__.c.folded.type.length  # type: ignore[attr-defined]  # a String column


def card_problem(card: Card, checked: dict[int, Any] | None = None) -> str | None:
    """Why `card` cannot be stored, or None: a text field that is not text, holds a NUL
    (PostgreSQL text cannot) or is longer than its column (PostgreSQL refuses with "value too
    long", SQLite would store it). Checked before writing, on every database alike, so the sync
    can name the card and the line of the file.

    `checked`: legalities mappings already found storable, by id (each kept alive there, so
    no id is reused), for a caller whose cards share a few hundred mappings that nobody
    changes meanwhile (a sync: `cardfacts` hands equal legalities out as one mapping)."""
    values = _TEXT_VALUES(card)
    if not _texts_fine(values):
        problem = _text_problem(values)
        if problem:
            return problem
    faces = card.faces
    if len(faces) == 1 and faces[0].name is card.name:
        pass  # the common one-face card: its face name is the card's name, checked above
    else:
        for face in faces:
            if type(face.name) is not str:
                return f"a face name is {type(face.name).__name__}, not text"
            if len(face.name) > _NAME_MAX:
                return f"face name is {len(face.name)} characters long; at most {_NAME_MAX} fit"
    legalities = card.legalities
    if checked is not None and checked.get(id(legalities)) is legalities:
        return None
    try:
        # A sync sees a few dozen distinct (format, status) pairs in 240,000: each is checked
        # once (a set test in C per card instead of six tests per pair).
        if _CHECKED_LEGALITIES.issuperset(legalities.items()):
            if checked is not None and len(checked) < 1 << 12:
                checked[id(legalities)] = legalities
            return None
    except TypeError:  # an unhashable status: the checks below name it
        pass
    for fmt, status in legalities.items():
        if type(fmt) is not str or len(fmt) > _FORMAT_MAX or "\x00" in fmt:
            return f"legality key {fmt!r} is not a format name (text, at most {_FORMAT_MAX} characters)"
        if type(status) is not str or len(status) > _STATUS_MAX or "\x00" in status:
            return (
                f"legality of {fmt} is {status!r}, not a status "
                f"(text, at most {_STATUS_MAX} characters)"
            )
        _CHECKED_LEGALITIES.add((fmt, status))
    return None


def _texts_fine(values: tuple[Any, ...]) -> bool:
    """True when every text fact is text, within its limit and without NUL: the common case,
    in one expression over the values in hand (a sync checks 35,000 cards; else
    `_text_problem` says what is wrong). Spelled out for `_TEXT_COLUMNS`, in its order:
    tests/store/test_db.py tries a bad value of each column on both, so they stay in step."""
    oracle_id, name, layout, mana_cost, type_line, color_identity, partner, partner_with = values
    return (
        type(oracle_id) is str
        and type(name) is str
        and type(layout) is str
        and type(mana_cost) is str
        and type(type_line) is str
        and type(color_identity) is str
        and len(oracle_id) <= 36
        and len(name) <= 300
        and len(layout) <= 40
        and len(mana_cost) <= 200
        and len(type_line) <= 300
        and len(color_identity) <= 5
        and (
            partner is None
            or (type(partner) is str and len(partner) <= 60 and "\x00" not in partner)
        )
        and (
            partner_with is None
            or (
                type(partner_with) is str
                and len(partner_with) <= 300
                and "\x00" not in partner_with
            )
        )
        and "\x00" not in oracle_id
        and "\x00" not in name
        and "\x00" not in layout
        and "\x00" not in mana_cost
        and "\x00" not in type_line
        and "\x00" not in color_identity
    )


def _text_problem(values: tuple[Any, ...]) -> str | None:
    """What is wrong with the text facts `values` (`_TEXT_COLUMNS` order), or None."""
    for (column, limit, nullable), value in zip(_TEXT_COLUMNS, values):
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
    return None


#: (format, status) pairs `card_problem` found storable.
_CHECKED_LEGALITIES: set[tuple[str, str]] = set()


def count_cards(conn: Connection) -> int:
    return conn.execute(select(func.count()).select_from(CardRow.__table__)).scalar_one()


def card_ids(conn: Connection) -> list[str]:
    """The oracle ids of the cards stored (read on the driver's connection on SQLite: through
    SQLAlchemy, each of 35,000 rows costs more than reading it)."""
    return [oid for (oid,) in _RowWriter(conn).select("SELECT oracle_id FROM cards")]


def has_cards(conn: Connection) -> bool:
    t = CardRow.__table__
    return conn.execute(select(t.c.oracle_id).limit(1)).first() is not None


def write_batches(
    conn: Connection, batches: Iterable[CardBatch], *, now: datetime | None = None
) -> WriteResult:
    """Replace the card tables with the cards of `batches` inside the caller's transaction.

    When the database has cards, each batch first reads the old rows of its cards (name,
    legality set, encoded facts): the change log needs the old statuses, and a card whose row
    is the new one (the same name, statuses and bytes) is left as it is. A card's `card_names`
    rows are functions of the facts its row encodes in full (a change to how they are derived
    must bump `compact.ENCODING_VERSION`), so only the cards that changed are deleted and
    written again, and a `--force` re-sync of an unchanged file writes no card at all. Cards
    the new data no longer holds are deleted at the end, and legality sets no card uses any
    more. The caller commits once, so readers see the old or the new database, never a mix,
    and a failure anywhere leaves the old one.

    A legality change is a (card, format) whose status differs from the previous sync's; a
    format key that appears or disappears is a format Scryfall started or stopped listing, not
    a change. On SQLite rows go to the driver's executemany as plain tuples; other databases
    get SQLAlchemy Core's bulk insert.
    """
    now = now or datetime.now(UTC)
    cards_t, names_t, sets_t = CardRow.__table__, NameRow.__table__, LegalitySetRow.__table__
    had_cards = has_cards(conn)
    old_formats = known_formats(conn) if had_cards else set()
    new_formats: set[str] = set()
    rows = _RowWriter(conn)
    seen: set[str] = set()
    changes: list[dict[str, Any]] = []
    names: list[tuple[str, str, str]] = []  # the `card_names` rows to insert
    old_names: dict[str, str] = {}
    if had_cards:
        old_names = dict(rows.select("SELECT oracle_id, name FROM cards"))
    # legality set id -> its text (a few hundred rows)
    set_texts: dict[int, str] = dict(conn.execute(select(sets_t.c.id, sets_t.c.statuses)).all())
    set_ids = {t: i for i, t in set_texts.items()}  # a text held twice: either id serves
    next_set = max(set_texts, default=0) + 1

    def old_rows(ids: list[str]) -> dict[str, tuple[str, str, bytes]]:
        """oracle_id -> (name, legality text, data) as stored, for the `ids` the database
        holds."""
        held = [oid for oid in ids if oid in old_names]
        found: dict[str, tuple[str, str, bytes]] = {}
        for chunk in sql.chunks(held):
            for oid, name, sid, data in rows.select(sql.cards_by_id(len(chunk)), sql.params(chunk)):
                found[oid] = (name, set_texts[sid], bytes(data))
        return found

    def record_changes(
        batch: CardBatch, old: dict[str, tuple[str, str, bytes]], same: set[str]
    ) -> None:
        """The legality changes of the batch's cards; `same`: cards whose row is unchanged."""
        if batch.legalities is None:
            raise ValueError("card batches for a database that has cards need legalities")
        parsed: dict[str, dict[str, str]] = {}
        for (oid, name, _, statuses, _), legalities in zip(batch.card_rows, batch.legalities):
            if oid in same:
                continue  # the same row, so the same statuses
            row = old.get(oid)
            if row is not None:
                if row[1] == statuses:
                    continue  # the same statuses: no format changed
                before_all = parsed.get(row[1])
                if before_all is None:
                    before_all = parsed[row[1]] = json.loads(row[1])
            else:
                before_all = {}  # a new card
            for fmt in sorted(old_formats & legalities.keys()):
                before, after = before_all.get(fmt, "not_legal"), legalities[fmt]
                if after != before:
                    changes.append(
                        {
                            "changed_at": now,
                            "oracle_id": oid,
                            "name": name,
                            "format": fmt,
                            "old_status": before,
                            "new_status": after,
                        }
                    )

    def delete_cards(ids: list[str]) -> None:
        for chunk in sql.chunks(ids):
            for table in (names_t, cards_t):  # children first (foreign keys)
                conn.execute(delete(table).where(table.c.oracle_id.in_(chunk)))

    for batch in batches:
        seen.update(batch.ids)
        new_formats |= batch.formats
        card_rows, name_rows = batch.card_rows, batch.name_rows
        if had_cards:
            old = old_rows(batch.ids)
            same = {r[0] for r in card_rows if old.get(r[0]) == (r[1], r[3], r[4])}
            record_changes(batch, old, same)
            delete_cards([oid for oid in batch.ids if oid in old_names and oid not in same])
            if same:
                card_rows = [r for r in card_rows if r[0] not in same]
                name_rows = [r for r in name_rows if r[1] not in same]
        new_sets = []
        for statuses in {r[3] for r in card_rows} - set_ids.keys():
            set_ids[statuses] = next_set
            new_sets.append((next_set, statuses))
            next_set += 1
        rows.insert(sets_t, new_sets)
        rows.insert(
            cards_t,
            [(oid, name, deck, set_ids[text], data) for oid, name, deck, text, data in card_rows],
        )
        names.extend(name_rows)
    # In key order, after the cards: SQLite appends to the name table's b-tree instead of
    # inserting all over it (the rows live in the primary key's b-tree, see `NameRow`).
    names.sort()
    rows.insert(names_t, names)
    removed = sorted(old_names.keys() - seen)  # cards the new data no longer holds
    delete_cards(removed)
    for oid in removed:
        changes.append(
            {
                "changed_at": now,
                "oracle_id": oid,
                "name": old_names[oid],
                "format": "*",
                "old_status": "removed",
                "new_status": None,
            }
        )
    if set_texts:  # legality sets no card holds any more
        conn.execute(delete(sets_t).where(sets_t.c.id.not_in(select(cards_t.c.legalities))))
    _set_meta(conn, "formats", json.dumps(sorted(new_formats)))
    return WriteResult(card_count=len(seen), changes=changes)


def known_formats(conn: Connection) -> set[str]:
    """The legality keys of the last sync (a key a card's set does not name: not legal there).
    Every sync writes them to `meta`."""
    row = conn.execute(select(MetaRow.value).where(MetaRow.key == "formats")).first()
    return set(json.loads(row[0])) if row is not None else set()


def _set_meta(conn: Connection, key: str, value: str) -> None:
    t = MetaRow.__table__
    conn.execute(delete(t).where(t.c.key == key))
    conn.execute(insert(t), [{"key": key, "value": value}])


class _RowWriter:
    """Inserts rows given as tuples in the table's column order, and reads rows back.

    On SQLite the tuples go straight to the driver's executemany, one call per table and batch,
    and reads run on the driver's connection (the same transaction): SQLAlchemy's per-row
    parameter and result processing costs more than the inserts and reads themselves on a full
    sync. Other databases get dicts through SQLAlchemy Core's bulk insert, and Core selects."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.sqlite = conn.dialect.name == "sqlite"
        #: Whether `insert(or_ignore=True)` can leave out a row whose key is stored.
        self.skips_stored_keys = self.sqlite or conn.dialect.name == "postgresql"

    def select(self, statement: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        """The rows of `statement` (named parameters, as store/rows.py writes them)."""
        if self.sqlite:
            driver = cast(sqlite3.Connection, self.conn.connection.driver_connection)
            return driver.execute(statement, params or {}).fetchall()
        return [tuple(r) for r in self.conn.execute(text(statement), params or {})]

    def insert(
        self,
        table: Any,
        rows: list[tuple[Any, ...]],
        *,
        per_statement: int = 1,
        or_ignore: bool = False,
    ) -> int:
        """`per_statement` > 1: on SQLite, that many rows in each INSERT's VALUES (the driver
        binds and steps a statement per row of executemany: many small rows cost that more
        than the inserts themselves). `or_ignore` (SQLite, PostgreSQL): a row whose key is already
        stored is left out (PostgreSQL: ON CONFLICT DO NOTHING). Returns the count of rows
        written."""
        if not rows:
            return 0
        cols = [c.name for c in table.columns]
        if self.sqlite:
            driver = cast(sqlite3.Connection, self.conn.connection.driver_connection)
            before = driver.total_changes
            one = f"({', '.join('?' * len(cols))})"
            verb = "INSERT OR IGNORE" if or_ignore else "INSERT"
            head = f"{verb} INTO {table.name} ({', '.join(cols)}) VALUES "
            whole = len(rows) - len(rows) % per_statement if per_statement > 1 else 0
            if whole:
                # The values in one list, cut into each statement's (slices of a list cost
                # less than a tuple built from each statement's rows).
                values = list(itertools.chain.from_iterable(rows[:whole]))
                width = per_statement * len(cols)
                driver.executemany(
                    head + ", ".join([one] * per_statement),
                    [values[i : i + width] for i in range(0, len(values), width)],
                )
            if whole < len(rows):
                driver.executemany(head + one, rows[whole:])
            return driver.total_changes - before
        statement = insert(table)
        if or_ignore:
            if not self.skips_stored_keys:
                raise ValueError("or_ignore is for SQLite and PostgreSQL")
            from sqlalchemy.dialects.postgresql import insert as insert_or_skip

            # ON CONFLICT DO NOTHING: a row whose key is stored, or came earlier in the same
            # statement, is left out (the first row of a key is kept, as on SQLite).
            statement = insert_or_skip(table).on_conflict_do_nothing()
        self.conn.execute(statement, [dict(zip(cols, r)) for r in rows])
        return len(rows)


class PrintedNameWriter:
    """Replaces the printed names inside the caller's transaction (the one that writes the
    cards, so a failed sync keeps the previous names), a block of rows at a time as a sync
    reads them: memory holds a block, not every name. Of rows with the same key (all but the
    name) the first is kept; `finish` returns the count of rows written.

    The cards the names may belong to (`cards`, oracle ids) are numbered and written first
    (`printed_name_cards`); a row given to `add` is (folded, the card's number in `numbers`,
    lang, part, the name as printed or None when it is the folded one).

    On SQLite each block goes straight in with INSERT OR IGNORE, and on PostgreSQL with ON
    CONFLICT DO NOTHING: each keeps the first row of each key (the primary key is checked on
    every insert anyway). Rows arrive in the file's order, not the key's: sorting them first
    would mean holding them all (twice the sync's memory on the shared ten-language file), and
    the sorted insert measured about as costly as the sort saved. Other databases, which have
    no portable form of either, get the distinct rows at `finish`."""

    def __init__(self, conn: Connection, cards: Iterable[str]):
        self.table = PrintedNameRow.__table__
        conn.execute(delete(self.table))
        conn.execute(delete(PrintedNameCardRow.__table__))
        self.conn = conn
        self.writer = _RowWriter(conn)
        self.numbers = {oid: number for number, oid in enumerate(cards, 1)}
        self.writer.insert(
            PrintedNameCardRow.__table__,
            [(number, oid) for oid, number in self.numbers.items()],
            per_statement=200,
        )
        self.count = 0
        self.pending: dict[tuple[str, int, str, int], tuple[str, int, str, int, str | None]] = {}

    def add(self, rows: list[tuple[str, int, str, int, str | None]]) -> None:
        if self.writer.sqlite:
            self.count += self.writer.insert(self.table, rows, per_statement=150, or_ignore=True)
        elif self.writer.skips_stored_keys:
            self.writer.insert(self.table, rows, or_ignore=True)
        else:
            keep = self.pending.setdefault
            for row in rows:
                keep(row[:4], row)

    def finish(self) -> int:
        """The count of rows written."""
        if self.pending:
            rows = sorted(self.pending.values())
            self.pending = {}
            for start in range(0, len(rows), 20000):
                self.writer.insert(self.table, rows[start : start + 20000])
            self.count += len(rows)
        elif self.writer.skips_stored_keys and not self.writer.sqlite:
            # The rows the skipped duplicates left: the table was emptied at the start.
            self.count = self.conn.execute(
                select(func.count()).select_from(self.table)
            ).scalar_one()
        return self.count


def write_printings(
    conn: Connection, printings: Iterable[dict[str, Any]], *, batch_size: int = 5000
) -> int:
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
        .where((t.c.printed_name.is_not(None)) | (t.c.flavor_name.is_not(None)))
    ):
        for alias in (printed, flavor):
            for part in (alias or "").split(" // "):
                key = (fold_name(part), oid)
                if part and key not in existing:
                    existing.add(key)
                    rows.append({"folded": key[0], "oracle_id": oid, "kind": "alias"})
    for i in range(0, len(rows), 5000):
        conn.execute(insert(names_t), rows[i : i + 5000])
    return len(rows)
