"""Python's ``code_key``: a definition's ``ast`` with its docstring, its own name and its
nested definitions left out (DESIGN §4, "What a change means").

Each occurrence (a redefinition, an ``@overload`` stub) is parsed alone from its own span:
an indented one under an ``if 1:`` header, so its lines stay as written. The module's key
is the whole file's ``ast`` without its docstring. A nested definition is its own entity:
it is kept as a marker, so moving it among its parent's statements still counts. The
signature of a function is its name, parameters, return annotation and type parameters;
of a class or module, its name. A version ``ast`` cannot read (py2-era syntax) has no
key: its events' nature is unknown, never guessed.
"""

from __future__ import annotations

import ast
import warnings
from typing import TYPE_CHECKING

from warpline.lang.codekey import CodeKey, occurrences

if TYPE_CHECKING:
    from warpline.git.pyentities import EntityKey, FileEntities

__all__ = ["python_key"]

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


class _Nested(ast.NodeTransformer):
    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        return _marker()

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> ast.AST:
        return _marker()

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        return _marker()


def _marker() -> ast.stmt:
    return ast.Expr(ast.Constant("\x00nested definition"))


def _parse(text: bytes) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes and the like: not ours to say
            return ast.parse(text)
    except _ERRORS:
        return None


def _docstring(body: list[ast.stmt]) -> tuple[tuple[str, ...], list[ast.stmt]]:
    first = body[0] if body else None
    if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str)):
        return (first.value.value,), body[1:]
    return (), body


def _occurrence(text: bytes) -> CodeKey | None:
    indented = text[:1] in (b" ", b"\t")
    tree = _parse(b"if 1:\n" + text if indented else text)
    if tree is None or not tree.body:
        return None
    node = tree.body[0]
    if indented:
        if not isinstance(node, ast.If) or not node.body:
            return None
        node = node.body[0]
    if not isinstance(node, _DEFS):
        return None
    docs, node.body = _docstring(node.body)
    node.body = [_Nested().visit(stmt) for stmt in node.body]
    name, node.name = node.name, ""
    if isinstance(node, ast.ClassDef):
        signature: tuple[str, ...] = (name,)
    else:
        signature = (name, ast.dump(node.args), ast.dump(node.returns) if node.returns else "",
                     *(ast.dump(p) for p in getattr(node, "type_params", ())))
    return CodeKey((ast.dump(node),), docs, signature)


def python_key(lines: list[bytes], entities: FileEntities, key: EntityKey) -> CodeKey | None:
    try:
        if not key[1]:
            tree = _parse(b"\n".join(lines))
            if tree is None:
                return None
            docs, body = _docstring(tree.body)
            tree.body = [_Nested().visit(stmt) for stmt in body]
            return CodeKey((ast.dump(tree),), docs, ())
        keys: list[CodeKey] = []
        for first, last in occurrences(entities, key):
            found = _occurrence(b"\n".join(lines[first - 1 : last]))
            if found is None:
                return None
            keys.append(found)
        if not keys:
            return None
        return CodeKey(tuple(c for k in keys for c in k.code),
                       tuple(d for k in keys for d in k.docs),
                       tuple(s for k in keys for s in k.signature))
    except RecursionError:
        return None
