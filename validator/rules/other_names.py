"""A decklist name that is no Oracle name, read as the name a card is printed under: the English
name MTGO and Arena print (`data/alt-names.tsv`), a bilingual shop line (`《稲妻/Lightning
Bolt》`), or a printed name of a synced language (`deckcheck sync --languages`).

Only whole names are matched (folded by `cards.printed.fold_printed`), never a prefix; a printed
name that belongs to several cards (the German "Zwang": Duress and Coercion) is never guessed:
it is a problem naming the candidates and asking for the English name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from validator.cards.names import lookup_key
from validator.cards.printed import (
    ALT_NAME,
    LANGUAGES,
    PRINTED_NAME,
    alt_name_pairs,
    alt_names,
    fold_printed,
    script_of,
)
from validator.model import Card, NameReading, Problem, Severity
from validator.store.source import CardSource, choose

#: How a bilingual line (`《稲妻/Lightning Bolt》`) was read (`NameReading.how`).
BILINGUAL_NAME = "bilingual-name"
#: The language of a bilingual line's other name when no synced language knows it (BCP 47).
UNDETERMINED = "und"

#: Brackets Japanese shops put around a card name (《稲妻》, 【稲妻】, 「稲妻」).
_BRACKETS = {"《": "》", "【": "】", "「": "」", "〈": "〉", "『": "』"}

#: One printed-name hit: (oracle id, language, printed name, part: 0 the whole card, n its face n).
Hit = tuple[str, str, str, int]
_Read = tuple[list[Card], NameReading | None, list[Problem]]


def read_other_name(entry: Any, source: CardSource) -> _Read:
    """The card(s) an entry's name stands for when it is no Oracle name, how it was read, and
    its problems (several cards for one printed name; a bilingual line's two names disagree).
    ([], None, []) when it is no name deckcheck knows."""
    name = entry.name
    text, bracketed = _unbracket(name)
    pair = _bilingual(text, bracketed)
    if pair is not None:
        return _read_bilingual(entry, pair, source)
    card_name = alt_names().get(lookup_key(text))
    if card_name is not None:
        cards = _by_english(card_name, source)
        if len(cards) == 1:
            return cards, NameReading(entry.line, name, cards[0].name, ALT_NAME), []
    if bracketed:
        cards = _by_english(text, source)
        if len(cards) == 1:
            return cards, None, []
    return _read_printed(entry, text, source)


def _unbracket(name: str) -> tuple[str, bool]:
    text = name.strip()
    close = _BRACKETS.get(text[:1])
    if close is not None and text.endswith(close) and len(text) > 2:
        return text[1:-1].strip(), True
    return text, False


def _bilingual(text: str, bracketed: bool) -> tuple[str, str] | None:
    """(the localized name, the English name) of `稲妻/Lightning Bolt`: one single slash (a
    split card's ` // ` is not one), a localized name not in ASCII or the whole in brackets."""
    slashes = [
        i
        for i, ch in enumerate(text)
        if ch in "/／" and text[i - 1 : i] not in "/／" and text[i + 1 : i + 2] not in "/／"
    ]
    slashes = [i for i in slashes if 0 < i < len(text) - 1]
    if len(slashes) != 1:
        return None
    local, english = text[: slashes[0]].strip(), text[slashes[0] + 1 :].strip()
    if not local or not english or (local.isascii() and not bracketed):
        return None
    return local, english


def _read_bilingual(entry: Any, pair: tuple[str, str], source: CardSource) -> _Read:
    local, english = pair
    by_english = _by_english(english, source)
    by_local, local_reading, local_problems = _read_printed(entry, local, source)
    if not by_local:
        by_local = _by_english(local, source)
    language = local_reading.language if local_reading is not None else UNDETERMINED
    if len(by_english) != 1:
        # The English half names no single card: the localized half alone decides.
        return by_local, local_reading, local_problems
    card = by_english[0]
    problems = []
    if by_local and card not in by_local:
        problems.append(
            Problem(
                "bilingual-names-differ",
                f"{_where(entry)}{local!r} is {'; '.join(sorted(c.name for c in by_local))}, "
                f"not {card.name} as {english!r} is: read as {card.name}; check which card "
                "the list means",
                "CR 201.2",
                Severity.WARNING,
                cards=(card.name, *sorted(c.name for c in by_local)),
                lines=_lines(entry),
            )
        )
    return (
        [card],
        NameReading(entry.line, entry.name, card.name, BILINGUAL_NAME, language),
        problems,
    )


def _by_english(name: str, source: CardSource) -> list[Card]:
    folded = lookup_key(name)
    return choose(folded, source.lookup_folded([folded]).get(folded, []))


def _read_printed(entry: Any, text: str, source: CardSource) -> _Read:
    lookup = getattr(source, "lookup_printed", None)
    if lookup is None or not text:
        return [], None, []
    folded = fold_printed(text)
    hits: Sequence[Hit] = lookup([folded]).get(folded, ())
    if not hits:
        return [], None, []
    # As `choose` for English names: a card's whole printed name beats a face of another card,
    # a front face a back face.
    best = min(min(part, 2) for _, _, _, part in hits)
    hits = [h for h in hits if min(h[3], 2) == best]
    ids = sorted({oid for oid, _, _, _ in hits})
    cards = [c for c in map(source.card_by_id, ids) if c is not None]
    languages = sorted({lang for _, lang, _, _ in hits})
    if len(cards) == 1:
        card = cards[0]
        # A name printed alike in several languages ("Santuario Mistico": es, it, pt): the
        # language that prints it exactly as written, else as written but for case.
        exact = sorted({lang for _, lang, n, _ in hits if n == text}) or sorted(
            {lang for _, lang, n, _ in hits if n.casefold() == text.casefold()}
        )
        language = (exact or languages)[0]
        return [card], NameReading(entry.line, entry.name, card.name, PRINTED_NAME, language), []
    if not cards:
        return [], None, []
    names = sorted({c.name for c in cards})
    said = " or ".join(LANGUAGES.get(lang, lang) for lang in languages)
    return (
        [],
        None,
        [
            Problem(
                "ambiguous-printed-name",
                f"{_where(entry)}{entry.name!r} is the {said} name of several cards: "
                f"{'; '.join(names)}; write the English name of the one you mean",
                "CR 201.2",
                cards=tuple(names),
                lines=_lines(entry),
            )
        ],
    )


def script_suggestions(
    name: str, source: CardSource, limit: int = 3, language: str | None = None
) -> list[str]:
    """ "Did you mean" from printed names (rapidfuzz): those of the same script as `name` (a
    name in Japanese, Chinese, Korean or Russian), or with `language`, that language's names of
    the same script (an Italian deck's unknown name); each shown with its English name when
    that is another."""
    listing = getattr(source, "all_printed_names", None)
    if listing is None:
        return []
    names = listing()
    choices = _script_names(names, script_of(name), language)
    from rapidfuzz import fuzz, process

    query = fold_printed(name)
    # One character wrong in a name of two (稲妾 for 稲妻, common in Japanese and Chinese names)
    # scores 50, the least any typo of such a name can: under the cutoff of longer names.
    cutoff = 50 if len(query) == 2 else 60
    found = process.extract(
        query, choices[0], scorer=fuzz.ratio, processor=None, limit=limit, score_cutoff=cutoff
    )
    return [choices[1][i] for _, _, i in found]


#: (id of a source's printed-name list, script, language) -> (the list, folded, shown).
_BY_SCRIPT: dict[tuple[int, str, str | None], tuple[Any, list[str], list[str]]] = {}


def _script_names(
    names: list[tuple[str, str, str]], script: str, language: str | None
) -> tuple[list[str], list[str]]:
    key = (id(names), script, language)
    found = _BY_SCRIPT.get(key)
    if found is None or found[0] is not names:
        if len(_BY_SCRIPT) >= 8:
            _BY_SCRIPT.clear()
        folded, shown, seen = [], [], set()
        for printed, card, lang in names:
            if (language is None or lang == language) and script_of(printed) == script:
                if (printed, card) not in seen:  # a name printed alike in several languages
                    seen.add((printed, card))
                    folded.append(fold_printed(printed))
                    # The English name beside it, unless the name is the English one.
                    shown.append(printed if printed == card else f"{printed} ({card})")
        found = _BY_SCRIPT[key] = (names, folded, shown)
    return found[1], found[2]


def deck_language(readings: Sequence[NameReading]) -> str | None:
    """The language most of a deck's lines were read in, other than English: where its unknown
    names in Latin letters look for suggestions. None for a deck read in English."""
    counts: dict[str, int] = {}
    for r in readings:
        if r.how != ALT_NAME and r.language not in ("en", UNDETERMINED):
            counts[r.language] = counts.get(r.language, 0) + 1
    return max(sorted(counts), key=counts.__getitem__) if counts else None


def _lines(entry: Any) -> tuple[int, ...]:
    return (entry.line,) if entry.line else ()


def _where(entry: Any) -> str:
    if entry.line:
        return f"line {entry.line}: "
    return f"{entry.where}: " if getattr(entry, "where", None) else ""


def cards_by_other_name(name: str, source: CardSource) -> tuple[list[Card], list[Problem]]:
    """The cards a name that is no Oracle name stands for (`deckcheck card 稲妻`, `GET
    /v1/cards/稲妻`): one card; or none, with the problem of a printed name of several cards
    (naming them)."""
    from validator.model import DeckEntry

    cards, _, problems = read_other_name(DeckEntry(quantity=1, name=name), source)
    return cards, [p for p in problems if p.code == "ambiguous-printed-name"]


def printed_names_of(card: Card, source: Any) -> dict[str, list[str]]:
    """A card's names by language, besides its Oracle name: the printed names synced
    (`sync --languages`; the whole card's, faces joined by " // ") and the English names MTGO
    and Arena print ("en")."""
    out: dict[str, list[str]] = {}
    reader = getattr(source, "printed_names_of", None)
    for lang, part, printed in reader(card.oracle_id) if reader is not None else ():
        names = out.setdefault(lang, [])
        if part == 0 and printed not in names:
            names.append(printed)
    folded = lookup_key(card.name)
    for printed, oracle in alt_name_pairs():
        names = out.setdefault("en", [])
        if lookup_key(oracle) == folded and printed not in names:
            names.append(printed)
    return {lang: sorted(names) for lang, names in sorted(out.items()) if names}
