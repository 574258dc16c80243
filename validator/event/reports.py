"""An event's reports, all from one `EventResult`: terminal text, JSON, CSV and a printable HTML
page. Every rendering carries the provenance and the same summary counts."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
from typing import Any

from validator.event.judge import DeckResult
from validator.event.run import SUMMARY_COUNTS, EventResult
from validator.history.provenance import (
    as_of_label,
    prov_card_data_date,
    provenance_line,
    synced_shown,
)
from validator.model import Severity
from validator.report import SCHEMA, escape_controls, not_counted_lines, settle_lines, shown_lines

#: Notes the HTML page shows although they are information: the verdict rests on a date.
DATE_NOTES = frozenset({"legality-date-uncertain"})

CSV_FIELDS = (
    "id",
    "player",
    "format",
    "verdict",
    "code",
    "severity",
    "citation",
    "cards",
    "lines",
    "message",
    "source",
    "as_of",
    "deckcheck",
    "card_data_synced_at",
    "scryfall_updated_at",
)


def _as_of(r: DeckResult, prov: dict[str, Any]) -> str:
    """The CSV's `as_of`: the date the deck's legality was judged as of (README "Event
    reports"): its own or the run's as-of date; for a deck judged by current legality, the
    card data's date (`provenance.card_data_date`); for an input that could not be judged,
    the run's one date, or empty in a run where each deck has its own."""
    if r.report and r.report.as_of:
        return as_of_label(r.report.as_of, r.report.as_of_precision)
    if r.report is not None:  # judged without a date: by the card data's legalities
        day = prov_card_data_date(prov)
        return day.isoformat() if day else ""
    if prov["legality_as_of"] == "per deck":  # never judged: its own date is not known here
        return ""
    return as_of_label(prov["legality_as_of"], prov.get("legality_as_of_precision"))


# ---------------------------------------------------------------------------- text


def _common_folder(ids: list[str]) -> str:
    """The folder every id starts with ("../data/MTGO/"), or "": said once above the table."""
    if len(ids) < 2 or not all("/" in i for i in ids):
        return ""
    folder = os.path.commonprefix(ids)
    return folder[: folder.rfind("/") + 1]


def render_event_text(
    result: EventResult, *, verbose: bool = False, only_problems: bool = False
) -> str:
    """One line per deck (verdict and first problem; with `only_problems`, only the decks
    that need attention), the skips, the per-format summary and the provenance. The columns
    stay aligned whatever the ids' lengths: the folder they share is said once above them."""
    rows = result.results
    shown_rows = [r for r in rows if r.verdict != "legal"] if only_problems else rows
    folder = _common_folder([r.id for r in rows])
    ids = [r.id[len(folder) :] for r in shown_rows]
    width = max([len(i) for i in ids] + [4])
    formats = max([len(r.format or "-") for r in shown_rows] + [10])
    out = [f"decks in {folder}"] if folder else []
    out.append(f"{'deck':<{width}}  {'format':<{formats}} {'verdict':<11}  first problem")
    for r, deck_id in zip(shown_rows, ids):
        if r.report is None:
            first = r.error or ""
        else:
            errors = r.report.errors
            first = errors[0].message + shown_lines(errors[0]) if errors else ""
        verdict = r.verdict if r.verdict == "legal" else r.verdict.upper()
        out.append(
            f"{deck_id:<{width}}  {r.format or '-':<{formats}} {verdict:<11}  {first}".rstrip()
        )
    if only_problems:
        out.append(f"({len(rows) - len(shown_rows)} legal deck(s) not listed: --only-problems)")
    for s in result.skipped if verbose else ():
        out.append(f"skipped {s.source}: {s.reason}")
    summary = result.summary()
    if result.skipped and not verbose:
        out.append(
            f"({len(result.skipped)} file(s) skipped as not decklists; --verbose lists them)"
        )
    out.append("")
    columns = ("decks", "legal", "illegal", "unconfirmed", "unreadable")
    out.append(f"{'format':<16} " + " ".join(f"{c:>{len(c) + 1}}" for c in columns))
    for fmt, counts in [*summary["per_format"].items(), ("total", summary)]:
        out.append(f"{fmt:<16} " + " ".join(f"{counts[c]:>{len(c) + 1}}" for c in columns))
    judged = summary["legal"] + summary["illegal"] + summary["unconfirmed"]
    out.append(
        f"{summary['legal']} of {judged} decks legal"
        + (
            f"; {summary['unconfirmed']} unconfirmed (no rule found broken, but something "
            "could not be checked: see each deck's problems)"
            if summary["unconfirmed"]
            else ""
        )
        + (f"; {summary['unreadable']} input(s) unreadable" if summary["unreadable"] else "")
    )
    if any(r.report is not None and r.report.as_of_from == "event" for r in rows):
        out.append(
            "judged as of each event's date (the date its event file or manifest carries); "
            "--as-of today judges by current legality"
        )
    out.append(provenance_line(result.provenance))
    return "\n".join(escape_controls(line) for line in out)


# ---------------------------------------------------------------------------- JSON


def event_dict(result: EventResult) -> dict[str, Any]:
    """Every input accounted for: judged decks in `reports`, inputs that could not be judged
    in `unreadable` (with the reason), walked files that are no decklists in `skipped`."""
    return {
        "schema": SCHEMA,
        "provenance": result.provenance,
        "summary": result.summary(),
        "reports": [r.report.to_dict() for r in result.results if r.report is not None],
        "unreadable": [
            {
                "id": r.id,
                "source": r.source,
                "player": r.player,
                "format": r.format,
                "error": r.error,
            }
            for r in result.results
            if r.report is None
        ],
        "skipped": [{"source": s.source, "reason": s.reason} for s in result.skipped],
    }


def render_event_json(result: EventResult) -> str:
    return json.dumps(event_dict(result), indent=2, ensure_ascii=False)


# ---------------------------------------------------------------------------- CSV


def csv_rows(result: EventResult) -> list[dict[str, Any]]:
    """One row per problem, plus one row per legal deck and one per unreadable input: a
    spreadsheet filter on `verdict` / `severity` answers "who must fix what"."""
    prov = result.provenance
    common = {
        "deckcheck": prov["deckcheck"],
        "card_data_synced_at": prov["card_data"]["synced_at"] or "",
        "scryfall_updated_at": prov["card_data"]["scryfall_updated_at"] or "",
    }
    rows = []
    for r in result.results:
        base = dict(
            common,
            id=r.id,
            player=r.player or "",
            format=r.format or "",
            verdict=r.verdict,
            source=r.source,
            as_of=_as_of(r, prov),
        )
        if r.report is None:
            rows.append(
                dict(
                    base,
                    code="unreadable",
                    severity="error",
                    citation="deckcheck:input",
                    cards="",
                    lines="",
                    message=r.error,
                )
            )
            continue
        for p in r.report.sorted_problems():
            rows.append(
                dict(
                    base,
                    code=p.code,
                    severity=p.severity.value,
                    citation=p.citation or "",
                    cards="; ".join(p.cards),
                    lines=" ".join(map(str, p.lines)),
                    message=p.message,
                )
            )
        if r.report.legal:
            rows.append(
                dict(base, code="", severity="", citation="", cards="", lines="", message="legal")
            )
    return rows


#: A cell starting with one of these is a formula to Excel and LibreOffice (`=HYPERLINK(...)`
#: in a player's name would run when the organizer opens the report): OWASP "CSV Injection".
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> Any:
    """A CSV cell that a spreadsheet shows as text: a leading quote before a formula start;
    control characters escaped, so that each deck is one line of the file (`cat` shows no
    terminal control either)."""
    if isinstance(value, str):
        if value.startswith(FORMULA_STARTS):
            value = "'" + value
        return escape_controls(value)
    return value


def render_event_csv(result: EventResult) -> str:
    """The CSV report: `csv_rows`, each cell that a spreadsheet would read as a formula
    neutralised (`_cell`)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: _cell(v) for k, v in row.items()} for row in csv_rows(result))
    return buf.getvalue()


# ---------------------------------------------------------------------------- HTML

_CSS = """
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2em;color:#111}
h1{font-size:1.6em;margin:0 0 .2em}h2{font-size:1.25em;margin:1.6em 0 .4em;border-bottom:2px solid #333}
h3{font-size:1.05em;margin:1.2em 0 .3em}
.prov{color:#444;font-size:.9em;margin:0 0 1em}
table{border-collapse:collapse;margin:.4em 0 1em}th,td{border:1px solid #bbb;padding:.25em .6em;text-align:left;vertical-align:top}
th{background:#eee}td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.total td{font-weight:bold;border-top:2px solid #333}
.deck{break-inside:avoid;page-break-inside:avoid;border:1px solid #ccc;border-radius:4px;padding:.3em .9em .6em;margin:.8em 0}
.deck h3{margin-top:.4em}.meta{color:#555;font-size:.9em}
.sev-error{color:#a00;font-weight:bold}.sev-warning{color:#a60;font-weight:bold}.sev-info{color:#555}
ul.problems{margin:.3em 0;padding-left:1.2em}ul.problems li{margin:.25em 0}
.lines{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.88em;color:#333;background:#f6f6f6;padding:.15em .4em;margin:.15em 0;white-space:pre-wrap}
.cite{color:#555;font-size:.88em}
.v-legal{color:#060}.v-illegal{color:#a00;font-weight:bold}.v-unconfirmed{color:#a60;font-weight:bold}
.v-unreadable{color:#a00}.nw{white-space:nowrap}
@media print{body{margin:1cm;font-size:11pt}.deck{border-color:#999}a{color:inherit}}
"""


def _e(value: Any) -> str:
    # Imported here: `html` loads its 2,000 named entities, which only an HTML report needs
    # (the CLI imports this module for every run).
    from html import escape

    return escape("" if value is None else str(value), quote=True)


def short_names(results: list[DeckResult]) -> dict[str, str]:
    """Each deck's id without what every id shares (their folder), and a deck of an event
    file without the file, which its event names ("legacy-challenge.json#amy" -> "amy");
    the whole id is kept for a page's tooltip and the JSON."""
    ids = [r.id for r in results]
    folder = _common_folder(ids)
    names = [i[len(folder) :] for i in ids]
    names = [
        n.split("#", 1)[1] if "#" in n and (r.event_name or r.event_date) else n
        for r, n in zip(results, names)
    ]
    return {i: n or i for i, n in zip(ids, names)}


def _events(result: EventResult) -> list[tuple[str, str | None]]:
    """The events the decks were registered for: (name, date), in input order."""
    seen: dict[tuple[str, str | None], None] = {}
    for r in result.results:
        if r.event_name or r.event_date:
            seen[(r.event_name or "event", r.event_date)] = None
    return list(seen)


def render_event_html(result: EventResult, *, title: str | None = None) -> str:
    """One self-contained printable page: the event (its name and date, when the input
    names them), the summary per format, every player with their verdict (legal too: the
    roster to tick), then each illegal and unconfirmed deck (sorted by player) with its
    problems and offending lines, then unreadable inputs. Decks are shown by a short name
    (`short_names`; the whole id as a tooltip). Everything from the input is escaped; no
    external assets."""
    prov = result.provenance
    summary = result.summary()
    events = _events(result)
    if title is None:
        title = (
            " · ".join(f"{name}{f' — {day}' if day else ''}" for name, day in events[:3])
            if events
            else "deckcheck event report"
        )
    short = short_names(result.results)
    data = prov["card_data"]
    synced = synced_shown(prov)
    when = prov["legality_as_of"] or "unknown"
    when = (
        "each deck's date"
        if when == "per deck"
        else as_of_label(when, prov.get("legality_as_of_precision"))
    )
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f'<p class="prov">deckcheck {_e(prov["deckcheck"])} &middot; card data synced '
        f"{_e(synced)} UTC &middot; Scryfall updated_at "
        f"{_e(data['scryfall_updated_at'] or 'unknown')} &middot; legality as of "
        f"{_e(when)} ({_e(prov['legality_basis'])})</p>",
        *(
            [
                '<p class="prov">judged as of the event\'s date, the date its event file or '
                "manifest carries (<code>--as-of today</code> judges by current legality)</p>"
            ]
            if any(r.report is not None and r.report.as_of_from == "event" for r in result.results)
            else []
        ),
        "<h2>Summary</h2>",
        "<table><thead><tr><th>format</th>"
        + "".join(f"<th>{c}</th>" for c in SUMMARY_COUNTS)
        + "</tr></thead><tbody>",
    ]
    for fmt, c in [*summary["per_format"].items(), ("total", summary)]:
        total = " class=total" if c is summary else ""
        out.append(
            f"<tr{total}><td>{_e(fmt)}</td>"
            + "".join(f"<td class=n>{c[k]}</td>" for k in SUMMARY_COUNTS)
            + "</tr>"
        )
    out.append("</tbody></table>")
    if summary["skipped"]:
        out.append(f"<p class=meta>{summary['skipped']} file(s) skipped as not decklists.</p>")

    by_player = lambda r: (r.player is None, (r.player or "").casefold(), r.id)  # noqa: E731
    several = len(events) > 1  # then each player's event is named
    out.append(
        f"<h2>Players ({len(result.results)})</h2><table><thead><tr><th>player</th>"
        + ("<th>event</th>" if several else "")
        + "<th>deck</th><th>format</th><th>verdict</th><th>first problem</th></tr></thead><tbody>"
    )
    for r in sorted(result.results, key=by_player):
        if r.report is None:
            first = r.error or ""
        else:
            errors = r.report.sorted_problems()
            first = errors[0].message if errors and r.verdict != "legal" else ""
        event = (
            f"<td>{_e(r.event_name or '')} <span class=nw>{_e(r.event_date or '')}</span></td>"
            if several
            else ""
        )
        out.append(
            f'<tr><td>{_e(r.player or "")}</td>{event}<td title="{_e(r.id)}">{_e(short[r.id])}</td>'
            f'<td>{_e(r.format or "")}</td><td class="v-{r.verdict}">{_e(r.verdict)}</td>'
            f"<td>{_e(first)}</td></tr>"
        )
    out.append("</tbody></table>")
    for verdict, heading in (
        ("illegal", "Illegal decks"),
        ("unconfirmed", "Unconfirmed decks: no rule found broken, not everything checked"),
    ):
        decks = sorted((r for r in result.results if r.verdict == verdict), key=by_player)
        if verdict == "unconfirmed" and not decks:
            continue
        out.append(f"<h2>{heading} ({len(decks)})</h2>")
        if not decks:
            out.append("<p>None.</p>")
        out += _deck_sections(decks, short)

    noted = sorted(
        (
            r
            for r in result.results
            if r.verdict == "legal"
            and r.report is not None
            and any(p.code in DATE_NOTES for p in r.report.problems)
        ),
        key=by_player,
    )
    if noted:
        out.append(
            f"<h2>Legal decks with a legality date to check ({len(noted)})</h2>"
            "<table><thead><tr><th>deck</th><th>player</th><th>note</th></tr></thead>"
            "<tbody>"
        )
        for r in noted:
            for p in r.report.problems if r.report is not None else ():
                if p.code in DATE_NOTES:
                    out.append(
                        f"<tr><td>{_e(r.id)}</td><td>{_e(r.player)}</td>"
                        f"<td>{_e(p.message)}</td></tr>"
                    )
        out.append("</tbody></table>")

    unreadable = [r for r in result.results if r.verdict == "unreadable"]
    if unreadable:
        out.append(
            f"<h2>Unreadable inputs ({len(unreadable)})</h2><table><thead><tr>"
            "<th>input</th><th>player</th><th>reason</th></tr></thead><tbody>"
        )
        for r in sorted(unreadable, key=by_player):
            out.append(f"<tr><td>{_e(r.id)}</td><td>{_e(r.player)}</td><td>{_e(r.error)}</td></tr>")
        out.append("</tbody></table>")
    out.append("</body></html>")
    return "\n".join(out)


def _deck_sections(decks: list[DeckResult], short: dict[str, str]) -> list[str]:
    """Each deck with its problems (notes left out, but for DATE_NOTES) and offending lines."""
    out: list[str] = []
    for r in decks:
        report = r.report
        assert report is not None
        who = r.player or r.id
        out.append('<section class="deck">')
        out.append(f"<h3>{_e(who)} &mdash; {_e(report.format_name)}</h3>")
        meta = [f'deck <span title="{_e(r.id)}">{_e(short.get(r.id, r.id))}</span>']
        if report.as_of:
            meta.append(f"legality as of {_e(as_of_label(report.as_of, report.as_of_precision))}")
        meta.append(f"main {report.main_count}, sideboard {report.sideboard_count}")
        if report.commanders:
            meta.append("commander " + _e(", ".join(report.commanders)))
        out.append(f'<div class="meta">{" &middot; ".join(meta)}</div><ul class="problems">')
        for p, lines in zip(report.sorted_problems(), r.offending or [[]] * len(report.problems)):
            if p.severity == Severity.INFO and p.code not in DATE_NOTES:
                continue
            out.append(
                f'<li><span class="sev-{p.severity.value}">{_e(p.severity.value)}</span> '
                f'{_e(p.message)} <span class="cite">[{_e(p.citation)}; {_e(p.code)}]'
                f"</span>"
            )
            for line in lines[:12]:
                out.append(f'<div class="lines">{_e(line)}</div>')
            if len(lines) > 12:
                out.append(f'<div class="meta">&hellip; {len(lines) - 12} more line(s)</div>')
            out.append("</li>")
        out.append("</ul>")
        # What could not be checked, and what would settle it (an unconfirmed verdict's).
        out += [f'<div class="meta">{_e(line.strip())}</div>' for line in settle_lines(report)]
        # Cards the list names outside the counted sections (a maybeboard, tokens): said,
        # never silently dropped.
        out += [
            f'<div class="meta">{_e(line.strip())}</div>'
            for line in not_counted_lines(report.not_counted)
        ]
        out.append("</section>")
    return out


def write_event_report(path: Any, result: EventResult) -> None:
    """--report OUT: the format follows the extension (.csv, .json, .html / .htm). Written to a
    temporary file beside OUT, then renamed over it: a run that fails leaves the previous
    report whole, never truncated."""
    from pathlib import Path

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        text = render_event_json(result)
    elif suffix in (".html", ".htm"):
        text = render_event_html(result)
    else:
        text = render_event_csv(result)
    data = text.encode("utf-8")  # before any file is touched
    path = Path(os.path.realpath(path))  # a link to the report stays a link: its file is replaced
    fd, tmp = _temporary_beside(path)
    try:
        with open(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        try:  # keep the permissions the report had
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
        except FileNotFoundError:
            pass
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def check_report_writable(path: Any) -> None:
    """Raise OSError now when `write_event_report` could not write `path` at the end of the
    run: the file itself (opened for appending: nothing is truncated, and a file this created
    is removed again) and its directory (where the temporary file goes)."""
    from pathlib import Path

    path = Path(path)
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    finally:
        if not existed:
            path.unlink(missing_ok=True)
    fd, tmp = _temporary_beside(os.path.realpath(path))
    os.close(fd)
    os.unlink(tmp)


def _temporary_beside(path: Any) -> tuple[int, str]:
    """A new file in `path`'s directory, created with the default permissions (as the report
    itself would be): its descriptor and name."""
    import secrets

    tmp = os.path.join(
        os.path.dirname(path) or ".", f".{os.path.basename(path)}.{secrets.token_hex(4)}.tmp"
    )
    return os.open(
        tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666
    ), tmp
