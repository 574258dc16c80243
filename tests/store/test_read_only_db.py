"""A synced card database on a read-only file system (a container's read-only layer, a volume
mounted read-only) is read as is.

A sync leaves the file in WAL mode, which SQLite reads through a -shm file it creates beside the
database: on a read-only file system that failed, so every validation exited 2. There the file
is now opened immutable (`location.read_only_uri`): nothing can write it, so nothing can change
under the reader. Not when a -wal beside it holds changes (they would be skipped), and not for a
directory merely not writable by this user (its owner's sync may be writing the file).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from support import FIXTURES

import validator
from validator.cli import main
from validator.store import location
from validator.sync import import_file

ROOT = Path(__file__).resolve().parents[2]
DECK = "4 Lightning Bolt\n56 Mountain\n"


@pytest.fixture
def synced(tmp_path: Path) -> Path:
    """A database as `deckcheck sync` leaves it (WAL mode), with the deck beside it."""
    path = tmp_path / "ro" / "cards.sqlite3"
    path.parent.mkdir()
    import_file(FIXTURES / "cards_core.json", str(path), updated_at="2026-08-22T09:00:00+00:00")
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    con.close()
    (tmp_path / "deck.txt").write_text(DECK, encoding="utf-8")
    return path


def _pretend_read_only(monkeypatch, directory: Path) -> None:
    """os.statvfs says `directory`'s file system is mounted read-only (only for it)."""
    real = os.statvfs

    def statvfs(path):
        found = real(path)
        if Path(path).parent == directory:
            return SimpleNamespace(f_flag=found.f_flag | os.ST_RDONLY)
        return found

    monkeypatch.setattr(location.os, "statvfs", statvfs)


def _sidecars(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name != path.name)


@pytest.mark.skipif(not hasattr(os, "statvfs"), reason="os.statvfs is POSIX only")
def test_on_a_read_only_file_system_the_file_is_read_without_a_shm_file(
    synced: Path, monkeypatch, capsys
) -> None:
    _pretend_read_only(monkeypatch, synced.parent)
    assert location.read_only_uri(synced) == f"file:{synced}?immutable=1"
    deck = synced.parent.parent / "deck.txt"
    # The lean reader (validate) and the SQLAlchemy one (info) both open it immutable: no
    # -shm appears beside it, as none could on a real read-only file system.
    assert main(["validate", "--db", str(synced), "-f", "modern", str(deck)]) == 0
    assert main(["info", "--db", str(synced)]) == 0
    assert "LEGAL in Modern" in capsys.readouterr().out
    assert _sidecars(synced) == []
    cards = validator.open_db(synced)
    try:
        assert [c.name for c in cards.lookup(["lightning bolt"])["lightning bolt"]] == [
            "Lightning Bolt"
        ]
    finally:
        cards.close()
    assert _sidecars(synced) == []


@pytest.mark.skipif(not hasattr(os, "statvfs"), reason="os.statvfs is POSIX only")
def test_a_wal_file_holding_changes_is_not_skipped(synced: Path, monkeypatch) -> None:
    """Copied from a live database, the -wal holds committed changes the file lacks: reading
    the file immutable would skip them, so it is not opened that way."""
    _pretend_read_only(monkeypatch, synced.parent)
    Path(f"{synced}-wal").write_bytes(b"\0" * 64)
    assert location.read_only_uri(synced) is None
    Path(f"{synced}-wal").write_bytes(b"")  # an empty one holds nothing
    assert location.read_only_uri(synced) is not None


def test_a_writable_file_system_is_opened_as_before(synced: Path) -> None:
    assert location.read_only_uri(synced) is None


def test_the_message_for_an_unreadable_read_only_database_names_the_wal(
    synced: Path, monkeypatch
) -> None:
    import validator.store.database as db_module

    Path(f"{synced}-wal").write_bytes(b"\0" * 64)
    monkeypatch.setattr(db_module.os, "access", lambda path, mode: mode != os.W_OK)
    error = db_module.database_error(
        f"sqlite:///{synced}", sqlite3.OperationalError("unable to open database file")
    )
    assert "cards.sqlite3-wal" in str(error) and "holds changes" in str(error)


def _can_mount_read_only(tmp_path: Path) -> bool:
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return False
    probe = tmp_path / "probe"
    probe.mkdir()
    proc = subprocess.run(
        [
            "unshare",
            "-rm",
            "sh",
            "-c",
            f"mount --bind {probe} {probe} && "
            f"mount -o remount,bind,ro {probe} && ! touch {probe}/x",
        ],
        capture_output=True,
    )
    return proc.returncode == 0


def test_a_real_read_only_mount(synced: Path, tmp_path: Path) -> None:
    """The whole CLI in a private mount namespace where the database's directory is mounted
    read-only: validate judges, and a sync into it fails naming the read-only directory and
    what to do, leaving the file as it was."""
    if not _can_mount_read_only(tmp_path):
        pytest.skip(
            "no read-only mount here: needs `unshare -rm` (user and mount namespaces) and `mount`"
        )
    before = synced.read_bytes()
    deck = tmp_path / "deck.txt"
    cli = f"{sys.executable} -m validator"
    script = (
        f"mount --bind {synced.parent} {synced.parent} && "
        f"mount -o remount,bind,ro {synced.parent} && "
        f"{cli} validate --db {synced} -f modern {deck}; echo rc=$?; "
        f"{cli} sync --db {synced} --from {FIXTURES / 'cards_core.json'}; echo rc=$?"
    )
    proc = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=120,
    )
    out = proc.stdout
    assert "LEGAL in Modern" in out and "rc=0" in out, proc.stderr
    assert out.rstrip().endswith("rc=2"), out
    assert "read-only" in proc.stderr and "sync into a writable directory" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert synced.read_bytes() == before
