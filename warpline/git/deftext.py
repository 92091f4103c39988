"""Definition texts and how alike two are: the normal form lineage pairing compares
(``warpline.git.lineage`` and ``warpline.git.renameaway``), with its thresholds.

A definition's text is its span's lines, each stripped, blank (and, unless kept, its
language's comment-only: ``Language.comment_lines``) lines dropped, and every whole-word
occurrence of its own name replaced by a placeholder; two texts score ``difflib``'s ratio
as line sequences. The thresholds are explained in ``warpline.git.lineage``'s docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from difflib import SequenceMatcher

from warpline.git.diffmap import PySide, definition_spans
from warpline.lang import by_name
from warpline.lang.entities import EntityKey, FileEntities, Span

__all__ = [
    "MAX_COMPARISONS",
    "PLACEHOLDER",
    "RENAME_MIN",
    "RENAME_MIN_LINES",
    "SAME_NAME_MIN",
    "SHORT_RENAME_MIN",
    "SHORT_TEXT_LINES",
    "SideIndex",
    "Text",
    "code_lines",
    "definition_text",
    "definition_texts",
    "leaf",
    "locate",
    "normal",
    "own_text",
    "replace_name",
    "score",
    "span_lines",
    "span_texts",
]

SAME_NAME_MIN = 0.5
RENAME_MIN = 0.6
RENAME_MIN_LINES = 3
SHORT_TEXT_LINES = 6
SHORT_RENAME_MIN = 0.8
MAX_COMPARISONS = 40_000

PLACEHOLDER = b"\x00"
Text = tuple[bytes, ...]


@dataclass(slots=True)
class SideIndex:
    """The parsed sides one commit's diff saw, by path: old (before) and new (after),
    with a loader for each blob's lines (read only when pairing needs them)."""

    old: dict[str, tuple[PySide, Callable[[], list[bytes]]]] = field(default_factory=dict)
    new: dict[str, tuple[PySide, Callable[[], list[bytes]]]] = field(default_factory=dict)


def leaf(qualname: str) -> str:
    """The definition's own name as its source writes it: the last segment, without a
    parameter list (Java's overloads carry theirs: ``Outer.add(List,int)`` -> ``add``)
    or an ordinal (TS/JS's ``helper~2`` -> ``helper``)."""
    name = qualname.rsplit(".", 1)[-1].partition("(")[0]
    at = name.rfind("~")
    return name[:at] if at > 0 and name[at + 1:].isdigit() else name


_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


def replace_name(text: bytes, name: bytes, placeholder: bytes = PLACEHOLDER) -> bytes:
    """``text`` with every whole-word occurrence of ``name`` replaced by ``placeholder``."""
    at = text.find(name)
    if at < 0:
        return text
    out: list[bytes] = []
    start, size = 0, len(name)
    while at >= 0:
        end = at + size
        if (at == 0 or text[at - 1] not in _WORD) and (end == len(text)
                                                         or text[end] not in _WORD):
            out.append(text[start:at])
            out.append(placeholder)
            start = end
        at = text.find(name, end)
    out.append(text[start:])
    return b"".join(out)


def normal(lines: list[bytes], name: bytes, dropped: Container[int] = frozenset()) -> Text:
    """``lines`` stripped, blank lines and the lines at the indexes ``dropped`` left out,
    ``name`` replaced."""
    out: list[bytes] = []
    for index, line in enumerate(lines):
        text = line.strip()
        if not text or index in dropped:
            continue
        out.append(replace_name(text, name))
    return tuple(out)


_COMMENT = (b"//", b"#", b"/*", b'"""', b"'''")


def code_lines(text: Text) -> list[bytes]:
    """The lines of a normalised text that are not comment lines in any language read (a
    Go function's doc comment is part of its text; a Python docstring's delimiting lines
    are dropped too). A line starting ``*`` counts as comment only as a block comment's
    continuation (``* ...``, ``*/``), not as a dereference (``*p = x``)."""
    return [line for line in text if not (
        line.startswith(_COMMENT) or line == b"*" or line.startswith((b"* ", b"*/")))]


def own_text(lines: list[bytes], own: tuple[tuple[int, int], ...], name: bytes) -> Text:
    """A definition's own text (its own spans: nested definitions left out), comments
    kept, its name replaced: what ``also_modified`` compares for every move."""
    return normal(span_lines(lines, own), name)


def span_lines(lines: list[bytes], spans: tuple[tuple[int, int], ...]) -> list[bytes]:
    out: list[bytes] = []
    for first, last in spans:
        out.extend(lines[first - 1 : last])
    return out


def score(a: Text, b: Text) -> float:
    """Similarity of two normalised texts, 0..1."""
    if a == b:
        return 1.0
    if not a or not b:
        return 0.0
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


# Where one definition was found on one side: its key, the file's lines, its whole span
# (nested definitions included) and the file's definitions.
Located = tuple[EntityKey, list[bytes], list[Span], FileEntities]


def locate(wanted: Iterable[tuple[str, str]],
           sides: dict[str, tuple[PySide, Callable[[], list[bytes]]]],
           ) -> dict[tuple[str, str], Located]:
    """Each (path, locator) found on one side, from one walk of each file's definition
    tree (``definition_spans``: no full entity build)."""
    by_path: dict[str, list[str]] = {}
    for path, locator in wanted:
        by_path.setdefault(path, []).append(locator)
    out: dict[tuple[str, str], Located] = {}
    for path, locators in by_path.items():
        found = sides.get(path)
        if found is None:
            continue
        side, load = found
        keys: dict[EntityKey, str] = {side.key_of(locator): locator for locator in locators}
        spans = definition_spans(side.entities, set(keys))
        if not spans:
            continue
        lines = load()
        for key, locator in keys.items():
            if key in spans:
                out[(path, locator)] = (key, lines, spans[key], side.entities)
    return out


def definition_text(lines: list[bytes], spans: list[Span], name: bytes, language: str,
                    kind: str) -> Text:
    """A definition's text as pairs compare it: its whole span, its language's comment
    lines dropped (read by its row: ``lang/commentlines.py``), its name replaced."""
    return definition_texts(lines, spans, name, language, kind)[0]


def definition_texts(lines: list[bytes], spans: list[Span], name: bytes, language: str,
                     kind: str) -> tuple[Text, Text | None]:
    """``definition_text`` and, where it left comment lines out of a language other than
    Python, the text with them (a second reading: comments the two versions share are
    evidence too); None otherwise."""
    text = span_lines(lines, tuple(spans))
    finder = by_name(language).comment_lines
    dropped = frozenset() if finder is None else finder(text, kind)
    code = normal(text, name, dropped)
    if not dropped or language == "python":  # Python's '#' lines were never read
        return code, None
    return code, normal(text, name)


def span_texts(wanted: Iterable[tuple[str, str]],
               sides: dict[str, tuple[PySide, Callable[[], list[bytes]]]],
               ) -> dict[tuple[str, str], tuple[str, Text]]:
    """Each (path, locator)'s qualified name and definition text on one side."""
    return {at: (key[1], definition_text(lines, spans, leaf(key[1]).encode(),
                                         file.language, key[0]))
            for at, (key, lines, spans, file) in locate(wanted, sides).items()}
