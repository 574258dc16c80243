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
        return Path(url[len(SQLITE_PREFIX):])
    return None
