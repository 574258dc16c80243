"""What a sync reports: `SyncError` and its kinds when it fails, `SyncResult` when it ends.

The bottom of validator/sync/: the transport (`http`), the import (`importer`) and the job
(`job`) all raise these, and callers catch them from the package (`validator.sync`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from validator.errors import DeckcheckError


class SyncError(DeckcheckError, RuntimeError):
    """A sync failed; the message says what was wrong. The sync's own changes were rolled back.

    `hint` (or None) says what to do next and what state the card database is in, when that is
    known; the CLI prints it under the message."""

    code = "sync-failed"
    #: Set when the database itself failed (not the download): the CLI then does not probe it
    #: again for its hint, since it may hang.
    database_failed = False

    def __init__(
        self, message: str = "", *args: object, hint: str | None = None, code: str | None = None
    ) -> None:
        super().__init__(message, *args, code=code)
        self.hint = hint


class SyncBusy(SyncError):
    """Another sync held the database's lock longer than this one could wait."""

    code = "sync-busy"


class SyncTerminated(KeyboardInterrupt):
    """SIGTERM arrived during a sync: raised like Ctrl-C so the same clean-up runs (the partial
    download is removed, the import transaction rolled back, the reading process stopped)."""


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
    #: `--languages`: the printed names kept, those of cards the oracle data does not hold
    #: (skipped), and the languages read.
    printed_name_count: int | None = None
    printed_names_skipped: int = 0
    languages: list[str] = field(default_factory=list)

    def summary(self) -> str:
        if self.skipped:
            return (
                f"{self.bulk_type}: already up to date (updated_at {self.updated_at}); "
                "use --force to import again"
            )
        head = f"{self.bulk_type}: {self.card_count} cards imported in {self.duration_s:.1f} s"
        if self.printing_count is not None:
            head = f"{self.bulk_type}: {self.printing_count} printings imported in {self.duration_s:.1f} s"
        if self.printed_name_count is not None:
            head += (
                f"\nprinted names: {self.printed_name_count} in {', '.join(self.languages)}; "
                f"{self.printed_names_skipped} skipped (cards not in the oracle data)"
            )
        changes = summarize_changes(self.changes)
        return head + ("\n" + changes if changes else "")


_CHANGE_LABELS = (
    "newly banned",
    "newly restricted",
    "unbanned",
    "unrestricted",
    "now legal",
    "no longer legal",
    "removed from the data",
)


def summarize_changes(changes: list[dict[str, Any]], per_list: int = 8) -> str:
    """ "modern: newly banned: A, B; unbanned: C" lines, one per format (formats sorted,
    labels in a fixed order)."""
    labels = {
        "banned": "newly banned",
        "restricted": "newly restricted",
        "legal": "now legal",
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
    order = {label: i for i, label in enumerate(_CHANGE_LABELS)}
    lines = []
    for fmt in sorted(by_format, key=lambda f: (f == "*", f)):
        parts = []
        for label in sorted(by_format[fmt], key=lambda lb: (order.get(lb, len(order)), lb)):
            names = sorted(by_format[fmt][label])
            shown = ", ".join(names[:per_list])
            more = f" and {len(names) - per_list} more" if len(names) > per_list else ""
            parts.append(f"{label}: {shown}{more}")
        lines.append(f"{'all formats' if fmt == '*' else fmt}: " + "; ".join(parts))
    return "\n".join(lines)


#: A bad $DECKCHECK_SYNC_* setting (the download limits in `http`, the lock timeout in
#: `importer`) is a SyncError naming the variable, whichever layer reads it.
def _env_number(name: str, default: float, scale: float = 1.0) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise SyncError(f"{name}={raw!r} is not a number") from None
    if not value > 0:
        raise SyncError(f"{name}={raw!r} must be greater than 0")
    return value * scale
