"""The schema names of the legality-history documents, apart from the code that builds them:
the CLI's parser names them in `--help`, and importing that code (dataclasses, datetime) would
cost every `deckcheck` start about 8 ms."""

#: The schema of `deckcheck changes --json`.
CHANGES_SCHEMA = "deckcheck.changes/1"
