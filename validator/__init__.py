r"""deckcheck: is this Magic: The Gathering deck legal in this format, and if not, why.

The public API (see README); this example runs as written once `deckcheck sync` has built the
card database (tests/api/test_errors.py runs it):

    import validator

    db = validator.open_db()                     # the synced card database ($DECKCHECK_DB)
    deck = validator.parse_decklist("4 Lightning Bolt\n56 Mountain\n")
    report = validator.validate(deck, "modern", cards=db)
    print(report.legal, [p.message for p in report.problems], report.to_dict()["schema"])
    try:
        validator.validate(deck, "no-such-format", cards=db)
    except validator.DeckcheckError as exc:      # one family; exc.code is stable
        print(exc.code, exc)                     # bad-format unknown format 'no-such-format'; ...

An illegal deck is a Report whose `legal` is False; an exception (always a DeckcheckError:
DecklistError, FormatError, DatabaseError, ConditionError, UsageError, ...) means no verdict
could be given. Submodules are imported lazily so that `deckcheck` starts fast.

Public names: open_db, parse_decklist, validate, check_formats, load_formats, sync, recheck
(the API);
CardSource (what a card source implements), CardDB, CardIndex; Report, Problem, Severity,
Deck, DeckEntry, Card, Section (the shared types); DeckcheckError and its family.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "open_db": "validator.api",
    "parse_decklist": "validator.api",
    "validate": "validator.api",
    "check_formats": "validator.api",
    "load_formats": "validator.rules.formats",
    "CardDB": "validator.store.database",
    "CardIndex": "validator.store.index",
    "CardSource": "validator.store.source",
    "Report": "validator.report",
    "Problem": "validator.model",
    "Severity": "validator.model",
    "Deck": "validator.model",
    "DeckEntry": "validator.model",
    "Card": "validator.model",
    "Section": "validator.model",
    "sync": "validator.sync.job",
    "recheck": "validator.rechecking.run",
    # The exception family (validator/errors.py): every error has a stable `.code`.
    "DeckcheckError": "validator.errors",
    "DecklistError": "validator.decklist.base",
    "FormatError": "validator.rules.formats",
    "DatabaseError": "validator.store.database",
    "ConditionError": "validator.rules.companion.reader",
    "SyncError": "validator.sync.errors",
    "BulkFileError": "validator.sync.bulkfile",
    "CardDataError": "validator.cards.facts",
    "UsageError": "validator.errors",
    "AsOfError": "validator.dates",
}

__all__ = sorted(_EXPORTS) + ["__version__"]


def __dir__() -> list[str]:
    """The public names (the submodules load lazily, so they are not in globals yet)."""
    return sorted(__all__)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'validator' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
