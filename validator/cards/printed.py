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
_LONG_VOWEL = re.compile(rf"(?<=[{_KANA}ー])[-~\u2010-\u2015\u2212\u2500\u2501\u301c\uff5e]")
# Middle dots: katakana middle dot, Latin middle dot, bullet, hyphenation point, dot operators.
_MIDDLE_DOTS = str.maketrans(dict.fromkeys("\u00b7\u2022\u2027\u2219\u22c5\u30fb", "・"))
_PUNCTUATION = str.maketrans(
    {
        "\u2019": "'",
        "\u2018": "'",
        "`": "'",
        "\u00b4": "'",
        "\u02bc": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
    }
)
_SPLIT = re.compile(r"\s*/{1,2}\s*")
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=1 << 16)
def fold_printed(name: str) -> str:
    """The key a printed name is stored and looked up by (see the module's docstring)."""
    text = unicodedata.normalize("NFKC", name)
    if "(" in text:
        text = _FURIGANA.sub("", text)
    text = _LONG_VOWEL.sub("ー", text.translate(_MIDDLE_DOTS))
    text = text.translate(_PUNCTUATION)
    if not text.isascii():
        # Accents of Latin letters only (é, ñ, ç): a kana's voicing mark or a Cyrillic й is a
        # letter of its own. Invisible format characters (a BOM, a joiner) go too.
        out: list[str] = []
        for ch in unicodedata.normalize("NFD", text):
            if unicodedata.combining(ch) and out and out[-1] < "\u0250":
                continue
            if unicodedata.category(ch) != "Cf":
                out.append(ch)
        text = unicodedata.normalize("NFC", "".join(out)).replace("ё", "е").replace("Ё", "Е")
    text = _SPACES.sub(" ", text).strip().casefold()
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
