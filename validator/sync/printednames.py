"""Scryfall's `all_cards` bulk file -> the printed names of the cards (`sync --languages`).

Every printing in every language is one object of the file (several GB uncompressed); only what
reading a decklist needs is kept: per card (oracle id) and language, each printed name, and for
a multi-face card each face's printed name (Scryfall gives non-English multi-face objects no
root `printed_name`: the faces' are joined with " // " as Scryfall joins names). English
printings give their printed and flavor names when they differ from the Oracle name (the names
MTGO and Arena print on Universes Beyond cards, Godzilla series names). The file is streamed
(`bulkfile.iter_bulk_blocks`, only the keys read here decoded) and its names written a block
at a time: memory does not grow with the file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from validator.cards.printed import LANGUAGES, fold_printed
from validator.sync.bulkfile import BulkStats, iter_bulk_blocks
from validator.sync.errors import SyncError


class _Printing(msgspec.Struct, gc=False):
    """The keys of an all_cards object read here (`bulkfile.iter_bulk_blocks`; card faces are
    read whole). Any JSON value: what is not a string is checked below, as a dict's value.
    Not tracked by the cyclic GC (gc=False): decoded JSON holds no cycles, and hundreds of
    thousands of these are made and dropped."""

    oracle_id: Any = None
    name: Any = None
    lang: Any = None
    printed_name: Any = None
    flavor_name: Any = None
    card_faces: Any = None


#: Longest printed name kept (the name column's width); a longer one is no card name.
MAX_NAME = 300

#: (folded, card number, lang, part, name as printed or None when it is `folded`): a
#: `printed_names` row (`database.PrintedNameWriter`).
Row = tuple[str, int, str, int, str | None]


@dataclass
class PrintedNames:
    """What a read of an all_cards file skipped, and the languages it kept names in (the sync's
    summary); its rows went to the `write` of `read_printed_names`."""

    #: Distinct (oracle id, language, printed name) of cards the oracle data does not hold.
    skipped: set[tuple[str, str, str]] = field(default_factory=set)
    languages: set[str] = field(default_factory=set)


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
    known: Mapping[str, int],
    languages: set[str] | None,
    write: Callable[[list[Row]], object],
    *,
    stats: BulkStats | None = None,
    on_read: Callable[[int], None] | None = None,
    name: str | None = None,
) -> PrintedNames:
    """The printed names of the cards `known` (oracle id -> the number its rows hold) in
    `languages` (None: every one) from an all_cards file, given to `write` a block of rows at
    a time in the file's order (a key may come again: the first row of each key is the one to
    keep). English printings' own names are always read. A file object without `lang`, or
    without an oracle id (its own or its first face's), raises SyncError naming the key and
    the line."""
    path = Path(path)
    name = name or path.name
    out = PrintedNames()
    number = dict(known)  # a dict's get, whatever mapping was given
    skipped, seen_languages = out.skipped, out.languages
    # Names are folded as read, not cached: in Scryfall's files a card's printings in one
    # language lie far apart, and a cache of every name would hold them all.
    fold = fold_printed.__wrapped__
    # The languages kept but English, each code as one string: what the common object's
    # language is looked up in (with `languages` None, each one met is added).
    kept = {} if languages is None else {code: code for code in languages if code != "en"}
    langs = dict(kept, en="en")  # every language code met, as one string
    for objs, where in iter_bulk_blocks(path, _Printing, stats, on_read, name=name):
        rows: list[Row] = []
        add = rows.append
        for obj in objs:
            lang = obj.lang
            oid = obj.oracle_id
            if (
                obj.card_faces is None
                and oid.__class__ is str
                and oid
                and lang.__class__ is str
                and (lang := kept.get(lang))
            ):  # the common object: one face, a language kept, not English
                printed = obj.printed_name
                if not printed:
                    continue
                names: Any = ((0, printed),)
            else:
                found = _other_object(
                    obj, languages, kept, langs, functools.partial(_where, name, objs, obj, where)
                )
                if found is None:
                    continue
                oid, lang, names = found
            card = number.get(oid)
            for part, printed in names:
                if printed.__class__ is not str or len(printed) > MAX_NAME or "\x00" in printed:
                    continue
                folded = fold(printed)
                if not folded:
                    continue
                if card is None:
                    skipped.add((oid, lang, printed))
                    continue
                if folded == printed:  # stored once: the name is NULL
                    add((printed, card, lang, part, None))
                else:
                    add((folded, card, lang, part, printed))
                seen_languages.add(lang)
        if rows:
            write(rows)
    return out


def _other_object(
    obj: _Printing,
    languages: set[str] | None,
    kept: dict[str, str],
    langs: dict[str, str],
    where: Callable[[], str],
) -> tuple[str, str, list[tuple[int, str]]] | None:
    """(oracle id, language, names) of an object that is not the common one (a multi-face or
    English one, or one of a language not met yet), None when its language is not kept. An
    object without `lang` or without an oracle id (its own or its first face's) raises
    SyncError naming the key and the line; so do faces that are not a list."""
    lang, oid, faces = obj.lang, obj.oracle_id, obj.card_faces
    if faces is not None:
        if not isinstance(faces, list):
            raise SyncError(f"{where()}: card_faces is not a list")
        if not oid and faces:
            oid = next(
                (f.get("oracle_id") for f in faces if isinstance(f, dict) and f.get("oracle_id")),
                None,
            )
    if type(lang) is not str or type(oid) is not str or not lang or not oid:
        missing = "lang" if type(lang) is not str or not lang else "oracle_id"
        raise SyncError(
            f"{where()}: no {missing!r} in the card object; an all_cards file (Scryfall's "
            "bulk data of every printing in every language) has it on every card"
        )
    if languages is not None and lang not in languages and lang != "en":
        return None
    lang = langs.setdefault(lang, lang)
    if lang != "en":
        kept[lang] = lang
    if faces or lang == "en":
        return oid, lang, _names(obj, faces or (), lang)
    printed = obj.printed_name
    return (oid, lang, [(0, printed)]) if printed else None


def _where(name: str, objs: list[Any], obj: Any, where: Callable[[int], str]) -> str:
    """The file and the position of `obj` in it (for a message)."""
    return f"{name}, {where(next(i for i, o in enumerate(objs) if o is obj))}"


def _names(obj: _Printing, faces: Any, lang: str) -> list[tuple[int, str]]:
    """(part, name) of one object: 0 the whole card, n its face n."""
    found: list[tuple[int, str]] = []
    face_names = [f.get("printed_name") if isinstance(f, dict) else None for f in faces]
    if lang == "en":
        # English: only names that are not the Oracle name (MTGO/Arena and flavor names).
        oracle = obj.name
        for key in ("printed_name", "flavor_name"):
            whole = getattr(obj, key)
            if isinstance(whole, str) and whole and whole != oracle:
                found.append((0, whole))
            for i, face in enumerate(faces, 1):
                value = face.get(key) if isinstance(face, dict) else None
                if isinstance(value, str) and value and value != face.get("name"):
                    found.append((i, value))
        return found
    whole = obj.printed_name
    if not isinstance(whole, str) or not whole:
        shown = [n for n in face_names if isinstance(n, str) and n]
        whole = " // ".join(shown) if len(shown) == len(face_names) and shown else None
    if whole:
        found.append((0, whole))
    for i, face_name in enumerate(face_names, 1):
        if isinstance(face_name, str) and face_name and len(face_names) > 1:
            found.append((i, face_name))
    return found
