"""A bulk file -> the card database, in one transaction.

The import takes the database's sync lock, waiting for another sync of the same database for
a bounded time (`import_file`); any failure rolls back, so the previous database stays intact
and readable throughout (SQLite runs in WAL mode, so a validation running meanwhile keeps
seeing the last committed cards). A large oracle-cards file is read, and its card facts
computed, in a second process (`_batches_from_worker`) while this one writes.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from validator.cards.facts import SCRYFALL_KEYS, CardDataError, card_from_scryfall, field_problem
from validator.model import Card
from validator.signals import in_child
from validator.store.database import (
    CardBatch,
    LegalityChange,
    LockTimeout,
    SyncRun,
    card_batches,
    card_problem,
    count_cards,
    create_schema,
    database_url,
    make_write_engine,
    refresh_aliases,
    shown_location,
    sync_lock,
    write_batches,
    write_printings,
)
from validator.sync.bulkfile import BulkFileError, BulkStats, iter_bulk_file, source_problem
from validator.sync.errors import SyncBusy, SyncError, SyncResult, _env_number

ORACLE, DEFAULT = "oracle_cards", "default_cards"
#: Every printing in every language: the printed names of `sync --languages`.
ALL_CARDS = "all_cards"
ENV_LOCK_TIMEOUT = "DECKCHECK_SYNC_LOCK_TIMEOUT"
#: How long a sync waits for another sync of the same database to finish (a full import takes
#: about a minute; a slow machine several).
DEFAULT_LOCK_TIMEOUT = 600.0


def lock_timeout_from_env(value: float | None = None) -> float:
    """--lock-timeout, else $DECKCHECK_SYNC_LOCK_TIMEOUT, else DEFAULT_LOCK_TIMEOUT seconds."""
    if value is not None:
        if value < 0:
            raise SyncError("the lock timeout must not be negative")
        return value
    return _env_number(ENV_LOCK_TIMEOUT, DEFAULT_LOCK_TIMEOUT)


def _cards(
    path: Path, stats: BulkStats, on_read: Callable[[int], None] | None, name: str
) -> Iterator[Card]:
    checked: dict[int, Any] = {}  # legalities mappings found storable (see card_problem)
    for position, obj in iter_bulk_file(path, stats, on_read, name=name, keys=SCRYFALL_KEYS):
        if obj.get("object", "card") != "card":
            continue
        try:
            card = card_from_scryfall(obj)
        except CardDataError as exc:
            raise SyncError(f"{name}, {position}: {exc}") from exc
        except (TypeError, ValueError, AttributeError, KeyError) as exc:
            card_name = obj.get("name")
            shown = repr(card_name[:120]) if isinstance(card_name, str) else "?"
            why = field_problem(obj) or (f"unexpected card data ({type(exc).__name__}: {exc})")
            raise SyncError(f"{name}, {position}: card {shown}: {why}") from exc
        # A name that is a number or an oracle_id that is an object would otherwise fail
        # later, without a line (building the name index), or in the database ("value too
        # long" on PostgreSQL).
        problem = card_problem(card, checked)
        if problem:
            shown = card.name if isinstance(card.name, str) else repr(card.name)
            raise SyncError(f"{name}, {position}: card {shown[:120]!r}: {problem}")
        yield card


#: Files at least this big are read in a second process (see `_batches_from_worker`).
PARALLEL_MIN_BYTES = 4 << 20


def _read_batches(
    path: Path,
    name: str,
    for_changes: bool,
    conn: Any,
    parent_end: Any = None,
    parent_pid: int | None = None,
) -> None:
    """Worker process: read the bulk file, compute card facts and rows, send `CardBatch`es.

    Messages: ("batch", CardBatch, bytes read so far) ..., then ("done", sha256, size), or
    ("error", message). The pipe's small buffer keeps both processes in step, so memory stays
    flat however big the file.

    The worker dies with the importing process: it closes its inherited copy of the pipe's
    reading end first (else, once the parent is killed, its own copy would keep the pipe open
    and `send` would block forever), so a send to a dead parent fails with a broken pipe; and
    it checks between batches that its parent is still the one that started it.
    """
    if parent_end is not None:
        parent_end.close()
    # Ctrl-C and SIGTERM are the importing process's to handle: it stops this one.
    in_child(ignore_interrupt=True)
    gc.disable()  # as in import_file
    stats = BulkStats()
    read = 0

    def on_read(n: int) -> None:
        nonlocal read
        read += n

    try:
        cards = _cards(path, stats, on_read, name)
        for batch in card_batches(cards, for_changes=for_changes):
            if parent_pid is not None and os.getppid() != parent_pid:
                return  # orphaned: nobody will read what we send
            conn.send(("batch", batch, read))
        conn.send(("done", stats.sha256, stats.size))
    except (BrokenPipeError, ConnectionResetError):
        return  # the importing process is gone (killed, or stopped reading)
    except Exception as exc:  # noqa: BLE001 - every failure goes back to the importing process
        try:
            conn.send(
                (
                    "error",
                    str(exc)
                    if isinstance(exc, (SyncError, BulkFileError, OSError))
                    else f"{name}: {type(exc).__name__}: {exc}",
                )
            )
        except OSError:
            return
    finally:
        conn.close()


def _batches_from_worker(
    path: Path,
    name: str,
    stats: BulkStats,
    on_read: Callable[[int], None] | None,
    *,
    for_changes: bool,
) -> Iterator[CardBatch]:
    """`card_batches` of the file, built in a second process.

    Reading JSON and computing facts and rows take longer than writing them; on two cores the
    two overlap, which makes a full sync markedly faster. Errors arrive as SyncError, with the
    same messages as in-process.
    """
    import multiprocessing

    receiver, sender = multiprocessing.Pipe(duplex=False)
    worker = multiprocessing.Process(
        target=_read_batches,
        daemon=True,
        args=(path, name, for_changes, sender, receiver, os.getpid()),
    )
    worker.start()
    sender.close()
    reported = 0
    try:
        while True:
            try:
                message = receiver.recv()
            except EOFError:
                raise SyncError(f"{name}: the reading process stopped unexpectedly") from None
            if message[0] == "batch":
                if on_read and message[2] > reported:
                    on_read(message[2] - reported)
                    reported = message[2]
                yield message[1]
            elif message[0] == "done":
                stats.sha256, stats.size = message[1], message[2]
                return
            else:
                raise SyncError(message[1])
    finally:
        receiver.close()
        worker.join(timeout=5)
        if worker.is_alive():
            worker.terminate()
            worker.join()


#: Every key of a default_cards object `_printings` reads (card faces are read whole).
PRINTING_KEYS = frozenset(
    {
        "card_faces",
        "oracle_id",
        "set",
        "collector_number",
        "lang",
        "printed_name",
        "flavor_name",
        "rarity",
    }
)


def _printings(
    path: Path, stats: BulkStats, on_read: Callable[[int], None] | None, name: str
) -> Iterator[dict[str, Any]]:
    for position, obj in iter_bulk_file(path, stats, on_read, name=name, keys=PRINTING_KEYS):
        try:
            faces = obj.get("card_faces") or []
            oracle_id = obj.get("oracle_id") or (faces[0].get("oracle_id") if faces else None)
            if not oracle_id or not obj.get("set") or not obj.get("collector_number"):
                continue  # tokens and art cards without an oracle card
            english = obj.get("lang", "en") == "en"
            # printed_name is the localized name: an alias only for English printings (a
            # default_cards file also holds printings that exist in one other language only).
            printed = (
                (
                    obj.get("printed_name")
                    or " // ".join(f["printed_name"] for f in faces if f.get("printed_name"))
                )
                if english
                else ""
            )
            flavor = obj.get("flavor_name") or " // ".join(
                f["flavor_name"] for f in faces if f.get("flavor_name")
            )
            yield {
                "set_code": str(obj["set"]).lower(),
                "collector_number": str(obj["collector_number"]),
                "oracle_id": str(oracle_id),
                "rarity": str(obj.get("rarity") or ""),
                "printed_name": printed or None,
                "flavor_name": flavor or None,
            }
        except (TypeError, AttributeError, KeyError) as exc:
            raise SyncError(
                f"{name}, {position}: unexpected printing data ({type(exc).__name__}: {exc})"
            ) from exc


def _sqlite_path(url: str) -> Path | None:
    return Path(url[len("sqlite:///") :]) if url.startswith("sqlite:///") else None


def import_file(
    path: Path,
    db: str | None = None,
    *,
    bulk_type: str = ORACLE,
    source: str | None = None,
    updated_at: str | None = None,
    force: bool = False,
    progress: Callable[[int], None] | None = None,
    name: str | None = None,
    allow_shrink: bool = False,
    lock_timeout: float | None = None,
    languages_from: Path | None = None,
    languages: set[str] | None = None,
) -> SyncResult:
    """Import a bulk file (JSON array or JSON Lines, gzip or not) in one transaction.

    With `languages_from` (an all_cards file; oracle cards only), the cards' printed names in
    `languages` (None: every language the file has) replace the stored ones in the same
    transaction (`sync.printednames`).

    Any failure raises SyncError and rolls back: readers keep seeing the previous database
    (or, when there was none, no database file is left behind). `name` is how error messages
    call the file (default: its file name).

    The transaction first takes the database's sync lock (SQLite's write lock, a PostgreSQL
    advisory lock), waiting at most `lock_timeout` seconds (default $DECKCHECK_SYNC_LOCK_TIMEOUT
    or 600) before failing with SyncBusy; the schema, the legality change log and the import
    all happen under it, so two syncs run one after the other and each change is recorded
    once. With `updated_at`, a sync that finds (under the lock) that this very file was the
    last one imported skips it, unless `force`. A file with fewer than half the cards the
    database holds is refused unless `allow_shrink`."""
    from sqlalchemy.exc import SQLAlchemyError

    from validator.store.database import DatabaseError

    path = Path(path)
    name = name or (path.name if path.is_file() else str(path))  # a pipe: /dev/fd/63, not 63
    problem = source_problem(path)  # a regular file or a pipe (read once, as a stream)
    if problem:
        raise SyncError(problem)
    wait = lock_timeout_from_env(lock_timeout)
    url = database_url(db)
    db_file = _sqlite_path(url)
    new_db = db_file is not None and not db_file.exists()
    engine = make_write_engine(url, lock_timeout=wait)
    started = time.monotonic()
    stats = BulkStats()
    result = SyncResult(bulk_type=bulk_type, source=source or str(path), updated_at=updated_at)
    ok = False
    wrote = False  # the write lock was taken: the import may have written to the -wal
    # An import allocates millions of short-lived containers while the heap holds none that
    # form cycles; CPython's cyclic GC would rescan the young generations thousands of times.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        with _write_transaction(engine, url, wait) as conn:
            sync_lock(conn, wait)
            wrote = True
            upgraded = create_schema(conn)
            if upgraded and bulk_type == DEFAULT:
                # The upgrade empties the card data that only an oracle-cards import writes
                # again: raising rolls it back, the database stays as it was.
                raise SyncError(
                    "the database was written by an older deckcheck (card schema "
                    "version 1): sync the oracle cards first (`deckcheck sync`, or "
                    "`deckcheck sync --from FILE` with an oracle-cards file) to "
                    "upgrade it, then the printings"
                )
            if (
                updated_at
                and not force
                and not upgraded
                and _last_updated_at(conn, bulk_type) == updated_at
            ):
                # Another sync imported this very file while we downloaded it.
                result.skipped = True
                ok = True
                return result
            now = datetime.now(UTC)
            if bulk_type == DEFAULT:
                result.printing_count = write_printings(
                    conn, _printings(path, stats, progress, name)
                )
                if result.printing_count == 0:
                    raise SyncError(f"{name}: no printings of known cards; sync oracle cards first")
            else:
                old_count = count_cards(conn)
                for_changes = old_count > 0
                if path.stat().st_size >= PARALLEL_MIN_BYTES:
                    batches = _batches_from_worker(
                        path, name, stats, progress, for_changes=for_changes
                    )
                else:
                    batches = card_batches(
                        _cards(path, stats, progress, name), for_changes=for_changes
                    )
                written = write_batches(conn, batches, now=now)
                if written.card_count == 0:
                    raise SyncError(f"{name}: the file holds no cards")
                if old_count and written.card_count < old_count / 2 and not allow_shrink:
                    # --force only means "import even if unchanged": replacing most of the
                    # cards needs its own flag.
                    raise SyncError(
                        f"{name} holds {written.card_count} cards, the database {old_count}: "
                        "refusing to replace the database with fewer than half its cards; "
                        "if that is what you want, run the sync again with --allow-shrink "
                        "(allow_shrink=True)"
                    )
                result.card_count, result.changes = written.card_count, written.changes
                if languages_from is not None:
                    _import_printed_names(conn, Path(languages_from), languages, result, progress)
            refresh_aliases(conn)
            result.duration_s = time.monotonic() - started
            result.sha256 = stats.sha256
            sync_id = conn.execute(
                SyncRun.__table__.insert().values(
                    bulk_type=bulk_type,
                    source_uri=result.source,
                    updated_at=updated_at,
                    finished_at=now,
                    card_count=result.card_count or result.printing_count or 0,
                    duration_s=result.duration_s,
                    sha256=stats.sha256,
                    size_bytes=stats.size,
                )
            ).inserted_primary_key[0]
            if result.changes:
                conn.execute(
                    LegalityChange.__table__.insert(),
                    [dict(ch, sync_id=sync_id) for ch in result.changes],
                )
        ok = True
    except LockTimeout as exc:
        raise SyncBusy(
            f"{exc}; try again when it has finished, or wait longer with "
            f"--lock-timeout SECONDS (${ENV_LOCK_TIMEOUT})",
            hint="the other sync may still change the card database",
        ) from exc
    except BulkFileError as exc:
        raise SyncError(str(exc)) from exc
    except (SQLAlchemyError, DatabaseError) as exc:
        detail = getattr(exc, "orig", None) or exc
        hint = ""
        if db_file is not None and not os.access(db_file.parent, os.W_OK):
            # A read-only mount or directory: the sync writes the file and a -wal beside it.
            hint = (
                f"; {db_file.parent} is read-only: sync into a writable directory (a "
                "synced file can then be read from a read-only file system)"
            )
        error = SyncError(f"importing {name} into {shown_location(url)} failed: {detail}{hint}")
        error.database_failed = True  # do not probe it again for the hint (it may hang)
        raise error from exc
    except OSError as exc:
        raise SyncError(f"cannot read {path}: {exc}") from exc
    finally:
        if gc_was_enabled:
            gc.enable()
        engine.dispose()
        if not ok and db_file is not None:
            if new_db:
                _remove_if_empty(db_file)
            if wrote:  # (a sync that never had the lock wrote nothing)
                _truncate_wal(db_file)
    return result


def _import_printed_names(
    conn: Any,
    path: Path,
    languages: set[str] | None,
    result: SyncResult,
    progress: Callable[[int], None] | None,
) -> None:
    """The printed names of an all_cards file, written in the cards' transaction."""
    from validator.cards.printed import LANGUAGES
    from validator.store.database import PrintedNameWriter, card_ids
    from validator.sync.printednames import read_printed_names

    problem = source_problem(path)
    if problem:
        raise SyncError(problem)
    name = path.name if path.is_file() else str(path)
    writer = PrintedNameWriter(conn, card_ids(conn))
    printed = read_printed_names(
        path, writer.numbers, languages, writer.add, on_read=progress, name=name
    )
    wanted = (languages or set(LANGUAGES)) - {"en"}
    if wanted and not (printed.languages & wanted):
        said = ", ".join(sorted(languages)) if languages else "any language but English"
        raise SyncError(
            f"{name} holds no printed names in {said}: --languages-from takes Scryfall's "
            "all_cards file (every printing in every language)"
        )
    result.printed_name_count = writer.finish()
    result.printed_names_skipped = len(printed.skipped)
    result.languages = sorted(printed.languages)


@contextmanager
def _write_transaction(engine: Any, url: str, wait: float) -> Iterator[Any]:
    """engine.begin(), with SQLite's "database is locked" at BEGIN IMMEDIATE (the busy handler
    waited `wait` seconds for another writer) turned into LockTimeout."""
    from sqlalchemy.exc import OperationalError

    try:
        conn = engine.connect()
        transaction = conn.begin()
    except OperationalError as exc:
        if "locked" in str(exc.orig).lower() or "busy" in str(exc.orig).lower():
            raise LockTimeout(
                f"another sync is writing to {shown_location(url)} (waited {wait:g} s)"
            ) from exc
        raise
    with conn:
        with transaction:
            yield conn


def _last_updated_at(conn: Any, bulk_type: str) -> str | None:
    t = SyncRun.__table__
    row = conn.execute(
        t.select().where(t.c.bulk_type == bulk_type).order_by(t.c.id.desc()).limit(1)
    ).first()
    return row.updated_at if row else None


#: How long the clean-up after a failed sync waits for readers to leave their transactions.
_WAL_RESET_WAIT_MS = 1000


def _truncate_wal(db_file: Path) -> None:
    """Give back the space a failed import's rolled-back pages take in the `-wal` file.

    A rollback in WAL mode only forgets the frames the transaction wrote: the file keeps its
    size (megabytes on a full disk, which then stays full), and only the last connection's
    close deletes it; a validation service holding the database open prevents that. A
    TRUNCATE checkpoint (https://sqlite.org/pragma.html#pragma_wal_checkpoint) copies any
    committed frames into the database and cuts the `-wal` to zero bytes, the size it has
    while only readers use the database. Best effort: a reader in a long transaction keeps it
    (SQLite then reuses the file from its start)."""
    import sqlite3

    if not Path(str(db_file) + "-wal").exists():
        return
    try:
        con = sqlite3.connect(db_file, timeout=_WAL_RESET_WAIT_MS / 1000, isolation_level=None)
        try:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        finally:
            con.close()
    except sqlite3.Error:
        return


def _remove_if_empty(db_file: Path) -> None:
    """Delete a database file this failed first sync created, unless another sync has
    written to it meanwhile (it holds tables) or is writing to it now (it holds the lock)."""
    import sqlite3

    try:
        con = sqlite3.connect(db_file, timeout=0, isolation_level=None)
        try:
            con.execute("BEGIN IMMEDIATE")
            empty = con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
            con.execute("ROLLBACK")
        finally:
            con.close()
    except sqlite3.Error:
        return
    if empty:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(str(db_file) + suffix).unlink(missing_ok=True)
