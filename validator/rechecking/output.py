"""A re-check's changed decks as a file (CSV, JSON Lines, Parquet or one JSON document, by
the extension) and as text for a terminal."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from validator.errors import UsageError
from validator.rechecking.records import RecheckResult

#: Report extensions and what each holds.
REPORT_KINDS = {
    ".csv": "one row per changed deck",
    ".jsonl": "one JSON object per changed deck",
    ".parquet": "one row per changed deck",
    ".json": "the whole result: summary, changed decks, new decks not legal, failures",
}
ROW_COLUMNS = ("id", "format", "old_verdict", "new_verdict", "changes")


def report_kind(path: str | os.PathLike[str]) -> str:
    """The report's extension, or UsageError naming the ones there are."""
    suffix = Path(path).suffix.lower()
    if suffix not in REPORT_KINDS:
        raise UsageError(
            f"--report {path}: write it as {', '.join(REPORT_KINDS)} (by the file's extension)"
        )
    return suffix


def write_report(path: str | os.PathLike[str], result: RecheckResult) -> None:
    """Write the changed decks to `path`; UsageError when it cannot be written."""
    kind = report_kind(path)
    try:
        if kind == ".parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            rows = [c.row() for c in result.changed]
            table = pa.table({k: pa.array([r[k] for r in rows], pa.string()) for k in ROW_COLUMNS})
            pq.write_table(table, path)
            return
        with open(path, "w", encoding="utf-8", newline="") as f:
            if kind == ".csv":
                writer = csv.DictWriter(f, ROW_COLUMNS)
                writer.writeheader()
                writer.writerows(c.row() for c in result.changed)
            elif kind == ".jsonl":
                for c in result.changed:
                    f.write(json.dumps(c.to_dict(), ensure_ascii=False) + "\n")
            else:
                json.dump(result.to_dict(), f, ensure_ascii=False, indent=2)
                f.write("\n")
    except ImportError as exc:
        raise UsageError("writing Parquet needs pyarrow: pip install 'deckcheck[dask]'") from exc
    except OSError as exc:
        raise UsageError(f"cannot write --report {path}: {exc.strerror or exc}") from exc


def render_text(result: RecheckResult, *, limit: int = 200) -> str:
    """The changed decks and the new decks not legal (the first `limit` of each), the failures,
    the summary per format and the verdicts after the run."""
    from validator.report import escape_controls

    lines: list[str] = []
    for c in result.changed[:limit]:
        lines.append(f"{escape_controls(c.id)} ({c.format}): {c.old_verdict} -> {c.new_verdict}")
        for p in c.problems:
            sign = "+" if p.change == "added" else "-"
            lines.append(f"  {sign} {p.code}: {escape_controls(p.message)}")
            lines.append(f"      because {escape_controls(p.cause)}")
    if len(result.changed) > limit:
        lines.append(f"... and {len(result.changed) - limit} more changed decks (see --report)")
    for d in result.new_not_legal[:limit]:
        lines.append(f"{escape_controls(d.id)} ({d.format}): new, {d.verdict}")
        for problem in d.problems:  # as STATE keeps them (judging.problem_records)
            lines.append(f"  {problem['code']}: {escape_controls(problem['message'])}")
    if len(result.new_not_legal) > limit:
        lines.append(
            f"... and {len(result.new_not_legal) - limit} more new decks not legal "
            "(see --report with .json)"
        )
    for f in result.failures:
        who = f"{f.id} ({f.where})" if f.id else f.where
        lines.append(f"could not judge {escape_controls(who)}: {escape_controls(f.why)}")
    if lines:
        lines.append("")
    lines.append(
        f"{'format':<20} {'checked':>9} {'re-judged':>9} {'new':>7} {'now illegal':>11} "
        f"{'now legal':>9} {'unconfirmed':>11}"
    )
    rows = sorted(result.summary.items())
    if len(rows) > 1:
        rows.append(("total", result.totals))
    for key, s in rows:
        lines.append(
            f"{key:<20} {s.checked:>9} {s.rejudged:>9} {s.new:>7} {s.newly_illegal:>11} "
            f"{s.newly_legal:>9} {s.newly_unconfirmed:>11}"
        )
    data = f", card data of {result.card_data}" if result.card_data else ""
    sync = f"sync {result.sync_id}" if result.sync_id is not None else "no sync"
    lines.append(
        f"{len(result.changed)} verdicts changed; judged against {sync}{data}"
        + (f"; {len(result.removed)} decks no longer listed dropped" if result.removed else "")
    )
    totals = result.totals
    new = len(result.new_not_legal)
    lines.append(
        f"after this run: {totals.illegal} illegal, {totals.unconfirmed} unconfirmed of "
        f"{totals.checked} decks"
        + (f"; {new} new deck{'s' if new > 1 else ''} not legal (above)" if new else "")
    )
    return "\n".join(lines)
