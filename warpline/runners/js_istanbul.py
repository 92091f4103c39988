"""Istanbul's JSON coverage (``coverage-final.json``, what Jest's and Vitest's V8 providers
write after mapping V8's ranges through the source maps of their transforms) as executed
lines per file.

A line ran when a statement on it ran, or a function declared on it ran. A function that
never ran takes its whole span out: its header and closing lines are reported as covered
(they hold code of the enclosing scope: ``exports.f = function () {`` assigns), but they
are its definition's lines, and a test that only loaded the module did not run it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["executed_lines", "read_istanbul"]


def _line(loc: Any, key: str) -> int | None:
    point = loc.get(key) if isinstance(loc, dict) else None
    line = point.get("line") if isinstance(point, dict) else None
    return line if isinstance(line, int) else None


def executed_lines(data: dict[str, Any]) -> dict[str, set[int]]:
    """One istanbul coverage object's executed lines per absolute path."""
    out: dict[str, set[int]] = {}
    for key, entry in data.items():
        if not isinstance(entry, dict):
            continue
        path = str(entry.get("path") or key)
        lines: set[int] = set()
        statements = entry.get("statementMap") or {}
        hits = entry.get("s") or {}
        for sid, loc in statements.items():
            if hits.get(sid, 0) > 0:
                start, end = _line(loc, "start"), _line(loc, "end")
                if start is not None:
                    lines.update(range(start, (end or start) + 1))
        functions = entry.get("fnMap") or {}
        calls = entry.get("f") or {}
        dead: set[int] = set()
        for fid, fn in functions.items():
            loc = fn.get("loc") if isinstance(fn, dict) else None
            start, end = _line(loc, "start"), _line(loc, "end")
            if start is None:
                continue
            if calls.get(fid, 0) > 0:
                lines.add(_line(fn.get("decl"), "start") or start)
            else:
                dead.update(range(start, (end or start) + 1))
        for fid, fn in functions.items():  # a function that ran inside a dead span's lines
            if calls.get(fid, 0) > 0:
                decl = _line(fn.get("decl"), "start")
                if decl is not None:
                    dead.discard(decl)
        out[path] = lines - dead
    return out


def read_istanbul(file: Path) -> dict[str, set[int]]:
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return executed_lines(data) if isinstance(data, dict) else {}
