"""The card data a service worker answers from, swapped in whole when a sync lands.

A `Snapshot` is immutable: the in-memory `CardIndex`, the `CardDB` it came from (for card
pages and printings) and the sync record it was loaded after. A request takes the current
snapshot once and uses only it, so a request in flight when new data arrives finishes on the
old data. `CardHolder.refresh()` (run by a polling thread) reads the database's latest sync
record; when it differs from the loaded one, it loads a new index beside the old one and
replaces the reference in one assignment (atomic under the GIL). No request waits for a load
and none fails during it. Nothing here writes to the database.
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validator import CardDB, CardIndex
from validator.api import legality_history
from validator.cards.names import lookup_key
from validator.errors import DeckcheckError
from validator.model import Card
from validator.store.database import DatabaseError
from validator.store.source import choose

log = logging.getLogger("uvicorn.error.deckcheck")  # shown with the server's own log

#: The bulk file whose sync record says "the cards changed" (sync.py writes one per import).
ORACLE_BULK = "oracle_cards"
#: A replaced snapshot's database is closed this long after the swap, once no request can
#: still be using it (a request takes milliseconds; closing a reader under a running query
#: would fail that request).
RETIRE_SECONDS = 60.0


def sync_key(record: dict[str, Any] | None) -> tuple[Any, ...] | None:
    """What identifies a sync: its record id, finish time and file hash (a `--force` re-import
    of the same file is a new record, hence new data to load)."""
    if record is None:
        return None
    return (record.get("id"), str(record.get("finished_at")), record.get("sha256"))


@dataclass(frozen=True)
class Snapshot:
    index: CardIndex
    db: CardDB
    sync: dict[str, Any] | None
    history: Any = None  # history.LegalityHistory: shipped history + this database's change log
    formats: list[str] = field(default_factory=list)  # the sync's legality keys (GET /v1/cards)
    loaded_at: float = field(default_factory=time.time)
    load_seconds: float = 0.0

    @property
    def card_count(self) -> int:
        return len(self.index)

    @property
    def updated_at(self) -> str | None:
        """The sync's Scryfall `updated_at` (or, for a `--from` import, when it finished)."""
        if not self.sync:
            return None
        return iso(self.sync.get("updated_at") or self.sync.get("finished_at"))


def snapshot_provenance(snap: Snapshot, as_of: Any = None) -> dict[str, Any]:
    """The `provenance` block the CLI's `--json` carries, for the card data of `snap`: a
    report's provenance names the sync that judged it, not the file's latest. A file the sync
    imported (`sync --from`) is named by its basename: no server path in an answer (the CLI
    prints the whole path); a download's URL is public and kept."""
    from validator.history.provenance import provenance_of

    answer = provenance_of(snap.sync, as_of)
    answer["card_data"]["source"] = public_source(answer["card_data"]["source"])
    return answer


def public_source(source: str | None) -> str | None:
    """`source` as a service answer shows it: a URL as it is, a file path (or file: URL) as
    its basename."""
    if not source or ("://" in source and not source.startswith("file:")):
        return source
    return source.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or None  # POSIX or Windows


def snapshot_card(snap: Snapshot, name: str) -> Card | None:
    """The card `name` means in `snap`: a deck card from the snapshot's index (the very card
    validation judges, so the two never disagree after a sync the worker has not swapped in
    yet); failing that, a non-deck object (a token, an art card) from the database, as
    `deckcheck card` finds one. A deck card the index lacks (a newer sync's) is None: for
    this snapshot, as for validation, no such card exists."""
    folded = lookup_key(name)  # as validation looks a deck line's name up
    found = choose(folded, snap.index.lookup_folded([folded]).get(folded, []))
    if found:
        return found[0]
    other = snap.db.card(name)
    return other if other is not None and not other.is_deck_card else None


def iso(value: Any) -> str | None:
    """A database time (a datetime, or text from drivers that return text) for JSON."""
    return value.isoformat() if hasattr(value, "isoformat") else (str(value) if value else None)


def check_file(db_url: str | None) -> None:
    """A DatabaseError when the SQLite file `db_url` names fails SQLite's quick_check (pages
    overwritten in place, a file cut short): loaded, it would give wrong cards or fail the
    requests that read it later (card pages, printings). A database that is no plain file
    (PostgreSQL) is checked by its server."""
    from validator.store.sqlite import quick_check

    path = db_file(db_url)
    if path is None:
        return
    try:
        with open(path, "rb") as f:
            header = f.read(16)
    except OSError:
        return  # no file there: the loader says so
    if header != b"SQLite format 3\x00":
        return  # no SQLite file at all: the loader says it is no card database
    problem = quick_check(path)
    if problem is not None:
        raise DatabaseError(
            f"the card database file {path} is damaged (SQLite's quick_check: {problem}); "
            "restore it, or sync into a new file and move that into its place"
        )


def load_snapshot(db_url: str | None) -> Snapshot:
    """Check the database file (`check_file`), open it and load every card into memory. The
    sync record is read first: if a sync lands during the load, the next poll sees a newer
    record and loads again (a redundant load, never a missed one). Raises `DatabaseError`
    when there is no usable database."""
    started = time.perf_counter()
    check_file(db_url)
    db = CardDB(db_url)
    try:
        record = db.last_sync(ORACLE_BULK)
        index = CardIndex.from_db(db)
        history = legality_history(db)
        formats = index.formats()  # read with the cards: no second query
    except BaseException:
        db.close()
        raise
    # The index is some 300,000 long-lived objects: a full cyclic-GC pass over them takes
    # ~0.3 s, a latency spike for whichever request triggers it. Frozen objects are skipped by
    # the collector (and still freed by reference counting when a swap drops them).
    gc.freeze()
    return Snapshot(
        index=index,
        db=db,
        sync=record,
        history=history,
        formats=formats,
        load_seconds=time.perf_counter() - started,
    )


#: SQLite's files beside a WAL-mode database, found by name (`cards.sqlite3-wal`).
SIDECARS = ("-wal", "-shm")


def db_file(db_url: str | None) -> Path | None:
    """The SQLite file `db_url` names (None: not a plain SQLite file)."""
    from validator.store.location import database_url, sqlite_file

    return sqlite_file(database_url(db_url))


def file_identity(db_url: str | None, suffix: str = "") -> tuple[int, int] | None:
    """(st_dev, st_ino) of the SQLite file `db_url` names (with `suffix`: its -wal or -shm),
    or None (not a plain SQLite file, or no file there right now). A file replaced by
    `mv new.sqlite3 cards.sqlite3` has a new identity under the same path."""
    try:
        path = db_file(db_url)
        if path is None:
            return None
        st = os.stat(str(path) + suffix)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino)


def file_stamp(db_url: str | None) -> tuple[int, int, int, int] | None:
    """(size, mtime) of the SQLite file and of its -wal: what changes when anything writes
    to it, a sync or pages overwritten in place (None: not a plain SQLite file)."""
    path = db_file(db_url)
    if path is None:
        return None
    stamp: list[int] = []
    for name in (str(path), str(path) + "-wal"):
        try:
            st = os.stat(name)
            stamp += [st.st_size, st.st_mtime_ns]
        except OSError:
            stamp += [-1, -1]
    return (stamp[0], stamp[1], stamp[2], stamp[3])


def sidecar_identities(db_url: str | None) -> dict[str, tuple[int, int] | None]:
    """The identity of each of the database's SIDECARS right now (None: no such file)."""
    return {suffix: file_identity(db_url, suffix) for suffix in SIDECARS}


class CardHolder:
    """The current snapshot of one worker, and the poller that replaces it."""

    def __init__(
        self,
        db_url: str | None,
        *,
        poll_seconds: float = 5.0,
        loader: Callable[[str | None], Snapshot] = load_snapshot,
    ) -> None:
        self.db_url, self.poll_seconds, self._loader = db_url, poll_seconds, loader
        self._current: Snapshot | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._refresh_lock = threading.Lock()
        self._retired: list[tuple[float, Snapshot]] = []  # (when swapped out, snapshot)
        self.swaps = 0
        #: the identity of the SQLite file the current snapshot was opened from (None: not a
        #: plain file); a poll finding another file at the path reopens it (`refresh`)
        self._file: tuple[int, int] | None = None
        #: the -wal and -shm files the loaded database used (their identities)
        self._sidecars: dict[str, tuple[int, int] | None] = {}
        #: why the last poll could not read the database or load its new data (None: it
        #: could). Set, /healthz answers 503 `database-unavailable` while the loaded data
        #: keeps being served; the next poll that succeeds clears it.
        self.failure: BaseException | None = None
        #: the file a reopen was last tried on, and the failure last logged: each is logged
        #: once, not at every poll
        self._tried: tuple[int, int] | None = None
        self._logged: tuple[str, str] | None = None
        #: the file's stamp when it was last checked, and what the check found (None: fine);
        #: a file written to since is checked again (SQLite's quick_check) at the next poll
        self._checked: tuple[Any, DatabaseError | None] = (None, None)

    @property
    def current(self) -> Snapshot | None:
        return self._current

    @property
    def ready(self) -> bool:
        return self._current is not None

    def load(self) -> Snapshot:
        """The start-up load (blocking: the worker accepts no request before it is done)."""
        self._file = file_identity(
            self.db_url
        )  # before opening: a swap during it is seen next poll
        stamp = file_stamp(self.db_url)
        self._current = self._loader(self.db_url)  # checks the file first
        self._checked = (stamp, None)
        self._sidecars = sidecar_identities(self.db_url)
        log.info(
            "card index ready: %d cards in %.2f s",
            self._current.card_count,
            self._current.load_seconds,
        )
        return self._current

    def refresh(self) -> bool:
        """One poll: load and swap when the database has a newer sync. True when swapped.
        An exception (the database unreadable, the new data not loadable) is recorded in
        `failure` and raised; a poll that succeeds clears it."""
        with self._refresh_lock:
            try:
                swapped = self._refresh()
            except BaseException as exc:
                self.failure = exc
                raise
            if self.failure is not None:
                log.info("the card database can be read again")
            self.failure, self._logged = None, None
            return swapped

    def _refresh(self) -> bool:
        old = self._current
        if old is None:
            self.load()
            return True
        file = file_identity(self.db_url)
        if file is None and self._file is not None:
            # The served file is gone from its path (the open connections still read it, but
            # nothing started now could): the operator has to know.
            raise DatabaseError(
                f"the card database file {db_file(self.db_url)} "
                "is gone (put a card database back there, or run `deckcheck "
                "sync`)"
            )
        if file is not None and self._file is not None and file != self._file:
            new = self._reopen(old, file)  # the loader checks the new file first
            self._checked = (file_stamp(self.db_url), None)
        else:
            self._tried = None
            self._check_written()
            latest = old.db.last_sync(ORACLE_BULK)
            if sync_key(latest) == sync_key(old.sync):
                return False
            new = self._loader(self.db_url)
        self._current = new  # the swap: one reference assignment
        self.swaps += 1
        log.info(
            "new card data (sync %s): %d cards loaded in %.2f s, swapped in",
            new.updated_at,
            new.card_count,
            new.load_seconds,
        )
        # Requests still holding `old` finish on it; its database is closed later.
        self._retired.append((time.monotonic(), old))
        return True

    def _check_written(self) -> None:
        """Check the served file again when it was written to since its last check (pages
        overwritten in place leave its identity and its sync record as they were): damaged,
        it fails this poll (/healthz 503) and every next one until it is written again, and
        the loaded data goes on being served."""
        stamp = file_stamp(self.db_url)
        seen, problem = self._checked
        if stamp != seen:
            try:
                check_file(self.db_url)
                problem = None
            except DatabaseError as exc:
                problem = exc
            self._checked = (stamp, problem)
        if problem is not None:
            raise problem

    def _reopen(self, old: Snapshot, file: tuple[int, int]) -> Snapshot:
        """The database file was replaced (`mv new.sqlite3 cards.sqlite3`): the open
        connections still read the old, deleted file, so no new sync would ever be seen. The
        new file is loaded beside them; the old snapshot, its database still open on the old
        file, is retired by `refresh` like any swapped-out one. If the new file cannot be
        loaded (not a card database), the old snapshot keeps serving, its database untouched,
        as after a failed sync, and the next poll tries again (the failure is recorded by
        `refresh`: /healthz answers 503 `database-unavailable` until a load succeeds)."""
        if file != self._tried:  # logged once per new file, not at every poll retrying it
            log.info("the card database file was replaced; reopening it")
            self._tried = file
        # SQLite finds a database's -wal and -shm by name: the old file's, left at the path
        # when it was unlinked under them, would be read with the new file ("disk I/O error",
        # or the old data). Their names are removed first (the old connections keep their
        # open descriptors, so the old snapshot reads on); only the very files the old
        # database used are removed (another worker may already have opened the new file,
        # with -wal and -shm of its own).
        path = db_file(self.db_url)
        for suffix, seen in self._sidecars.items():
            if path is not None and seen is not None and file_identity(self.db_url, suffix) == seen:
                try:
                    os.unlink(str(path) + suffix)
                except OSError:
                    pass
        self._sidecars = {}
        new = self._loader(self.db_url)  # raises: `old` stays current, `_file` unchanged
        self._file, self._tried = file, None
        self._sidecars = sidecar_identities(self.db_url)
        return new

    def close_retired(self, older_than: float = RETIRE_SECONDS) -> int:
        """Close the databases of snapshots swapped out more than `older_than` seconds ago."""
        now = time.monotonic()
        with self._refresh_lock:
            done = [snap for when, snap in self._retired if now - when >= older_than]
            self._retired = [(w, snap) for w, snap in self._retired if now - w < older_than]
        for snap in done:
            snap.db.close()
        return len(done)

    def start_polling(self) -> None:
        if self.poll_seconds <= 0 or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._poll, name="deckcheck-sync-poll", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self.close_retired(older_than=0)
        if self._current is not None:
            self._current.db.close()

    def _poll(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            try:
                self.close_retired()
                self.refresh()
            except Exception as exc:  # noqa: BLE001 - keep serving the loaded data; retry next poll
                self._log_failure(exc)

    def _log_failure(self, exc: Exception) -> None:
        """One log entry per distinct failure, not one per poll (a poll every second retrying
        a broken file logged a traceback every second). A DeckcheckError is a known state of
        the database, said in one line; anything else is a bug and keeps its traceback."""
        key = (type(exc).__name__, str(exc))
        if key == self._logged:
            return
        self._logged = key
        if isinstance(exc, DeckcheckError):
            log.error(
                "the card database cannot be used: %s; still serving the loaded card "
                "data, /healthz answers 503 until it can",
                exc,
            )
        else:
            log.exception(
                "checking the card database for a new sync failed; "
                "still serving the loaded card data"
            )
