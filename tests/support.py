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


# --- Placements: one illegal card in every section a decklist reader knows or could be sent --

#: A legal 60-card Modern deck of the fixture cards (tests/fixtures/cards_core.json).
LEGAL_MODERN = [
    (4, "Lightning Bolt"),
    (4, "Counterspell"),
    (4, "Goblin Guide"),
    (4, "Aether Vial"),
    (22, "Island"),
    (22, "Mountain"),
]
#: The card placed: banned in Modern, so counted it makes the deck illegal.
PLACED = "Black Lotus"
#: Section names a reader may meet: every kind the vocabulary has (the deck's own,
#: supplementary decks, outside the deck), in the spellings sites write, and unknown ones.
SECTION_WORDS = (
    "Main",
    "Mainboard",
    "Deck",
    "Sideboard",
    "Side",
    "Commander",
    "Companion",
    "Signature Spell",
    "Maybeboard",
    "Maybe",
    "Considering",
    "Wishlist",
    "Tokens",
    "Attractions",
    "Stickers",
    "Planes",
    "Schemes",
    "Contraptions",
    "Avatar",
    "Conspiracy",
    "Dungeon",
    "Acquireboard",
    "Trade Binder",
    "Proxies",
)
#: How a text list may write a header (`{}` is the section word).
TEXT_SPELLINGS = (
    "{}",
    "{}:",
    "{} (1)",
    "[{}]",
    "# {}",
    "// {}",
    "[{}{{noDeck}}]",
    "[{}{{noDeck}}{{noPrice}}]",
)


def _text_deck(cards: list[tuple[int, str]]) -> str:
    return "".join(f"{q} {n}\n" for q, n in cards)


def _camel(word: str) -> str:
    head, *rest = word.split()
    return head.lower() + "".join(w.capitalize() for w in rest)


def placements() -> list[tuple[str, str]]:
    """(where the card is, the decklist) for each placement of PLACED beside LEGAL_MODERN."""
    import csv
    import io

    deck = _text_deck(LEGAL_MODERN)
    lotus = f"1 {PLACED}\n"
    out: list[tuple[str, str]] = []
    for word in SECTION_WORDS:
        for spelling in TEXT_SPELLINGS:
            header = spelling.format(word)
            out.append((f"text: header {header!r}", f"Deck\n{deck}\n{header}\n{lotus}"))
            out.append((f"text: header {header!r}, no blank line", f"{deck}{header}\n{lotus}"))
        out.append((f"text: {word!r} before Deck", f"{word}\n{lotus}\nDeck\n{deck}"))
        for tag in ("[{}]", "[{}{{noDeck}}]", "[Ramp,{}]"):
            line = f"1 {PLACED} {tag.format(word)}\n"
            out.append((f"text: tag {tag.format(word)!r}", deck + line))
        out.append(
            (
                f"forge: [{word}]",
                f"[metadata]\nName=x\n[Main]\n{deck}[{word}]\n1 {PLACED}|LEA\n",
            )
        )
        main = [[q, n] for q, n in LEGAL_MODERN]
        for key in {word.lower(), _camel(word), word.lower().replace(" ", "")}:
            out.append((f"json: key {key!r}", json.dumps({"main": main, key: [[1, PLACED]]})))
            card = {"quantity": 1, "card": {"name": PLACED}}
            boards = {n: {"quantity": q, "card": {"name": n}} for q, n in LEGAL_MODERN}
            out.append(
                (
                    f"moxfield v2: board {key!r}",
                    json.dumps({"name": "x", "mainboard": boards, key: {PLACED: card}}),
                )
            )
            v3 = {
                "mainboard": {"count": 60, "cards": boards},
                key: {"count": 1, "cards": {"a": card}},
            }
            out.append((f"moxfield v3: board {key!r}", json.dumps({"name": "x", "boards": v3})))
            mtgjson = {"mainBoard": [{"count": q, "name": n, "uuid": n} for q, n in LEGAL_MODERN]}
            mtgjson[key] = [{"count": 1, "name": PLACED, "uuid": "x"}]
            out.append((f"mtgjson: {key!r}", json.dumps({"meta": {}, "data": mtgjson})))
        for included in (True, False):
            for categories in ([word], ["Ramp", word]):
                cards = [
                    {"quantity": q, "categories": ["Main"], "card": {"oracleCard": {"name": n}}}
                    for q, n in LEGAL_MODERN
                ]
                cards.append(
                    {
                        "quantity": 1,
                        "categories": categories,
                        "card": {"oracleCard": {"name": PLACED}},
                    }
                )
                kinds = [{"name": "Main", "includedInDeck": True}]
                kinds.append({"name": categories[0], "includedInDeck": included})
                out.append(
                    (
                        f"archidekt: categories {categories!r}, included {included}",
                        json.dumps({"name": "x", "categories": kinds, "cards": cards}),
                    )
                )
        for column, cell in (("section", word), ("category", word), ("category", f"Ramp,{word}")):
            buffer = io.StringIO()
            writer = csv.writer(buffer, lineterminator="\n")
            writer.writerow(["count", "name", column])
            writer.writerows([q, n, ""] for q, n in LEGAL_MODERN)
            writer.writerow([1, PLACED, cell])
            out.append((f"csv: {column} {cell!r}", buffer.getvalue()))
        zone = "".join(f'<card number="{q}" name="{n}"/>' for q, n in LEGAL_MODERN)
        out.append(
            (
                f"cockatrice: zone {word!r}",
                f'<cockatrice_deck version="1"><zone name="main">{zone}</zone>'
                f'<zone name="{word}"><card number="1" name="{PLACED}"/></zone></cockatrice_deck>',
            )
        )
    main = [[q, n] for q, n in LEGAL_MODERN]
    out.append(
        (
            "json: duplicated key 'main'",
            f'{{"main": {json.dumps(main + [[1, PLACED]])}, "main": {json.dumps(main)}}}',
        )
    )
    return out


def placement_outcome(validate, decklist: str, cards) -> str:
    """ "counted" (an error names the card), "reported" (the report names the card, or a
    warning or error names its section), "refused" (no verdict: the input is refused), or
    "silent" (legal, and nothing says where the card went). `validate` is
    `validator.validate`, of whichever code is measured."""
    from validator.errors import DeckcheckError

    try:
        report = validate(decklist, "modern", cards=cards)
    except DeckcheckError:
        return "refused"
    data = report.to_dict()
    problems = data["problems"]
    if any(
        p["severity"] == "error" and (PLACED in p.get("cards", ()) or PLACED in p["message"])
        for p in problems
    ):
        return "counted"
    if PLACED in json.dumps(data, ensure_ascii=False):
        return "reported"
    if any(p["severity"] in ("error", "warning") for p in problems):
        return "reported"  # a problem about the section (an unknown one), not naming the card
    return "silent"


def house_format(tmp_path: Path, key: str, table: str, **files: str) -> Any:
    """The format `key` of a house formats file written in `tmp_path` with the table body
    `table`, beside the list files it names (`files`: file name -> content)."""
    from validator.rules.formats import get_format, load_formats

    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    path = tmp_path / "house.toml"
    path.write_text(f"[{key}]\n{table}\n", encoding="utf-8")
    return get_format(key, load_formats(path))


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
