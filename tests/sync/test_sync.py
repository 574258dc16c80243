"""The sync job against a mocked Scryfall (`responses`): both bulk shapes, headers, retries,
rate limits, bad data, skip-if-unchanged, legality changes, printings, atomicity.

No test touches the network or sleeps: sessions come from `make_session(backoff=0, ...)` with a
recording `sleep`.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
import requests
import responses
from support import FIXTURES
from urllib3.exceptions import ProtocolError

from validator import __version__, validate
from validator.cards.names import fold_name
from validator.store.database import CardDB
from validator.sync import SyncError, import_file, sync
from validator.sync.errors import summarize_changes
from validator.sync.http import RATE_LIMIT_WAIT, fetch_descriptor, make_session

API = "https://api.scryfall.test"
FILES = "https://data.scryfall.test"
JSONL_URI = f"{FILES}/oracle-cards/oracle-cards-20260908090157.jsonl.gz"
LEGACY_URI = f"{FILES}/oracle-cards/oracle-cards-20260523090254.json"
DESCRIPTOR_URL = f"{API}/bulk-data/oracle-cards"
DEFAULT_DESCRIPTOR_URL = f"{API}/bulk-data/default-cards"
UPDATED = "2026-09-08T09:01:57.053+00:00"


# ---------------------------------------------------------------------------- helpers


def fixture_objects() -> list[dict[str, Any]]:
    return json.loads((FIXTURES / "scryfall_cards.json").read_text(encoding="utf-8"))


N_FIXTURE = len({o.get("oracle_id") or o["card_faces"][0]["oracle_id"] for o in fixture_objects()})


def jsonl_bytes(objs: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(o) + b"\n" for o in objs)


def write_bulk(
    path: Path, objs: list[dict[str, Any]], *, shape: str = "jsonl", gz: bool = True
) -> Path:
    data = jsonl_bytes(objs) if shape == "jsonl" else json.dumps(objs, ensure_ascii=False).encode()
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def current_descriptor(
    uri: str = JSONL_URI, size: int | None = None, updated_at: str = UPDATED
) -> dict[str, Any]:
    """The bulk-data object as Scryfall serves it since July 2026."""
    d = {
        "object": "bulk_data",
        "id": "27bf3214-1271-490b-bdfe-c0be6c23d02e",
        "type": "oracle_cards",
        "updated_at": updated_at,
        "uri": f"{API}/bulk-data/27bf3214-1271-490b-bdfe-c0be6c23d02e",
        "name": "Oracle Cards",
        "description": "A JSON file containing one Scryfall card object for each Oracle ID.",
        "jsonl_download_uri": uri,
    }
    if size is not None:
        d["compressed_size"] = size
    return d


def legacy_descriptor(uri: str = LEGACY_URI, updated_at: str = UPDATED) -> dict[str, Any]:
    """The pre-2026 shape: download_uri, a JSON array sent with Content-Encoding gzip."""
    return {
        "object": "bulk_data",
        "id": "27bf3214-1271-490b-bdfe-c0be6c23d02e",
        "type": "oracle_cards",
        "updated_at": updated_at,
        "name": "Oracle Cards",
        "size": 173116018,
        "download_uri": uri,
        "content_type": "application/json",
        "content_encoding": "gzip",
    }


class Sleeps(list):
    """Records the waits a sync asks for instead of sleeping."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def fast_session(**kw: Any):
    kw.setdefault("backoff", 0.0)
    kw.setdefault("rate_limit_wait", 0.0)
    return make_session(min_interval=0.0, **kw)


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "cards.sqlite3")


@pytest.fixture
def seeded(db: str, tmp_path: Path) -> str:
    """A database holding the fixture cards, imported from a file."""
    sync(db, from_file=write_bulk(tmp_path / "seed.jsonl.gz", fixture_objects()))
    return db


def deck_card(db: str | CardDB, name: str):
    """The one deck card of that name. (CardDB.card() may answer with an art-series or token
    object that shares the name, so tests resolve as a decklist does.)"""
    cards = db if isinstance(db, CardDB) else CardDB(db)
    found = cards.lookup([name]).get(fold_name(name), [])
    assert len(found) <= 1, [c.name for c in found]
    return found[0] if found else None


def assert_intact(db: str, count: int = N_FIXTURE) -> None:
    """The previous database is still there and answers lookups."""
    with CardDB(db) as cards:
        assert cards.info().card_count == count
        found = cards.lookup(["Lightning Bolt"])[fold_name("Lightning Bolt")]
        assert [c.name for c in found] == ["Lightning Bolt"]


def serve_current(
    rsps: responses.RequestsMock, objs: list[dict[str, Any]] | None = None, **descriptor_kw: Any
) -> bytes:
    body = gzip.compress(jsonl_bytes(objs if objs is not None else fixture_objects()))
    descriptor_kw.setdefault("size", len(body))
    rsps.get(DESCRIPTOR_URL, json=current_descriptor(**descriptor_kw))
    rsps.get(
        descriptor_kw.get("uri", JSONL_URI), body=body, headers={"Content-Type": "application/gzip"}
    )
    return body


def calls_to(rsps: responses.RequestsMock, url: str) -> int:
    return sum(1 for c in rsps.calls if c.request.url == url)


# ---------------------------------------------------------------------------- both shapes


def test_sync_current_shape_gzip_jsonl(db: str) -> None:
    with responses.RequestsMock() as rsps:
        body = serve_current(rsps)
        [result] = sync(db, api=API, session=fast_session())
    assert result.card_count == N_FIXTURE and not result.skipped
    assert result.source == JSONL_URI
    last = CardDB(db).last_sync("oracle_cards")
    assert last["source_uri"] == JSONL_URI
    assert last["updated_at"] == UPDATED
    assert last["card_count"] == N_FIXTURE
    assert last["duration_s"] >= 0
    assert last["sha256"] == hashlib.sha256(body).hexdigest()
    assert last["size_bytes"] == len(body)
    assert_intact(db)


def test_sync_legacy_shape_content_encoding_gzip(db: str) -> None:
    array = json.dumps(fixture_objects()).encode()
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, json=legacy_descriptor())
        rsps.get(
            LEGACY_URI,
            body=gzip.compress(array),
            headers={"Content-Encoding": "gzip", "Content-Type": "application/json"},
        )
        [result] = sync(db, api=API, session=fast_session())
    assert result.card_count == N_FIXTURE
    last = CardDB(db).last_sync("oracle_cards")
    assert last["source_uri"] == LEGACY_URI
    # requests decoded the Content-Encoding: the file on disk was the plain JSON array
    assert last["sha256"] == hashlib.sha256(array).hexdigest()
    assert_intact(db)


def test_transition_descriptor_prefers_jsonl(db: str) -> None:
    """The 2026-05 descriptor carried both URIs; the JSON Lines one is used."""
    with responses.RequestsMock() as rsps:
        body = gzip.compress(jsonl_bytes(fixture_objects()))
        rsps.get(DESCRIPTOR_URL, json=dict(legacy_descriptor(), jsonl_download_uri=JSONL_URI))
        rsps.get(JSONL_URI, body=body)
        [result] = sync(db, api=API, session=fast_session())
    assert result.source == JSONL_URI and result.card_count == N_FIXTURE


def test_gzip_detected_by_magic_not_name(db: str) -> None:
    """A file whose name says .jsonl.gz but that arrives already decoded imports fine."""
    with responses.RequestsMock() as rsps:
        plain = jsonl_bytes(fixture_objects())
        rsps.get(DESCRIPTOR_URL, json=current_descriptor())
        rsps.get(JSONL_URI, body=plain)
        [result] = sync(db, api=API, session=fast_session())
    assert result.card_count == N_FIXTURE


# ---------------------------------------------------------------------------- headers


@pytest.mark.parametrize("session_kind", ["ours", "plain requests.Session"])
def test_headers_on_every_request(db: str, session_kind: str) -> None:
    session = fast_session() if session_kind == "ours" else requests.Session()
    with responses.RequestsMock() as rsps:
        serve_current(rsps)
        sync(db, api=API, session=session)
        assert len(rsps.calls) == 2
        for call in rsps.calls:
            ua = call.request.headers["User-Agent"]
            assert ua.startswith(f"deckcheck/{__version__} ")
            assert "python-requests" not in ua
            assert call.request.headers["Accept"]


def test_generic_user_agent_400_shows_details(db: str) -> None:
    details = (
        "Your User-Agent string is currently a default value supplied by your HTTP "
        "library. Please provide a custom User-Agent that identifies your application."
    )
    with responses.RequestsMock() as rsps:
        rsps.get(
            DESCRIPTOR_URL,
            status=400,
            json={
                "object": "error",
                "code": "bad_request",
                "subcode": "generic_user_agent",
                "status": 400,
                "details": details,
            },
        )
        with pytest.raises(SyncError) as err:
            sync(db, api=API, session=fast_session())
    assert details in str(err.value)
    assert "HTTP 400" in str(err.value)
    assert not Path(db).exists()


# ---------------------------------------------------------------------------- retries


def test_429_honours_retry_after(db: str) -> None:
    sleeps = Sleeps()
    with responses.RequestsMock() as rsps:
        rsps.get(
            DESCRIPTOR_URL,
            status=429,
            headers={"Retry-After": "7"},
            json={
                "object": "error",
                "code": "rate_limited",
                "status": 429,
                "details": "You are being rate-limited",
            },
        )
        serve_current(rsps)
        [result] = sync(db, api=API, session=make_session(backoff=0, min_interval=0, sleep=sleeps))
        assert calls_to(rsps, DESCRIPTOR_URL) == 2
    assert sleeps == [7.0]
    assert result.card_count == N_FIXTURE


def test_429_without_retry_after_waits_as_scryfall_asks(db: str) -> None:
    sleeps = Sleeps()
    with responses.RequestsMock() as rsps:
        rsps.get(
            DESCRIPTOR_URL,
            status=429,
            json={
                "object": "error",
                "status": 429,
                "details": "You are being rate-limited, try again after 60 seconds.",
            },
        )
        serve_current(rsps)
        sync(db, api=API, session=make_session(backoff=0, min_interval=0, sleep=sleeps))
    assert sleeps == [RATE_LIMIT_WAIT] and RATE_LIMIT_WAIT == 60.0


def test_429_every_time_gives_up_with_details(db: str, seeded: str) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(
            DESCRIPTOR_URL,
            status=429,
            json={"object": "error", "status": 429, "details": "You are being rate-limited"},
        )
        with pytest.raises(SyncError, match="HTTP 429: You are being rate-limited"):
            sync(seeded, api=API, session=fast_session(retries=2))
        assert calls_to(rsps, DESCRIPTOR_URL) == 3
    assert_intact(seeded)


@pytest.mark.parametrize("where", ["descriptor", "download"])
def test_500_then_success_backs_off(db: str, where: str) -> None:
    sleeps = Sleeps()
    url = DESCRIPTOR_URL if where == "descriptor" else JSONL_URI
    with responses.RequestsMock() as rsps:
        rsps.get(url, status=500, body="oops")
        serve_current(rsps)
        [result] = sync(
            db, api=API, session=make_session(backoff=0.5, min_interval=0, sleep=sleeps)
        )
        assert calls_to(rsps, url) == 2
    assert sleeps == [0.5]
    assert result.card_count == N_FIXTURE


@pytest.mark.parametrize("where", ["descriptor", "download"])
@pytest.mark.parametrize("status, failures", [(429, 2), (502, 3), (503, 5)])
def test_index_and_download_share_one_retry_policy(
    db: str, where: str, status: int, failures: int
) -> None:
    """Both get the session's 6 attempts, with the same waits: the download used to fail on
    its second 429 or its third 502 while the index tried six times."""
    sleeps = Sleeps()
    url = DESCRIPTOR_URL if where == "descriptor" else JSONL_URI
    with responses.RequestsMock() as rsps:
        for _ in range(failures):
            rsps.get(url, status=status, body="busy")
        serve_current(rsps)
        [result] = sync(
            db,
            api=API,
            session=make_session(backoff=0.5, rate_limit_wait=3, min_interval=0, sleep=sleeps),
        )
        assert calls_to(rsps, url) == failures + 1
    backoffs = [0.5, 1.0, 2.0, 4.0, 8.0][:failures]
    assert sleeps == ([3.0] * failures if status == 429 else backoffs)
    assert result.card_count == N_FIXTURE


@pytest.mark.parametrize("where", ["descriptor", "download"])
def test_six_failures_end_the_index_and_the_download_alike(seeded: str, where: str) -> None:
    url = DESCRIPTOR_URL if where == "descriptor" else JSONL_URI
    with responses.RequestsMock() as rsps:
        if where == "download":
            rsps.get(DESCRIPTOR_URL, json=current_descriptor())
        rsps.get(url, status=502, body="bad gateway")  # every time
        with pytest.raises(SyncError, match="HTTP 502: bad gateway"):
            sync(seeded, api=API, session=fast_session())
        assert calls_to(rsps, url) == 6
    assert_intact(seeded)


def test_download_attempts_count_broken_bodies_and_statuses_together(db: str) -> None:
    """A download's attempts are one count: a body that broke off, then statuses."""
    body = gzip.compress(jsonl_bytes(fixture_objects()))
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, json=current_descriptor(size=len(body)))
        rsps.get(JSONL_URI, body=io.BufferedReader(_DroppingBody(body, len(body) // 3)))
        for _ in range(4):
            rsps.get(JSONL_URI, status=503, body="busy")
        rsps.get(JSONL_URI, body=body[: len(body) // 2])  # the sixth attempt: truncated
        with pytest.raises(SyncError, match="failed after 6 attempts: got .* truncated"):
            sync(db, api=API, session=fast_session())
        assert calls_to(rsps, JSONL_URI) == 6


@pytest.mark.parametrize("where", ["descriptor", "download"])
def test_retry_after_is_capped_and_the_wait_is_said(
    db: str, where: str, caplog: pytest.LogCaptureFixture
) -> None:
    from validator.sync import DownloadLimits

    sleeps = Sleeps()
    url = DESCRIPTOR_URL if where == "descriptor" else JSONL_URI
    with responses.RequestsMock() as rsps:
        rsps.get(url, status=429, headers={"Retry-After": "999999"}, body="slow down")
        rsps.get(url, status=503, headers={"Retry-After": "2"}, body="busy")
        serve_current(rsps)
        with caplog.at_level("WARNING", logger="deckcheck.sync"):
            sync(
                db,
                api=API,
                session=make_session(backoff=0, min_interval=0, sleep=sleeps),
                limits=DownloadLimits(max_retry_after=30),
            )
    assert sleeps == [30.0, 2.0]  # was: 600 s for the first, whatever the settings said
    said = caplog.text
    assert "HTTP 429 (rate-limited); waiting 30 s (Retry-After asked for 999999 s" in said
    assert "--max-retry-after" in said
    assert "HTTP 503; waiting 2 s (as Retry-After asks), then attempt 3 of 6" in said


def test_max_retry_after_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    from validator.sync import DownloadLimits, SyncError

    assert DownloadLimits.from_env().max_retry_after == 120
    monkeypatch.setenv("DECKCHECK_SYNC_MAX_RETRY_AFTER", "45")
    assert DownloadLimits.from_env().max_retry_after == 45
    assert DownloadLimits.from_env(max_retry_after=5).max_retry_after == 5
    monkeypatch.setenv("DECKCHECK_SYNC_MAX_RETRY_AFTER", "soon")
    with pytest.raises(SyncError, match="DECKCHECK_SYNC_MAX_RETRY_AFTER='soon' is not a number"):
        DownloadLimits.from_env()


def test_cli_max_retry_after_bounds_the_wait(
    db: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    from validator.cli import main

    sleeps = Sleeps()
    monkeypatch.setenv("DECKCHECK_SCRYFALL_API", API)
    monkeypatch.setattr(
        "validator.sync.job.make_session",
        lambda: make_session(backoff=0, min_interval=0, sleep=sleeps),
    )
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, status=429, headers={"Retry-After": "999999"}, body="later")
        serve_current(rsps)
        assert main(["sync", "--db", db, "--max-retry-after", "0.5"]) == 0
    assert sleeps == [0.5]
    # the wait, said as it starts (on stderr: Python's last-resort handler of warnings)
    assert "HTTP 429 (rate-limited); waiting 0.5 s (Retry-After asked for 999999 s" in caplog.text
    assert main(["sync", "--db", db, "--max-retry-after", "-1"]) == 2
    assert "--max-retry-after must not be negative" in capsys.readouterr().err


@pytest.mark.parametrize(
    "error",
    [
        requests.exceptions.ConnectTimeout("connect timed out"),
        requests.exceptions.ReadTimeout("read timed out"),
        requests.exceptions.ConnectionError("connection reset"),
    ],
)
def test_descriptor_and_download_each_survive_one_failure(db: str, error: Exception) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, body=error)
        rsps.get(JSONL_URI, body=error)
        serve_current(rsps)
        [result] = sync(db, api=API, session=fast_session())
        assert calls_to(rsps, DESCRIPTOR_URL) == 2
        assert calls_to(rsps, JSONL_URI) == 2
    assert result.card_count == N_FIXTURE
    assert_intact(db)


class _DroppingBody(io.RawIOBase):
    """A response body whose connection breaks after `cut` bytes."""

    def __init__(self, data: bytes, cut: int):
        self.data, self.pos, self.cut = data, 0, cut

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.pos >= self.cut:
            raise ProtocolError("Connection broken: IncompleteRead")
        n = min(len(buffer), self.cut - self.pos)
        buffer[:n] = self.data[self.pos : self.pos + n]
        self.pos += n
        return n


def test_connection_dropped_mid_download_is_retried(db: str) -> None:
    body = gzip.compress(jsonl_bytes(fixture_objects()))
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, json=current_descriptor(size=len(body)))
        rsps.get(JSONL_URI, body=io.BufferedReader(_DroppingBody(body, len(body) // 3)))
        rsps.get(JSONL_URI, body=body)
        [result] = sync(db, api=API, session=fast_session())
        assert calls_to(rsps, JSONL_URI) == 2
    assert result.card_count == N_FIXTURE
    assert CardDB(db).last_sync("oracle_cards")["sha256"] == hashlib.sha256(body).hexdigest()


def test_unreachable_scryfall_names_the_url(seeded: str) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, body=requests.exceptions.ConnectTimeout("timed out"))
        with pytest.raises(SyncError) as err:
            sync(seeded, api=API, session=fast_session(retries=2))
        assert calls_to(rsps, DESCRIPTOR_URL) == 3
    assert DESCRIPTOR_URL in str(err.value) and "ConnectTimeout" in str(err.value)
    assert_intact(seeded)


def test_fetch_descriptor_rejects_a_non_bulk_answer() -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, json={"object": "list", "data": []})
        with pytest.raises(SyncError, match="no jsonl_download_uri or download_uri"):
            fetch_descriptor(fast_session(), "oracle_cards", API)


# ---------------------------------------------------------------------------- bad data


def test_truncated_download_is_retried_then_reported(seeded: str) -> None:
    body = gzip.compress(jsonl_bytes(fixture_objects()))
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, json=current_descriptor(size=len(body)))
        rsps.get(JSONL_URI, body=body[: len(body) // 2])
        with pytest.raises(SyncError, match="truncated") as err:
            sync(seeded, api=API, session=fast_session(retries=1))
        assert calls_to(rsps, JSONL_URI) == 2
    assert f"Scryfall announced {len(body)}" in str(err.value)
    assert_intact(seeded)


def test_truncated_gzip_is_reported(seeded: str) -> None:
    """No announced size to compare: the gzip stream itself shows the truncation."""
    body = gzip.compress(jsonl_bytes(fixture_objects()))
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, json=current_descriptor())
        rsps.get(JSONL_URI, body=body[:-100])
        with pytest.raises(
            SyncError,
            match=r"oracle-cards-20260908090157\.jsonl\.gz: the gzip "
            r"data is truncated or corrupt",
        ):
            sync(seeded, api=API, session=fast_session())
    assert_intact(seeded)


def test_truncated_gzip_from_file(seeded: str, tmp_path: Path) -> None:
    path = write_bulk(tmp_path / "cut.jsonl.gz", fixture_objects())
    path.write_bytes(path.read_bytes()[:-20])
    with pytest.raises(SyncError, match="cut.jsonl.gz: the gzip data is truncated or corrupt"):
        sync(seeded, from_file=path)
    assert_intact(seeded)


def test_malformed_json_line(seeded: str) -> None:
    lines = jsonl_bytes(fixture_objects()).splitlines(keepends=True)
    lines.insert(5, b'{"object": "card", "name": "Broken\n')
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, json=current_descriptor())
        rsps.get(JSONL_URI, body=gzip.compress(b"".join(lines)))
        with pytest.raises(
            SyncError,
            match=r"oracle-cards-20260908090157\.jsonl\.gz, line 6: "
            r"not valid JSON",
        ):
            sync(seeded, api=API, session=fast_session())
    assert_intact(seeded)
    assert CardDB(seeded).last_sync("oracle_cards")["updated_at"] is None  # only the seed


def test_card_without_oracle_id(seeded: str, tmp_path: Path) -> None:
    objs = fixture_objects()
    del objs[3]["oracle_id"]
    path = write_bulk(tmp_path / "no-id.jsonl.gz", objs)
    with pytest.raises(SyncError) as err:
        sync(seeded, from_file=path)
    message = str(err.value)
    assert "no-id.jsonl.gz, line 4" in message
    assert objs[3]["name"] in message and "oracle_id" in message
    assert_intact(seeded)


def test_card_without_oracle_id_cli_exit_code(
    seeded: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from validator.cli import main

    objs = fixture_objects()
    del objs[7]["oracle_id"]
    path = write_bulk(tmp_path / "no-id.jsonl", objs, gz=False)
    assert main(["sync", "--from", str(path), "--db", seeded]) != 0
    err = capsys.readouterr().err
    assert "no-id.jsonl, line 8" in err and "has no oracle_id" in err
    assert_intact(seeded)


def test_unknown_legality_key_value_and_layout_import(db: str, tmp_path: Path) -> None:
    objs = fixture_objects()
    bolt = next(o for o in objs if o["name"] == "Lightning Bolt")
    bolt["legalities"] = dict(bolt["legalities"], hyperformat2030="legal", modern="suspended")
    objs.append(
        {
            "object": "card",
            "oracle_id": "00000000-0000-4000-8000-000000000100",
            "name": "Hologram Thing",
            "layout": "hologram",
            "type_line": "Artifact",
            "mana_cost": "{3}",
            "cmc": 3.0,
            "oracle_text": "",
            "color_identity": [],
            "keywords": [],
            "legalities": {"vintage": "legal", "newformat": "maybe"},
            "future_field": {"nested": [1, 2]},
        }
    )
    [result] = sync(db, from_file=write_bulk(tmp_path / "new.jsonl.gz", objs))
    assert result.card_count == N_FIXTURE + 1
    cards = CardDB(db)
    bolt_card = deck_card(cards, "Lightning Bolt")
    assert bolt_card.legality("hyperformat2030") == "legal"
    assert bolt_card.legality("modern") == "suspended"
    thing = deck_card(cards, "Hologram Thing")
    assert thing.layout == "hologram" and thing.legality("newformat") == "maybe"
    assert "newformat" in cards.info().formats


def test_non_card_objects_are_skipped(db: str, tmp_path: Path) -> None:
    objs = fixture_objects() + [{"object": "ruling", "oracle_id": "x", "comment": "hi"}]
    [result] = sync(db, from_file=write_bulk(tmp_path / "mixed.jsonl", objs, gz=False))
    assert result.card_count == N_FIXTURE


def test_empty_file_is_an_error(seeded: str, tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl.gz"
    path.write_bytes(gzip.compress(b""))
    with pytest.raises(SyncError, match="empty.jsonl.gz: the bulk file is empty"):
        sync(seeded, from_file=path)
    assert_intact(seeded)


def test_refuses_to_drop_half_the_cards_unless_allowed(seeded: str, tmp_path: Path) -> None:
    path = write_bulk(tmp_path / "small.jsonl.gz", fixture_objects()[:5])
    with pytest.raises(SyncError, match="refusing to replace the database with fewer than half"):
        sync(seeded, from_file=path)
    assert_intact(seeded)
    # --force means "import even if unchanged", never "drop most of the cards"
    with pytest.raises(
        SyncError, match=f"holds 5 cards, the database {N_FIXTURE}: .*--allow-shrink"
    ):
        sync(seeded, from_file=path, force=True)
    assert_intact(seeded)
    [result] = sync(seeded, from_file=path, allow_shrink=True)
    assert result.card_count == 5 and CardDB(seeded).info().card_count == 5


def test_cli_force_keeps_the_shrink_guard(
    seeded: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from validator.cli import main

    path = write_bulk(tmp_path / "small.jsonl.gz", fixture_objects()[:5])
    assert main(["sync", "--from", str(path), "--db", seeded, "--force"]) == 2
    err = capsys.readouterr().err
    assert f"holds 5 cards, the database {N_FIXTURE}" in err and "--allow-shrink" in err
    assert "Traceback" not in err
    assert_intact(seeded)
    assert main(["sync", "--from", str(path), "--db", seeded, "--allow-shrink"]) == 0
    assert CardDB(seeded).info().card_count == 5


def test_failed_first_sync_leaves_no_database(db: str, tmp_path: Path) -> None:
    lines = jsonl_bytes(fixture_objects()) + b"{not json\n"
    path = tmp_path / "bad.jsonl"
    path.write_bytes(lines)
    with pytest.raises(SyncError, match="bad.jsonl, line"):
        sync(db, from_file=path)
    assert not Path(db).exists()
    with pytest.raises(SyncError, match="no such file"):
        sync(db, from_file=tmp_path / "missing.jsonl.gz")
    assert not Path(db).exists()


# ---------------------------------------------------------------------------- skip, env


def test_skip_when_updated_at_unchanged(db: str) -> None:
    with responses.RequestsMock() as rsps:
        serve_current(rsps)
        sync(db, api=API, session=fast_session())
        [again] = sync(db, api=API, session=fast_session())
        assert again.skipped and "already up to date" in again.summary()
        assert calls_to(rsps, JSONL_URI) == 1
        assert calls_to(rsps, DESCRIPTOR_URL) == 2
        [forced] = sync(db, api=API, session=fast_session(), force=True)
        assert not forced.skipped and forced.card_count == N_FIXTURE
        assert calls_to(rsps, JSONL_URI) == 2


def test_new_updated_at_downloads_again(db: str) -> None:
    with responses.RequestsMock() as rsps:
        serve_current(rsps)
        sync(db, api=API, session=fast_session())
    later = "2026-09-09T09:00:00.000+00:00"
    uri2 = JSONL_URI.replace("20260908090157", "20260909090000")
    with responses.RequestsMock() as rsps:
        serve_current(rsps, uri=uri2, updated_at=later)
        [result] = sync(db, api=API, session=fast_session())
        assert calls_to(rsps, uri2) == 1
    assert not result.skipped
    last = CardDB(db).last_sync("oracle_cards")
    assert (last["updated_at"], last["source_uri"]) == (later, uri2)


def test_api_base_from_environment(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    other = "https://scryfall-mirror.test/api"
    monkeypatch.setenv("DECKCHECK_SCRYFALL_API", other + "/")
    with responses.RequestsMock() as rsps:
        body = gzip.compress(jsonl_bytes(fixture_objects()))
        rsps.get(f"{other}/bulk-data/oracle-cards", json=current_descriptor(size=len(body)))
        rsps.get(JSONL_URI, body=body)
        [result] = sync(db, session=fast_session())
    assert result.card_count == N_FIXTURE


# ---------------------------------------------------------------------------- from a file


@pytest.mark.parametrize("shape", ["jsonl", "array"])
@pytest.mark.parametrize("gz", [True, False], ids=["gzip", "plain"])
def test_sync_from_file(db: str, tmp_path: Path, shape: str, gz: bool) -> None:
    path = write_bulk(tmp_path / "cards.data", fixture_objects(), shape=shape, gz=gz)
    [result] = sync(db, from_file=path)
    assert result.card_count == N_FIXTURE
    assert result.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    last = CardDB(db).last_sync("oracle_cards")
    assert last["source_uri"] == str(path) and last["sha256"] == result.sha256
    assert_intact(db)


def test_import_file_from_legacy_sample_shape(db: str, tmp_path: Path) -> None:
    """A JSON array with a byte-order mark and pretty-printing."""
    path = tmp_path / "pretty.json"
    path.write_bytes(b"\xef\xbb\xbf\n  " + json.dumps(fixture_objects(), indent=2).encode())
    assert import_file(path, db).card_count == N_FIXTURE


# ---------------------------------------------------------------------------- legality changes


def test_legality_changes_between_syncs(db: str, tmp_path: Path) -> None:
    a = fixture_objects()
    sync(db, from_file=write_bulk(tmp_path / "a.jsonl.gz", a))
    b = fixture_objects()
    bolt = next(o for o in b if o["name"] == "Lightning Bolt")
    assert bolt["legalities"]["modern"] == "legal"
    bolt["legalities"]["modern"] = "banned"
    lurrus = next(o for o in b if o["name"] == "Lurrus of the Dream-Den")
    assert lurrus["legalities"]["modern"] == "banned"
    lurrus["legalities"]["modern"] = "legal"
    [result] = sync(db, from_file=write_bulk(tmp_path / "b.jsonl.gz", b))
    lines = result.summary().splitlines()
    assert lines[-1] == "modern: newly banned: Lightning Bolt; unbanned: Lurrus of the Dream-Den"
    assert lines[0].startswith(f"oracle_cards: {N_FIXTURE} cards imported")
    changes = CardDB(db).changes()
    assert {(c["name"], c["format"], c["old_status"], c["new_status"]) for c in changes} == {
        ("Lightning Bolt", "modern", "legal", "banned"),
        ("Lurrus of the Dream-Den", "modern", "banned", "legal"),
    }
    last = CardDB(db).last_sync("oracle_cards")
    for change in changes:
        assert change["changed_at"] is not None and change["sync_id"] == last["id"]
    # the same file again: nothing changed
    [again] = sync(db, from_file=write_bulk(tmp_path / "b2.jsonl.gz", b))
    assert again.changes == [] and len(CardDB(db).changes()) == 2


def test_removed_cards_and_format_keys(db: str, tmp_path: Path) -> None:
    a = fixture_objects()
    sync(db, from_file=write_bulk(tmp_path / "a.jsonl.gz", a))
    b = [o for o in fixture_objects() if o["name"] != "Seven Dwarves"]
    for o in b:  # Scryfall stops listing one format: not a change of every card
        o.get("legalities", {}).pop("premodern", None)
    [result] = sync(db, from_file=write_bulk(tmp_path / "b.jsonl.gz", b))
    assert [(c["name"], c["format"]) for c in result.changes] == [("Seven Dwarves", "*")]
    assert result.summary().splitlines()[-1] == "all formats: removed from the data: Seven Dwarves"
    assert deck_card(db, "Seven Dwarves") is None


def test_summarize_changes_order_and_overflow() -> None:
    changes = [
        {"name": f"Card {i}", "format": "legacy", "old_status": "legal", "new_status": "banned"}
        for i in range(10)
    ]
    changes.append({"name": "X", "format": "legacy", "old_status": "banned", "new_status": "legal"})
    changes.append(
        {"name": "Y", "format": "vintage", "old_status": "legal", "new_status": "restricted"}
    )
    text = summarize_changes(changes, per_list=3)
    assert text.splitlines() == [
        "legacy: newly banned: Card 0, Card 1, Card 2 and 7 more; unbanned: X",
        "vintage: newly restricted: Y",
    ]


# ---------------------------------------------------------------------------- name index


def test_name_index(seeded: str) -> None:
    cards = CardDB(seeded)
    found = cards.lookup(
        [
            "Fire // Ice",
            "Fire",
            "ice",
            "FIRE/ICE",
            "Lim-Dul's Vault",
            "Lim-D\u00fbl's Vault",
            "\u00c6ther Vial",
            "aether vial",
            "Okaun, Eye of Chaos",
            "Lightning Bolt",
            "Delver of Secrets",
            "Bonecrusher Giant",
        ]
    )

    def names(query: str) -> list[str]:
        return [c.name for c in found.get(fold_name(query), [])]

    for query in ("Fire // Ice", "Fire", "ice", "FIRE/ICE"):
        assert names(query) == ["Fire // Ice"], query
    assert names("Lim-Dul's Vault") == names("Lim-D\u00fbl's Vault") == ["Lim-D\u00fbl's Vault"]
    assert names("\u00c6ther Vial") == names("aether vial") == ["Aether Vial"]
    assert names("Okaun, Eye of Chaos") == ["Okaun, Eye of Chaos"]
    assert names("Lightning Bolt") == ["Lightning Bolt"]  # not the art-series card
    assert names("Delver of Secrets") == ["Delver of Secrets // Insectile Aberration"]
    assert names("Bonecrusher Giant") == ["Bonecrusher Giant // Stomp"]


@pytest.mark.parametrize(
    "name",
    [
        "Goblin",
        "Elspeth, Knight-Errant Emblem",
        "Treasure",
        "Clue",
        "Treasure // Clue",
        "Tazeem",
        "Plots That Span Centuries",
        "Ral's Vanguard",
    ],
)
def test_non_deck_objects_never_resolve(seeded: str, name: str) -> None:
    cards = CardDB(seeded)
    assert cards.lookup([name]) == {}
    assert cards.lookup([name], deck_cards_only=False)  # they are in the database


def test_a_doubled_name_is_the_card_never_its_art_series_object(seeded: str) -> None:
    """ "X // X" is Scryfall's name for a reversible card and for an art-series card of X; in
    a decklist it can only mean the card X (`names.lookup_key`), never the art card."""
    cards = CardDB(seeded)
    [found] = cards.lookup(["Lightning Bolt // Lightning Bolt"]).values()
    assert [(c.name, c.is_deck_card) for c in found] == [("Lightning Bolt", True)]
    assert cards.card("Lightning Bolt // Lightning Bolt").name == "Lightning Bolt"


def test_reversible_card_shares_its_side_cards_oracle_id(db: str, tmp_path: Path) -> None:
    """The reversible object comes first in the file; the side card's own object wins."""
    okaun = next(o for o in fixture_objects() if o["layout"] == "reversible_card")
    side = dict(
        okaun["card_faces"][0],
        object="card",
        layout="normal",
        color_identity=["R"],
        keywords=["Partner with"],
        legalities={"commander": "legal"},
    )
    side.pop("cmc")
    side["cmc"] = 5.0
    [result] = sync(db, from_file=write_bulk(tmp_path / "rev.jsonl", [okaun, side], gz=False))
    assert result.card_count == 1
    card = deck_card(db, "Okaun, Eye of Chaos")
    assert card.layout == "normal" and card.oracle_id == side["oracle_id"]
    # Scryfall's name for the reversible object ("Okaun, Eye of Chaos // Okaun, Eye of Chaos",
    # as exports and the legality history write it) is the same card, not an unknown one.
    assert okaun["name"] == "Okaun, Eye of Chaos // Okaun, Eye of Chaos"
    with CardDB(db) as cards:
        [found] = cards.lookup([okaun["name"]]).values()
        assert [c.oracle_id for c in found] == [side["oracle_id"]]
    report = validate(f"1 {okaun['name']}\n", "commander", db=db)
    assert "unknown-card" not in [p.code for p in report.problems]


# ---------------------------------------------------------------------------- printings

GODZILLA = "Godzilla, King of the Monsters"


def printing_objects() -> list[dict[str, Any]]:
    """default_cards-shaped objects for some fixture cards (set codes and collector numbers are
    illustrative, except that the Godzilla series printing of Zilortha carries its real
    flavor_name)."""
    by_name = {o["name"]: o for o in fixture_objects()}

    def printing(name: str, set_code: str, number: str, rarity: str, **extra: Any) -> dict:
        base = {k: v for k, v in by_name[name].items() if k != "legalities"}
        return {
            **base,
            "object": "card",
            "set": set_code,
            "collector_number": number,
            "rarity": rarity,
            "lang": "en",
            **extra,
        }

    return [
        printing("Lightning Bolt", "cmm", "400", "uncommon"),
        printing("Lightning Bolt", "lea", "161", "common"),
        printing("Zilortha, Strength Incarnate", "iko", "275", "mythic"),
        printing("Zilortha, Strength Incarnate", "iko", "370", "mythic", flavor_name=GODZILLA),
        printing("Fire // Ice", "mh2", "290", "uncommon"),
        printing("Okaun, Eye of Chaos // Okaun, Eye of Chaos", "sld", "380", "rare"),
        printing("Lightning Bolt", "ja1", "1", "common", lang="ja", printed_name="\u7a32\u59bb"),
        {
            "object": "card",
            "name": "Unknown Token",
            "layout": "token",
            "set": "tcmm",
            "collector_number": "1",
            "oracle_id": "00000000-0000-4000-8000-000000000555",
            "rarity": "common",
            "lang": "en",
        },
    ]


def test_printings_from_file(seeded: str, tmp_path: Path) -> None:
    path = write_bulk(tmp_path / "default-cards.jsonl.gz", printing_objects())
    [result] = sync(seeded, from_file=path, printings=True)
    assert result.bulk_type == "default_cards" and result.printing_count == 7
    cards = CardDB(seeded)
    bolt = deck_card(cards, "Lightning Bolt")
    assert cards.printing("cmm", "400") == (bolt.oracle_id, "uncommon")
    assert cards.printing("CMM", "400") == (bolt.oracle_id, "uncommon")
    assert cards.printing("ja1", "1") == (bolt.oracle_id, "common")  # a Japanese-only printing
    assert cards.printing("tcmm", "1") is None
    assert cards.rarities(bolt.oracle_id) == {"uncommon", "common"}
    found = cards.lookup([GODZILLA])[fold_name(GODZILLA)]
    assert [c.name for c in found] == ["Zilortha, Strength Incarnate"]
    assert cards.lookup(["\u7a32\u59bb"]) == {}  # localized names are not aliases
    assert cards.last_sync("default_cards")["card_count"] == 7
    # an oracle re-sync keeps the aliases (they are rebuilt from the printings table)
    sync(seeded, from_file=write_bulk(tmp_path / "again.jsonl.gz", fixture_objects()))
    assert cards.lookup([GODZILLA])
    # a card gone from the oracle data loses its alias, the import does not fail
    without = [o for o in fixture_objects() if not o["name"].startswith("Zilortha")]
    sync(seeded, from_file=write_bulk(tmp_path / "without.jsonl.gz", without))
    assert cards.lookup([GODZILLA]) == {}


def test_printings_over_http(seeded: str) -> None:
    body = gzip.compress(jsonl_bytes(printing_objects()))
    uri = f"{FILES}/default-cards/default-cards-20260908091234.jsonl.gz"
    with responses.RequestsMock() as rsps:
        serve_current(rsps)
        rsps.get(
            DEFAULT_DESCRIPTOR_URL,
            json=dict(current_descriptor(uri, len(body)), type="default_cards"),
        )
        rsps.get(uri, body=body)
        oracle, printings = sync(seeded, api=API, session=fast_session(), printings=True)
    assert oracle.card_count == N_FIXTURE and printings.printing_count == 7
    assert CardDB(seeded).printing("cmm", "400")
    assert "printings imported" in printings.summary()


def test_printings_need_oracle_cards_first(db: str, tmp_path: Path) -> None:
    path = write_bulk(tmp_path / "default-cards.jsonl.gz", printing_objects())
    with pytest.raises(SyncError, match="sync oracle cards first"):
        sync(db, from_file=path, printings=True)


# ---------------------------------------------------------------------------- atomicity


def synthetic_cards(n: int, prefix: str = "Synthetic") -> list[dict[str, Any]]:
    return [
        {
            "object": "card",
            "oracle_id": f"00000000-0000-4000-9000-{i:012d}",
            "name": f"{prefix} Card {i}",
            "layout": "normal",
            "mana_cost": "{1}",
            "cmc": 1.0,
            "type_line": "Artifact",
            "oracle_text": f"Card number {i}.",
            "color_identity": [],
            "keywords": [],
            "legalities": {"modern": "legal", "legacy": "legal", "vintage": "legal"},
        }
        for i in range(n)
    ]


def _db_files(db: str) -> list[tuple[str, int]]:
    """The database's files (itself, -wal, -shm, -journal) and their sizes."""
    folder = Path(db).parent
    return sorted((p.name, p.stat().st_size) for p in folder.glob(Path(db).name + "*"))


def _many_cards(count: int) -> list[dict[str, Any]]:
    """`count` distinct one-face cards: enough for an import to write megabytes."""
    base = next(o for o in fixture_objects() if o["name"] == "Lightning Bolt")
    return [
        dict(base, oracle_id=f"00000000-0000-4000-8000-{i:012d}", name=f"Bolt Number {i}")
        for i in range(count)
    ]


@pytest.mark.parametrize("reader", [False, True], ids=["alone", "with-a-reader"])
def test_a_sync_failing_on_a_full_disk_leaves_the_database_files_as_they_were(
    seeded: str, tmp_path: Path, reader: bool
) -> None:
    """The disk fills mid-import (a file-size limit, as a full disk fails SQLite's writes):
    the sync fails, and the database's files and their sizes are what they were, also while
    a reader (a validation service) holds the database open. The rolled-back pages used to
    stay in the -wal file (3 MB here), which kept a full disk full."""
    import os
    import resource
    import signal
    import sqlite3

    big = write_bulk(tmp_path / "big.jsonl", _many_cards(6000), gz=False)
    held = sqlite3.connect(seeded) if reader else None
    try:
        if held is not None:
            held.execute("SELECT count(*) FROM cards").fetchone()
        before = _db_files(seeded)
        limit = 3 << 20
        child = os.fork()
        if child == 0:  # pragma: no cover - the child reports by its exit status
            status = 3
            try:
                signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit: EFBIG
                resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
                import_file(big, seeded, allow_shrink=True)
                status = 1  # the import did not fail
            except SyncError as exc:
                status = 0 if "failed" in str(exc) else 2
            finally:
                os._exit(status)
        _, status = os.waitpid(child, 0)
        assert os.WEXITSTATUS(status) == 0, "the import did not fail on the full disk"
        assert _db_files(seeded) == before
        if held is not None:  # the reader still reads the same cards
            assert held.execute("SELECT count(*) FROM cards").fetchone()[0] > 0
    finally:
        if held is not None:
            held.close()
    assert_intact(seeded)


def test_a_failed_sync_truncates_what_it_left_in_the_wal(
    seeded: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure after SQLite spilled the transaction's pages to the -wal file (a mocked
    write error once most cards are written), with a reader holding the database open."""
    import sqlite3

    from sqlalchemy.exc import OperationalError

    import validator.sync.importer as importer

    real = importer.write_batches

    def fails_midway(conn: Any, batches: Any, **kw: Any) -> Any:
        conn.exec_driver_sql("PRAGMA cache_size=-64")  # spill dirty pages to the -wal early
        real(conn, batches, **kw)
        raise OperationalError("INSERT", {}, sqlite3.OperationalError("database or disk is full"))

    monkeypatch.setattr(importer, "write_batches", fails_midway)
    big = write_bulk(tmp_path / "big.jsonl", _many_cards(3000), gz=False)
    held = sqlite3.connect(seeded)
    try:
        held.execute("SELECT count(*) FROM cards").fetchone()
        before = _db_files(seeded)
        with pytest.raises(SyncError):
            import_file(big, seeded, allow_shrink=True)
        assert _db_files(seeded) == before
    finally:
        held.close()
    assert_intact(seeded)


def test_readers_see_the_old_database_during_and_after_a_failed_sync(
    seeded: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import validator.sync.importer as importer

    path = tmp_path / "half.jsonl"
    path.write_bytes(
        jsonl_bytes(synthetic_cards(3000))
        + b'{"object": "card", "name": \n'
        + jsonl_bytes(synthetic_cards(10, "Late"))
    )
    reader = CardDB(seeded)
    before = reader.info().card_count
    seen_during: list[tuple[int, bool]] = []
    real = importer.card_from_scryfall
    calls = 0

    def hooked(obj: dict[str, Any]):
        # The generator hook: after 2500 cards the importer has written its first batch
        # (2000 cards) inside its open transaction. A reader must still see the old cards.
        nonlocal calls
        calls += 1
        if calls in (1, 2500, 3000):
            seen_during.append(
                (reader.info().card_count, bool(reader.lookup(["Synthetic Card 1"])))
            )
        return real(obj)

    monkeypatch.setattr(importer, "card_from_scryfall", hooked)
    with pytest.raises(SyncError, match="half.jsonl, line 3001: not valid JSON"):
        import_file(path, seeded)
    assert calls == 3000
    assert seen_during == [(before, False)] * 3
    assert reader.info().card_count == before
    assert reader.lookup(["Synthetic Card 1"]) == {}
    assert_intact(seeded)
    reader.close()


# ---------------------------------------------------------------------------- the reading process


@pytest.fixture
def in_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read every file in the second process, as a full-size sync does."""
    import validator.sync.importer as importer

    monkeypatch.setattr(importer, "PARALLEL_MIN_BYTES", 0)


def test_worker_import_matches_in_process_import(in_worker: None, db: str, tmp_path: Path) -> None:
    path = write_bulk(tmp_path / "cards.jsonl.gz", fixture_objects())
    result = import_file(path, db)
    assert result.card_count == N_FIXTURE
    assert result.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert_intact(db)


def test_worker_reports_the_bad_line_and_keeps_the_database(
    in_worker: None, seeded: str, tmp_path: Path
) -> None:
    objs = fixture_objects()
    del objs[3]["oracle_id"]
    path = write_bulk(tmp_path / "no-id.jsonl.gz", objs)
    with pytest.raises(SyncError, match=r"no-id\.jsonl\.gz, line 4: .*oracle_id"):
        import_file(path, seeded)
    assert_intact(seeded)


def test_worker_resync_records_changes(in_worker: None, seeded: str, tmp_path: Path) -> None:
    objs = fixture_objects()
    bolt = next(o for o in objs if o["name"] == "Lightning Bolt")
    bolt["legalities"]["modern"] = "banned"
    result = import_file(write_bulk(tmp_path / "b.jsonl.gz", objs), seeded)
    assert [(c["name"], c["format"], c["new_status"]) for c in result.changes] == [
        ("Lightning Bolt", "modern", "banned")
    ]


# -------------------------------------------------------------------------------------- crashes


def test_connection_reset_on_the_index_request_is_retried(db: str) -> None:
    """The bulk-data index is not streamed: its body is read inside get(), where a reset is a
    ChunkedEncodingError, not a ConnectionError."""
    body = orjson.dumps(current_descriptor())
    with responses.RequestsMock() as rsps:
        rsps.get(
            DESCRIPTOR_URL,
            body=requests.exceptions.ChunkedEncodingError(
                "Connection broken: ConnectionResetError(104, 'Connection reset by peer')"
            ),
        )
        rsps.get(DESCRIPTOR_URL, body=io.BufferedReader(_DroppingBody(body, len(body) // 2)))
        serve_current(rsps)
        [result] = sync(db, api=API, session=fast_session())
        assert calls_to(rsps, DESCRIPTOR_URL) == 3
    assert result.card_count == N_FIXTURE


def test_connection_reset_on_the_index_every_time_is_a_sync_error(seeded: str) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, body=requests.exceptions.ChunkedEncodingError("reset"))
        with pytest.raises(SyncError, match="cannot reach the server after 3 attempts"):
            sync(seeded, api=API, session=fast_session(retries=2))
    assert_intact(seeded)


@pytest.mark.parametrize(
    "uri",
    [
        "/oracle-cards/oracle-cards.jsonl.gz",
        "data.scryfall.test/oracle-cards.jsonl.gz",
        "ftp://data.scryfall.test/oracle-cards.jsonl.gz",
        42,
        {"href": JSONL_URI},
        [JSONL_URI],
    ],
)
def test_download_uri_that_is_no_absolute_url_fails_cleanly(seeded: str, uri: Any) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, json=dict(current_descriptor(), jsonl_download_uri=uri))
        with pytest.raises(SyncError, match=r"download URI .*(not a URL|not an absolute http)"):
            sync(seeded, api=API, session=fast_session())
    assert_intact(seeded)


def test_download_of_an_invalid_url_is_a_sync_error(tmp_path: Path) -> None:
    from validator.sync.http import download

    with pytest.raises(SyncError, match="not a URL that can be downloaded"):
        download(fast_session(), "http://", tmp_path / "x")


def _name_resolution_error(host: str) -> requests.exceptions.ConnectionError:
    import socket

    from urllib3.exceptions import MaxRetryError, NameResolutionError

    reason = NameResolutionError(
        host, None, socket.gaierror(-3, "Temporary failure in name resolution")
    )
    return requests.exceptions.ConnectionError(MaxRetryError(None, "/bulk-data", reason))


def test_dns_failure_fails_fast_with_the_offline_hint(db: str) -> None:
    sleeps = Sleeps()
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, body=_name_resolution_error("api.scryfall.test"))
        with pytest.raises(SyncError) as err:
            sync(db, api=API, session=make_session(min_interval=0, sleep=sleeps))
        assert calls_to(rsps, DESCRIPTOR_URL) == 1  # not retried
    assert sleeps == []
    assert "cannot resolve the host name api.scryfall.test" in str(err.value)
    hint = err.value.hint
    assert "deckcheck sync --from FILE" in hint and "DECKCHECK_SCRYFALL_API" in hint
    assert "previous" not in hint and "unchanged" not in hint  # there is no database
    assert not Path(db).exists()


def test_dns_failure_with_a_database_says_it_is_unchanged(seeded: str) -> None:
    with responses.RequestsMock() as rsps:
        rsps.get(DESCRIPTOR_URL, body=_name_resolution_error("api.scryfall.test"))
        with pytest.raises(SyncError) as err:
            sync(seeded, api=API, session=fast_session())
    assert "--from FILE" in err.value.hint
    assert f"unchanged by this sync: it still holds its {N_FIXTURE} cards" in err.value.hint


def test_dns_failure_through_the_real_stack(
    db: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No mock of requests: the resolver itself fails, as on a machine without network."""
    import socket

    from validator.cli import main

    def no_dns(*args: Any, **kw: Any):
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    monkeypatch.setenv("DECKCHECK_SCRYFALL_API", "https://api.scryfall.test")
    import time as time_module

    started = time_module.monotonic()
    assert main(["sync", "--db", db]) == 2
    assert time_module.monotonic() - started < 10  # was: 6 attempts over 31 s of backoff
    err = capsys.readouterr().err
    assert "cannot resolve the host name api.scryfall.test" in err
    assert "deckcheck sync --from FILE" in err and "DECKCHECK_SCRYFALL_API" in err
    assert "previous" not in err and "Traceback" not in err


@pytest.mark.parametrize("reader", ["in-process", "worker"])
@pytest.mark.parametrize(
    "field, value, expected",
    [
        ("name", 42, "name is int, not text"),
        ("oracle_id", {"a": 1}, "oracle_id is dict, not text"),
        ("name", "X" * 301, "name is 301 characters long; at most 300 fit"),
        ("oracle_id", "0" * 37, "oracle_id is 37 characters long"),
        ("name", "Nul\x00Card", "name contains a NUL character"),
        ("legalities", {"f" * 41: "legal"}, "legality key 'fffff"),
        # a letter that is no color would make the card colorless: fit for every Commander deck
        ("color_identity", ["R", "Q"], "color_identity ['R', 'Q']; expected a list of the letters"),
        ("color_identity", "R", "color_identity 'R'; expected a list"),
    ],
)
def test_bad_card_fields_name_the_line(
    reader: str,
    field: str,
    value: Any,
    expected: str,
    seeded: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import validator.sync.importer as importer

    monkeypatch.setattr(importer, "PARALLEL_MIN_BYTES", 0 if reader == "worker" else 1 << 40)
    objs = fixture_objects()
    objs[4][field] = value
    path = write_bulk(tmp_path / "bad.jsonl", objs, gz=False)
    with pytest.raises(SyncError) as err:
        import_file(path, seeded)
    message = str(err.value)
    assert message.startswith("bad.jsonl, line 5: card ") and expected in message, message
    assert_intact(seeded)


def test_empty_database_says_run_sync(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """What a first sync killed outright can leave: a schema without cards, or a file without
    tables. Library and CLI say the same thing."""
    import sqlite3

    import validator
    from validator.cli import main
    from validator.store.database import DatabaseError, create_schema, make_engine

    schema_only = tmp_path / "schema.sqlite3"
    engine = make_engine(f"sqlite:///{schema_only}")
    create_schema(engine)
    engine.dispose()
    no_tables = tmp_path / "blank.sqlite3"
    sqlite3.connect(no_tables).close()
    deck = tmp_path / "deck.txt"
    deck.write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    for path in (schema_only, no_tables):
        with pytest.raises(DatabaseError, match=r"no card data in .*: run `deckcheck sync`"):
            validator.open_db(path)
        with pytest.raises(DatabaseError, match="no card data"):
            CardDB(path).check()
        with pytest.raises(DatabaseError, match="no card data"):
            validator.validate("4 Lightning Bolt\n56 Mountain\n", "modern", db=str(path))
        assert main(["validate", str(deck), "--format", "modern", "--db", str(path)]) == 2
        err = capsys.readouterr().err
        assert "no card data" in err and "deckcheck sync" in err and "Traceback" not in err


def test_sync_into_an_empty_database_works(tmp_path: Path) -> None:
    """An empty schema left by a killed sync is simply filled by the next one."""
    from validator.store.database import create_schema, make_engine

    path = tmp_path / "schema.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    create_schema(engine)
    engine.dispose()
    sync(str(path), from_file=write_bulk(tmp_path / "a.jsonl.gz", fixture_objects()))
    assert_intact(str(path))


def test_a_second_sync_of_the_same_file_skips_it_under_the_lock(
    seeded: str, tmp_path: Path
) -> None:
    """Two syncs that both downloaded the same file: the one that gets the lock second finds
    the file already imported and skips it (no second sync run, no changes twice)."""
    path = write_bulk(tmp_path / "a.jsonl.gz", fixture_objects())
    first = import_file(path, seeded, updated_at=UPDATED)
    second = import_file(path, seeded, updated_at=UPDATED)
    assert not first.skipped and second.skipped
    assert import_file(path, seeded, updated_at=UPDATED, force=True).card_count == N_FIXTURE


def test_sync_waits_a_bounded_time_for_the_write_lock(
    seeded: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another writer holds SQLite's write lock: the sync waits --lock-timeout, then says
    another sync is running, and does not claim to know the database's state."""
    import sqlite3

    from validator.cli import main
    from validator.sync import SyncBusy

    path = write_bulk(tmp_path / "a.jsonl.gz", fixture_objects())
    holder = sqlite3.connect(seeded, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(SyncBusy, match=r"another sync is writing to .* \(waited 0\.2 s\)"):
            sync(seeded, from_file=path, lock_timeout=0.2)
        assert main(["sync", "--from", str(path), "--db", seeded, "--lock-timeout", "0.3"]) == 2
        err = capsys.readouterr().err
        assert "another sync is writing" in err and "--lock-timeout" in err
        assert "(waited 0.3 s)" in err
        assert "unchanged" not in err and "previous" not in err
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    [result] = sync(seeded, from_file=path, lock_timeout=0.2)
    assert result.card_count == N_FIXTURE


# ---------------------------------------------------------------------------- sync --from hardening


@pytest.mark.parametrize(
    "key, value, says",
    [
        ("legalities", "legal", "legalities must be an object of format -> status"),
        ("legalities", [["modern", "legal"]], "legalities must be an object of format -> status"),
        # read as not_legal, a status that is no text would judge by a ban list never given
        (
            "legalities",
            {"modern": None, "vintage": "legal"},
            "the legality of 'modern' is null (None), not a",
        ),
        (
            "legalities",
            {"vintage": "legal", "legacy": 7},
            "the legality of 'legacy' is a number (7)",
        ),
        ("card_faces", "Fire // Ice", "card_faces must be a list of face objects, not a text"),
        (
            "card_faces",
            [{"name": "Fire", "type_line": ["Instant"]}],
            "card_faces[1].type_line must be a text, not a list",
        ),
        ("keywords", "Flying", "keywords must be a list of keyword names, not a text"),
        ("type_line", {"types": ["Instant"]}, "type_line must be a text, not an object"),
    ],
)
@pytest.mark.parametrize("worker", [False, True], ids=["in-process", "worker"])
def test_a_mis_shaped_card_field_names_the_card_and_the_key(
    seeded: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    key: str,
    value: Any,
    says: str,
    worker: bool,
) -> None:
    import validator.sync.importer as importer

    if worker:
        monkeypatch.setattr(importer, "PARALLEL_MIN_BYTES", 0)
    objs = fixture_objects()
    i = next(i for i, o in enumerate(objs) if i > 3 and "card_faces" not in o)  # one face
    objs[i][key] = value
    path = write_bulk(tmp_path / "bad.jsonl", objs, gz=False)
    with pytest.raises(SyncError) as err:
        sync(seeded, from_file=path)
    message = str(err.value)
    assert message.startswith(f"bad.jsonl, line {i + 1}: card {objs[i]['name']!r}: {says}"), message
    assert "ValueError" not in message and "TypeError" not in message
    assert_intact(seeded)


def test_keys_deckcheck_does_not_read_are_not_checked(db: str, tmp_path: Path) -> None:
    objs = fixture_objects()
    objs[5]["image_uris"] = "not an object"
    objs[5]["prices"] = [1, 2]
    assert import_file(write_bulk(tmp_path / "ok.jsonl.gz", objs), db).card_count == N_FIXTURE


def test_a_scryfall_api_page_is_refused_as_one(seeded: str, tmp_path: Path) -> None:
    path = tmp_path / "search.json"
    path.write_bytes(orjson.dumps({"object": "list", "has_more": False, "data": fixture_objects()}))
    with pytest.raises(
        SyncError,
        match=r"search\.json, line 1: the file is one JSON object with "
        r"a \"data\" list \(a Scryfall API page.*wants a Scryfall "
        r"bulk file \(JSON Lines or one JSON array",
    ):
        sync(seeded, from_file=path)
    assert_intact(seeded)


def test_sync_from_a_pipe(db: str, tmp_path: Path) -> None:
    """`curl ... | deckcheck sync --from /dev/stdin` (or `--from <(...)`): read once, as a
    stream; named by its path in messages."""
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = gzip.compress(jsonl_bytes(fixture_objects()))

    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    result = sync(db, from_file=fifo)[0]
    writer.join(timeout=10)
    assert result.card_count == N_FIXTURE and result.source == str(fifo)
    assert result.sha256 == hashlib.sha256(data).hexdigest()
    assert_intact(db)


def test_sync_from_a_pipe_that_is_not_a_bulk_file_keeps_the_database(
    seeded: str, tmp_path: Path
) -> None:
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as f:
            try:
                f.write(b"\0" * (20 << 20))  # `cat /dev/zero |`: refused once 16 MiB are read
            except BrokenPipeError:
                pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    with pytest.raises(SyncError, match=rf"{fifo}, line 1: longer than 16 MiB with no line break"):
        sync(seeded, from_file=fifo)
    writer.join(timeout=10)
    assert_intact(seeded)


def test_cli_sync_from_a_device_says_what_to_do(
    seeded: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from validator.cli import main

    assert main(["sync", "--from", "/dev/zero", "--db", seeded]) == 2
    err = capsys.readouterr().err
    assert (
        "--from: /dev/zero is not a regular file or a pipe (a device): save the bulk file first"
        in err
        and "no such file" not in err
    )
    assert_intact(seeded)


def test_cli_sync_from_stdin(db: str, tmp_path: Path) -> None:
    """`curl ... | deckcheck sync --from -`, in a real process (its stdin a pipe)."""
    import subprocess
    import sys

    data = gzip.compress(jsonl_bytes(fixture_objects()))
    result = subprocess.run(
        [sys.executable, "-m", "validator", "sync", "--from", "-", "--db", db],
        input=data,
        capture_output=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr.decode()
    assert_intact(db)
