"""Run the service under uvicorn: `deckcheck serve` calls `serve()`."""

from __future__ import annotations

import os
from typing import Sequence

from .. import CardDB, DatabaseError, load_formats

DEFAULT_HOST = "127.0.0.1"  # loopback: binding elsewhere is the operator's explicit choice
DEFAULT_PORT = 8000


def check_ready_to_serve(db: str | None, formats_file: str | None) -> None:
    """Fail before binding a port when the service could not answer: no card database, a
    database that was never synced, or a bad formats file (DeckcheckError, exit 2)."""
    load_formats(formats_file)
    cards = CardDB(db)
    try:
        if cards.last_sync("oracle_cards") is None:
            raise DatabaseError(f"the card database {cards.url} has never been synced; run "
                                "`deckcheck sync` (or `deckcheck sync --from FILE`) first")
    finally:
        cards.close()


def serve(*, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, workers: int = 1,
          db: str | None = None, cors_origins: Sequence[str] = (),
          formats_file: str | None = None, poll_seconds: float = 5.0,
          access_log: bool = False, root_path: str = "", log_level: str = "info") -> None:
    """Serve until interrupted. Each worker loads the card index once at start-up and polls
    the database every `poll_seconds` for a new sync."""
    import uvicorn

    from .app import CONFIG_ENV, ServiceConfig, create_app

    check_ready_to_serve(db, formats_file)
    config = ServiceConfig(db=db, poll_seconds=poll_seconds, cors_origins=tuple(cors_origins),
                           formats_file=str(formats_file) if formats_file else None)
    common = dict(host=host, port=port, access_log=access_log, root_path=root_path,
                  log_level=log_level, server_header=False, timeout_graceful_shutdown=10)
    if workers <= 1:
        uvicorn.run(create_app(config), **common)
        return
    # Several worker processes import the app by name; they read the configuration from the
    # environment they inherit.
    os.environ[CONFIG_ENV] = config.to_env()
    uvicorn.run("validator.service.app:app_from_env", factory=True, workers=workers, **common)
