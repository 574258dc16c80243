"""Card-name folding: the one place that decides when two spellings are the same name.

Decklists spell names many ways: "Lim-Dûl's Vault" / "Lim-Dul's Vault", "Æther Vial" /
"Aether Vial", curly apostrophes, en dashes, "Fire/Ice" for "Fire // Ice", invisible format
characters (a right-to-left mark, a zero-width joiner). Folding never drops letters or digits,
so a folded match is still an exact name match, never a prefix match.
"""

from __future__ import annotations

import functools
import re
import unicodedata

# Letters NFKD does not decompose into ASCII.
_LIGATURES = str.maketrans(
    {
        "Æ": "Ae",
        "æ": "ae",
        "Œ": "Oe",
        "œ": "oe",
        "ß": "ss",
        "Ø": "O",
        "ø": "o",
        "Ð": "D",
        "ð": "d",
        "Þ": "Th",
        "þ": "th",
        "Ł": "L",
        "ł": "l",
        # apostrophes and quotes people paste from word processors and web pages
        "\u2019": "'",
        "\u2018": "'",
        "`": "'",
        "\u00b4": "'",
        "\u02bc": "'",
        "\u201c": '"',
        "\u201d": '"',
        # dashes
        "\u2013": "-",
        "\u2014": "-",
        "\u2012": "-",
        "\u2010": "-",
        "\u2011": "-",
        "\u2212": "-",
        "\u00a0": " ",
    }
)
_SPLIT = re.compile(r"\s*/{1,2}\s*")
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=1 << 16)
def fold_name(name: str) -> str:
    """Fold a card name for lookup: ASCII, lower case, one spelling of " // " and of spaces.
    Cached: the rules fold the same card names for every deck."""
    text = name.translate(_LIGATURES)
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text)
        # Combining marks go (Lim-Dûl), and so do invisible format characters a paste carries
        # (left-to-right marks, zero-width joiners, a BOM): no card name holds one.
        text = "".join(
            ch for ch in text if not unicodedata.combining(ch) and unicodedata.category(ch) != "Cf"
        )
    text = _SPACES.sub(" ", text).strip().casefold()
    if "/" in text:
        text = _SPLIT.sub(" // ", text)
    return text


def lookup_key(name: str) -> str:
    """The folded name to look a decklist's name up by: `fold_name`, except that a name that
    is another name twice ("Steam Vents // Steam Vents"), Scryfall's name for a reversible card
    (both faces are one card; an omen's is "A // B // A // B"), is looked up as that name.
    Stored names (and the legality history's keys) keep `fold_name`: only look-ups collapse."""
    folded = fold_name(name)
    if " // " in folded:
        parts = folded.split(" // ")
        half = len(parts) // 2
        if len(parts) % 2 == 0 and parts[:half] == parts[half:]:
            return " // ".join(parts[:half])
    return folded
