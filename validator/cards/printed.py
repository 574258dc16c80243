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
            text = unicodedata.normalize(
                "NFC", _LATIN_MARKS.sub("", unicodedata.normalize("NFD", text))
            )
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
