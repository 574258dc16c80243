"""A small, safe XML reader for deck files: elements with their source line numbers.

defusedxml's SAX parser refuses entity declarations and external references, so a
billion-laughs or XXE file fails fast instead of expanding; SAX also gives line numbers, which
ElementTree does not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from xml.sax.handler import ContentHandler

from validator.decklist.base import MAX_LINES, DecklistError

_XML_DECLARATION = re.compile(r"\s*<\?xml[^>]*\?>")
_MAX_TEXT_PARTS = 64


@dataclass(slots=True)
class Element:
    tag: str
    attrs: dict[str, str]
    line: int | None
    children: list[Element] = field(default_factory=list)
    text: str = ""
    source: str | None = None  # the source line, when the element has it to itself


class _TreeBuilder(ContentHandler):
    def __init__(self) -> None:
        super().__init__()
        self.root: Element | None = None
        self.stack: list[Element] = []
        self.count = 0
        self.parts: dict[int, list[str]] = {}
        self._locator = None

    def setDocumentLocator(self, locator) -> None:  # noqa: N802 (SAX API name)
        self._locator = locator

    def startElement(self, name: str, attrs) -> None:  # noqa: N802
        self.count += 1
        if self.count > 4 * MAX_LINES:
            raise DecklistError(f"XML has more than {4 * MAX_LINES:,} elements")
        line = self._locator.getLineNumber() if self._locator is not None else None
        element = Element(name, dict(attrs), line)
        if self.stack:
            self.stack[-1].children.append(element)
        else:
            self.root = element
        self.stack.append(element)

    def endElement(self, name: str) -> None:  # noqa: N802
        element = self.stack.pop()
        if self.parts:
            element.text = "".join(self.parts.pop(id(element), ()))

    def characters(self, content: str) -> None:
        # Only short texts (a deck name) matter; collecting them in parts, and not past a
        # bound, keeps a megabyte of newlines from costing quadratic time.
        if self.stack:
            parts = self.parts.setdefault(id(self.stack[-1]), [])
            if len(parts) < _MAX_TEXT_PARTS:
                parts.append(content)


def read_xml(data: str | bytes) -> Element:
    """Parse XML safely; DecklistError for malformed XML or entity/DTD tricks."""
    from xml.sax import SAXException

    import defusedxml.sax
    from defusedxml import DefusedXmlException

    raw = _to_bytes(data)
    builder = _TreeBuilder()
    try:
        defusedxml.sax.parseString(raw, builder)
    except DefusedXmlException as exc:
        raise DecklistError(
            f"XML uses entities or external references ({type(exc).__name__}); deck files "
            "never need them, so the file is refused"
        ) from None
    except SAXException as exc:
        # Named by line and column: expat's own text starts with "<unknown>:1:6:", the name
        # of a file it was never given.
        where = ""
        if hasattr(exc, "getLineNumber"):
            where = f"line {exc.getLineNumber()}, column {exc.getColumnNumber() + 1}: "  # type: ignore[attr-defined]
        raise DecklistError(f"malformed XML: {where}{exc.getMessage()}") from None
    except DecklistError:
        raise
    except (LookupError, ValueError, UnicodeError) as exc:
        # expat reads UTF-8, UTF-16, ISO-8859-1 and ASCII, plus Python's single-byte codecs:
        # an unknown name is a LookupError, a multi-byte one (UTF-32) a ValueError.
        raise DecklistError(
            f"the XML declares encoding {_declared_encoding(raw)!r}, which deckcheck cannot "
            f"read ({exc}); save the deck file as UTF-8"
        ) from None
    if builder.root is None:
        raise DecklistError("malformed XML: no root element")
    _attach_source_lines(builder.root, raw)
    return builder.root


_ENCODING = re.compile(rb"""encoding\s*=\s*["']([^"']{0,40})""")


def _declared_encoding(raw: bytes) -> str:
    match = _ENCODING.search(raw[:200])
    return match.group(1).decode("ascii", "replace") if match else "?"


def _to_bytes(data: str | bytes) -> bytes:
    if isinstance(data, bytes):
        return data
    # A str was already decoded: its declaration's encoding no longer applies.
    text = data.lstrip("\ufeff")
    match = _XML_DECLARATION.match(text)
    if match:
        text = text[match.end() :]
    return text.encode("utf-8")


def _attach_source_lines(root: Element, raw: bytes) -> None:
    """Give each leaf element its source line when that line holds only that element."""
    try:
        lines = raw.decode("utf-8-sig").split("\n")
    except UnicodeDecodeError:
        return  # another encoding: entries keep a reconstructed text
    stack = [root]
    while stack:
        element = stack.pop()
        stack.extend(element.children)
        if element.line is not None and not element.children and element.line <= len(lines):
            source = lines[element.line - 1].strip()
            if source.count("<") == 1 and len(source) <= 500:
                element.source = source


def describe(element: Element) -> str:
    """The element as a short line of text, for reports when its source line is unusable."""
    attrs = " ".join(f'{key}="{value}"' for key, value in element.attrs.items())
    return f"<{element.tag} {attrs}/>" if attrs else f"<{element.tag}/>"
