"""Scryfall's `all_cards` bulk file -> the printed names of the cards (`sync --languages`).

Every printing in every language is one object of the file (several GB uncompressed); only what
reading a decklist needs is kept: per card (oracle id) and language, each printed name, and for
a multi-face card each face's printed name (Scryfall gives non-English multi-face objects no
root `printed_name`: the faces' are joined with " // " as Scryfall joins names). English
printings give their printed and flavor names when they differ from the Oracle name (the names
MTGO and Arena print on Universes Beyond cards, Godzilla series names). The file is streamed
(`bulkfile.iter_bulk_file`, only the keys read here kept per object): memory grows with the
distinct names kept, not with the file.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validator.cards.printed import LANGUAGES, fold_printed
from validator.sync.bulkfile import BulkStats, iter_bulk_file
from validator.sync.errors import SyncError

#: The keys of an all_cards object read here (card faces are read whole).
KEYS = frozenset({"oracle_id", "name", "lang", "printed_name", "flavor_name", "card_faces"})
#: Longest printed name kept (the name column's width); a longer one is no card name.
MAX_NAME = 300

#: (folded, oracle_id, lang, part, name): a `printed_names` row.
Row = tuple[str, str, str, int, str]


@dataclass
class PrintedNames:
    """What a read of an all_cards file kept, and what it skipped (the sync's summary)."""

    #: (folded, oracle_id, lang, part) -> its row: the first name read of each key.
    rows: dict[tuple[str, str, str, int], Row] = field(default_factory=dict)
    #: Distinct (oracle id, language, printed name) of cards the oracle data does not hold.
    skipped: set[tuple[str, str, str]] = field(default_factory=set)
    languages: set[str] = field(default_factory=set)

    def row_list(self) -> list[Row]:
        return list(self.rows.values())


def parse_languages(text: str) -> set[str] | None:
    """`--languages ja,it` as Scryfall codes; None for `all`. An unknown code raises
    ValueError naming Scryfall's codes."""
    codes = {c.strip().lower() for c in text.split(",") if c.strip()}
    if "all" in codes:
        return None
    unknown = sorted(codes - LANGUAGES.keys())
    if unknown or not codes:
        raise ValueError(
            f"unknown language code{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(unknown) or repr(text)}; Scryfall's codes are "
            f"{', '.join(LANGUAGES)} (or all)"
        )
    return codes


def read_printed_names(
    path: Path,
    known: Collection[str],
    languages: set[str] | None,
    *,
    stats: BulkStats | None = None,
    on_read: Callable[[int], None] | None = None,
    name: str | None = None,
) -> PrintedNames:
    """The printed names of the cards `known` (oracle ids) in `languages` (None: every one)
    from an all_cards file. English printings' own names are always read. A file object
    without `lang`, or without an oracle id (its own or its first face's), raises SyncError
    naming the key and the line."""
    path = Path(path)
    name = name or path.name
    out = PrintedNames()
    same = {oid: oid for oid in known}  # one string per oracle id
    rows, skipped, seen_languages = out.rows, out.skipped, out.languages
    # Each distinct name folded once (a name is printed on many printings), without the
    # bounded cache's bookkeeping: the names kept bound this dict as they bound `rows`.
    fold = fold_printed.__wrapped__
    folds: dict[str, str] = {}
    langs: dict[str, str] = {}  # one string per language code, not one per row
    for position, obj in iter_bulk_file(path, stats, on_read, name=name, keys=KEYS):
        lang = obj.get("lang")
        oid = obj.get("oracle_id")
        faces = obj.get("card_faces")
        if faces is not None:
            if not isinstance(faces, list):
                raise SyncError(f"{name}, {position}: card_faces is not a list")
            if not oid and faces:
                oid = next(
                    (
                        f.get("oracle_id")
                        for f in faces
                        if isinstance(f, dict) and f.get("oracle_id")
                    ),
                    None,
                )
        if type(lang) is not str or type(oid) is not str or not lang or not oid:
            missing = "lang" if type(lang) is not str or not lang else "oracle_id"
            raise SyncError(
                f"{name}, {position}: no {missing!r} in the card object; an all_cards file "
                "(Scryfall's bulk data of every printing in every language) has it on "
                "every card"
            )
        if languages is not None and lang not in languages and lang != "en":
            continue
        if faces or lang == "en":
            names: Any = _names(obj, faces or (), lang)
        else:  # the common object: one face, another language
            printed = obj.get("printed_name")
            if not printed:
                continue
            names = ((0, printed),)
        card_id = same.get(oid)
        lang = langs.setdefault(lang, lang)
        for part, printed in names:
            if type(printed) is not str or len(printed) > MAX_NAME or "\x00" in printed:
                continue
            folded = folds.get(printed)
            if folded is None:
                folded = folds[printed] = fold(printed)
            if not folded:
                continue
            if card_id is None:
                skipped.add((oid, lang, printed))
                continue
            key = (folded, card_id, lang, part)
            if key not in rows:
                rows[key] = (folded, card_id, lang, part, printed)
            seen_languages.add(lang)
    return out


def _names(obj: dict[str, Any], faces: Any, lang: str) -> list[tuple[int, str]]:
    """(part, name) of one object: 0 the whole card, n its face n."""
    found: list[tuple[int, str]] = []
    face_names = [f.get("printed_name") if isinstance(f, dict) else None for f in faces]
    if lang == "en":
        # English: only names that are not the Oracle name (MTGO/Arena and flavor names).
        oracle = obj.get("name")
        for key in ("printed_name", "flavor_name"):
            whole = obj.get(key)
            if isinstance(whole, str) and whole and whole != oracle:
                found.append((0, whole))
            for i, face in enumerate(faces, 1):
                value = face.get(key) if isinstance(face, dict) else None
                if isinstance(value, str) and value and value != face.get("name"):
                    found.append((i, value))
        return found
    whole = obj.get("printed_name")
    if not isinstance(whole, str) or not whole:
        shown = [n for n in face_names if isinstance(n, str) and n]
        whole = " // ".join(shown) if len(shown) == len(face_names) and shown else None
    if whole:
        found.append((0, whole))
    for i, face_name in enumerate(face_names, 1):
        if isinstance(face_name, str) and face_name and len(face_names) > 1:
            found.append((i, face_name))
    return found
