"""An event judged by its own date: an event file (or a manifest's `date` column) that carries
its date is judged as of it unless --as-of says otherwise, and the reports say so; the
terminal table stays aligned, lists only the decks needing attention on request, and the
HTML page names the event and every player."""

from __future__ import annotations

import json
import re

from validator.cli import main

GOOD = [{"Count": 4, "CardName": "Lightning Bolt"}, {"Count": 56, "CardName": "Mountain"}]
TYPO = [{"Count": 4, "CardName": "Lightnin Bolt"}, {"Count": 56, "CardName": "Mountain"}]
BANNED = [{"Count": 1, "CardName": "Black Lotus"}, {"Count": 59, "CardName": "Mountain"}]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def event_file(tmp_path, name="ev.json", date="2026-02-22", decks=None):
    decks = decks or {"ann": GOOD, "bob": TYPO, "cid": BANNED}
    path = tmp_path / name
    path.write_text(
        json.dumps(
            {
                "Tournament": {"Date": date, "Name": "Modern Challenge 32", "Formats": "Modern"},
                "Decks": [{"Player": p, "Mainboard": m, "Sideboard": []} for p, m in decks.items()],
            }
        ),
        encoding="utf-8",
    )
    return path


def test_an_event_file_is_judged_as_of_its_date_unless_as_of_says_otherwise(
    tmp_path, core_db, capsys
):
    path = event_file(tmp_path)
    for extra, as_of, source in (
        ([], "2026-02-22", "event"),
        (["--as-of", "event"], "2026-02-22", "event"),
        (["--as-of", "today"], None, None),
        (["--as-of", "2026-03-01"], "2026-03-01", "option"),
    ):
        code, out, _ = run(capsys, "validate", str(path), "--db", core_db, "--json", *extra)
        reports = json.loads(out)["reports"]
        assert {r["as_of"] for r in reports} == {as_of}, extra
        assert {r.get("as_of_from") for r in reports} == {source}, extra
    code, out, _ = run(capsys, "validate", str(path), "--db", core_db)
    assert "judged as of each event's date" in out and "--as-of today" in out
    code, out, _ = run(capsys, "validate", str(path), "--db", core_db, "--as-of", "today")
    assert "judged as of each event's date" not in out


def test_a_manifest_date_column_is_the_event_date(tmp_path, core_db, capsys):
    (tmp_path / "a.txt").write_text("4 Lightning Bolt\n56 Mountain\n", encoding="utf-8")
    manifest = tmp_path / "players.csv"
    manifest.write_text("file,player,format,date\na.txt,Ann,modern,2026-02-22\n", encoding="utf-8")
    code, out, _ = run(capsys, "validate", str(manifest), "--db", core_db, "--json")
    report = json.loads(out)  # one deck: its report
    assert (report["as_of"], report["as_of_from"]) == ("2026-02-22", "event")


def test_the_table_stays_aligned_and_only_problems_lists_the_decks_needing_attention(
    tmp_path, core_db, capsys
):
    long = tmp_path / ("a-very-long-folder-name-" * 4)
    long.mkdir()
    path = event_file(long, name="modern-challenge-32-2026-02-22-" + "x" * 60 + ".json")
    code, out, _ = run(capsys, "validate", str(path), str(event_file(tmp_path)), "--db", core_db)
    table = [line for line in out.splitlines() if "#" in line]
    assert len(table) == 6
    starts = {re.search(r" (legal|ILLEGAL|UNCONFIRMED)", line).start() for line in table}
    assert len(starts) == 1, table  # one column, however long the ids
    code, out, _ = run(capsys, "validate", str(path), "--db", core_db, "--only-problems")
    rows = [line for line in out.splitlines() if "#" in line]
    assert [r.split()[0].rsplit("#", 1)[1] for r in rows] == ["bob", "cid"]
    assert "1 legal deck(s) not listed" in out and "1 of 3 decks legal" in out
    assert code == 1


def test_the_html_report_names_the_event_and_lists_every_player_by_a_short_name(
    tmp_path, core_db, capsys
):
    path = event_file(tmp_path)
    page = tmp_path / "r.html"
    run(capsys, "validate", str(path), "--db", core_db, "--report", str(page))
    html = page.read_text(encoding="utf-8")
    assert "<h1>Modern Challenge 32 — 2026-02-22</h1>" in html
    roster = html.split("<h2>Players (3)</h2>")[1].split("</table>")[0]
    verdicts = re.findall(
        r'<td title="[^"]*">([^<]*)</td><td>modern</td><td class="v-(\w+)"', roster
    )
    assert verdicts == [("ann", "legal"), ("bob", "unconfirmed"), ("cid", "illegal")]
    assert f">{path}" not in html  # the full path only as a tooltip
    assert "judged as of the event" in html
