"""Zero-context hunks between two versions of a file, as ``(old_start, old_lines,
new_start, new_lines)`` tuples in git's numbering.

libgit2 hashes every line of both buffers before diffing; for the usual small edit of a
large file most of that is the common head and tail. Those are cut off first (complete
identical lines only, found by comparing chunks, which is memcmp speed) and only the
middle is diffed; hunk numbers are then offset by the lines cut from the head. Any
correct diff serves attribution (lines outside hunks are identical and aligned), so a
slider placed differently than a whole-file diff would place it changes nothing.
"""

from __future__ import annotations

import pygit2
from pygit2.enums import DiffOption

__all__ = ["Hunk", "hunks_between"]

Hunk = tuple[int, int, int, int]
_CHUNK = 8192


def hunks_between(old: bytes, new: bytes) -> list[Hunk]:
    head = _common_prefix(old, new)
    head = old.rfind(b"\n", 0, head) + 1  # whole lines only
    old_rest, new_rest = old[head:], new[head:]
    tail = _line_tail(old_rest, new_rest, _common_prefix(old_rest[::-1], new_rest[::-1]))
    offset = old.count(b"\n", 0, head)
    patch = pygit2.Patch.create_from(
        old_rest[: len(old_rest) - tail],
        new_rest[: len(new_rest) - tail],
        flag=DiffOption.INDENT_HEURISTIC,
        context_lines=0,
        interhunk_lines=0,
    )
    return [
        (h.old_start + offset, h.old_lines, h.new_start + offset, h.new_lines) for h in patch.hunks
    ]


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix of ``a`` and ``b``."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i : i + _CHUNK] == b[i : i + _CHUNK]:
        i += _CHUNK
    if i >= n:
        return n
    low, high = i, min(i + _CHUNK, n)  # a[:low] == b[:low]; they differ before high
    while low < high:
        mid = (low + high + 1) // 2
        if a[i:mid] == b[i:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _line_tail(a: bytes, b: bytes, common: int) -> int:
    """The longest common suffix (of length <= ``common``) that starts a line in both."""

    def starts_line(s: bytes, t: int) -> bool:
        return t == len(s) or s[len(s) - t - 1] == 0x0A

    if starts_line(a, common) and starts_line(b, common):
        return common
    if common == 0:
        return 0
    # Inside the common part both sides agree: cut just after its first newline.
    newline = a.find(b"\n", len(a) - common)
    return len(a) - newline - 1 if newline >= 0 else 0
