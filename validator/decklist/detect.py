"""Which parser reads an input: decided by its first characters, then by the file name."""

from __future__ import annotations

import codecs
import re

_ROOT_TAG = re.compile(r"<([A-Za-z_][\w.:-]*)")
_XML_FAMILIES = {"deck": "mtgo-dek", "cockatrice_deck": "cockatrice"}
_EXTENSIONS = {".dek": "mtgo-dek", ".cod": "cockatrice", ".json": "json", ".dck": "forge"}


def sniff(data: str | bytes, filename: str | None = None) -> str:
    """The parser family: "mtgo-dek", "cockatrice", "json", or "text" (any line format)."""
    head = _head(data)
    extension = _extension(filename)
    if head.startswith("<"):
        match = _ROOT_TAG.search(head)
        root = match.group(1).lower() if match else ""
        if root in _XML_FAMILIES:
            return _XML_FAMILIES[root]
        # An unknown root: the .dek parser names both expected roots in its error.
        return "cockatrice" if extension == ".cod" else "mtgo-dek"
    if head.startswith("{"):
        return "json"
    return "text"


def _head(data: str | bytes) -> str:
    """The first characters after any BOM and leading whitespace."""
    if isinstance(data, str):
        return data.lstrip("\ufeff \t\r\n")[:4096]
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data[:8192].decode("utf-16", errors="ignore").lstrip("\ufeff \t\r\n")
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    return data.lstrip(b" \t\r\n")[:4096].decode("utf-8", errors="ignore")


def _extension(filename: str | None) -> str:
    if not filename:
        return ""
    dot = filename.rfind(".")
    return filename[dot:].lower() if dot >= 0 else ""
