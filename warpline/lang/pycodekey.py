"""Python's ``code_key``: a definition's ``ast`` with its docstring, its own name and its
nested definitions left out (DESIGN §4, "What a change means").

Each occurrence (a redefinition, an ``@overload`` stub) is parsed alone from its own span,
every nested definition's lines replaced by one marker line (a nested definition is its
own entity; the marker keeps moving it among its parent's statements a change), an
indented one under an ``if 1:`` header, so its lines stay as written. The module's key is
its own code the same way: the file with each definition one marker, docstring dropped. The
signature of a function is its name, parameters, return annotation and type parameters;
of a class or module, its name. A version ``ast`` cannot read (py2-era syntax) has no
key: its events' nature is unknown, never guessed.
"""

from __future__ import annotations

import ast
import warnings
from typing import TYPE_CHECKING

from warpline.lang.codekey import CodeKey, with_markers

if TYPE_CHECKING:
    from warpline.git.pyentities import EntityKey, FileEntities

__all__ = ["python_key"]

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


class _Tree:
    """An ``ast`` subtree compared by structure, positions left out: what two ``ast.dump``
    of it compare, without building either string (one walk of both trees, stopping at the
    first difference)."""

    __slots__ = ("node",)

    def __init__(self, node: object) -> None:
        self.node = node

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Tree) and _same(self.node, other.node)

    def __hash__(self) -> int:
        return hash(type(self.node))


def _same(a: object, b: object) -> bool:
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, ast.AST):
            stack.extend((getattr(x, name, None), getattr(y, name, None))
                         for name in x._fields)
        elif isinstance(x, list):
            if len(x) != len(y):  # type: ignore[arg-type]
                return False
            stack.extend(zip(x, y, strict=True))  # type: ignore[call-overload]
        elif x != y:
            return False
    return True


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
    name, node.name = node.name, ""
    if isinstance(node, ast.ClassDef):
        signature: tuple[object, ...] = (name,)
    else:
        signature = (name, _Tree(node.args), _Tree(node.returns),
                     _Tree(getattr(node, "type_params", None)))
    return CodeKey((_Tree(node),), docs, signature)


def python_key(lines: list[bytes], entities: FileEntities, key: EntityKey) -> CodeKey | None:
    try:
        texts = with_markers(lines, entities, key)
        if not key[1]:
            tree = _parse(b"\n".join(texts[0])) if texts else None
            if tree is None:
                return None
            docs, tree.body = _docstring(tree.body)
            return CodeKey((_Tree(tree),), docs, ())
        keys: list[CodeKey] = []
        for text in texts:
            found = _occurrence(b"\n".join(text))
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
