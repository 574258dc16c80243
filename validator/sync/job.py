"""Scryfall bulk data -> the local card database: the sync job.

A sync asks Scryfall's API which bulk file is current, downloads it to a temporary file (no
database is touched while bytes arrive; `validator.sync.http`), then imports it in one
transaction (`validator.sync.importer`). Any failure rolls back: the previous database stays
intact and readable throughout. SIGTERM during a sync cleans up as Ctrl-C does
(`validator.signals`).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from validator.signals import stop_signals_as
from validator.store.database import CardDB, count_cards, database_url
from validator.sync.errors import SyncBusy, SyncError, SyncResult, SyncTerminated
from validator.sync.http import (
    DownloadLimits,
    download,
    download_uri,
    fetch_descriptor,
    make_session,
)
from validator.sync.importer import (
    ALL_CARDS,
    DEFAULT,
    ORACLE,
    _sqlite_path,
    import_file,
    lock_timeout_from_env,
)


@contextmanager
def _progress(desc: str, total: int | None) -> Iterator[Callable[[int], None] | None]:
    """A tqdm bar's `update` on a terminal; None (quiet: the CLI logs one line per phase)."""
    if not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm

    with tqdm(
        total=total, desc=desc, unit="B", unit_scale=True, leave=False, file=sys.stderr
    ) as bar:
        yield bar.update


def sync(
    db: str | None = None,
    *,
    from_file: Path | str | None = None,
    force: bool = False,
    printings: bool = False,
    api: str | None = None,
    session: Any = None,
    echo: Callable[[str], None] = lambda s: None,
    allow_shrink: bool = False,
    limits: DownloadLimits | None = None,
    lock_timeout: float | None = None,
    languages: set[str] | None = None,
    all_languages: bool = False,
    languages_from: Path | str | None = None,
) -> list[SyncResult]:
    """Bring the card database up to date: oracle cards, then printings when asked.

    `languages` (Scryfall codes) or `all_languages` also keep the cards' printed names in
    those languages, read from Scryfall's all_cards bulk file (downloaded, or `languages_from`
    with `from_file`) and written in the oracle cards' transaction.

    `from_file` imports a bulk file already on disk (oracle cards, or with `printings=True` a
    default_cards file). Otherwise Scryfall is asked which file is current (`api`, default
    $DECKCHECK_SCRYFALL_API or https://api.scryfall.com) and the download is skipped when its
    `updated_at` has not changed since the last sync, unless `force`. `allow_shrink` lets a file
    with fewer than half the database's cards replace them; `limits` bounds each download
    (default `DownloadLimits.from_env()`); `lock_timeout` bounds the wait for another sync.

    A SyncError's `hint` says what to do next and, when it is known, the database's state.
    SIGTERM (in the main thread, when no handler is set) cleans up as Ctrl-C does and raises
    SyncTerminated, a KeyboardInterrupt."""
    try:
        with stop_signals_as(SyncTerminated):
            limits = limits or DownloadLimits.from_env()
            lock_timeout = lock_timeout_from_env(lock_timeout)
            if from_file is not None:
                from_file = Path(from_file)
                if printings:
                    _refuse_oracle_file_as_printings(from_file)
                kind = DEFAULT if printings else ORACLE
                if languages_from is not None and kind != ORACLE:
                    raise SyncError(
                        "--languages-from goes with an oracle-cards import, not --printings"
                    )
                echo(f"importing {from_file}")
                size = from_file.stat().st_size if from_file.is_file() else None
                with _progress("import", size) as bar:
                    return [
                        import_file(
                            from_file,
                            db,
                            bulk_type=kind,
                            source=str(from_file),
                            force=force,
                            progress=bar,
                            allow_shrink=allow_shrink,
                            lock_timeout=lock_timeout,
                            languages_from=Path(languages_from) if languages_from else None,
                            languages=languages,
                        )
                    ]
            session = session or make_session()
            results = []
            for kind in [ORACLE] + ([DEFAULT] if printings else []):
                results.append(
                    _sync_one(
                        db,
                        kind,
                        session,
                        api,
                        force,
                        echo,
                        allow_shrink,
                        limits,
                        lock_timeout,
                        languages=languages
                        if kind == ORACLE and (languages or all_languages)
                        else None,
                        all_languages=all_languages and kind == ORACLE,
                    )
                )
            return results
    except SyncError as exc:
        if not isinstance(exc, SyncBusy) and not getattr(exc, "database_failed", False):
            exc.hint = "\n".join(h for h in (exc.hint, _state_after_failure(db)) if h) or None
        raise


def _refuse_oracle_file_as_printings(path: Path) -> None:
    """`--from FILE --printings` imports FILE as default_cards (every printing). Scryfall's
    oracle_cards file holds one printing per card, and its objects carry `set` and `rarity`
    like default_cards', so only its name tells them apart (Scryfall names its bulk files
    `oracle-cards-<timestamp>.json`): imported as printings it would leave one rarity per card,
    and Pauper Commander's commander check (uncommon printing) would judge by that one."""
    import re

    if re.search(r"oracle[-_ ]?cards", path.name, re.IGNORECASE):
        raise SyncError(
            f"{path.name} is Scryfall's oracle_cards file (one printing per card), but "
            "--printings imports a default_cards file (every printing)",
            hint="import it without --printings (`deckcheck sync --from FILE`), and the "
            "printings from a default-cards file (`deckcheck sync --from "
            "default-cards-<date>.json --printings`)",
        )


def _state_after_failure(db: str | None) -> str | None:
    """What a failed sync left: said only when the database holds cards (a failed sync rolled
    its own changes back); nothing about a "previous database" when there is none."""
    from validator.store.database import make_engine

    url = database_url(db)
    db_file = _sqlite_path(url)
    if db_file is not None and not db_file.exists():
        return None
    try:
        engine = make_engine(url)
        try:
            with engine.connect() as conn:
                count = count_cards(conn)
        finally:
            engine.dispose()
    except Exception:  # noqa: BLE001 - no readable database: nothing to say about it
        return None
    return (
        f"the card database is unchanged by this sync: it still holds its {count} cards"
        if count
        else None
    )


def _sync_one(
    db: str | None,
    kind: str,
    session: Any,
    api: str | None,
    force: bool,
    echo: Callable[[str], None],
    allow_shrink: bool = False,
    limits: DownloadLimits | None = None,
    lock_timeout: float | None = None,
    *,
    languages: set[str] | None = None,
    all_languages: bool = False,
) -> SyncResult:
    with_names = bool(languages) or all_languages
    descriptor = fetch_descriptor(session, kind, api, limits=limits)
    uri = download_uri(descriptor, f"the {kind} bulk data")
    updated_at = descriptor.get("updated_at")
    if not isinstance(updated_at, str):
        updated_at = None
    # Printed names asked for: imported again with the cards (their transaction).
    if not force and not with_names and _up_to_date(db, kind, updated_at):
        return SyncResult(bulk_type=kind, source=uri, skipped=True, updated_at=updated_at)
    expected = descriptor.get("compressed_size") if descriptor.get("jsonl_download_uri") else None
    if not isinstance(expected, int):
        expected = None
    name = uri.rsplit("/", 1)[-1].split("?", 1)[0] or "bulk file"
    tmpdir = Path(tempfile.mkdtemp(prefix="deckcheck-"))
    part = tmpdir / "bulk.part"
    names_part = tmpdir / "all-cards.part"
    try:
        echo(f"downloading {uri}")
        with _progress("download", expected) as bar:
            download(
                session,
                uri,
                part,
                expected,
                limits=limits,
                progress=(lambda n, total: bar(n)) if bar else None,
            )
        if with_names:
            # Every printing in every language (several GB uncompressed): the same
            # deadlines, retries and progress as the cards' download, streamed to disk.
            all_cards = fetch_descriptor(session, ALL_CARDS, api, limits=limits)
            all_uri = download_uri(all_cards, "the all_cards bulk data")
            size = all_cards.get("compressed_size") if all_cards.get("jsonl_download_uri") else None
            echo(f"downloading {all_uri}")
            with _progress("download", size if isinstance(size, int) else None) as bar:
                download(
                    session,
                    all_uri,
                    names_part,
                    size if isinstance(size, int) else None,
                    limits=limits,
                    progress=(lambda n, total: bar(n)) if bar else None,
                )
        echo(f"importing {kind}")
        with _progress("import", part.stat().st_size) as bar:
            return import_file(
                part,
                db,
                bulk_type=kind,
                source=uri,
                updated_at=updated_at,
                force=force,
                progress=bar,
                name=name,
                allow_shrink=allow_shrink,
                lock_timeout=lock_timeout,
                languages_from=names_part if with_names else None,
                languages=languages,
            )
    finally:
        part.unlink(missing_ok=True)
        names_part.unlink(missing_ok=True)
        tmpdir.rmdir()


def _up_to_date(db: str | None, kind: str, updated_at: str | None) -> bool:
    """True when the last sync of `kind` imported the file Scryfall still offers."""
    if not updated_at:
        return False
    db_file = _sqlite_path(database_url(db))
    if db_file is not None and not db_file.exists():
        return False
    try:
        with CardDB(db) as cards:
            cards.check()  # an older schema raises: the sync upgrades it, whatever the file
            last = cards.last_sync(kind)
    except Exception:  # noqa: BLE001 - no usable database means: sync
        return False
    return bool(last and last["updated_at"] == updated_at)
