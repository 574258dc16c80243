"""Scryfall bulk data -> the local card database (`deckcheck sync`).

One concern a module: `errors` (SyncError and its kinds, SyncResult), `http` (the bulk-data
index, the download, their retries and deadlines), `importer` (a bulk file into the database in
one transaction, `import_file`), `job` (`sync`: the two in order, under SIGTERM handling), and
`bulkfile` (reading a bulk file's objects). The names callers use are exported here, loaded on
first use so that importing `validator.sync.bulkfile` does not load the database layer.
"""

from __future__ import annotations

from typing import Any

_EXPORTS = {
    "sync": "validator.sync.job",
    "import_file": "validator.sync.importer",
    "SyncError": "validator.sync.errors",
    "SyncBusy": "validator.sync.errors",
    "SyncTerminated": "validator.sync.errors",
    "SyncResult": "validator.sync.errors",
    "DownloadLimits": "validator.sync.http",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'validator.sync' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
