"""Fixtures shared by the tests: card databases synced from the fixture cards. Plain helpers
(fixture paths, cards and decks built in code) are in tests/support.py."""

from __future__ import annotations

import pytest
from support import FIXTURES


@pytest.fixture(scope="session")
def commander_db(tmp_path_factory) -> str:
    """A card database imported from tests/fixtures/cards_commander.json, whose cards carry
    the Commander family's legality keys too."""
    from validator.sync import import_file

    path = tmp_path_factory.mktemp("commander-db") / "cards.sqlite3"
    import_file(FIXTURES / "cards_commander.json", str(path))
    return str(path)


@pytest.fixture(scope="session")
def core_db(tmp_path_factory) -> str:
    """A card database imported from tests/fixtures/cards_core.json (the sync path)."""
    from validator.sync import import_file

    path = tmp_path_factory.mktemp("core-db") / "cards.sqlite3"
    import_file(FIXTURES / "cards_core.json", str(path))
    return str(path)


@pytest.fixture(scope="session")
def localized_db(tmp_path_factory) -> str:
    """A card database of tests/fixtures/cards_localized.json with the printed names of
    tests/fixtures/all_cards_localized.jsonl (`sync --languages-from`): real cards and names
    from the shared data (scripts/build_localized_fixtures.py)."""
    from validator.sync import import_file

    path = tmp_path_factory.mktemp("localized-db") / "cards.sqlite3"
    import_file(
        FIXTURES / "cards_localized.json",
        str(path),
        languages_from=FIXTURES / "all_cards_localized.jsonl",
    )
    return str(path)
