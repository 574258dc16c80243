"""Scryfall bulk data -> the local card database.

A sync asks Scryfall's API which bulk file is current, downloads it to a temporary file (no
database is touched while bytes arrive), then imports it in one transaction. Any failure rolls
back: the previous database stays intact and readable throughout (SQLite runs in WAL mode, so a
validation running meanwhile keeps seeing the last committed cards).
"""

from __future__ import annotations

import logging
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

from . import __version__
from .bulkfile import BulkFileError, BulkStats, iter_bulk_file
from .cardfacts import CardDataError, card_from_scryfall
from .db import (
    CardDB, LegalityChange, SyncRun, create_schema, database_url, make_engine, refresh_aliases,
    write_cards, write_printings,
)
from .model import Card

log = logging.getLogger("deckcheck.sync")

DEFAULT_API = "https://api.scryfall.com"
ENV_API = "DECKCHECK_SCRYFALL_API"
USER_AGENT = f"deckcheck/{__version__} (+https://pypi.org/project/deckcheck/)"
#: Scryfall's API allows 10 requests a second (docs "Rate Limits").
MIN_REQUEST_INTERVAL = 0.1
#: When a 429 carries no Retry-After, Scryfall's own message says "try again after 60 seconds".
RATE_LIMIT_WAIT = 60.0
ORACLE, DEFAULT = "oracle_cards", "default_cards"


class SyncError(RuntimeError):
    """A sync failed; the message says what was wrong. The previous database is untouched."""


@dataclass
class SyncResult:
    bulk_type: str
    source: str
    skipped: bool = False
    card_count: int = 0
    updated_at: str | None = None
    duration_s: float = 0.0
    sha256: str | None = None
    changes: list[dict[str, Any]] = field(default_factory=list)
    printing_count: int | None = None

    def summary(self) -> str:
        if self.skipped:
            return (f"{self.bulk_type}: already up to date (updated_at {self.updated_at}); "
                    "use --force to import again")
        head = f"{self.bulk_type}: {self.card_count} cards imported in {self.duration_s:.1f} s"
        if self.printing_count is not None:
            head = f"{self.bulk_type}: {self.printing_count} printings imported in {self.duration_s:.1f} s"
        changes = summarize_changes(self.changes)
        return head + ("\n" + changes if changes else "")


def summarize_changes(changes: list[dict[str, Any]], per_list: int = 8) -> str:
    """"modern: newly banned: A, B; unbanned: C" lines, one per format."""
    labels = {
        "banned": "newly banned", "restricted": "newly restricted", "legal": "now legal",
        "not_legal": "no longer legal",
    }
    by_format: dict[str, dict[str, list[str]]] = {}
    for ch in changes:
        if ch["format"] == "*":
            label = "removed from the data"
        elif ch["old_status"] == "banned" and ch["new_status"] == "legal":
            label = "unbanned"
        elif ch["old_status"] == "restricted" and ch["new_status"] == "legal":
            label = "unrestricted"
        else:
            label = labels.get(ch["new_status"] or "", f"now {ch['new_status']}")
        by_format.setdefault(ch["format"], {}).setdefault(label, []).append(ch["name"])
    lines = []
    for fmt in sorted(by_format):
        parts = []
        for label, names in by_format[fmt].items():
            shown = ", ".join(sorted(names)[:per_list])
            more = f" and {len(names) - per_list} more" if len(names) > per_list else ""
            parts.append(f"{label}: {shown}{more}")
        lines.append(f"{'all formats' if fmt == '*' else fmt}: " + "; ".join(parts))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- HTTP

def api_base() -> str:
    return os.environ.get(ENV_API, DEFAULT_API).rstrip("/")


def make_session(retries: int = 5, backoff: float = 1.0, rate_limit_wait: float = RATE_LIMIT_WAIT):
    """A requests session with Scryfall's required headers and urllib3 retries: connection
    errors, timeouts and 5xx with exponential backoff; 429 honouring Retry-After, else the wait
    Scryfall asks for."""
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry

    class ScryfallRetry(Retry):
        def get_retry_after(self, response: Any) -> float | None:
            after = super().get_retry_after(response)
            if after is None and response.status == 429:
                return rate_limit_wait
            return after

    retry = ScryfallRetry(
        total=retries, connect=retries, read=retries, status=retries, backoff_factor=backoff,
        status_forcelist=(429, 500, 502, 503, 504), allowed_methods=frozenset({"GET"}),
        respect_retry_after_header=True, raise_on_status=False,
    )
    session = requests.Session()
    session.headers.update({"User-Agent": USER_AGENT, "Accept": "application/json;q=0.9,*/*;q=0.8"})
    adapter = HTTPAdapter(max_retries=retry)
    session.mount("https://", adapter)
    session.mount("http://", adapter)
    return session


class _Throttle:
    """At most one API request per MIN_REQUEST_INTERVAL (Scryfall: 10 requests/s)."""

    def __init__(self) -> None:
        self.last = 0.0

    def wait(self) -> None:
        delay = self.last + MIN_REQUEST_INTERVAL - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        self.last = time.monotonic()


_throttle = _Throttle()


def _describe_http_error(resp: Any, what: str) -> str:
    detail = ""
    try:
        body = resp.json()
        detail = body.get("details") or ""
    except ValueError:
        pass
    return f"{what}: HTTP {resp.status_code}" + (f": {detail}" if detail else "")


def fetch_descriptor(session: Any, bulk_type: str, api: str | None = None,
                     timeout: float = 30.0) -> dict[str, Any]:
    """GET /bulk-data/<type> and return the bulk data object."""
    import requests

    url = f"{api or api_base()}/bulk-data/{bulk_type.replace('_', '-')}"
    _throttle.wait()
    try:
        resp = session.get(url, timeout=timeout)
    except requests.RequestException as exc:
        raise SyncError(f"cannot reach Scryfall at {url}: {exc}") from exc
    if resp.status_code != 200:
        raise SyncError(_describe_http_error(resp, f"GET {url}"))
    try:
        obj = resp.json()
    except ValueError as exc:
        raise SyncError(f"GET {url}: the answer is not JSON") from exc
    if not isinstance(obj, dict) or not (obj.get("jsonl_download_uri") or obj.get("download_uri")):
        raise SyncError(f"GET {url}: the answer has no jsonl_download_uri or download_uri")
    return obj


def download(session: Any, uri: str, dest: Path, expected_size: int | None = None,
             progress: Callable[[int, int | None], None] | None = None,
             timeout: float = 60.0, attempts: int = 3) -> None:
    """Stream `uri` to `dest`. Whole-download retries cover a connection dropped mid-body,
    which urllib3 cannot retry once the response has started."""
    import requests

    last_error: Exception | None = None
    for attempt in range(attempts):
        try:
            with session.get(uri, stream=True, timeout=timeout) as resp:
                if resp.status_code != 200:
                    raise SyncError(_describe_http_error(resp, f"download {uri}"))
                total = resp.headers.get("Content-Length")
                size = 0
                with open(dest, "wb") as out:
                    # decode_content: a legacy .json file comes with Content-Encoding gzip;
                    # a .jsonl.gz file is stored gzip and stays as it is (sniffed later).
                    for chunk in resp.raw.stream(1 << 16, decode_content=True):
                        out.write(chunk)
                        size += len(chunk)
                        if progress:
                            progress(len(chunk), int(total) if total and total.isdigit() else None)
            if expected_size and dest.stat().st_size != expected_size and \
                    "gzip" not in (resp.headers.get("Content-Encoding") or ""):
                raise SyncError(f"download {uri}: got {dest.stat().st_size} bytes, Scryfall "
                                f"announced {expected_size}: the download is truncated")
            return
        except (requests.ConnectionError, requests.Timeout,
                requests.exceptions.ChunkedEncodingError) as exc:
            last_error = exc
            log.warning("download failed (%s), attempt %d of %d", exc, attempt + 1, attempts)
            time.sleep(min(2 ** attempt, 10) * (0 if os.environ.get("DECKCHECK_NO_BACKOFF") else 1))
        except Exception as exc:  # urllib3 errors raised while streaming the body
            if type(exc).__module__.startswith("urllib3"):
                last_error = exc
                continue
            raise
    raise SyncError(f"download {uri} failed after {attempts} attempts: {last_error}")


# ---------------------------------------------------------------------------- import

def _cards(path: Path, stats: BulkStats, on_read: Callable[[int], None] | None) -> Iterator[Card]:
    for position, obj in iter_bulk_file(path, stats, on_read):
        if obj.get("object", "card") != "card":
            continue
        try:
            yield card_from_scryfall(obj)
        except CardDataError as exc:
            raise SyncError(f"{path.name}, {position}: {exc}") from exc
        except (TypeError, ValueError, AttributeError) as exc:
            raise SyncError(f"{path.name}, {position}: unexpected card data ({exc})") from exc


def _printings(path: Path, stats: BulkStats, on_read: Callable[[int], None] | None) -> Iterator[dict[str, Any]]:
    for position, obj in iter_bulk_file(path, stats, on_read):
        oracle_id = obj.get("oracle_id") or ((obj.get("card_faces") or [{}])[0].get("oracle_id"))
        if not oracle_id or not obj.get("set") or not obj.get("collector_number"):
            continue  # tokens and art cards without an oracle card
        if obj.get("lang", "en") != "en":
            continue
        faces = obj.get("card_faces") or []
        printed = obj.get("printed_name") or " // ".join(
            f["printed_name"] for f in faces if f.get("printed_name"))
        flavor = obj.get("flavor_name") or " // ".join(
            f["flavor_name"] for f in faces if f.get("flavor_name"))
        yield {"set_code": str(obj["set"]).lower(), "collector_number": str(obj["collector_number"]),
               "oracle_id": oracle_id, "rarity": obj.get("rarity") or "",
               "printed_name": printed or None, "flavor_name": flavor or None}


def import_file(path: Path, db: str | None = None, *, bulk_type: str = ORACLE,
                source: str | None = None, updated_at: str | None = None, force: bool = False,
                progress: Callable[[int], None] | None = None) -> SyncResult:
    """Import a bulk file (JSON array or JSON Lines, gzip or not) in one transaction."""
    url = database_url(db)
    engine = make_engine(url, create_dirs=True)
    started = time.monotonic()
    stats = BulkStats()
    result = SyncResult(bulk_type=bulk_type, source=source or str(path), updated_at=updated_at)
    try:
        create_schema(engine)
        with engine.begin() as conn:
            now = datetime.now(timezone.utc)
            if bulk_type == DEFAULT:
                result.printing_count = write_printings(conn, _printings(path, stats, progress))
                if result.printing_count == 0:
                    raise SyncError(f"{path.name}: no printings of known cards; sync oracle cards first")
            else:
                old_count = conn.execute(_count_cards()).scalar_one()
                written = write_cards(conn, _cards(path, stats, progress), now=now)
                if written.card_count == 0:
                    raise SyncError(f"{path.name}: the file holds no cards")
                if old_count and written.card_count < old_count / 2 and not force:
                    raise SyncError(
                        f"{path.name} holds {written.card_count} cards, the database "
                        f"{old_count}: refusing to drop half the cards (use --force)")
                result.card_count, result.changes = written.card_count, written.changes
            refresh_aliases(conn)
            result.duration_s = time.monotonic() - started
            result.sha256 = stats.sha256
            sync_id = conn.execute(SyncRun.__table__.insert().values(
                bulk_type=bulk_type, source_uri=result.source, updated_at=updated_at,
                finished_at=now, card_count=result.card_count or result.printing_count or 0,
                duration_s=result.duration_s, sha256=stats.sha256, size_bytes=stats.size,
            )).inserted_primary_key[0]
            if result.changes:
                conn.execute(LegalityChange.__table__.insert(),
                             [dict(ch, sync_id=sync_id) for ch in result.changes])
    except BulkFileError as exc:
        raise SyncError(str(exc)) from exc
    except OSError as exc:
        raise SyncError(f"cannot read {path}: {exc}") from exc
    finally:
        engine.dispose()
    return result


def _count_cards():
    from sqlalchemy import func, select

    from .db import CardRow

    return select(func.count()).select_from(CardRow.__table__)


# ---------------------------------------------------------------------------- the job

def _progress_bar(desc: str, total: int | None):
    """A tqdm bar on a terminal; None (quiet) otherwise."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="B", unit_scale=True, leave=False, file=sys.stderr)


def sync(db: str | None = None, *, from_file: Path | None = None, force: bool = False,
         printings: bool = False, api: str | None = None, session: Any = None,
         echo: Callable[[str], None] = lambda s: None) -> list[SyncResult]:
    """Bring the card database up to date: oracle cards, then printings when asked."""
    if from_file is not None:
        kinds = [DEFAULT] if printings else [ORACLE]
        results = []
        for kind in kinds:
            echo(f"importing {from_file}")
            bar = _progress_bar("import", from_file.stat().st_size if from_file.exists() else None)
            try:
                results.append(import_file(from_file, db, bulk_type=kind, source=str(from_file),
                                           force=force, progress=bar.update if bar else None))
            finally:
                if bar:
                    bar.close()
        return results
    session = session or make_session()
    results = []
    for kind in [ORACLE] + ([DEFAULT] if printings else []):
        results.append(_sync_one(db, kind, session, api, force, echo))
    return results


def _sync_one(db: str | None, kind: str, session: Any, api: str | None, force: bool,
              echo: Callable[[str], None]) -> SyncResult:
    descriptor = fetch_descriptor(session, kind, api)
    uri = descriptor.get("jsonl_download_uri") or descriptor["download_uri"]
    updated_at = descriptor.get("updated_at")
    if not force and _up_to_date(db, kind, uri, updated_at):
        return SyncResult(bulk_type=kind, source=uri, skipped=True, updated_at=updated_at)
    expected = descriptor.get("compressed_size") if descriptor.get("jsonl_download_uri") else None
    tmpdir = Path(tempfile.mkdtemp(prefix="deckcheck-"))
    part = tmpdir / "bulk.part"
    try:
        echo(f"downloading {uri}")
        bar = _progress_bar("download", expected)
        try:
            download(session, uri, part, expected,
                     progress=(lambda n, total: bar.update(n)) if bar else None)
        finally:
            if bar:
                bar.close()
        echo(f"importing {kind}")
        bar = _progress_bar("import", part.stat().st_size)
        try:
            return import_file(part, db, bulk_type=kind, source=uri, updated_at=updated_at,
                               force=force, progress=bar.update if bar else None)
        finally:
            if bar:
                bar.close()
    finally:
        part.unlink(missing_ok=True)
        tmpdir.rmdir()


def _up_to_date(db: str | None, kind: str, uri: str, updated_at: str | None) -> bool:
    url = database_url(db)
    if url.startswith("sqlite:///") and not Path(url[10:]).exists():
        return False
    try:
        last = CardDB(db).last_sync(kind)
    except Exception:  # noqa: BLE001 - no usable database means: sync
        return False
    return bool(last and updated_at and last["updated_at"] == updated_at)
