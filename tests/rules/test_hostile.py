"""Issue 11, part A: hostile decklists are judged in bounded work, structure never changes a
verdict silently, and odd input never crashes.

Work is counted, not timed (timing tests lie on a busy machine): the number of partner pairs
weighed, signature-spell orderings tried, companion conditions evaluated, "did you mean"
searches run and bytes read. `bench/bench_hostile.py` measures the CPU time and memory.
"""

from __future__ import annotations

import io
import itertools
import json

import pytest
from support import load_cards

import validator.rules.commander.designation as designation_module  # where the names are looked up
import validator.rules.commander.leaders as leaders_module
import validator.rules.commander.rules as rules_module
import validator.rules.companion.checks as companion_module  # where checks look the name up
import validator.rules.resolve as resolve_module
from validator.api import validate
from validator.cli import main
from validator.decklist import MAX_BYTES, DecklistError, parse_decklist, read_limited
from validator.errors import DeckcheckError
from validator.model import Card, Deck, DeckEntry, Severity

# cards_core.json last: its basic lands carry every format's legality.
from validator.rules.resolve import MAX_SUGGESTED_NAMES
from validator.store.index import CardIndex

# cards_core.json last: its basic lands carry every format's legality.
CARDS = load_cards(
    "cards_commander.json", "cards_companion.json", "cards_hostile.json", "cards_core.json"
)
UNIQUE = list({c.oracle_id: c for c in CARDS.values()}.values())
WALKERS = [c for c in UNIQUE if "Planeswalker" in c.types]
SPELLS = [c for c in UNIQUE if c.types & {"Instant", "Sorcery"} and "Planeswalker" not in c.types]
LEGENDS = [c for c in UNIQUE if c.commander_eligible and c.companion_condition is None]
COMPANIONS = [c for c in UNIQUE if c.companion_condition is not None]


@pytest.fixture(scope="module")
def index() -> CardIndex:
    return CardIndex(([], c) for c in UNIQUE)


def lines(cards: list[Card], quantity: int = 1) -> str:
    return "\n".join(f"{quantity} {c.name}" for c in cards)


def codes(report) -> list[str]:
    return [p.code for p in report.problems]


def problem(report, code: str):
    return next(p for p in report.problems if p.code == code)


class Counter:
    """Wraps a function and counts its calls (or the items an iterator yields), failing once
    the count passes `limit`: exponential or quadratic work fails fast instead of hanging."""

    def __init__(self, func, limit: int, iterate: bool = False) -> None:
        self.func, self.limit, self.iterate, self.count = func, limit, iterate, 0

    def _tick(self) -> None:
        self.count += 1
        if self.count > self.limit:
            raise AssertionError(f"more than {self.limit} steps: unbounded work")

    def __call__(self, *args, **kwargs):
        if not self.iterate:
            self._tick()
            return self.func(*args, **kwargs)
        return self._counting(self.func(*args, **kwargs))

    def _counting(self, items):
        for item in items:
            self._tick()
            yield item


def count_pairs(monkeypatch) -> Counter:
    """`pair_problem` is looked up by designation (weighing sideboard candidates) and by
    `leaders._partner_problems` (the rules' check of the commanders kept): one count for both."""
    pairs = Counter(leaders_module.pair_problem, limit=100)
    for module in (designation_module, leaders_module):
        monkeypatch.setattr(module, "pair_problem", pairs)
    return pairs


# ------------------------------------------------------------------------------------------
# Bounded designation (CR 903.3, 702.124, 702.139a)


def test_oathbreaker_command_section_with_a_dozen_walkers_and_spells(index, monkeypatch):
    """Issue 11: 12 planeswalkers + 12 instants in the command section tried every ordering
    (645 s). A legal deck has at most two of each: said at once, naming them."""
    orderings = Counter(itertools.permutations, limit=100, iterate=True)
    monkeypatch.setattr(rules_module, "permutations", orderings)
    walkers, spells = WALKERS[:12], SPELLS[:12]
    assert len(walkers) == 12
    text = f"Commander\n{lines(walkers)}\n{lines(spells)}\nDeck\n36 Island\n"
    report = validate(text, "oathbreaker", cards=index)
    assert orderings.count <= 2
    too_many = problem(report, "invalid-partners")
    assert too_many.citation == "CR 702.124g" and set(too_many.cards) == {c.name for c in walkers}
    spells_problem = problem(report, "signature-spell-invalid")
    assert set(spells_problem.cards) == {c.name for c in spells}
    assert "12 signature spells" in spells_problem.message and not report.legal


def test_oathbreaker_with_two_walkers_still_matches_spells_to_them(index, monkeypatch):
    """The bound does not lose the check it bounds: two oathbreakers, two spells, one spell
    outside both identities. The orderings are counted where the test above counts them."""
    orderings = Counter(itertools.permutations, limit=100, iterate=True)
    monkeypatch.setattr(rules_module, "permutations", orderings)
    jace = CARDS["Jace, the Mind Sculptor"]  # U
    liliana = CARDS["Liliana, the Last Hope"]  # B
    bolt = CARDS["Lightning Bolt"]  # R
    counterspell = CARDS["Counterspell"]  # U
    text = (
        f"Commander\n1 {jace.name}\n1 {liliana.name}\n1 {counterspell.name}\n1 {bolt.name}\n"
        "Deck\n56 Island\n"
    )
    report = validate(text, "oathbreaker", cards=index)
    assert "signature-spell-invalid" in codes(report)
    assert orderings.count >= 1  # both orderings tried, through the patched name


def test_commander_sideboard_with_many_legends_is_said_at_once(index, monkeypatch):
    """Issue 11: 3,700 legendary cards in an MTGO-style sideboard weighed every pair (16 s)."""
    pairs = count_pairs(monkeypatch)
    legends = LEGENDS[:50]
    report = validate(f"99 Wastes\n\n{lines(legends)}\n", "commander", cards=index)
    assert pairs.count <= 15  # at most 6 candidates weighed: 15 pairs
    missing = problem(report, "commander-missing")
    assert set(missing.cards) == {c.name for c in legends}
    assert "702.124" in missing.message and f"{len(legends)} cards" in missing.message
    assert missing.severity == Severity.ERROR and not report.legal


def test_oathbreaker_sideboard_with_many_walkers_is_said_at_once(index, monkeypatch):
    pairs = count_pairs(monkeypatch)
    report = validate(
        f"Deck\n58 Island\nSideboard\n{lines(WALKERS)}\n{lines(SPELLS)}\n",
        "oathbreaker",
        cards=index,
    )
    assert pairs.count <= 15
    assert set(problem(report, "oathbreaker-missing").cards) == {c.name for c in WALKERS}


def test_a_few_sideboard_legends_are_still_weighed(index, monkeypatch):
    """Real Melee exports list a commander beside a couple of other legends: still found, their
    pairs weighed through the name the tests above count."""
    pairs = count_pairs(monkeypatch)
    text = (
        "1 Counterspell\n1 Lightning Bolt\n97 Forest\n\n1 Ragavan, Nimble Pilferer\n"
        "1 Fblthp, the Lost\n1 Flubs, the Fool\n"
    )
    report = validate(text, "commander", cards=index)
    assert pairs.count == 3  # three candidates, three pairs weighed by designation
    assert "commander-missing" not in codes(report)
    assert "Flubs, the Fool" in problem(report, "commander-found").message


def test_more_than_two_commanders_are_one_problem(index):
    """Past two commanders (702.124g) the deck is not judged commander by commander: no
    printings look-up per card (Pauper Commander), no eligibility problem per card."""
    looked_up = []

    class Printings(CardIndex):
        def rarities(self, oracle_id):
            looked_up.append(oracle_id)
            return {"uncommon"}

    cards = Printings(([], c) for c in UNIQUE)
    legends = LEGENDS[:40]
    report = validate(
        f"Commander\n{lines(legends)}\nDeck\n60 Island\n", "paupercommander", cards=cards
    )
    assert looked_up == []
    assert [
        p.code for p in report.problems if p.code in ("invalid-partners", "commander-not-eligible")
    ] == ["invalid-partners"]
    assert "and 30 more" in problem(report, "invalid-partners").message


def test_declared_companions_past_one_are_not_each_evaluated(index, monkeypatch):
    """CR 103.2b / 702.139a: one companion. Thirteen declared is one error, not thirteen
    condition checks over the deck; thirteen in the sideboard get one note."""
    checks = Counter(companion_module.companion_condition_problems, limit=5)
    monkeypatch.setattr(companion_module, "companion_condition_problems", checks)
    text = f"Deck\n60 Island\nCompanion\n{lines(COMPANIONS)}\n"
    report = validate(text, "legacy", cards=index)
    assert checks.count == 0 and "too-many-companions" in codes(report)
    report = validate(f"Deck\n60 Island\nSideboard\n{lines(COMPANIONS)}\n", "legacy", cards=index)
    assert checks.count == 0
    note = problem(report, "companion-condition-unchecked")
    assert note.severity == Severity.INFO and len(note.cards) == len(COMPANIONS)


def test_suggestions_are_capped_per_deck(index, monkeypatch):
    """Issue 11: 5,000 distinct unknown names each ran a "did you mean" search (11 s)."""
    searches = Counter(resolve_module.suggestions, limit=10 * MAX_SUGGESTED_NAMES)
    monkeypatch.setattr(resolve_module, "suggestions", searches)
    names = [f"Lightnig Bolt {i}" for i in range(300)]
    report = validate("\n".join(f"1 {n}" for n in names) + "\n", "modern", cards=index)
    assert searches.count == MAX_SUGGESTED_NAMES
    unknown = [p for p in report.problems if p.code == "unknown-card"]
    assert len(unknown) == 300  # every unknown name is still reported, on its line
    assert unknown[-1].lines == (300,)


# ------------------------------------------------------------------------------------------
# At most the limit + 1 bytes read


class Endless(io.RawIOBase):
    """An endless stream of zero bytes (`< /dev/zero`) that counts what was read, and fails
    past `fail_after` bytes so that reading it whole fails instead of eating the memory."""

    def __init__(self, fail_after: int = 20 * MAX_BYTES) -> None:
        self.read_bytes, self.fail_after = 0, fail_after

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        if self.read_bytes > self.fail_after:
            raise AssertionError("read far past the input limit")
        size = min(len(buffer), 1 << 16)
        buffer[:size] = bytes(size)
        self.read_bytes += size
        return size


def test_read_limited_stops_one_byte_past_the_limit():
    stream = Endless()
    with pytest.raises(DecklistError, match=f"limit of {MAX_BYTES:,} bytes"):
        read_limited(stream)
    assert stream.read_bytes <= MAX_BYTES + 1 + (1 << 16)
    assert read_limited(io.BytesIO(b"4 Island\n")) == b"4 Island\n"
    assert read_limited(io.BytesIO(b"x" * MAX_BYTES)) == b"x" * MAX_BYTES


def test_parse_decklist_reads_a_stream_within_the_limit():
    stream = Endless()
    with pytest.raises(DecklistError, match="limit"):
        parse_decklist(stream)
    assert stream.read_bytes <= MAX_BYTES + 1 + (1 << 16)
    assert parse_decklist(io.BytesIO(b"4 Island\n")).entries[0].name == "Island"


def test_parse_decklist_refuses_a_huge_str_without_encoding_it():
    with pytest.raises(DecklistError, match="characters"):
        parse_decklist("x" * (MAX_BYTES + 1))


def test_cli_endless_stdin_fails_fast_with_exit_2(core_db, capsys, monkeypatch):
    stream = Endless()

    class Stdin:
        buffer = stream

    monkeypatch.setattr("sys.stdin", Stdin())
    code = main(["validate", "-", "--format", "modern", "--db", core_db])
    err = capsys.readouterr().err
    assert code == 2 and f"limit of {MAX_BYTES:,} bytes" in err
    assert stream.read_bytes <= MAX_BYTES + 1 + (1 << 16)
    monkeypatch.setattr("sys.stdin", Stdin())
    assert main(["check-formats", "-", "--db", core_db]) == 2
    assert f"limit of {MAX_BYTES:,} bytes" in capsys.readouterr().err


def test_cli_huge_file_stops_reading_at_the_limit(core_db, tmp_path, capsys):
    big = tmp_path / "huge.txt"
    with open(big, "wb") as f:
        f.truncate(1 << 30)  # 1 GB, sparse: costs no disk
    code = main(["validate", str(big), "--format", "modern", "--db", core_db])
    err = capsys.readouterr().err
    assert code == 2 and "stopped reading there" in err and "huge.txt" in err


# ------------------------------------------------------------------------------------------
# Structure never changes a verdict silently


@pytest.mark.parametrize(
    "text",
    [
        "Commander\n1 Black Lotus\nDeck\n60 Island\n",
        "1 Black Lotus *CMDR*\n60 Island\n",
        "1 Black Lotus [Commander]\n60 Island\n",
        json.dumps({"commanders": ["Black Lotus"], "main": [[60, "Island"]]}),
    ],
)
def test_commander_section_counts_in_a_format_without_commanders(index, text):
    """Issue 11: "Commander: 1 Black Lotus / Deck: 60 Island" was LEGAL in Modern."""
    report = validate(text, "modern", cards=index)
    assert not report.legal
    assert "Black Lotus" in problem(report, "not-legal").cards
    note = problem(report, "commander-section-ignored")
    assert note.severity == Severity.WARNING and note.cards == ("Black Lotus",)
    assert report.to_dict()["deck"]["main"] == 61


def test_commander_section_cards_count_toward_size_and_copies(index):
    report = validate(
        "Commander\n1 Lightning Bolt\nDeck\n4 Lightning Bolt\n55 Mountain\n", "modern", cards=index
    )
    assert "too-many-copies" in codes(report) and "deck-too-small" not in codes(report)


DEK = """<?xml version="1.0" encoding="utf-8"?>
<Deck>
  <NetDeckID>0</NetDeckID>
  <Cards Quantity="60" Sideboard="false" Name="Island" />
  {odd}
</Deck>
"""


@pytest.mark.parametrize(
    "odd",
    [
        '<Card Quantity="1" Sideboard="false" Name="Black Lotus" />',
        '<cards Quantity="1" Sideboard="false" Name="Black Lotus" />',
        '<Cards Quantity="1" Sideboard="false" Name="Mox Pearl"><Cards Quantity="1" '
        'Sideboard="false" Name="Black Lotus" /></Cards>',
        '<Sideboard><Cards Quantity="1" Name="Black Lotus" /></Sideboard>',
    ],
)
def test_dek_card_elements_spelled_otherwise_are_errors_naming_the_line(index, odd):
    """Issue 11: these cards were dropped silently, so Black Lotus passed."""
    report = validate(DEK.format(odd=odd).encode(), "modern", cards=index)
    assert not report.legal
    unread = [p for p in report.problems if p.code == "unreadable-line" and p.lines == (5,)]
    assert unread and "Black Lotus" in unread[0].message
    assert "NetDeckID" not in " ".join(p.message for p in report.problems)


COD = """<?xml version="1.0" encoding="UTF-8"?>
<cockatrice_deck version="1">
  <deckname>Islands</deckname>
  <zone name="main">
    <card number="60" name="Island"/>
    {odd}
  </zone>
  <zone name="tokens">
    <card number="1" name="Goblin"/>
  </zone>
</cockatrice_deck>
"""


@pytest.mark.parametrize(
    "odd",
    [
        '<Card number="1" name="Black Lotus"/>',
        '<cards><card number="1" name="Black Lotus"/></cards>',
    ],
)
def test_cod_card_elements_spelled_otherwise_are_errors(index, odd):
    report = validate(COD.format(odd=odd).encode(), "modern", cards=index)
    unread = [p for p in report.problems if p.code == "unreadable-line" and p.lines == (6,)]
    assert unread and "Black Lotus" in unread[0].message and not report.legal


def test_cod_skipped_tokens_zone_is_reported_as_information(index):
    report = validate(COD.format(odd="").encode(), "modern", cards=index)
    assert report.legal
    note = problem(report, "skipped-cards")
    assert note.severity == Severity.INFO and "tokens" in note.message
    assert "Goblin" in note.message and note.lines == (8,)


def test_unknown_legality_value_fails_closed(index):
    from dataclasses import replace

    bolt = replace(CARDS["Lightning Bolt"], legalities={"modern": "suspended"})
    cards = CardIndex(([], bolt if c.oracle_id == bolt.oracle_id else c) for c in UNIQUE)
    report = validate("4 Lightning Bolt\n56 Mountain\n", "modern", cards=cards)
    assert not report.legal
    unknown = problem(report, "unknown-legality")
    assert unknown.severity == Severity.ERROR and "'suspended'" in unknown.message


# ------------------------------------------------------------------------------------------
# Crashes


@pytest.mark.parametrize("encoding", ["bogus", "utf-32", "UTF-32LE", "shift_jis"])
def test_xml_with_an_unreadable_encoding_is_a_decklist_error(encoding):
    data = (
        f'<?xml version="1.0" encoding="{encoding}"?><Deck><Cards Quantity="1" '
        'Sideboard="false" Name="Island"/></Deck>'
    ).encode()
    with pytest.raises(DecklistError, match=f"encoding '{encoding}'"):
        parse_decklist(data)


def test_xml_in_a_single_byte_encoding_still_reads():
    data = (
        '<?xml version="1.0" encoding="windows-1252"?><Deck><Cards Quantity="4" '
        'Sideboard="false" Name="Lim-D\xfbl\'s Vault"/></Deck>'
    ).encode("cp1252")
    assert parse_decklist(data).entries[0].name == "Lim-Dûl's Vault"


SURROGATE_DECK = '{"name": "x\\udc00", "main": [[60, "Island"], [1, "Black \\ud800Lotus"]]}'


def test_json_lone_surrogate_is_an_input_problem(index):
    deck = parse_decklist(SURROGATE_DECK)
    assert [e.name for e in deck.entries] == ["Island"] and deck.name is None
    assert any("lone surrogate U+D800" in i.message for i in deck.issues)
    report = validate(deck, "modern", cards=index)
    assert not report.legal
    json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8")  # printable


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "x\\udc00", "boards": {"mainboard": {"cards": {"a": {"quantity": 60, "card": '
        '{"name": "Island"}}, "b": {"quantity": 1, "card": {"name": "Sol\\ud800Ring", '
        '"set": "c\\u000021"}}}}}}',
        '{"name": "x\\udc00", "cards": [{"quantity": 60, "card": {"oracleCard": {"name": '
        '"Island"}}, "categories": ["Mainboard"]}, {"quantity": 1, "card": {"oracleCard": '
        '{"name": "Sol\\u0000Ring"}}, "categories": ["Mainboard"]}]}',
    ],
)
def test_site_json_exports_with_lone_surrogates_or_nul_are_printable(index, text):
    """Moxfield / Archidekt shapes: the same refusal, and nothing unprintable is kept."""
    deck = parse_decklist(text)
    assert [e.name for e in deck.entries] == ["Island"] and deck.name is None
    report = validate(deck, "modern", cards=index)
    assert not report.legal
    json.dumps(report.to_dict(), ensure_ascii=False).encode("utf-8")
    for item in [*deck.issues, *deck.entries]:
        (item.text or "").encode("utf-8")


def test_json_lone_surrogate_does_not_abort_a_multi_file_json_run(core_db, tmp_path, capsys):
    good = tmp_path / "good.txt"
    good.write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(SURROGATE_DECK, encoding="utf-8")
    code = main(["validate", str(bad), str(good), "--format", "modern", "--db", core_db, "--json"])
    out = capsys.readouterr().out
    out.encode("utf-8")
    reports = json.loads(out)["reports"]
    assert code == 1 and [r["legal"] for r in reports] == [False, True]


class PostgresLike(CardIndex):
    """A card source that refuses NUL in a query, as PostgreSQL does."""

    def lookup(self, names):
        names = list(names)
        if any("\x00" in n for n in names):
            raise ValueError("A string literal cannot contain NUL (0x00) characters.")
        return super().lookup(names)

    def printing(self, set_code, collector_number):
        if "\x00" in set_code + collector_number:
            raise ValueError("A string literal cannot contain NUL (0x00) characters.")
        return super().printing(set_code, collector_number)


def test_nul_in_a_name_never_reaches_the_database():
    cards = PostgresLike(([], c) for c in UNIQUE)
    deck = Deck(
        entries=[
            DeckEntry(60, "Island"),
            DeckEntry(1, "Black\x00Lotus"),
            DeckEntry(1, "Sol Rign", set_code="c\x0021", collector_number="1"),
        ]
    )
    report = validate(deck, "modern", cards=cards)
    unknown = [p for p in report.problems if p.code == "unknown-card"]
    assert len(unknown) == 2 and "\\x00" in unknown[0].message
    with pytest.raises(DeckcheckError, match="not a card name"):
        validate("60 Island\n", "commander", cards=cards, commanders=["Sol\x00Ring"])
    parsed = parse_decklist('{"main": [[60, "Island"], [1, "Black\\u0000Lotus"]]}')
    assert [e.name for e in parsed.entries] == ["Island"]
    assert "NUL" in parsed.issues[0].message
