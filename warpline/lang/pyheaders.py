"""The lines of Python ``def``/``class`` headers: what runs when the enclosing scope
executes (the test map counts them for the enclosing entity, ``warpline.testmap.entitymap``)."""

from __future__ import annotations

import ast

__all__ = ["header_lines"]


def header_lines(source: bytes) -> set[int]:
    """Lines of def/class headers that run when the enclosing scope executes: the
    decorators and the signature, up to the line before the body (a one-line ``def``
    keeps its line: it is the body too)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            body = node.body[0].lineno if node.body else node.lineno + 1
            if isinstance(node, ast.ClassDef):
                # A class body runs when the class is defined: only the decorators and
                # the bases line are the enclosing scope's.
                out.update(range(first, node.lineno + 1))
            else:
                out.update(range(first, body))
    return out
