"""Python definitions whose results are cached: read from the decorators in the source.

A memoized function runs its body on the first call only; a recorded test map (coverage)
links that body to the one test that happened to call it first, and to no later test that
used the cached result. ``testselect`` widens such a definition's tests through its
callers. Known from the source text alone (``ast``), never by importing the code.

A decorator caches when the last name of its dotted path (called or not) is one of
``CACHE_DECORATORS``:

* ``functools``: ``cache``, ``lru_cache`` (with or without arguments), ``cached_property``;
  bare (``from functools import cache``) or qualified (``functools.cache``, ``ft.cache``);
* ``cachetools``: ``cached``, ``cachedmethod`` and its ``func`` module's ``*_cache``;
* ``async_lru``'s ``alru_cache``, ``methodtools``' ``lru_cache``, and the ``memoize`` /
  ``memoized`` of flask-caching and home-grown helpers;
* django's and werkzeug's ``cached_property``.

Qualnames follow ``pyentities``: ``Outer.meth``, ``outer.<locals>.inner``; a def inside a
compound statement takes its scope's qualname.
"""

from __future__ import annotations

import ast
import re

from warpline.git.filecaps import too_large
from warpline.lang.pyentities import parse_body

CACHE_DECORATORS = frozenset({
    "cache", "lru_cache", "cached_property", "cached", "cachedmethod", "ttl_cache",
    "lfu_cache", "fifo_cache", "rr_cache", "mru_cache", "tlru_cache", "alru_cache",
    "memoize", "memoized",
})
# Every name of CACHE_DECORATORS holds "cache" or "memoiz": a file with no decorator line
# holding one is not parsed (most files mention neither, many say "cache" elsewhere).
_MAYBE = re.compile(rb"@[ \t]*[\w. \t]*(?:cache|memoiz)")
_MAX_DEPTH = 200  # deeper nesting is not read (pyentities bounds its own walk likewise)


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` of a decorator (its callee when it is called), or None."""
    if isinstance(node, ast.Call):
        node = node.func
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def cache_decorator(decorators: list[ast.expr]) -> str | None:
    """The first caching decorator of a definition, as written (``functools.lru_cache``)."""
    for decorator in decorators:
        dotted = _dotted(decorator)
        if dotted is not None and dotted.rsplit(".", 1)[-1] in CACHE_DECORATORS:
            return dotted
    return None


def cached_definitions(source: bytes) -> dict[str, str]:
    """qualname -> caching decorator for every cached function of ``source`` (empty when it
    does not parse or is past the parse cap)."""
    if too_large(source) or _MAYBE.search(source) is None:
        return {}  # no decorator names a cache: no parse needed
    body = parse_body(source)
    if body is None:
        return {}
    out: dict[str, str] = {}
    stack: list[tuple[list[ast.stmt], str, int]] = [(body, "", 0)]
    while stack:
        statements, prefix, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        for stmt in statements:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                qualname = prefix + stmt.name
                found = cache_decorator(stmt.decorator_list)
                if found is not None:
                    out.setdefault(qualname, found)
                stack.append((stmt.body, qualname + ".<locals>.", depth + 1))
            elif isinstance(stmt, ast.ClassDef):
                stack.append((stmt.body, prefix + stmt.name + ".", depth + 1))
            else:
                stack.extend((block, prefix, depth + 1) for block in _blocks(stmt))
    return out


def _blocks(stmt: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists nested in a compound statement (if/for/while/with/try/match)."""
    blocks: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        value = getattr(stmt, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            blocks.append(value)
    for handler in getattr(stmt, "handlers", ()):
        blocks.append(handler.body)
    for case in getattr(stmt, "cases", ()):
        blocks.append(case.body)
    return blocks
