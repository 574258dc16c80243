"""check_formats: one deck against every format, the deck's companion conditions weighed once
per starting deck (not once per format), with the same reports as weighing them per format."""

from __future__ import annotations

import contextlib
import json

import pytest
from support import FIXTURES, load_cards

import validator
import validator.rules.companion.checks as checks
from validator.model import Severity
from validator.rules.companion.predicates import Predicate, StartingDeck

CARDS = load_cards("cards_companion.json")
#: A 60-card deck with Umori declared (condition met: every nonland card is a creature) and
#: two companion cards in the sideboard (each gets a note), and one that fails Umori.
UMORI = (
    "Companion\n1 Umori, the Collector\n\nDeck\n4 Grizzly Bears\n4 Savannah Lions\n"
    "4 Llanowar Elves\n4 Memnite\n4 Ornithopter\n40 Forest\n\n"
    "Sideboard\n1 Yorion, Sky Nomad\n1 Jegantha, the Wellspring\n"
)
UMORI_FAILS = UMORI.replace("4 Memnite", "4 Lightning Bolt")
#: Commander formats weigh the companion with the commander in the starting deck (702.139b).
COMMANDER = (
    "Commander\n1 Obosh, the Preypiercer\n\nCompanion\n1 Lurrus of the Dream-Den\n"
    "\nDeck\n1 Sol Ring\n1 Walking Ballista\n97 Wastes\n"
)


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> validator.CardIndex:
    from validator.sync import import_file

    path = tmp_path_factory.mktemp("companion-db") / "cards.sqlite3"
    import_file(FIXTURES / "cards_companion.json", str(path))
    return validator.CardIndex.from_db(validator.open_db(str(path)))


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """Record each evaluation of a condition: (condition, deck-size facts, starting deck)."""
    calls: list[tuple] = []
    real = Predicate.findings

    def findings(self, cards, ctx, listed=None):
        calls.append((repr(self), ctx, tuple((c.name, q) for c, q in cards)))
        return real(self, cards, ctx, listed)

    monkeypatch.setattr(Predicate, "findings", findings)
    return calls


def _answer(reports) -> str:
    return json.dumps([r.to_dict() for r in reports], ensure_ascii=False, sort_keys=True)


@pytest.mark.parametrize("text", [UMORI, UMORI_FAILS, COMMANDER])
def test_each_condition_is_weighed_once_per_starting_deck(index, monkeypatch, text) -> None:
    calls = _spy(monkeypatch)
    shared = _answer(validator.check_formats(text, cards=index))
    once = list(calls)
    assert once and len(set(once)) == len(once), "a condition was weighed twice on one deck"
    calls.clear()
    with monkeypatch.context() as m:  # the old way: each format weighs them again
        m.setattr(checks, "shared_findings", contextlib.nullcontext)
        per_format = _answer(validator.check_formats(text, cards=index))
    assert shared == per_format  # the same reports, byte for byte
    assert len(calls) > len(once) and set(calls) == set(once)
    if text is COMMANDER:  # weighed with the commander in the starting deck (702.139b)
        assert any(("Obosh, the Preypiercer", 1) in deck for _, _, deck in once)


def test_the_reports_still_say_each_formats_verdict(index) -> None:
    reports = {r.format: r for r in validator.check_formats(UMORI_FAILS, cards=index)}
    legacy = [p for p in reports["legacy"].problems if p.code.startswith("companion-condition")]
    assert [(p.code, p.severity) for p in legacy][0] == (
        "companion-condition-failed",
        Severity.ERROR,
    )
    assert "Lightning Bolt" in legacy[0].cards and legacy[0].lines == (2, 8)
    # the sideboard notes, each its own condition's verdict
    notes = {p.cards[0]: p.code for p in legacy[1:]}
    assert notes == {
        "Yorion, Sky Nomad": "companion-condition-not-met",
        "Jegantha, the Wellspring": "companion-condition-met",
    }


def test_shared_findings_tell_decks_and_deck_sizes_apart() -> None:
    """Within one block, a different starting deck (cards, copies or order) or different
    deck-size facts are weighed anew; the findings end with the block."""
    umori, yorion = CARDS["Umori, the Collector"], CARDS["Yorion, Sky Nomad"]
    bears, bolt = CARDS["Grizzly Bears"], CARDS["Lightning Bolt"]
    constructed = StartingDeck(60, exact_size=False)
    commander = StartingDeck(100, exact_size=True)

    def codes(companion, starting, ctx):
        return [
            p.code
            for p in checks.companion_condition_problems(
                companion, starting, ctx, checks.COMPANION_CITATION
            )
        ]

    def first_listed(companion, starting, ctx):
        return checks.companion_condition_problems(
            companion, starting, ctx, checks.COMPANION_CITATION
        )[0].message

    with checks.shared_findings():
        assert codes(umori, [(bears, 4)], constructed) == ["companion-condition-met"]
        assert codes(umori, [(bears, 4), (bolt, 4)], constructed) == ["companion-condition-failed"]
        assert codes(yorion, [(bears, 80)], constructed) == ["companion-condition-met"]
        assert codes(yorion, [(bears, 79)], constructed) == ["companion-condition-failed"]
        assert codes(yorion, [(bears, 80)], commander) == ["companion-condition-failed"]
        # the order of the deck is the order offenders are named in
        assert first_listed(
            umori, [(bolt, 1), (bears, 1), (CARDS["Thoughtseize"], 1)], constructed
        ).index("Lightning Bolt") < first_listed(
            umori, [(bolt, 1), (bears, 1), (CARDS["Thoughtseize"], 1)], constructed
        ).index("Thoughtseize")
        assert first_listed(
            umori, [(CARDS["Thoughtseize"], 1), (bears, 1), (bolt, 1)], constructed
        ).index("Thoughtseize") < first_listed(
            umori, [(CARDS["Thoughtseize"], 1), (bears, 1), (bolt, 1)], constructed
        ).index("Lightning Bolt")
        assert checks._SHARED_FINDINGS.get()
    assert checks._SHARED_FINDINGS.get() is None


def test_check_formats_leaves_nothing_shared_behind(index) -> None:
    validator.check_formats(UMORI, cards=index)
    assert checks._SHARED_FINDINGS.get() is None
    # a later validation of another deck is weighed on its own cards
    report = validator.validate(UMORI_FAILS, "legacy", cards=index)
    assert "companion-condition-failed" in {p.code for p in report.problems}
