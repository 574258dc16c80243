"""Run the service under uvicorn: `deckcheck serve` calls `serve()`."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Sequence

from .. import CardDB, DatabaseError, DeckcheckError, load_formats

if TYPE_CHECKING:
    from .app import ServiceConfig
    from .cards import CardHolder

DEFAULT_HOST = "127.0.0.1"  # loopback: binding elsewhere is the operator's explicit choice
DEFAULT_PORT = 8000


def check_ready_to_serve(db: str | None, formats_file: str | None) -> None:
    """Fail before binding a port when the service could not answer: no card database, a
    database that was never synced, or a bad formats file (DeckcheckError, exit 2)."""
    load_formats(formats_file)
    cards = CardDB(db)
    try:
        record = cards.last_sync("oracle_cards")
    except DeckcheckError:
        raise
    except Exception as exc:  # noqa: BLE001 - a driver error: not a readable card database
        raise DatabaseError(f"{cards.url} is not a readable deckcheck card database ({exc}); "
                            "run `deckcheck sync` to build one") from exc
    finally:
        cards.close()
    if record is None:
        raise DatabaseError(f"the card database {cards.url} has never been synced; run "
                            "`deckcheck sync` (or `deckcheck sync --from FILE`) first")


def preloaded_holder(config: "ServiceConfig") -> "CardHolder":
    from .cards import CardHolder

    holder = CardHolder(config.db, poll_seconds=config.poll_seconds)
    try:
        holder.load()
    except DeckcheckError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure here means the data is unusable
        raise DatabaseError(f"cannot load the card data from {config.db or 'the default database'}: "
                            f"{exc}; run `deckcheck sync` to rebuild it") from exc
    return holder


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
        # One process: load the cards before binding the port, so that data that cannot be
        # loaded is a one-line error (exit 2), not a failed server start-up.
        uvicorn.run(create_app(config, holder=preloaded_holder(config)), **common)
        return
    # Several worker processes import the app by name; they read the configuration from the
    # environment they inherit.
    os.environ[CONFIG_ENV] = config.to_env()
    uvicorn.run("validator.service.app:app_from_env", factory=True, workers=workers, **common)
