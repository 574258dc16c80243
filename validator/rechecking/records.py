"""What a re-check concludes: the decks whose verdict changed (with the problems that changed
and the legality change that caused each), the rows it could not read, and a summary per
format. Plain dataclasses with their JSON form, shared by the library, the CLI's report files,
the webhook and the Dask partitions."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

#: The schema of a re-check's JSON document (`RecheckResult.to_dict`, the webhook's body).
#: Bumped only on an incompatible change; fields are added without a bump.
RECHECK_SCHEMA = "deckcheck.recheck/1"


@dataclass(frozen=True)
class ProblemChange:
    """One problem a deck gained ("added") or lost ("removed"), the cards it names, and why it
    changed: the legality change of its card ("Phlage, Titan of Fire's Fury: legal -> banned in
    modern, card data of 2026-05-18"), "the deck was edited", or the card data that settled an
    unknown name."""

    change: str  # "added" | "removed"
    code: str
    cards: tuple[str, ...]
    message: str
    cause: str

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "cards": list(self.cards)}


@dataclass(frozen=True)
class ChangedDeck:
    """A deck whose verdict is not the one STATE held for it."""

    id: str
    format: str
    old_verdict: str
    new_verdict: str
    problems: tuple[ProblemChange, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "format": self.format,
            "old_verdict": self.old_verdict,
            "new_verdict": self.new_verdict,
            "problems": [p.to_dict() for p in self.problems],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChangedDeck:
        """The deck `to_dict` wrote (a Dask partition's `change` column)."""
        return cls(
            data["id"],
            data["format"],
            data["old_verdict"],
            data["new_verdict"],
            tuple(
                ProblemChange(p["change"], p["code"], tuple(p["cards"]), p["message"], p["cause"])
                for p in data["problems"]
            ),
        )

    def row(self) -> dict[str, str]:
        """One flat row (CSV, Parquet): the problems as one text cell, one per line."""
        return {
            "id": self.id,
            "format": self.format,
            "old_verdict": self.old_verdict,
            "new_verdict": self.new_verdict,
            "changes": "\n".join(
                f"{p.change} {p.code}: {p.message} ({p.cause})" for p in self.problems
            ),
        }


@dataclass(frozen=True)
class RowFailure:
    """A deck row that could not be judged: its id (None when the row has none), where it is
    (`decks.jsonl line 7`) and why."""

    id: str | None
    where: str
    why: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class NewDeck:
    """A deck STATE did not hold before this run (a new registration, a new upload) whose
    verdict is not "legal": it has no old verdict to change from, so it is not one of the
    changed decks, yet whoever holds the decks needs to know of it."""

    id: str
    format: str
    verdict: str
    #: Its problems as STATE keeps them: code, severity, cards, message.
    problems: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "problems": list(self.problems)}


@dataclass
class FormatSummary:
    """Per format: decks checked (every row of the format), re-judged (parsed and judged this
    run), new (not in STATE before), newly illegal, newly legal, newly unconfirmed (verdicts
    that changed), and the decks whose verdict after this run is illegal or unconfirmed (new,
    re-judged or kept alike)."""

    checked: int = 0
    rejudged: int = 0
    new: int = 0
    newly_illegal: int = 0
    newly_legal: int = 0
    newly_unconfirmed: int = 0
    illegal: int = 0
    unconfirmed: int = 0

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass
class RecheckResult:
    """A re-check's answer. `changed`: the decks whose verdict changed, by id; `failures`:
    rows that could not be judged; `summary`: per format; `new_not_legal`: the decks new to
    STATE whose verdict is not legal; `removed`: ids STATE held that the decks no longer have
    (dropped from STATE); `sync_id` / `card_data`: the sync judged against and the date of its
    card data."""

    changed: list[ChangedDeck] = field(default_factory=list)
    new_not_legal: list[NewDeck] = field(default_factory=list)
    failures: list[RowFailure] = field(default_factory=list)
    summary: dict[str, FormatSummary] = field(default_factory=dict)
    removed: list[str] = field(default_factory=list)
    sync_id: int | None = None
    card_data: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": RECHECK_SCHEMA,
            "sync_id": self.sync_id,
            "card_data": self.card_data,
            "summary": {k: v.to_dict() for k, v in sorted(self.summary.items())},
            "changed": [c.to_dict() for c in self.changed],
            "new_not_legal": [d.to_dict() for d in self.new_not_legal],
            "failures": [f.to_dict() for f in self.failures],
            "removed": list(self.removed),
        }

    @property
    def totals(self) -> FormatSummary:
        total = FormatSummary()
        for s in self.summary.values():
            for key, value in s.to_dict().items():
                setattr(total, key, getattr(total, key) + value)
        return total
