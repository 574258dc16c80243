"""Integration: real decklists in Japanese, Italian, Spanish, French and German
(../shared/data/decklists/localized/, see scryfall/DERIVED-localized.md) against the full-size
derived card file synced with the localized names of `all-cards-localized-derived.jsonl.gz`
(`deckcheck sync --from ... --languages-from ...`).

* rendered/: 40 real tournament decks rendered in five languages, each beside its English
  original: each localized list gets the same verdict and the same problems (code, severity,
  citation, cards, lines) as its twin, judged as of the event's date. The one line the
  rendering wrote with a name of two cards (manifest `ambiguous_names_used`) is refused as such
  (`ambiguous-printed-name`), never guessed.
* ja_wizards_coverage_2012/: Wizards' own Japanese coverage lists of 2012: every name resolves
  but the unofficial katakana マナ・クリプト (the README says why).
* ja_hareruya_tilmitt11191/: a Japanese shop's export in Shift_JIS with `《日本語/English》`
  names, read as a file (no header, `info` rows, `kind,name,quantity,...`): the same cards,
  verdict and problems as the author's English rendering of it, and both halves of every name
  are the same card.
"""

from __future__ import annotations

import csv
from datetime import date

import pytest
from support import shared_data

from validator.api import legality_history, open_db, validate
from validator.decklist import parse_decklist
from validator.store.index import CardIndex

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def localized_index(tmp_path_factory):
    from validator.sync import import_file

    oracle = shared_data("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
    names = shared_data("scryfall", "all-cards-localized-derived.jsonl.gz")
    db = tmp_path_factory.mktemp("localized-full") / "cards.sqlite3"
    result = import_file(oracle, str(db), languages_from=names)
    assert result.printed_name_count and result.printed_names_skipped == 0
    database = open_db(str(db))
    index = CardIndex.from_db(database)
    yield index, legality_history(database)
    database.close()


def _manifest() -> list[dict[str, str]]:
    path = shared_data("decklists", "localized", "rendered", "manifest.tsv")
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def _problems(report) -> list[tuple]:
    return sorted((p.code, p.severity.value, p.citation, p.cards, p.lines) for p in report.problems)


def test_each_localized_deck_is_judged_as_its_english_twin(localized_index):
    index, history = localized_index
    folder = shared_data("decklists", "localized", "rendered")
    rows = _manifest()
    assert len(rows) == 40
    read_in: dict[str, int] = {}
    for row in rows:
        day = date.fromisoformat(row["event_date"])
        localized = (folder / row["file"]).read_text(encoding="utf-8")
        english = (folder / row["english_equivalent_file"]).read_text(encoding="utf-8")
        mine = validate(localized, row["format"], cards=index, as_of=day, history=history)
        twin = validate(english, row["format"], cards=index, as_of=day, history=history)
        # (a line the English original wrote by its MTGO name, "Detect Intrusion", is read so
        # in both lists)
        readings = [
            r for r in mine.to_dict().get("names_read", []) if r["read_by"] != "mtgo-arena-name"
        ]
        for r in readings:
            read_in[r["language"]] = read_in.get(r["language"], 0) + 1
        assert all(r["language"] == row["lang"] for r in readings), row["file"]
        # every line whose name differs from its twin's was read in the deck's language (a
        # name printed as in English, the Italian "Eureka", is read as the English name)
        differ = sum(a != b for a, b in zip(localized.splitlines(), english.splitlines()))
        refused = 1 if row["ambiguous_names_used"] else 0  # one line each (the manifest's)
        assert len(readings) == differ - refused <= int(row["lines_localized"]), row["file"]
        if refused:
            continue  # test_ambiguous_rendered_line_is_the_only_difference
        assert mine.legal == twin.legal, row["file"]
        assert _problems(mine) == _problems(twin), row["file"]
    assert set(read_in) == {"ja", "it", "fr", "de", "es"}


def test_ambiguous_rendered_line_is_the_only_difference(localized_index):
    index, history = localized_index
    folder = shared_data("decklists", "localized", "rendered")
    for row in _manifest():
        if not row["ambiguous_names_used"]:
            continue
        mine, twin = (
            validate(
                (folder / row[key]).read_text(encoding="utf-8"),
                row["format"],
                cards=index,
                as_of=date.fromisoformat(row["event_date"]),
                history=history,
            )
            for key in ("file", "english_equivalent_file")
        )
        (refused,) = [p for p in mine.problems if p.code == "ambiguous-printed-name"]
        # the cards the manifest lists for the name are among those named (es "Pantano" is
        # Swamp, and Island in one set; it "Pantano" is Quagmire)
        listed = row["ambiguous_names_used"]  # "Pantano=Swamp (also Island:4)"
        assert {listed.split("=")[1].split(" ")[0], listed.split("also ")[1].split(":")[0]} <= set(
            refused.cards
        )
        # apart from that line (still counted for the deck's size), the same problems
        rest = [p for p in mine.problems if p is not refused]
        assert sorted((p.code, p.cards) for p in rest) == sorted(
            (p.code, p.cards) for p in twin.problems
        )


def test_japanese_coverage_lists_of_2012(localized_index):
    index, _ = localized_index
    folder = shared_data("decklists", "localized", "ja_wizards_coverage_2012")
    unknown: list[str] = []
    japanese = 0
    for path in sorted(folder.glob("*_champion_*.txt")):
        report = validate(path.read_text(encoding="utf-8"), "vintage", cards=index)
        japanese += len(report.to_dict().get("names_read", []))
        unknown += [c for p in report.problems if p.code == "unknown-card" for c in p.cards]
        assert not [p for p in report.problems if p.code == "ambiguous-printed-name"]
    assert unknown == ["マナ・クリプト"]
    assert japanese == 119 - 18 - 1  # card lines, less the English ones and the unknown one


def _totals(deck) -> dict[str, int]:
    """Cards per section of a parsed deck."""
    out: dict[str, int] = {}
    for e in deck.entries:
        out[e.section.value] = out.get(e.section.value, 0) + e.quantity
    return out


def test_shift_jis_shop_export_is_read_as_a_file_and_judged_as_its_english_twin(
    localized_index,
):
    index, history = localized_index
    folder = shared_data("decklists", "localized", "ja_hareruya_tilmitt11191")
    path = folder / "test_cases_utils_sample_deck_WBConkD09283S.csv"
    data = path.read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")  # it is no UTF-8 file
    # The author's English rendering of the same deck: main deck, a blank line, sideboard.
    english = (folder / "test_cases_decklists_output_WBConkD09283S.txt").read_text("utf-8")
    mine, twin = parse_decklist(data, filename=path.name), parse_decklist(english)
    assert _totals(mine) == _totals(twin) == {"main": 60, "sideboard": 15}
    pairs = [e for e in mine.entries if e.name.startswith("《")]
    assert len(pairs) == len(mine.entries) >= 20
    for fmt, day in (("standard", date(2016, 5, 20)), ("vintage", None)):
        report = validate(mine, fmt, cards=index, as_of=day, history=history)
        expected = validate(twin, fmt, cards=index, as_of=day, history=history)
        assert report.legal == expected.legal and report.verdict == expected.verdict, fmt
        assert sorted((p.code, p.cards) for p in report.problems) == sorted(
            (p.code, p.cards) for p in expected.problems
        ), fmt
        # Both halves of every name are the same card, read in Japanese.
        readings = report.to_dict()["names_read"]
        assert len(readings) == len(pairs)
        for r in readings:
            english_half = r["name"].strip("《》").split("/", 1)[1]
            front = r["card"].split(" // ")[0].casefold()
            assert front == english_half.split(" // ")[0].casefold(), r
            assert r["language"] == "ja"
    assert report.legal and report.verdict == "legal"  # Vintage today


def test_every_real_printed_name_folds_as_the_steps_fold_it():
    # fold_printed's shortcuts for names of one script's words, held to `_fold` on every
    # printed name of the ten languages (most of them take a shortcut)
    from validator.cards import printed
    from validator.sync.bulkfile import iter_bulk_file

    path = shared_data("scryfall", "all-cards-localized-derived.jsonl.gz")
    names = {
        obj["printed_name"]
        for _, obj in iter_bulk_file(path, keys=("printed_name",))
        if isinstance(obj.get("printed_name"), str)
    }
    assert len(names) > 150_000
    cjk, cyrillic, latin_1 = printed._plain_names()
    shortcut = [n for n in names if cjk(n) or cyrillic(n) or (latin_1(n) and not n.isascii())]
    assert len(shortcut) > len(names) // 2
    wrong = [n for n in names if printed.fold_printed.__wrapped__(n) != printed._fold(n)]
    assert not wrong[:10]
