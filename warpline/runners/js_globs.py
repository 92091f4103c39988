"""The glob dialect JavaScript test runners write their file patterns in (micromatch /
picomatch, as Jest, Vitest, AVA and ``node --test`` read them), as regular expressions
over repo-relative paths.

Supported: ``**`` (any directories), ``*`` and ``?`` (within one segment, no leading dot
unless written), ``{a,b}`` alternatives (nested), ``[...]`` classes, the extglobs
``?(…)``, ``*(…)``, ``+(…)``, ``@(…)`` and ``!(…)``, and a leading ``./``. A pattern with
no ``/`` matches a file's name in any directory (``matchBase``, as AVA and Jest do for a
bare name only where the runner says so: ``base_name``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["compile_glob", "matches_any"]

_SEGMENT = "[^/]"


def _closing(text: str, start: int, open_: str, close: str) -> int:
    depth = 0
    for index in range(start, len(text)):
        char = text[index]
        if char == "\\":
            continue
        if char == open_:
            depth += 1
        elif char == close:
            depth -= 1
            if depth == 0:
                return index
    return -1


def _split_top(text: str, sep: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current = ""
    for char in text:
        if char in "({[":
            depth += 1
        elif char in ")}]":
            depth -= 1
        if char == sep and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return parts


def _translate(glob: str) -> str:
    out: list[str] = []
    i = 0
    n = len(glob)
    while i < n:
        char = glob[i]
        if glob.startswith("**", i):
            before_ok = i == 0 or glob[i - 1] == "/"
            after = glob[i + 2] if i + 2 < n else ""
            if before_ok and after == "/":
                out.append("(?:[^/.][^/]*/)*")  # any directories, none hidden
                i += 3
                continue
            if before_ok and after == "":
                out.append("(?:[^/.][^/]*(?:/[^/.][^/]*)*)?")
                i += 2
                continue
            out.append(f"{_SEGMENT}*")
            i += 2
            continue
        if char in "?*+@!" and i + 1 < n and glob[i + 1] == "(":
            end = _closing(glob, i + 1, "(", ")")
            if end > 0:
                inner = "|".join(_translate(p) for p in _split_top(glob[i + 2:end], "|"))
                if char == "!":
                    out.append(f"(?:(?!(?:{inner})(?:/|$)){_SEGMENT}*)")
                else:
                    suffix = {"?": "?", "*": "*", "+": "+", "@": ""}[char]
                    out.append(f"(?:{inner}){suffix}")
                i = end + 1
                continue
        if char == "*":
            at_start = i == 0 or glob[i - 1] == "/"
            out.append(("(?!\\.)" if at_start else "") + f"{_SEGMENT}*")
        elif char == "?":
            out.append(_SEGMENT)
        elif char == "{":
            end = _closing(glob, i, "{", "}")
            if end > 0:
                options = _split_top(glob[i + 1:end], ",")
                if len(options) > 1:
                    out.append("(?:" + "|".join(_translate(o) for o in options) + ")")
                    i = end + 1
                    continue
            out.append(re.escape(char))
        elif char == "[":
            end = glob.find("]", i + 2)
            if end > 0:
                body = glob[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end + 1
                continue
            out.append(re.escape(char))
        elif char == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 2
            continue
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


@lru_cache(maxsize=512)
def compile_glob(glob: str, base_name: bool = False) -> re.Pattern[str]:
    """``glob`` as a regular expression matching whole repo-relative paths; ``base_name``:
    a pattern without ``/`` matches a file's name in any directory."""
    text = glob[2:] if glob.startswith("./") else glob
    text = text.lstrip("/") if not text.startswith("**") else text
    if base_name and "/" not in text:
        text = "**/" + text
    return re.compile(_translate(text) + "$")


def matches_any(path: str, globs: Iterable[str], base_name: bool = False) -> bool:
    return any(compile_glob(g, base_name).match(path) for g in globs)
