"""The error-tolerant fallback parser: tree-sitter's Python grammar, when ``ast`` fails.

py2-era files (``print x``, ``except E, e``, backticks), a stray conflict marker or a
half-typed line make ``ast.parse`` give up on the whole file. tree-sitter parses what it
can and isolates the rest in ``ERROR`` nodes, so definitions outside the broken region keep
their spans and attribution goes on.

The tree-sitter tree is translated into the few ``ast`` nodes ``pyscan.scan_body`` reads
(definitions with their decorators and bodies; compound statements as blocks holding their
clauses' statements; every other statement as a positioned ``Pass``), so definitions found
either way follow exactly the same rules (qualnames, spans, trailing comments, overloads).

A version counts as unreadable (None) when tree-sitter is not installed, or when error
regions cover more than ``MAX_ERROR_SHARE`` of its lines: then its definitions would be a
guess, and the answer says the file could not be read.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Any, TypeVar

__all__ = ["MAX_ERROR_SHARE", "available", "tolerant_body"]

MAX_ERROR_SHARE = 0.5

_DEF_TYPES = {"function_definition", "class_definition"}
_COMPOUND = {"if_statement", "for_statement", "while_statement", "with_statement",
             "try_statement", "match_statement", "elif_clause", "else_clause",
             "except_clause", "except_group_clause", "finally_clause", "case_clause",
             "block", "ERROR"}
_SKIP = {"comment", "line_continuation", "newline", "indent", "dedent", ";"}


@lru_cache(maxsize=1)
def _parser() -> Any:
    try:
        import tree_sitter  # type: ignore[import-not-found, unused-ignore]
        import tree_sitter_python  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language()))


def available() -> bool:
    """Whether the tolerant parser is installed."""
    return _parser() is not None


def tolerant_body(source: bytes) -> list[ast.stmt] | None:
    """A module body of positioned ``ast`` nodes for ``source``, or None (unreadable)."""
    parser = _parser()
    if parser is None:
        return None
    try:
        tree = parser.parse(source)
    except (ValueError, RuntimeError, MemoryError):
        return None
    root = tree.root_node
    lines = source.count(b"\n") + (0 if source.endswith(b"\n") else 1)
    if root.has_error and _error_share(root, lines) > MAX_ERROR_SHARE:
        return None
    try:
        return _statements(root.children)
    except RecursionError:
        return None


def _error_share(root: Any, total: int) -> float:
    covered: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "ERROR" or node.is_missing:
            covered.update(range(node.start_point[0], node.end_point[0] + 1))
        elif node.has_error:
            stack.extend(node.children)
    return len(covered) / max(total, 1)


def _end_line(node: Any) -> int:
    row, col = node.end_point
    if col == 0 and row > node.start_point[0]:
        row -= 1  # ends at the start of the next line: the node's last line is the one before
    return int(row) + 1


_T = TypeVar("_T", bound=ast.AST)
_NO_ARGS = ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])


def _at(made: _T, node: Any) -> _T:
    """``made`` positioned where tree-sitter's ``node`` is (1-based lines, byte columns)."""
    made.lineno = int(node.start_point[0]) + 1  # type: ignore[attr-defined]
    made.col_offset = int(node.start_point[1])  # type: ignore[attr-defined]
    made.end_lineno = _end_line(node)  # type: ignore[attr-defined]
    made.end_col_offset = int(node.end_point[1])  # type: ignore[attr-defined]
    return made


def _block(node: Any, children: list[Any]) -> ast.stmt:
    return _at(ast.If(test=ast.Constant(True), body=_statements(children), orelse=[]), node)


def _statements(nodes: list[Any]) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for node in nodes:
        kind = node.type
        if kind in _SKIP or not node.is_named:
            continue
        if kind == "decorated_definition":
            made = _decorated(node)
        elif kind in _DEF_TYPES:
            made = _definition(node, [])
        elif kind in _COMPOUND:
            made = _block(node, node.children)
        else:
            made = _at(ast.Pass(), node)
        if made is not None:
            out.append(made)
    return out


def _decorated(node: Any) -> ast.stmt | None:
    definition = node.child_by_field_name("definition")
    decorators = [_decorator(c) for c in node.children if c.type == "decorator"]
    if definition is None or definition.type not in _DEF_TYPES:
        return _block(node, node.children)
    return _definition(definition, decorators)


def _decorator(node: Any) -> ast.expr:
    """``@overload``/``@typing.overload`` as the names ``pyscan`` recognises; others as a
    positioned name."""
    text = node.text.decode("utf-8", "replace").lstrip("@").strip()
    head = text.split("(", 1)[0].strip()
    if head.rsplit(".", 1)[-1] == "overload":
        if "." in head:
            return _at(ast.Attribute(value=ast.Name("typing"), attr="overload"), node)
        return _at(ast.Name("overload"), node)
    return _at(ast.Name("decorator"), node)


def _definition(node: Any, decorators: list[ast.expr]) -> ast.stmt | None:
    name_node = node.child_by_field_name("name")
    if name_node is None:
        return _at(ast.Pass(), node)
    name = name_node.text.decode("utf-8", "replace")
    block = node.child_by_field_name("body")
    body = _statements(block.children) if block is not None else []
    if not body:  # a definition whose body is lost in an error: one statement at its end
        end = ast.Pass()
        end.lineno = end.end_lineno = _end_line(node)
        end.col_offset = end.end_col_offset = int(node.end_point[1])
        body = [end]
    made: ast.stmt
    if node.type == "class_definition":
        made = ast.ClassDef(name=name, bases=[], keywords=[], body=body,
                            decorator_list=decorators)
    else:
        made = ast.FunctionDef(name=name, args=_NO_ARGS, body=body,
                               decorator_list=decorators)
    return _at(made, node)
