"""`recheck`: judge again only the stored decks a change touches, and say which verdicts
changed and why. The CLI (`deckcheck recheck`) and the Dask partitions are skins over it."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from validator.codes import UNKNOWN_NAMES
from validator.rechecking.judging import (
    judge_row,
    named_cards,
    parse_row,
    reads_named_cards,
)
from validator.rechecking.plan import EDITED, LoggedChange, plan, settled_decks
from validator.rechecking.records import (
    ChangedDeck,
    FormatSummary,
    NewDeck,
    ProblemChange,
    RecheckResult,
    RowFailure,
)
from validator.rechecking.rows import (
    JSON_LINES,
    DeckRow,
    KnownRow,
    file_digest,
    file_identity,
    line_starts,
    read_rows,
    unique_rows,
)
from validator.rechecking.state import DEFAULT_LOCK_TIMEOUT, Judgement, StoredDeck, open_state

_RULES_DIGEST: str | None = None


def rules_digest() -> str:
    """What the rules are, apart from the card data: deckcheck's version and every data file
    (formats, dated lists, points, the shipped history). A new one re-judges every deck."""
    global _RULES_DIGEST
    if _RULES_DIGEST is None:
        import validator
        from validator.resources import resource_dir

        h = hashlib.blake2b(validator.__version__.encode(), digest_size=16)
        root = resource_dir("data")
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            h.update(str(path.relative_to(root)).encode() + b"\x00")
            h.update(path.read_bytes())
        _RULES_DIGEST = h.hexdigest()
    return _RULES_DIGEST


def logged_changes(
    database: Any, after: int | None, days: Mapping[int, str | None]
) -> list[LoggedChange]:
    """The change log's changes recorded by the syncs after `after`."""
    from validator.history.changes import changes_after

    return [
        LoggedChange(
            r["oracle_id"],
            r["name"],
            r["format"],
            r.get("old_status"),
            r.get("new_status"),
            int(r["sync_id"]),
            r["card_data"],
        )  # fmt: skip
        for r in changes_after(database, after, days)
    ]


def recheck(
    decks: Any,
    *,
    state: str | os.PathLike[str] | None = None,
    cards: Any = None,
    db: str | os.PathLike[str] | None = None,
    since: str | int | None = None,
    table: str | None = None,
    query: str | None = None,
    today: dt.date | None = None,
    full: bool = False,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
) -> RecheckResult:
    """Re-check stored decks against STATE and the card data; STATE is updated in one
    transaction. Returns the decks whose verdict changed (`RecheckResult`).

    `decks`: rows (mappings with `id`, `format`, `decklist` or `deck`, optional `as_of`), a
    JSON Lines / CSV / Parquet file, a SQLAlchemy URL with `table` or `query`, or a folder,
    manifest or event file. `state`: STATE's file or URL (default: recheck.sqlite3 in the user
    data directory). `cards`: the card source (default: the database at `db`). `since`: also
    re-judge the decks touched by the changes of that sync id or date and later. `full`: judge
    every deck again.

    Raises UsageError (a repeated id, unreadable DECKS), StateError (STATE not usable: left
    untouched), DatabaseError; a row that cannot be judged is one of `failures`."""
    from validator.api import open_db

    if isinstance(decks, (bytes, Mapping)):
        read_rows(decks)  # raises the UsageError saying what to pass, before STATE is opened
    import gc

    own = cards is None
    source: Any = open_db(db) if own else cards
    # A re-check makes a few short-lived objects per stored deck (its STATE row, its line),
    # none in a cycle; the cyclic collector would rescan the caller's whole heap for them
    # again and again (a third of a re-check's CPU in a process holding 81,883 decks).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        database = getattr(source, "database", None) or source
        rows = lambda known: unique_rows(read_rows(decks, table=table, query=query, known=known))  # noqa: E731
        result = _recheck(
            rows, _json_lines_file(decks), state, source, database, since, today, full, lock_timeout
        )
    finally:
        if gc_was_enabled:
            gc.enable()
        if own:
            source.close()
    return result


def _json_lines_file(decks: Any) -> Path | None:
    """A JSON Lines DECKS file, else None."""
    if not isinstance(decks, (str, os.PathLike)) or "://" in os.fspath(decks):
        return None
    path = Path(decks)
    if not path.is_file() or not path.name.lower().endswith(JSON_LINES):
        return None
    return path.resolve()


def _file_key(path: Path, meta: Mapping[str, str]) -> tuple[str, str]:
    """The file's key in STATE (its path and the digest of its bytes) and its identity
    (`file_identity`, "" when not to be trusted): the key STATE holds, without hashing the
    file again, when the file's identity is the one STATE recorded with that key."""
    known = meta.get("decks_file") or ""
    seen = meta.get("decks_stat") or ""
    if seen and _key_path(known) == str(path):
        if file_identity(path, settled=False) == seen:
            return known, seen
    before = file_identity(path)
    key = json.dumps([str(path), file_digest(path)])
    # A write while it was hashed: the digest may be of neither version; not recorded.
    after = file_identity(path, settled=False) if before else ""
    return key, before if before == after else ""


def _key_path(key: str) -> str | None:
    """The path in a DECKS file's key in STATE (`[path, digest]` as JSON), else None."""
    try:
        found = json.loads(key)
    except ValueError:
        return None
    return found[0] if isinstance(found, list) and found else None


def _recheck(
    read: Callable[[Mapping[bytes, str]], tuple[list[DeckRow | KnownRow], list[RowFailure]]],
    lines_file: Path | None,
    state: Any,
    source: Any,
    database: Any,
    since: Any,
    today: dt.date | None,
    full: bool,
    lock_timeout: float,
) -> RecheckResult:
    from validator.history.changes import since_sync, sync_days

    today = today or dt.date.today()
    days = sync_days(database)
    sync_id = max(days, default=None)
    digest = rules_digest()
    result = RecheckResult(sync_id=sync_id)
    result.card_data = days.get(sync_id) if sync_id is not None else None
    with open_state(state, lock_timeout=lock_timeout) as session:
        meta = session.meta()
        file_key, identity = _file_key(lines_file, meta) if lines_file else (None, "")
        checked = int(meta["checked_sync"]) if meta.get("checked_sync") else None
        after = checked if since is None else min(checked or 0, since_sync(since, days))
        everything = full or (meta.get("rules") not in (None, digest))
        if file_key is not None and meta.get("decks_file") == file_key and not everything:
            # The same DECKS file, byte for byte: no deck is new, edited or gone. Only the
            # decks a change touches are read, by their lines; nothing else is loaded.
            if _unchanged_file(session, meta, lines_file, source, database, after, days, today,
                               sync_id != checked, result):  # fmt: skip
                _finish(session, digest, today, sync_id, file_key, identity, result)
                return result
        stored = session.decks()
        # The rows are read inside the run's transaction: a line STATE holds byte for byte
        # is known by its digest, not parsed.
        rows, result.failures = read({s.digest: i for i, s in stored.items()})
        failures = list(result.failures)
        changes = logged_changes(database, after, days) if stored else []
        todo = plan(
            rows,
            stored,
            changes,
            session.decks_with,
            key=lambda s: s.deck_no,
            settled=settled_decks(session.open_names(), source) if sync_id != checked else set(),
            today=today.isoformat(),
            everything=everything and bool(stored),
        )
        judged = judge_planned(rows, todo, source, database, sync_id, today, result)
        old_problems = session.problems(stored[i] for i in judged if i in stored)
        compare(rows, stored, judged, todo, old_problems, changes, result)
        seen = {r.id for r in rows} | {f.id for f in failures if f.id is not None}
        result.removed = sorted(i for i in stored if i not in seen)
        line_nos = {r.id: r.line_no for r in rows}
        session.write(judged, stored, result.removed, line_nos)
        session.renumber(
            [
                (r.line_no, stored[r.id].deck_no)
                for r in rows
                if r.id in stored
                and r.id not in judged
                and r.line_no is not None
                and stored[r.id].line_no != r.line_no
            ]
        )
        if lines_file is not None:
            # Where each row is, for the re-checks of this same file (`lines_at`).
            session.set_meta({"decks_lines": f"{file_key}\n{line_starts(lines_file)}"})
        if file_key is not None:
            # The decks per format and verdict, for the re-checks of this same file: they
            # judge no new, edited or removed deck, so only their changed verdicts move these.
            counts = {"file": file_key, "verdicts": session.verdict_counts()}
            session.set_meta({"decks_counts": json.dumps(counts)})
        _finish(session, digest, today, sync_id, file_key, identity, result)
    return result


def _finish(
    session: Any,
    digest: str,
    today: dt.date,
    sync_id: int | None,
    file_key: str | None,
    identity: str,
    result: RecheckResult,
) -> None:
    """STATE's record of this run: the rules, the day, the sync, and for a JSON Lines file its
    digest, its identity (`file_identity`: the next run trusts the digest while it holds) and
    the rows that could not be read (said again while the file stays the same)."""
    values = {"rules": digest, "checked_on": today.isoformat()}
    if sync_id is not None:
        values["checked_sync"] = str(sync_id)
    values["decks_file"] = file_key or ""
    values["decks_stat"] = identity
    values["decks_failures"] = json.dumps([f.to_dict() for f in result.failures])
    session.set_meta(values)


def _unchanged_file(
    session: Any,
    meta: Mapping[str, str],
    lines_file: Any,
    source: Any,
    database: Any,
    after: int | None,
    days: Mapping[int, str | None],
    today: dt.date,
    synced_since: bool,
    result: RecheckResult,
) -> bool:
    """A re-check of the DECKS file STATE saw last time: the decks a change touches, found in
    STATE (the card index, the unknown names, the dated lists), their rows read by line.
    False, having changed nothing, when a row is not where STATE says (a deck whose row could
    not be read last time keeps its older line): the whole file is read then."""
    from validator.rechecking.rows import lines_at

    changes = logged_changes(database, after, days)
    holding = session.decks_with({c.oracle_id for c in changes}) if changes else {}
    open_names = session.open_names() if synced_since else {}
    settled = settled_decks(open_names, source)
    wanted_nos = {no for nos in holding.values() for no in nos}
    wanted_nos |= session.stale_dated(today.isoformat())
    stored = session.decks_numbered(wanted_nos | session.deck_nos_of(settled), judging=True)
    # The file is the one STATE saw: each row is the one STATE holds (same digest), and
    # only what STATE says decides which to judge (a deck holding the changed card in
    # another format is not read).
    todo = plan(
        [_Held(i, s.digest) for i, s in stored.items()],
        stored,
        changes,
        lambda cards: holding,
        key=lambda s: s.deck_no,
        settled=settled,
        today=today.isoformat(),
    )
    key, _, starts = (meta.get("decks_lines") or "").partition("\n")
    wanted = {s.line_no: (i, s.digest) for i, s in stored.items() if i in todo}
    if None in wanted:
        return False
    try:
        rows = lines_at(lines_file, wanted, starts if key == meta["decks_file"] else "")
    except ValueError:
        return False
    judged = judge_planned(rows, todo, source, database, result.sync_id, today, result)
    old_problems = session.problems(stored[i] for i in judged if i in stored)
    compare(rows, stored, judged, todo, old_problems, changes, result)
    known = json.loads(meta.get("decks_counts") or "{}")
    if known.get("file") != meta["decks_file"]:
        known = {}
    result.failures[:0] = [RowFailure(**f) for f in json.loads(meta.get("decks_failures") or "[]")]
    session.write(judged, stored, [], {r.id: r.line_no for r in rows})
    verdicts = known.get("verdicts")
    if verdicts is None:
        verdicts = session.verdict_counts()
    else:  # no deck came or went: only the verdicts that changed move
        for c in result.changed:
            by_verdict = verdicts.setdefault(c.format, {})
            by_verdict[c.old_verdict] = by_verdict.get(c.old_verdict, 0) - 1
            by_verdict[c.new_verdict] = by_verdict.get(c.new_verdict, 0) + 1
    for key, by_verdict in verdicts.items():
        summary = result.summary.setdefault(key, FormatSummary())
        summary.checked = sum(by_verdict.values())  # every deck of the format
        summary.illegal = by_verdict.get("illegal", 0)
        summary.unconfirmed = by_verdict.get("unconfirmed", 0)
    if known:
        session.set_meta({"decks_counts": json.dumps({**known, "verdicts": verdicts})})
    return True


class _Held(NamedTuple):
    """A row of an unchanged file as STATE holds it (what `plan` reads of a row)."""

    id: str
    digest: bytes


def judge_planned(
    rows: Sequence[DeckRow | KnownRow],
    todo: Mapping[str, str],
    source: Any,
    database: Any,
    sync_id: int | None,
    today: dt.date,
    result: RecheckResult,
) -> dict[str, Judgement]:
    """Judge the planned rows (`todo`) with one card source: the database for a few decks,
    an in-memory index for many (the event runs' cost model): of the cards they name up to
    `PARTIAL_INDEX_DECKS` decks, of every card past it; a row that cannot be judged goes to
    `result.failures`."""
    if not todo:
        return {}
    from validator.event.run import use_index

    reads = [row.parsed() if isinstance(row, KnownRow) else row for row in rows if row.id in todo]
    decks: list[Any] = [None] * len(reads)
    cards = source
    if source is database and use_index(len(todo)):
        if reads_named_cards(database, len(todo)):
            decks = [parse_row(r) if isinstance(r, DeckRow) else None for r in reads]
            cards = named_cards(database, decks)
        else:
            from validator.store.index import CardIndex

            cards = CardIndex.from_db(database)
    judged: dict[str, Judgement] = {}
    for read, deck in zip(reads, decks):
        if isinstance(read, RowFailure):
            result.failures.append(read)
            continue
        outcome = judge_row(read, cards, None, sync_id, today, deck)
        if isinstance(outcome, RowFailure):
            result.failures.append(outcome)
        else:
            judged[read.id] = outcome
    return judged


def _key(problem: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    return problem["code"], tuple(problem.get("cards") or ())


def compare(
    rows: Iterable[DeckRow | KnownRow],
    stored: Mapping[str, StoredDeck],
    judged: Mapping[str, Judgement],
    todo: Mapping[str, str],
    old_problems: Mapping[int, list[dict[str, Any]]],
    changes: list[LoggedChange],
    result: RecheckResult,
) -> None:
    """The summary per format in `result`, and a `ChangedDeck` for each verdict that changed
    (`old_problems`: the stored problems of the re-judged decks, by deck number)."""
    from validator.cards.names import fold_name
    from validator.rules.formats import get_format

    # The same few formats come up in every changed deck: each looked up once (`fold_name`
    # keeps its own cache).
    format_names: dict[str, str] = {}
    # A change touches many decks alike: each problem's cause is worded once per the problem's
    # code and cards, the deck's format and why it was judged again.
    causes: dict[tuple[Any, ...], str] = {}
    by_name: dict[str, list[LoggedChange]] = {}
    for ch in changes:
        by_name.setdefault(fold_name(ch.name), []).append(ch)
    for row in rows:
        j = judged.get(row.id)
        if j is None and row.id in todo:
            continue  # it failed: one of `failures`, not a verdict
        old = stored.get(row.id)
        if j is not None:
            fmt_key = j.format
        elif old is not None:
            fmt_key = old.format
        else:
            fmt_key = row.format if isinstance(row, DeckRow) else ""
        summary = result.summary.setdefault(fmt_key, FormatSummary())
        summary.checked += 1
        verdict = j.verdict if j is not None else old.verdict if old is not None else None
        if verdict == "illegal":
            summary.illegal += 1
        elif verdict == "unconfirmed":
            summary.unconfirmed += 1
        if j is None:
            continue
        summary.rejudged += 1
        if old is None:
            summary.new += 1
            if j.verdict != "legal":
                result.new_not_legal.append(NewDeck(row.id, j.format, j.verdict, tuple(j.problems)))
            continue
        if j.verdict == old.verdict:
            continue
        counter = f"newly_{j.verdict}"
        if hasattr(summary, counter):
            setattr(summary, counter, getattr(summary, counter) + 1)
        name = format_names.get(j.format)
        if name is None:
            name = format_names[j.format] = get_format(j.format).name
        before = {_key(p): p for p in old_problems.get(old.deck_no, [])}
        after = {_key(p): p for p in j.problems}
        diffs = [("removed", before[k]) for k in before if k not in after] + [
            ("added", after[k]) for k in after if k not in before
        ]
        why = todo[row.id]
        problem_changes = []
        for kind, p in diffs:
            cards = tuple(p.get("cards") or ())
            key = (p["code"], cards, j.legality, j.format, why)
            cause = causes.get(key)
            if cause is None:
                cause = causes[key] = _cause(p, j, why, by_name, name, result.card_data)
            problem_changes.append(ProblemChange(kind, p["code"], cards, p["message"], cause))
        result.changed.append(
            ChangedDeck(row.id, j.format, old.verdict, j.verdict, tuple(problem_changes))
        )


def _cause(
    problem: Mapping[str, Any],
    judged: Judgement,
    why: str,
    by_name: Mapping[str, list[LoggedChange]],
    format_name: str,
    card_data: str | None,
) -> str:
    """Why a problem came or went: the legality change of one of its cards in the deck's
    legality key, else the edit, else the card data now known."""
    from validator.cards.names import fold_name

    day = f" of {card_data}" if card_data else ""
    if problem["code"] in UNKNOWN_NAMES and why != EDITED:
        return f"the card data{day} settles this name"
    found = [
        ch.describe(format_name)
        for name in problem.get("cards") or ()
        for ch in by_name.get(fold_name(name), ())
        if ch.format in (judged.legality, "*")
    ]
    if found:
        return "; ".join(dict.fromkeys(found))
    if why == EDITED:
        return "the deck was edited"
    return f"judged again against the card data{day} ({why})"
