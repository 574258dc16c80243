"""The gap between the shipped legality history's end (2026-08-22) and a card database's first
sync, and `deckcheck changes --limit` / `oracle_id`.

A database first synced after the shipped history's end holds, as its "current" legality, every
change made in between: as of an earlier date those must be undone (a ban since is not a ban
then), and a card the shipped history does not know at all was released in between. The
databases here are the fixture cards (tests/fixtures/cards_core.json) with their first sync's
card data dated by hand (`updated_at`), so the tests do not depend on today's date."""

from __future__ import annotations

import json
from datetime import date

import pytest
from support import FIXTURES, core_cards_with

from validator.api import validate
from validator.cli import main
from validator.history.legality import history_for
from validator.model import Severity
from validator.store.database import CardDB

BOLT = "4 Lightning Bolt\n56 Mountain\n"
LURRUS = "1 Lurrus of the Dream-Den\n59 Mountain\n"
NEW = "4 Zzyzx Thunderbolt\n56 Mountain\n"
UNCARD = "4 B.F.M. (Big Furry Monster)\n56 Mountain\n"


def _legal_with_warning(deck: str, db: CardDB, as_of: str, code: str):
    """The one `code` problem of `deck` judged in Modern as of `as_of`: a warning, and the deck
    legal all the same."""
    report = validate(deck, "modern", cards=db, as_of=as_of)
    assert report.legal
    [warning] = [p for p in report.problems if p.code == code]
    assert warning.severity == Severity.WARNING
    return warning


def _db(tmp_path, first_data: str, changes: dict[str, dict[str, str]] | None = None) -> str:
    """The fixture cards with `changes` to their legalities, plus a card the shipped history
    does not know ("Zzyzx Thunderbolt", a Lightning Bolt under a new name), synced once; the
    sync's card data dated `first_data`."""
    from validator.sync import import_file

    cards = json.loads((FIXTURES / "cards_core.json").read_text(encoding="utf-8"))
    for card in cards:
        card["legalities"].update((changes or {}).get(card["name"], {}))
    bolt = next(c for c in cards if c["name"] == "Lightning Bolt")
    cards.append(
        {**bolt, "name": "Zzyzx Thunderbolt", "oracle_id": "00000000-0000-4000-8000-2a2a2a2a0001"}
    )
    source = tmp_path / "cards.json"
    source.write_text(json.dumps(cards), encoding="utf-8")
    path = str(tmp_path / "cards.sqlite3")
    import_file(source, path, updated_at=first_data)
    return path


def codes(report) -> list[str]:
    return sorted(p.code for p in report.problems)


def test_a_change_between_the_shipped_end_and_the_first_sync_is_undone_before_it(tmp_path):
    """First synced on 2026-12-01 with Lightning Bolt banned and Lurrus unbanned in Modern
    (changes made after 2026-08-22): as of 2020 Bolt was legal and Lurrus banned (it was
    banned 2022-06 .. 2026-08-22 at least; before that the shipped history decides)."""
    path = _db(
        tmp_path,
        "2026-12-01T00:00:00+00:00",
        {"Lightning Bolt": {"modern": "banned"}, "Lurrus of the Dream-Den": {"modern": "legal"}},
    )
    with CardDB(path) as db:
        assert codes(validate(BOLT, "modern", cards=db)) == ["banned"]
        assert validate(BOLT, "modern", cards=db, as_of="2020-01-01").legal
        assert validate(BOLT, "modern", cards=db, as_of="2026-08-22").legal
        assert validate(LURRUS, "modern", cards=db).legal
        assert codes(validate(LURRUS, "modern", cards=db, as_of="2024-01-01")) == ["banned"]
        # Inside the window: judged by the more permissive status (legal, before the ban),
        # with a warning, as a change inside any window is.
        note = _legal_with_warning(BOLT, db, "2026-10-01", "legality-date-uncertain")
        assert "changed between 2026-08-22 and 2026-12-01" in note.message
        # An unban inside the window: legal too (its status after), where the status before
        # the change (banned) used to decide, with a note shown only by --verbose.
        note = _legal_with_warning(LURRUS, db, "2026-10-01", "legality-date-uncertain")
        assert "more permissive" in note.message
        [gap] = [
            c
            for c in history_for(db).card_changes(
                db.card_by_id("dd5648a8-8671-5e58-a8f8-223c4eb1c520")
            )
            if c.source == "gap"
        ]
        assert (gap.format, gap.old, gap.new, gap.kind) == ("modern", "legal", "banned", "banned")


def test_a_card_the_history_does_not_know_was_released_in_the_gap(tmp_path):
    path = _db(tmp_path, "2026-12-01T00:00:00+00:00")
    with CardDB(path) as db:
        report = validate(NEW, "modern", cards=db, as_of="2016-01-01")
        assert codes(report) == ["unreleased-card"]
        assert "not in deckcheck's legality history up to 2026-08-22" in report.problems[0].message
        assert "released since, or renamed since" in report.problems[0].message
        warning = _legal_with_warning(NEW, db, "2026-09-01", "legality-date-uncertain")
        assert warning.message.startswith(
            "Zzyzx Thunderbolt: not in deckcheck's legality history up to 2026-08-22, first seen "
            "by this card database on 2026-12-01; the deck's date 2026-09-01 is inside that window"
        )
        assert validate(NEW, "modern", cards=db).legal
        assert codes(validate(NEW, "legacy", cards=db, as_of="2024-01-01")) == ["unreleased-card"]
        # Cards known to the history keep their own release (Lightning Bolt: before 2015), and
        # a card not legal even in Vintage (an Un-card, left out of the source on purpose) is
        # not "unreleased": it is not legal, as it always was.
        assert validate(BOLT, "modern", cards=db, as_of="2016-01-01").legal
        assert codes(validate(UNCARD, "vintage", cards=db, as_of="2016-07-01")) == ["not-legal"]


def test_no_gap_when_the_first_sync_is_not_after_the_shipped_end(tmp_path):
    """A first sync of 2026-08-20 data: what the database says is all there is (as before)."""
    path = _db(tmp_path, "2026-08-20T00:00:00+00:00", {"Lightning Bolt": {"modern": "banned"}})
    with CardDB(path) as db:
        assert history_for(db).gap_end is None
        assert codes(validate(BOLT, "modern", cards=db, as_of="2020-01-01")) == ["banned"]
        assert "unreleased-card" not in codes(validate(NEW, "modern", cards=db, as_of="2016-01-01"))


def test_changes_limit_applies_with_format_and_refuses_a_negative(core_db, capsys):
    assert main(["changes", "--db", core_db, "--format", "modern"]) == 0
    every = [line for line in capsys.readouterr().out.splitlines() if line[:2] == "20"]
    assert len(every) > 3
    assert main(["changes", "--db", core_db, "--format", "modern", "--limit", "3"]) == 0
    out = [line for line in capsys.readouterr().out.splitlines() if line[:2] == "20"]
    assert out == every[-3:]  # the newest three, oldest first
    assert main(["changes", "--db", core_db, "--format", "modern", "--limit", "3", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["changes"]) == 3
    for argv in (["--format", "modern"], []):
        assert main(["changes", "--db", core_db, "--limit", "-1", *argv]) == 2
        assert "--limit -1 is negative" in capsys.readouterr().err


def test_changes_json_entries_carry_the_oracle_id(tmp_path, capsys):
    from validator.sync import import_file

    path = _db(tmp_path, "2026-08-20T00:00:00+00:00")
    import_file(
        core_cards_with(tmp_path, "Lightning Bolt", "pauper", "banned"), path, allow_shrink=True
    )
    assert main(["changes", "--db", path, "--format", "pauper", "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)["changes"]
    assert entry["oracle_id"] == "dd5648a8-8671-5e58-a8f8-223c4eb1c520"
    assert entry["source"] == "database"
    # The shipped history holds names: the id of the database's card of that name, where
    # there is one (Lurrus, of the fixtures), else null (The Fantasticar is not in them).
    assert (
        main(["changes", "--db", path, "--format", "modern", "--since", "2022-06-01", "--json"])
        == 0
    )
    entries = json.loads(capsys.readouterr().out)["changes"]
    [lurrus] = [e for e in entries if e["name"] == "Lurrus of the Dream-Den"]
    assert lurrus["source"] == "shipped"
    assert lurrus["oracle_id"] == "ee016c46-4714-59c1-9d4b-3c13e4969469"
    assert main(["changes", "--db", path, "--format", "vintage", "--limit", "1", "--json"]) == 0
    [entry] = json.loads(capsys.readouterr().out)["changes"]
    assert entry["name"] == "The Fantasticar" and entry["oracle_id"] is None


@pytest.mark.integration
def test_the_full_card_file_synced_after_the_shipped_end_has_no_false_release_or_change():
    """Every deck card of the full card file (legalities of 2026-08-22) as a first sync of
    2026-12-01: none is "released in the gap" (all are in the shipped history under a name),
    and its statuses agree with the shipped end statuses but for the 13 cards where the
    derived file's values are not the real data's (meld cards, 'Smelt // Herd // Saw', ...:
    ../shared/data/scryfall/DERIVED.md keeps derived values for them)."""
    import gzip

    from support import shared_data

    from validator.cards.facts import card_from_scryfall
    from validator.history.legality import LegalityHistory

    path = shared_data("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
    history = LegalityHistory(card_data_date=date(2026, 12, 1), log_start=date(2026, 12, 1))
    released, changed = [], []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            obj = json.loads(line)
            card = card_from_scryfall(obj)
            if not card.is_deck_card or obj.get("layout") == "reversible_card":
                continue  # a reversible printing: the sync keeps its card's object (one oracle id)
            if history.gap_released(card):
                released.append(card.name)
            if history.gap_changes(card):
                changed.append(card.name)
    assert released == []
    assert len(changed) <= 13, changed


def test_the_data_date_of_a_file_without_updated_at_is_the_date_its_name_carries(tmp_path):
    """`sync --from oracle-cards-20260820120000.json` months later holds that day's
    legalities (Scryfall names its bulk files so, and so is the derived test file): no gap
    after the shipped end, though the sync itself is today. A name without a date: the data
    is taken as of the sync."""
    from validator.sync import import_file

    cards = (FIXTURES / "cards_core.json").read_text(encoding="utf-8")
    for name, dated in (
        ("oracle-cards-20260820120000.json", True),
        ("oracle-cards-derived-20260822.json", True),
        ("cards.json", False),
    ):
        folder = tmp_path / name
        folder.mkdir()
        (folder / name).write_text(cards, encoding="utf-8")
        path = str(folder / "cards.sqlite3")
        import_file(folder / name, path)
        with CardDB(path) as db:
            assert (history_for(db).gap_end is None) is dated, name


def test_a_card_legal_nowhere_at_the_first_sync_gets_no_gap_change(tmp_path):
    """A card the first sync's data makes legal nowhere (not even in Vintage: how Un-cards,
    playtest and digital cards read, which the shipped source leaves out on purpose) is left
    alone, as the README says: its shipped status of 2026-08-22 is not turned into a change
    that would make it legal as of earlier dates."""
    nowhere = {f: "not_legal" for f in ("standard", "pioneer", "modern", "legacy", "vintage")}
    path = _db(tmp_path, "2026-12-01T00:00:00+00:00", {"Lightning Bolt": nowhere})
    with CardDB(path) as db:
        assert history_for(db).gap_changes(db.card("Lightning Bolt")) == ()
        assert codes(validate(BOLT, "modern", cards=db, as_of="2020-01-01")) == ["not-legal"]


def test_a_date_after_the_card_data_says_later_changes_are_unknown(tmp_path):
    """An upcoming event (or a deck of this month) judged against older card data: before, no
    word that a ban announced since the data could not be known."""
    path = _db(tmp_path, "2026-12-01T00:00:00+00:00")
    with CardDB(path) as db:
        late = _legal_with_warning(BOLT, db, "2026-12-05", "legality-history-missing")
        assert "after the card data's date (2026-12-01)" in late.message
        on_the_day = validate(BOLT, "modern", cards=db, as_of="2026-12-01")
        assert "legality-history-missing" not in [p.code for p in on_the_day.problems]
