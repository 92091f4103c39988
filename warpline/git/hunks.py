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

__all__ = ["Hunk", "hunks_and_lines", "hunks_between"]

Hunk = tuple[int, int, int, int]
_CHUNK = 8192


def hunks_between(old: bytes, new: bytes) -> list[Hunk]:
    return hunks_and_lines(old, new, None)[0]


def hunks_and_lines(
    old: bytes, new: bytes, old_lines: list[bytes] | None
) -> tuple[list[Hunk], list[bytes] | None]:
    """The hunks and, given ``old``'s lines (``old.split(b"\\n")``), ``new``'s lines: the
    common head and tail lines are reused from ``old_lines``, only the middle is split."""
    head = _common_prefix(old, new)
    head = old.rfind(b"\n", 0, head) + 1  # whole lines only
    n_old, n_new = len(old), len(new)
    tail = _line_tail(old, new, head, _common_suffix(old, new, min(n_old, n_new) - head))
    offset = old.count(b"\n", 0, head)
    old_mid, new_mid = old[head : n_old - tail], new[head : n_new - tail]
    patch = pygit2.Patch.create_from(
        old_mid, new_mid, flag=DiffOption.INDENT_HEURISTIC, context_lines=0, interhunk_lines=0
    )
    hunks = [
        (h.old_start + offset, h.old_lines, h.new_start + offset, h.new_lines) for h in patch.hunks
    ]
    if old_lines is None:
        return hunks, None
    # split(P + M + T) with P ending a line: old_lines[:offset] + split(M + T); with T
    # starting a line (after M's last newline), split(M + T) = split(M)[:-1] + split(T).
    if not tail:
        return hunks, old_lines[:offset] + new_mid.split(b"\n")
    kept = old.count(b"\n", n_old - tail) + 1
    middle = new_mid.split(b"\n")
    middle.pop()
    return hunks, old_lines[:offset] + middle + old_lines[len(old_lines) - kept :]


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


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the longest common suffix of ``a`` and ``b``, at most ``limit``."""
    na, nb = len(a), len(b)
    i = 0
    while i < limit:
        step = min(i + _CHUNK, limit)
        if a[na - step : na - i] != b[nb - step : nb - i]:
            break
        i = step
    if i >= limit:
        return limit
    low, high = i, min(i + _CHUNK, limit)  # the last ``low`` bytes agree; not ``high``
    while low < high:
        mid = (low + high + 1) // 2
        if a[na - mid : na - i] == b[nb - mid : nb - i]:
            low = mid
        else:
            high = mid - 1
    return low


def _line_tail(a: bytes, b: bytes, head: int, common: int) -> int:
    """The longest common suffix (of length <= ``common``) that starts a line in both
    (``head`` and before are not part of the rest)."""

    def starts_line(s: bytes, t: int) -> bool:
        return t == len(s) - head or s[len(s) - t - 1] == 0x0A

    if starts_line(a, common) and starts_line(b, common):
        return common
    if common == 0:
        return 0
    # Inside the common part both sides agree: cut just after its first newline.
    newline = a.find(b"\n", len(a) - common)
    return len(a) - newline - 1 if newline >= 0 else 0
