"""Where the card database lives: `--db`, `DECKCHECK_DB`, or a file in the user data directory.

Kept apart from `db` (SQLAlchemy) so that the lean SQLite reader (`store_sqlite`) can find the
database without importing SQLAlchemy.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_DB = "DECKCHECK_DB"
SQLITE_PREFIX = "sqlite:///"


def default_db_path() -> Path:
    from platformdirs import user_data_dir  # platform-correct data dir (XDG, macOS, Windows)

    return Path(user_data_dir("deckcheck", appauthor=False)) / "cards.sqlite3"


def database_url(db: str | os.PathLike[str] | None = None) -> str:
    """`--db` / `DECKCHECK_DB`: a path or any SQLAlchemy URL; default a SQLite file in the user
    data directory."""
    target = str(db) if db else os.environ.get(ENV_DB) or str(default_db_path())
    if "://" in target:
        return target
    return SQLITE_PREFIX + str(Path(target).expanduser().resolve())


def sqlite_file(url: str) -> Path | None:
    """The file of a plain `sqlite:///PATH` URL (no query options), else None."""
    if url.startswith(SQLITE_PREFIX) and "?" not in url:
        return Path(url[len(SQLITE_PREFIX) :])
    return None


def read_only_uri(path: Path) -> str | None:
    """A `file:` URI opening the SQLite file at `path` as immutable, when it lies on a
    read-only file system (a container's read-only layer or volume, a read-only mount), else
    None.

    A synced database is in WAL mode (the sync's readers keep reading meanwhile), and SQLite
    reads a WAL database through a -shm file it creates beside it: impossible there, so the
    file could not be read at all. Nothing can write to a read-only file system, so the file
    cannot change under a reader and `immutable=1` (no locks, no -shm) reads it safely. Not
    when a -wal file beside it holds changes (copied from a live database): those would be
    ignored, so the open fails as before and says what to do. A directory merely not writable
    by this user is not enough: a sync by its owner could be writing the file."""
    statvfs = getattr(os, "statvfs", None)  # POSIX only
    if statvfs is None:
        return None
    try:
        if not statvfs(path).f_flag & os.ST_RDONLY:
            return None
        wal = Path(f"{path}-wal")
        if wal.exists() and wal.stat().st_size > 0:
            return None
    except OSError:
        return None
    from urllib.parse import quote

    return f"file:{quote(str(path))}?immutable=1"
