"""Names a card is printed under besides its Oracle name: the names of its non-English
printings (`printed_name` in Scryfall's `all_cards`) and the English names MTGO and MTG Arena
print on Universes Beyond cards (`data/alt-names.tsv`).

Their folding, `fold_printed`, is apart from `names.fold_name` on purpose: the English fold
drops every combining mark (NFKD), which would make the Japanese ガ and カ one letter, and the
shipped legality history is keyed by `fold_name`, which must never change. A printed name is
folded only where every reader of the language would call two spellings the same name:
compatibility forms (full-width letters and digits, half-width katakana, the ideographic
space), the variants of the Japanese middle dot and long-vowel mark, furigana in parentheses,
apostrophe and dash variants, case, and the accents of Latin letters. Folding never drops a
letter, so a folded match is still a whole-name match, never a prefix.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable

from validator.cards.names import _LIGATURES as _ENGLISH_CHARACTERS
from validator.model import ALT_NAME, LANGUAGES, PRINTED_NAME
from validator.resources import resource_path

__all__ = [
    "ALT_NAME",
    "LANGUAGES",
    "PRINTED_NAME",
    "alt_name_pairs",
    "alt_names",
    "fold_printed",
    "script_of",
]

_KANA = "\u3041-\u3096\u30a1-\u30fa"
# Inline furigana: a parenthesised run of kana right after a kanji (MTGJSON's Japanese names
# carry them: 幽（ゆう）霊（れい）暗殺者). After NFKC the parentheses are ASCII.
_FURIGANA = re.compile(rf"(?<=[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff々〆ヶ])\([{_KANA}ー]+\)")
# The long-vowel mark after kana, as people type it: a hyphen, a dash, a box-drawing line, a wave.
_LONG_VOWEL_TYPED = "-~\u2010-\u2015\u2212\u2500\u2501\u301c\uff5e"
_LONG_VOWEL = re.compile(rf"(?<=[{_KANA}ー])[{_LONG_VOWEL_TYPED}]")
#: Any of those marks: most names (kana or not) hold none, and a search of one character class
#: costs less than `_LONG_VOWEL`'s look-behind at every character.
_DASH = re.compile(f"[{_LONG_VOWEL_TYPED}]")
# One table: the apostrophe, quote and dash variants as the English folding writes them (not
# its letters: ß and ø are letters of their own in German and Danish names), the guillemets,
# and the middle dots (katakana, Latin, bullet, hyphenation point, dot operators) as the
# katakana middle dot.
_CHARACTERS = {
    code: value
    for code, value in _ENGLISH_CHARACTERS.items()
    if not chr(code).isalpha() and not chr(code).isspace()
}
_CHARACTERS.update(str.maketrans({"\u00ab": '"', "\u00bb": '"', "\u02bc": "'"}))
_CHARACTERS.update(str.maketrans(dict.fromkeys("\u00b7\u2022\u2027\u2219\u22c5", "・")))
#: Characters `_CHARACTERS` changes: most names have none, and a search costs less than a
#: translation.
_TRANSLATED = re.compile("[" + re.escape("".join(map(chr, _CHARACTERS))) + "]")
#: Latin letters that may carry an accent (é, ñ, ç, ő) and invisible format characters (a BOM,
#: a joiner, a direction mark, a soft hyphen).
_LATIN_ACCENTED = re.compile("[\u00c0-\u024f\u1e00-\u1eff]")
_FORMAT = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
#: A combining accent on a Latin letter (after NFD): a kana's voicing mark (U+3099) or the
#: Cyrillic short i's breve on и is not one.
_LATIN_MARKS = re.compile("(?<=[A-Za-z])[\u0300-\u036f]+")
_SPLIT = re.compile(r"\s*/{1,2}\s*")
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=1 << 16)
def fold_printed(name: str) -> str:
    """The key a printed name is stored and looked up by (see the module's docstring)."""
    # Most printed names are words of one script and nothing else: `_fold` would keep them as
    # they are (kana, kanji, hangul), only lower their case (Russian), or also drop their
    # accents, each Latin-1 letter by itself. Their keys are found here without its steps
    # (a sync folds every name it stores); the tests hold these to `_fold`.
    if not name.isascii():
        cjk, cyrillic, latin_1 = _plain_names()
        first = name[0]
        if first >= "\u3005":
            if cjk(name):
                return name
        elif first >= "\u0410":
            if cyrillic(name):
                return name.casefold()
        elif latin_1(name):
            return name.encode("latin-1").translate(_LATIN_1_BASE).decode("latin-1").casefold()
    return _fold(name)


def _fold(name: str) -> str:
    """`fold_printed`, step by step."""
    text = unicodedata.normalize("NFKC", name)
    # Most names hold no control, format or whitespace character but the space (a printable
    # name): their checks for format characters and odd whitespace are skipped (no step below
    # adds one of them).
    printable = text.isprintable()
    if not text.isascii():
        if "(" in text:
            text = _FURIGANA.sub("", text)
        if _TRANSLATED.search(text):
            text = text.translate(_CHARACTERS)
        if _DASH.search(text):
            text = _LONG_VOWEL.sub("ー", text)
        if not printable and _FORMAT.search(text):
            text = _FORMAT.sub("", text)
        if _LATIN_ACCENTED.search(text):
            # Accents of Latin letters only (é, ñ, ç): a kana's voicing mark or the Cyrillic
            # й is a letter of its own.
            text = _without_accents(text)
        if "ё" in text or "Ё" in text:
            text = text.replace("ё", "е").replace("Ё", "Е")
    elif "`" in text:
        text = text.replace("`", "'")
    if not printable or "  " in text:
        text = _SPACES.sub(" ", text)
    text = text.strip().casefold()
    if "/" in text:
        text = _SPLIT.sub(" // ", text)
    return text


def _without_accents(text: str) -> str:
    """`text` without the accents of its Latin letters."""
    return unicodedata.normalize("NFC", _LATIN_MARKS.sub("", unicodedata.normalize("NFD", text)))


# Names `fold_printed` folds without `_fold`'s steps: a whole name of words of one class, one
# space apart. Each class holds only characters that NFKC keeps, that `_CHARACTERS` does not
# change and that no step removes or joins to a neighbour; the punctuation is what the names
# really hold.
#: Kana (with the long-vowel mark and the katakana middle dot), the ideographic iteration mark
#: and comma, CJK ideographs, hangul syllables: no case, no accent, left as they are.
_PLAIN_CJK = "\u3001\u3005\u3041-\u3096\u30a1-\u30fc\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3,"
#: The Russian alphabet but ё (folded to е): only the case is folded.
_PLAIN_CYRILLIC = "\u0410-\u044f',.!?:-"
#: Latin-1 letters (not × and ÷): each accented one decomposes into an ASCII letter and one
#: mark, so dropping the accents is one table look-up per letter, `_LATIN_1_BASE`.
_PLAIN_LATIN_1 = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff',.!?:-"


@functools.cache
def _plain_names() -> tuple[Callable[[str], re.Match[str] | None], ...]:
    """Full matches of a name of words of `_PLAIN_CJK`, `_PLAIN_CYRILLIC`, `_PLAIN_LATIN_1`.
    Compiled at the first fold of a name that is not ASCII, not at import: the CJK class takes
    3 ms to compile, which a run reading English names only would pay at start-up."""
    return tuple(
        re.compile(f"[{letters}]+(?: [{letters}]+)*").fullmatch
        for letters in (_PLAIN_CJK, _PLAIN_CYRILLIC, _PLAIN_LATIN_1)
    )


_LATIN_1_BASE = "".join(
    base if len(base := _without_accents(chr(code))) == 1 else chr(code) for code in range(256)
).encode("latin-1")


@functools.lru_cache(maxsize=1)
def alt_name_pairs() -> tuple[tuple[str, str], ...]:
    """The shipped MTGO/Arena names: (the name as printed, the Oracle name of its card)."""
    with open(resource_path("data", "alt-names.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if not line.startswith("#")]
    return tuple((row[0], row[1]) for row in rows[1:] if len(row) == 2)  # after the header


@functools.lru_cache(maxsize=1)
def alt_names() -> dict[str, str]:
    """The shipped MTGO/Arena names: the English-folded name (`names.lookup_key`) -> the Oracle
    name of its card."""
    from validator.cards.names import lookup_key

    return {lookup_key(printed): card for printed, card in alt_name_pairs()}


def script_of(name: str) -> str:
    """The writing system of a name, for suggestions from names written alike: "cjk" (kana,
    kanji, hangul), "cyrillic", or "latin" (everything else)."""
    for ch in name:
        if ch >= "\u0400":
            if ch <= "\u04ff":
                return "cyrillic"
            if ch >= "\u1100":
                return "cjk"
    return "latin"
