"""Python AST -> a tree of definition ``Node``s with relative line positions.

Only statement lists are walked (module, class and function bodies, and the blocks of
compound statements, which stay in their scope), never expressions.
"""

from __future__ import annotations

import ast
from array import array
from typing import Literal

from warpline.lang.entities import EntityKey, Node

__all__ = ["Scanned", "extend_over_comments", "scan_body"]

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_DEF_TYPES = frozenset(_DEFS)



Scanned = tuple["array[int]", "array[int]", tuple[Node, ...], dict[EntityKey, int]]


def scan_body(
    body: list[ast.stmt], base: int, shift: int, prefix: str, lines: list[bytes]
) -> Scanned:
    """Statements and definitions of one scope's body.

    ``base`` is the absolute first line of the scope's node (positions come out relative
    to it); ``shift`` maps parsed line numbers to absolute ones (a re-parsed fragment);
    ``lines`` are the whole file's lines (for trailing comments). The counts are of every
    definition (stubs excepted) at any depth.
    """
    counts: dict[EntityKey, int] = {}
    firsts, lasts, children = _scan(body, base, shift, prefix, lines, counts)
    return firsts, lasts, children, counts


def _scan(
    body: list[ast.stmt],
    base: int,
    shift: int,
    prefix: str,
    lines: list[bytes],
    counts: dict[EntityKey, int],
) -> tuple[array[int], array[int], tuple[Node, ...]]:
    firsts: array[int] = array("i")
    lasts: array[int] = array("i")
    children: list[Node] = []
    for stmt in body:
        kind = type(stmt)
        last = (stmt.end_lineno or stmt.lineno) + shift
        if kind in _DEF_TYPES:
            assert isinstance(stmt, _DEFS)
            node = _def_node(stmt, base, shift, prefix, lines, counts)
            children.append(node)
            first = base + node.off
            last = max(last, first + node.span)
        else:
            first = stmt.lineno + shift
            if kind in _BLOCKS:
                before = len(children)
                _collect(stmt, base, shift, prefix, lines, counts, children)
                for node in children[before:]:
                    last = max(last, base + node.off + node.span)
        firsts.append(first - base)
        lasts.append(last - base)
    # Built relative to ``base`` (nodes are not shared yet): now relative to the previous.
    previous = 0
    for node in children:
        node.off, previous = node.off - previous, node.off
    return firsts, lasts, tuple(children)


def _collect(
    stmt: ast.stmt,
    base: int,
    shift: int,
    prefix: str,
    lines: list[bytes],
    counts: dict[EntityKey, int],
    out: list[Node],
) -> None:
    """Definitions of the current scope nested in a compound statement's blocks."""
    for block in _BLOCKS[type(stmt)](stmt):
        for sub in block:
            kind = type(sub)
            if kind in _DEF_TYPES:
                assert isinstance(sub, _DEFS)
                out.append(_def_node(sub, base, shift, prefix, lines, counts))
            elif kind in _BLOCKS:
                _collect(sub, base, shift, prefix, lines, counts, out)


def _def_node(
    stmt: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
    base: int,
    shift: int,
    prefix: str,
    lines: list[bytes],
    counts: dict[EntityKey, int],
) -> Node:
    start = (stmt.decorator_list[0].lineno if stmt.decorator_list else stmt.lineno) + shift
    end = extend_over_comments(lines, (stmt.end_lineno or stmt.lineno) + shift, stmt.col_offset)
    kind: Literal["class", "function"] = "class" if isinstance(stmt, ast.ClassDef) else "function"
    key: EntityKey = (kind, prefix + stmt.name)
    if kind == "function" and _is_overload(stmt):
        return Node(key, start - base, end - start, array("i"), array("i"), (), True)
    counts[key] = counts.get(key, 0) + 1
    inner = key[1] + (".<locals>." if kind == "function" else ".")
    firsts, lasts, children = _scan(stmt.body, start, shift, inner, lines, counts)
    head = stmt.body[0]
    lead = not lines[head.lineno + shift - 1][: head.col_offset].strip()
    return Node(key, start - base, end - start, firsts, lasts, children, False, stmt.col_offset,
                lead)  # fmt: skip


def _is_overload(stmt: ast.stmt) -> bool:
    assert isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
    for dec in stmt.decorator_list:
        if (isinstance(dec, ast.Name) and dec.id == "overload") or (
            isinstance(dec, ast.Attribute) and dec.attr == "overload"
        ):
            return True
    return False


def extend_over_comments(lines: list[bytes], end: int, col: int) -> int:
    """Last line of a definition, counting trailing comments indented past ``col``."""
    i, n = end, len(lines)  # lines[i] is line end + 1
    while i < n:
        line = lines[i]
        body = line.lstrip(b" \t\f")
        if body.startswith(b"#") and len(line) - len(body) > col:
            i += 1
            end = i
        elif not body.strip():
            i += 1
        else:
            break
    return end


def _if_like(stmt: ast.stmt) -> list[list[ast.stmt]]:
    assert isinstance(stmt, ast.If | ast.For | ast.AsyncFor | ast.While)
    return [stmt.body, stmt.orelse]


def _with(stmt: ast.stmt) -> list[list[ast.stmt]]:
    assert isinstance(stmt, ast.With | ast.AsyncWith)
    return [stmt.body]


def _try(stmt: ast.stmt) -> list[list[ast.stmt]]:
    assert isinstance(stmt, ast.Try | ast.TryStar)
    return [stmt.body, *(h.body for h in stmt.handlers), stmt.orelse, stmt.finalbody]


def _match(stmt: ast.stmt) -> list[list[ast.stmt]]:
    assert isinstance(stmt, ast.Match)
    return [case.body for case in stmt.cases]


# Compound statements whose blocks stay in the enclosing scope; a dict on the exact type
# keeps the per-statement cost of walking function bodies to one lookup.
_BLOCKS = {
    ast.If: _if_like,
    ast.For: _if_like,
    ast.AsyncFor: _if_like,
    ast.While: _if_like,
    ast.With: _with,
    ast.AsyncWith: _with,
    ast.Try: _try,
    ast.TryStar: _try,
    ast.Match: _match,
}
