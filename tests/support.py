"""Plain helpers shared by the tests: paths to the fixtures and the shared data, cards loaded
from fixture files, decks built from them.

A module of its own, imported as `from support import ...`: conftest.py holds the fixtures,
and pytest does not mean conftest modules to be imported (with a conftest.py in several
folders, `import conftest` names whichever comes first on the path). Helpers needed only
inside a test are fixtures in conftest.py instead.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from validator.cards.facts import card_from_scryfall
from validator.model import Card, Deck, DeckEntry, ResolvedDeck, ResolvedEntry, Section

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def load_cards(*files: str) -> dict[str, Card]:
    """Cards by Oracle name (and by front-face name) from fixture files of Scryfall objects."""
    cards: dict[str, Card] = {}
    for name in files:
        for obj in json.loads((FIXTURES / name).read_text(encoding="utf-8")):
            card = card_from_scryfall(obj)
            cards[card.name] = card
            cards.setdefault(card.front_name, card)
    return cards


def make_deck(
    cards: dict[str, Card],
    main: Iterable[tuple[int, str]] = (),
    sideboard: Iterable[tuple[int, str]] = (),
    commanders: Iterable[str] = (),
    companion: str | None = None,
) -> ResolvedDeck:
    """A resolved deck from (quantity, name) pairs; line numbers follow the order given."""
    deck = Deck()
    resolved = ResolvedDeck(deck=deck)
    line = 0
    plan = [(q, n, Section.MAIN) for q, n in main] + [
        (q, n, Section.SIDEBOARD) for q, n in sideboard
    ]
    plan += [(1, n, Section.COMMANDER) for n in commanders]
    if companion:
        plan.append((1, companion, Section.COMPANION))
    for quantity, name, section in plan:
        line += 1
        entry = DeckEntry(quantity=quantity, name=name, section=section, line=line)
        deck.entries.append(entry)
        resolved.entries.append(ResolvedEntry(entry=entry, card=cards[name]))
    return resolved


def core_cards_with(tmp_path: Path, name: str, fmt: str, status: str) -> Path:
    """cards_core.json with one card's legality in one format changed: the new data a later
    sync brings (a ban, an unban), written beside the test."""
    cards = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    for card in cards:
        if card["name"] == name:
            card["legalities"][fmt] = status
    path = tmp_path / f"cards_{fmt}_{status}.json"
    path.write_text(json.dumps(cards), encoding="utf-8")
    return path


def shared_data(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test with the reason."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path} (integration data lives in ../shared/data)")
    return path


def closed_within(sock, seconds: float, trickle: bytes = b"") -> float | None:
    """Seconds until the server closed `sock` (sending `trickle` a byte per 0.1 s meanwhile),
    or None if it was still open after `seconds`."""
    import time

    started = time.monotonic()
    sock.settimeout(0.1)
    sent = 0
    while time.monotonic() - started < seconds:
        try:
            data = sock.recv(65536)
            if data == b"" or b"HTTP/1.1" in data:
                return time.monotonic() - started
        except TimeoutError:
            pass
        except OSError:
            return time.monotonic() - started
        if sent < len(trickle):
            try:
                sock.sendall(trickle[sent : sent + 1])
            except OSError:
                return time.monotonic() - started
            sent += 1
    return None


@contextmanager
def two_worker_cluster() -> Iterator[Any]:
    """A Dask client of a LocalCluster with 2 worker processes (1 thread each) on loopback:
    the scale-out tests' cluster. Skips when dask.distributed is not installed."""
    distributed = pytest.importorskip("dask.distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client
