"""Which lines of a definition's text are comments only, read by its language's grammar:
what lineage's pairing leaves out of the texts it compares (``git/deftext.py``).

A row's ``comment_lines(text, kind)`` returns the indexes of the lines of ``text`` (one
definition's span, as written) that hold nothing but comments and whitespace. Python's are
the lines starting ``#`` (its docstrings stay: they are statements). The tree-sitter rows'
come from their grammar's comment nodes (``//``, ``///``, ``//!``, ``/* */``, ``/** */``,
a block comment's every line), so a Rust ``#[attr]`` line is code and a ``//`` inside a
string is no comment. A span holding neither ``//`` nor ``/*`` has no comment and is not
parsed; a method is parsed inside a ``class W{…}`` wrapper where its grammar needs one
(as its code key is, ``tokenkey``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict

from warpline.lang.tokenkey import COMMENT_TYPES, WRAPPED, parser_of

__all__ = ["python_comment_lines", "tree_comment_lines"]

_WRAPPER = b"class W{\n"


def python_comment_lines(text: list[bytes], kind: str) -> frozenset[int]:
    """Python's comment lines: those starting ``#`` once stripped."""
    return frozenset(i for i, line in enumerate(text) if line.lstrip().startswith(b"#"))


# The last texts read, by (dialect, kind, text): lineage's pairing asks for a definition's
# text again in later commits (a candidate of several pairings; cobra: 3 asks in 10
# repeat one), and each read is a parse. Bounded by the texts' bytes.
_SEEN: OrderedDict[tuple[str, str, bytes], frozenset[int]] = OrderedDict()
_SEEN_KEPT = 512
_SEEN_BYTES = 1 << 20
_seen_bytes = 0


def tree_comment_lines(dialect: str, text: list[bytes], kind: str) -> frozenset[int]:
    """The lines of ``text`` made of ``dialect``'s comment nodes and whitespace only."""
    global _seen_bytes
    source = b"\n".join(text)
    if b"//" not in source and b"/*" not in source:
        return frozenset()
    key = (dialect, kind, source)
    found = _SEEN.get(key)
    if found is not None:
        _SEEN.move_to_end(key)
        return found
    found = _read(dialect, text, kind, source)
    if len(source) <= _SEEN_BYTES // 16:
        _SEEN[key] = found
        _seen_bytes += len(source)
        while len(_SEEN) > _SEEN_KEPT or _seen_bytes > _SEEN_BYTES:
            (_, _, dropped), _ = _SEEN.popitem(last=False)
            _seen_bytes -= len(dropped)
    return found


def _read(dialect: str, text: list[bytes], kind: str, source: bytes) -> frozenset[int]:
    wrapped = kind in WRAPPED.get(dialect, ())
    skip = len(_WRAPPER) if wrapped else 0
    if wrapped:
        source = _WRAPPER + source + b"\n}"
    try:
        root = parser_of(dialect).parse(source).root_node
    except (ValueError, RuntimeError, MemoryError):
        return frozenset()
    comments = COMMENT_TYPES[dialect]
    spans: list[tuple[int, int]] = []  # comment byte ranges, in order
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in comments:
            spans.append((node.start_byte - skip, node.end_byte - skip))
        elif node.child_count:
            stack.extend(reversed(node.children))
    if not spans:
        return frozenset()
    starts = [start for start, _ in spans]
    out: set[int] = set()
    at = 0
    for index, line in enumerate(text):
        end = at + len(line)
        if line.strip() and _covered(line, at, spans, starts):
            out.add(index)
        at = end + 1
    return frozenset(out)


def _covered(line: bytes, at: int, spans: list[tuple[int, int]], starts: list[int]) -> bool:
    """Every non-blank byte of ``line`` (starting at byte ``at``) lies inside a comment."""
    end = len(line.rstrip())
    offset = len(line) - len(line.lstrip())
    while offset < end:
        k = bisect_right(starts, at + offset) - 1
        if k < 0 or spans[k][1] <= at + offset:
            return False
        offset = spans[k][1] - at
        while offset < end and line[offset] in _BLANK:
            offset += 1
    return True


_BLANK = frozenset(b" \t\r\f\v")
