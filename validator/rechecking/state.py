"""STATE: what deckcheck last concluded about each stored deck, so that a re-check judges only
the decks a change touches.

Per deck: its format (and the format's legality key), the hash of its content, the verdict
with its problems, the cards its names resolved to and the sync it was judged against; an index
from card to decks (`recheck_deck_cards`) makes "the decks holding a changed card" a look-up.
Cards are numbered (`recheck_cards`) so that the index holds two small integers a row: 81,883
decks take about 35 MB.

A SQLite file by default, or tables in any SQLAlchemy database (`--store URL`). Every run is
one transaction holding the write lock from its start (SQLite's BEGIN IMMEDIATE; PostgreSQL an
advisory lock of its own, `database.sync_lock`): a second run waits, and a run killed at any
point leaves STATE as it was. A file that is not deckcheck's, is of a newer schema or is
corrupt is refused before anything is written to it.
"""

from __future__ import annotations

import json
import os
import sqlite3
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from validator.errors import DeckcheckError
from validator.store.rows import chunks  # pieces within one statement's parameter limit

#: The state's schema: what `recheck_meta` says in `schema`, and its version (bumped on an
#: incompatible change; a newer file is refused, never rewritten by older code).
STATE_SCHEMA = "deckcheck.recheck-state"
STATE_VERSION = 1
#: PostgreSQL advisory lock of re-checks ("recheck" in ASCII); syncs use their own.
RECHECK_LOCK_KEY = 0x72656368656B
#: Seconds a run waits for another one on the same STATE before giving up.
DEFAULT_LOCK_TIMEOUT = 600.0
#: `flags` bits: the verdict depends on something a sync can settle (a name that is no card
#: yet); it depends on today's date (a dated ban or points list judged at today's date).
OPEN = 1
DATED = 2
#: The decks judged by a dated list, and those with names a sync may settle: the conditions
#: of STATE's partial indexes and of the queries they serve, spelled the same.
DATED_WHERE = f"(flags & {DATED}) != 0"
OPEN_WHERE = "open_names IS NOT NULL"


class StateError(DeckcheckError):
    """STATE cannot be used: not deckcheck's, of a newer schema, corrupt, or locked too long.
    It is left as it was."""

    code = "recheck-state"


@dataclass(slots=True)
class StoredDeck:
    """One deck's row in STATE (without its problems and cards, read only when needed)."""

    deck_no: int
    format: str
    legality: str
    digest: bytes
    verdict: str
    sync_id: int | None
    judged_on: str
    flags: int
    line_no: int | None = None
    #: Its problems (JSON) and cards (`pack_cards`) as stored, when read with it
    #: (`decks_numbered(..., judging=True)`): the decks about to be judged again.
    problems: str | None = None
    cards: bytes | None = None


@dataclass(slots=True)
class Judgement:
    """A deck's verdict as STATE keeps it."""

    format: str
    legality: str
    digest: bytes
    verdict: str
    problems: list[dict[str, Any]]
    cards: frozenset[str]
    sync_id: int | None
    judged_on: str
    flags: int
    #: The names the card data did not know (OPEN decks): a sync that brings one of them
    #: settles the verdict.
    open_names: tuple[str, ...] = ()


def default_state_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("deckcheck", appauthor=False)) / "recheck.sqlite3"


def _tables() -> Any:
    from sqlalchemy import (
        Column,
        Index,
        Integer,
        LargeBinary,
        MetaData,
        PrimaryKeyConstraint,
        String,
        Table,
        Text,
        text,
    )

    md = MetaData()
    meta = Table(
        "recheck_meta", md, Column("key", String(40), primary_key=True), Column("value", Text)
    )
    decks = Table(
        "recheck_decks",
        md,
        Column("deck_no", Integer, primary_key=True, autoincrement=True),
        Column("id", String(1000), nullable=False, unique=True),
        Column("format", String(60), nullable=False),
        Column("legality", String(40), nullable=False),
        Column("digest", LargeBinary(16), nullable=False),
        Column("verdict", String(20), nullable=False),
        Column("problems", Text, nullable=False),  # JSON: [{code, cards, message}]
        Column("cards", LargeBinary, nullable=False),  # card numbers: pack_cards
        Column("sync_id", Integer, nullable=True),
        Column("judged_on", String(10), nullable=False),
        Column("flags", Integer, nullable=False),
        Column("open_names", Text, nullable=True),  # JSON: the names a sync may settle
        Column("line_no", Integer, nullable=True),  # its line in a JSON Lines DECKS file
    )
    # The few decks every re-check looks for (a dated list, a name a sync may settle), each
    # in an index of only those decks: a look-up, not a scan of 81,883 rows of 46 MB (30 ms
    # of a re-check). The queries spell the same conditions (`stale_dated`, `open_names`).
    for name, where, columns in (
        ("recheck_decks_dated", DATED_WHERE, (decks.c.judged_on, decks.c.deck_no)),
        ("recheck_decks_open", OPEN_WHERE, (decks.c.deck_no,)),
    ):
        Index(name, *columns, sqlite_where=text(where), postgresql_where=text(where))
    cards = Table(
        "recheck_cards",
        md,
        Column("card_no", Integer, primary_key=True, autoincrement=True),
        Column("oracle_id", String(36), nullable=False, unique=True),
    )
    deck_cards = Table(
        "recheck_deck_cards",
        md,
        Column("card_no", Integer, nullable=False),
        Column("deck_no", Integer, nullable=False),
        PrimaryKeyConstraint("card_no", "deck_no"),
        sqlite_with_rowid=False,  # the key is the row: half the size of a rowid table
    )
    return md, meta, decks, cards, deck_cards


def _check_file(path: Path) -> bool:
    """Whether the SQLite file at `path` is a STATE (True) or new (False: absent, empty, or a
    database with no tables); StateError, touching nothing, when it is anything else."""
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        return False
    if not path.is_file():
        raise StateError(f"STATE {path} is not a file: give --store a file path or a URL")
    from urllib.parse import quote

    try:
        conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
        try:
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            if not names:
                return False
            found = (
                dict(conn.execute("SELECT key, value FROM recheck_meta").fetchall())
                if "recheck_meta" in names
                else {}
            )
        finally:
            conn.close()
    except sqlite3.Error as exc:
        raise StateError(
            f"STATE {path} cannot be read ({exc}): it is not a SQLite database or it is "
            "corrupt; it was left untouched (give --store another file, or remove it to "
            "judge every deck again)"
        ) from exc
    _check_meta(found, str(path))
    return True


def _check_meta(found: dict[str, Any], where: str) -> None:
    if found.get("schema") != STATE_SCHEMA:
        raise StateError(
            f"STATE {where} is not a deckcheck re-check state (it has other tables); it was "
            "left untouched: give --store another file"
        )
    try:
        version = int(found.get("version", ""))
    except ValueError:
        version = -1
    if version > STATE_VERSION:
        raise StateError(
            f"STATE {where} is of a newer schema (version {found.get('version')}; this "
            f"deckcheck reads version {STATE_VERSION}); it was left untouched: upgrade deckcheck"
        )
    if version < 1:
        raise StateError(f"STATE {where} has no readable schema version; it was left untouched")


def pack_cards(card_nos: Sequence[int]) -> bytes:
    """A deck's card numbers as stored: a byte giving the width (2 while numbers fit: a deck
    list of 30 cards in 61 bytes, 5 MB less for 81,883 decks), then the numbers."""
    wide = bool(card_nos) and max(card_nos) > 0xFFFF
    return (b"\x04" if wide else b"\x02") + array("I" if wide else "H", card_nos).tobytes()


def unpack_cards(blob: bytes) -> array[int]:
    return array("I" if blob[:1] == b"\x04" else "H", blob[1:])


#: A deck's problems as STATE keeps them: compact JSON (one encoder for every deck: building
#: one per `json.dumps` call with options costs as much as the encoding).
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class StateSession:
    """One run's transaction on STATE (from `open_state`)."""

    def __init__(self, conn: Any, where: str):
        self.conn = conn
        self.where = where
        self._md, self._meta, self._decks, self._cards, self._deck_cards = _TABLES
        self._card_nos: dict[str, int] | None = None

    # ------------------------------------------------------------------ reading

    def meta(self) -> dict[str, str]:
        from sqlalchemy import select

        return {k: v for k, v in self.conn.execute(select(self._meta.c.key, self._meta.c.value))}

    def decks(self) -> dict[str, StoredDeck]:
        """Every stored deck by id (no problems, no cards: those are read when needed)."""
        # Through the driver: SQLAlchemy's row objects cost more than the rest of a run in
        # which nothing changed.
        return self._decks_where("")

    def decks_numbered(
        self, deck_nos: Iterable[int], *, judging: bool = False
    ) -> dict[str, StoredDeck]:
        """The stored decks of these numbers, by id. `judging`: with their problems and cards
        (the decks a re-check judges again: what `compare` and `write` read of them, in the
        same read)."""
        out: dict[str, StoredDeck] = {}
        for chunk in chunks(sorted(set(deck_nos))):
            where = f" WHERE deck_no IN ({', '.join(map(str, chunk))})"
            out.update(self._decks_where(where, judging))
        return out

    def _decks_where(self, where: str, judging: bool = False) -> dict[str, StoredDeck]:
        rows = self._driver_rows(
            "SELECT id, deck_no, format, legality, digest, verdict, sync_id, judged_on, "
            f"flags, line_no{', problems, cards' if judging else ''} FROM recheck_decks" + where
        )
        return {r[0]: StoredDeck(r[1], r[2], r[3], bytes(r[4]), *r[5:]) for r in rows}

    def _driver_rows(self, sql: str) -> list[Any]:
        """The rows of a statement without parameters (numbers are written in it), through
        the driver: SQLAlchemy's row objects cost more than the rest of a small re-check."""
        cursor = self.conn.connection.cursor()
        try:
            cursor.execute(sql)
            return list(cursor.fetchall())
        finally:
            cursor.close()

    def _numbered_rows(self, sql: str, numbers: Iterable[int]) -> Iterator[Any]:
        """`_driver_rows` of `sql` with `{}` replaced by each chunk of these integers."""
        for chunk in chunks(sorted(set(numbers))):
            yield from self._driver_rows(sql.format(", ".join(str(int(n)) for n in chunk)))

    def deck_nos_of(self, ids: Iterable[str]) -> set[int]:
        from sqlalchemy import select

        d = self._decks.c
        out: set[int] = set()
        for chunk in chunks(sorted(set(ids))):
            out.update(self.conn.execute(select(d.deck_no).where(d.id.in_(chunk))).scalars())
        return out

    def stale_dated(self, today: str) -> set[int]:
        """The decks judged by a dated list on another day than `today`."""
        from sqlalchemy import text

        query = text(f"SELECT deck_no FROM recheck_decks WHERE {DATED_WHERE} AND judged_on != :t")
        return set(self.conn.execute(query, {"t": today}).scalars())

    def verdict_counts(self) -> dict[str, dict[str, int]]:
        """The decks per format and verdict."""
        from sqlalchemy import func, select

        d = self._decks.c
        out: dict[str, dict[str, int]] = {}
        query = select(d.format, d.verdict, func.count()).group_by(d.format, d.verdict)
        for fmt, verdict, count in self.conn.execute(query).all():
            out.setdefault(fmt, {})[verdict] = count
        return out

    def renumber(self, line_nos: Sequence[tuple[int, int]]) -> None:
        """(line, deck number): where each of these decks' rows now is in DECKS."""
        self._many("UPDATE recheck_decks SET line_no = ? WHERE deck_no = ?", list(line_nos))

    def problems(self, decks: Iterable[StoredDeck]) -> dict[int, list[dict[str, Any]]]:
        """These decks' stored problems, by deck number (read now for those read without)."""
        out, unread = {}, []
        for deck in decks:
            if deck.problems is None:
                unread.append(deck.deck_no)
            else:
                out[deck.deck_no] = json.loads(deck.problems)
        sql = "SELECT deck_no, problems FROM recheck_decks WHERE deck_no IN ({})"
        out.update((no, json.loads(found)) for no, found in self._numbered_rows(sql, unread))
        return out

    def card_nos(self) -> dict[str, int]:
        if self._card_nos is None:
            self._card_nos = dict(self._driver_rows("SELECT oracle_id, card_no FROM recheck_cards"))
        return self._card_nos

    def decks_with(self, oracle_ids: Iterable[str]) -> dict[str, set[int]]:
        """For each card, the deck numbers of the decks holding it (the index: one look-up)."""
        nos = self.card_nos()
        by_no = {nos[o]: o for o in set(oracle_ids) if o in nos}
        out: dict[str, set[int]] = {o: set() for o in oracle_ids}
        sql = "SELECT card_no, deck_no FROM recheck_deck_cards WHERE card_no IN ({})"
        for card_no, deck_no in self._numbered_rows(sql, by_no):
            out[by_no[card_no]].add(deck_no)
        return out

    # ------------------------------------------------------------------ writing

    def set_meta(self, values: dict[str, str]) -> None:
        from sqlalchemy import delete, insert

        self.conn.execute(delete(self._meta).where(self._meta.c.key.in_(list(values))))
        self.conn.execute(insert(self._meta), [{"key": k, "value": v} for k, v in values.items()])

    def _numbered(self, oracle_ids: Iterable[str]) -> dict[str, int]:
        from sqlalchemy import insert

        nos = self.card_nos()
        new = sorted(set(oracle_ids) - nos.keys())
        if new:
            start = max(nos.values(), default=0) + 1
            numbered = {o: start + i for i, o in enumerate(new)}
            self.conn.execute(
                insert(self._cards), [{"card_no": n, "oracle_id": o} for o, n in numbered.items()]
            )
            nos.update(numbered)
        return nos

    def _many(self, sql: str, rows: list[tuple[Any, ...]]) -> None:
        """One statement over many rows through the driver (`?` placeholders, rewritten to the
        driver's style): SQLAlchemy's per-row parameter processing cost more than the run's
        judging (3.6 s of CPU for 8,000 decks)."""
        if not rows:
            return
        style = self.conn.dialect.paramstyle
        if style in ("format", "pyformat"):
            sql = sql.replace("?", "%s")
        elif style != "qmark":  # named / numeric drivers: SQLAlchemy's own path
            from sqlalchemy import text

            names = [f"p{i}" for i in range(sql.count("?"))]
            for name in names:
                sql = sql.replace("?", f":{name}", 1)
            self.conn.execute(text(sql), [dict(zip(names, r)) for r in rows])
            return
        self.conn.exec_driver_sql(sql, rows)

    def write(
        self,
        judged: dict[str, Judgement],
        stored: dict[str, StoredDeck],
        removed: Sequence[str],
        line_nos: Mapping[str, int | None] | None = None,
    ) -> None:
        """Store the decks judged this run (new ones added, others replaced, their index rows
        with them) and drop the `removed` ones."""
        nos = self._numbered(set().union(*(j.cards for j in judged.values())))
        # The index rows of the decks replaced or dropped, found by their own card list (a
        # delete by deck number alone would scan the whole index: its key is card first).
        # A re-judged deck keeps the rows of the cards it still holds: after a ban it holds
        # the same cards, and its index rows are neither deleted nor written again.
        number = nos.__getitem__
        card_lists = {i: sorted(map(number, j.cards)) for i, j in judged.items()}
        packed = {i: pack_cards(c) for i, c in card_lists.items()}
        # A deck read with its cards (`decks_numbered(judging=True)`) that holds the same ones
        # (a ban changes no deck's cards) keeps its index rows without their being read.
        same = {
            i
            for i in judged
            if (old := stored.get(i)) is not None and old.cards is not None
            and old.cards == packed[i]
        }  # fmt: skip
        gone = [stored[i] for i in removed] + [
            stored[i] for i in judged if i in stored and i not in same
        ]
        held = {  # deck number -> its card numbers as stored
            d.deck_no: set(unpack_cards(d.cards)) for d in gone if d.cards is not None
        }
        held.update(
            (no, set(unpack_cards(bytes(blob))))
            for no, blob in self._numbered_rows(
                "SELECT deck_no, cards FROM recheck_decks WHERE deck_no IN ({})",
                [d.deck_no for d in gone if d.cards is None],
            )
        )
        kept = {stored[i].deck_no: card_lists[i] for i in judged if i in stored}
        old_pairs = [
            (c, no)
            for no, cards in held.items()
            for c in (cards.difference(kept[no]) if no in kept else cards)
        ]
        self._many("DELETE FROM recheck_deck_cards WHERE card_no = ? AND deck_no = ?", old_pairs)
        self._many(
            "DELETE FROM recheck_decks WHERE deck_no = ?",
            [(stored[i].deck_no,) for i in removed],
        )
        next_no = self._max_deck_no() + 1
        rows: list[tuple[Any, ...]] = []
        updates: list[tuple[Any, ...]] = []
        pairs: list[tuple[int, int]] = []
        encode = _ENCODE
        for deck_id, j in judged.items():
            old = stored.get(deck_id)
            if old is not None:
                no = old.deck_no
            else:
                no, next_no = next_no, next_no + 1
            if deck_id not in same:
                before = held.get(no, ()) if old is not None else ()
                pairs.extend((c, no) for c in card_lists[deck_id] if c not in before)
            values = (
                j.format,
                j.legality,
                j.digest,
                j.verdict,
                encode(j.problems),
                packed[deck_id],
                j.sync_id,
                j.judged_on,
                j.flags,
                json.dumps(list(j.open_names), ensure_ascii=False) if j.open_names else None,
                (line_nos or {}).get(deck_id),
            )
            if old is not None:
                updates.append((*values, no))
            else:
                rows.append((no, deck_id, *values))
        columns = (
            "format, legality, digest, verdict, problems, cards, sync_id, judged_on, flags, "
            "open_names, line_no"
        )
        self._many(
            "UPDATE recheck_decks SET "
            + ", ".join(f"{c} = ?" for c in columns.split(", "))
            + " WHERE deck_no = ?",
            updates,
        )
        self._many(
            f"INSERT INTO recheck_decks (deck_no, id, {columns}) VALUES "
            f"({', '.join('?' * (len(columns.split(', ')) + 2))})",
            rows,
        )
        pairs.sort()
        self._many("INSERT INTO recheck_deck_cards (card_no, deck_no) VALUES (?, ?)", pairs)

    def _max_deck_no(self) -> int:
        from sqlalchemy import func, select

        return int(self.conn.execute(select(func.max(self._decks.c.deck_no))).scalar() or 0)

    def open_names(self) -> dict[str, list[str]]:
        """Per deck whose verdict a sync can settle (`OPEN`): the names the card data did not
        know."""
        from sqlalchemy import text

        rows = self.conn.execute(
            text(f"SELECT id, open_names FROM recheck_decks WHERE {OPEN_WHERE}")
        )
        return {i: json.loads(names) for i, names in rows}


_TABLES = _tables()


def state_url(state: str | os.PathLike[str] | None) -> tuple[str, Path | None]:
    """The SQLAlchemy URL of STATE and, for a SQLite file, its path."""
    target = os.fspath(state) if state else str(default_state_path())
    if "://" in target:
        from validator.store.location import sqlite_file

        return target, sqlite_file(target)
    path = Path(target).expanduser().resolve()
    return f"sqlite:///{path}", path


@contextmanager
def open_state(
    state: str | os.PathLike[str] | None, *, lock_timeout: float = DEFAULT_LOCK_TIMEOUT
) -> Iterator[StateSession]:
    """STATE for one run: checked, then one transaction holding its write lock (created with
    its tables when new), committed when the block ends without an exception, rolled back
    otherwise."""
    from validator.store.database import make_write_engine

    url, path = state_url(state)
    if path is not None and "://" not in os.fspath(state or ""):
        # A file of its own must be STATE or new; a database named by URL may hold other
        # tables beside STATE's (the site's decks, the card data).
        _check_file(path)
    try:
        engine = make_write_engine(url, lock_timeout=lock_timeout)
    except DeckcheckError as exc:
        raise StateError(str(exc)) from exc
    # A first run that fails leaves an empty database (no tables): the next run takes it as
    # new. It is not removed: another first run may be waiting on it, or writing it.
    with _state_transaction(engine, path, lock_timeout) as session:
        yield session


@contextmanager
def _state_transaction(
    engine: Any, path: Path | None, lock_timeout: float
) -> Iterator[StateSession]:
    from sqlalchemy import exc as sa_exc

    from validator.store.database import LockTimeout, sync_lock

    where = str(path) if path is not None else engine.url.render_as_string()
    try:
        with engine.begin() as conn:
            sync_lock(
                conn, lock_timeout, key=RECHECK_LOCK_KEY, what="deckcheck recheck (same STATE)"
            )
            session = StateSession(conn, where)
            _prepare_schema(conn, session, where)
            yield session
    except sa_exc.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise StateError(
                f"another deckcheck recheck holds STATE {where} (waited {lock_timeout:.0f} s); "
                "it was left untouched: try again when it ends"
            ) from exc
        raise StateError(f"STATE {where} cannot be used: {exc.orig}; left untouched") from exc
    except sa_exc.DatabaseError as exc:
        raise StateError(
            f"STATE {where} cannot be used ({exc.orig}): it is corrupt or not deckcheck's; "
            "it was left untouched"
        ) from exc
    except LockTimeout as exc:
        raise StateError(str(exc)) from exc
    finally:
        engine.dispose()


def _prepare_schema(conn: Any, session: StateSession, where: str) -> None:
    from sqlalchemy import inspect

    md = _TABLES[0]
    names = set(inspect(conn).get_table_names())
    if "recheck_meta" in names:
        _check_meta(session.meta(), where)
        # A STATE an earlier deckcheck wrote gets the indexes added since (in this run's
        # transaction: a failed run leaves it without them, as it was).
        have = {i["name"] for i in inspect(conn).get_indexes("recheck_decks")}
        for index in md.tables["recheck_decks"].indexes:
            if index.name not in have:
                index.create(conn)
        return
    md.create_all(conn)
    session.set_meta({"schema": STATE_SCHEMA, "version": str(STATE_VERSION)})
