"""Fixtures shared by the tests: card databases synced from the fixture cards. Plain helpers
(fixture paths, cards and decks built in code) are in tests/support.py."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

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


@pytest.fixture
def synced(tmp_path: Path) -> Callable[..., str]:
    """`synced(day, changes={name: {fmt: status}}, without=(names))`: sync the core fixture
    cards, as they are on `day` (YYYYMMDD, in the file's name: the card data's date), into one
    database (the same each call, so that the change log grows); returns its path."""
    db = str(tmp_path / "cards.sqlite3")

    def sync(
        day: str,
        changes: dict[str, dict[str, str]] | None = None,
        without: tuple[str, ...] = (),
    ) -> str:
        from validator.sync import import_file

        cards = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
        cards = [c for c in cards if c["name"] not in without]
        for card in cards:
            card["legalities"].update((changes or {}).get(card["name"], {}))
        path = tmp_path / f"oracle-cards-{day}.json"
        path.write_text(json.dumps(cards), encoding="utf-8")
        import_file(path, db)
        return db

    return sync
