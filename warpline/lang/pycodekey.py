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

Cost: the code is compared lazily. Two versions whose identifiers outside strings and
comments (keywords aside: ``elif`` is ``else: if``) differ cannot have equal trees, so
most behavioural edits are told without parsing the body; a function's header is parsed
for its signature only when its text differs. Equal trees have equal identifier
sequences (but for an identifier in a Unicode compatibility form Python normalises), so
the shortcut does not call a cosmetic change behavioural.
"""

from __future__ import annotations

import ast
import keyword
import re
import warnings
from collections import OrderedDict
from typing import TYPE_CHECKING

from warpline.lang.codekey import CodeKey, Unreadable, with_markers

if TYPE_CHECKING:
    from warpline.lang.entities import EntityKey, FileEntities

__all__ = ["python_key"]

# A definition's (or module's) own code past this is not judged: its nature is unknown.
# pip's history holds module bodies of 1-2 MB (generated data tables): lexing both sides
# of each edit of one cost more than every other judgement of 3,000 commits together.
MAX_CODE_BYTES = 256 * 1024

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)
# Strings (any prefix, triple-quoted too) and comments are skipped whole, numbers too
# (``1_000``, ``0xff``: no identifier inside); the group holds what is left: identifiers.
_LEX = re.compile(
    rb"[rRbBuUfF]{0,2}(?:'''(?:\\[\s\S]|[^\\])*?'''"
    rb'|"""(?:\\[\s\S]|[^\\])*?"""'
    rb"|'(?:\\[\s\S]|[^\\'\n])*'"
    rb'|"(?:\\[\s\S]|[^\\"\n])*")'
    rb"|#[^\n]*"
    rb"|\.?[0-9][\w.]*"
    rb"|([A-Za-z_]\w*)")
_KEYWORDS = frozenset(w.encode() for w in (*keyword.kwlist, *keyword.softkwlist))

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


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


def _definition(text: bytes) -> Definition | None:
    """The definition ``text`` holds, parsed alone (an indented one under ``if 1:``)."""
    indented = text[:1] in (b" ", b"\t")
    tree = _parse(b"if 1:\n" + text if indented else text)
    if tree is None or not tree.body:
        return None
    node = tree.body[0]
    if indented:
        if not isinstance(node, ast.If) or not node.body:
            return None
        node = node.body[0]
    return node if isinstance(node, _DEFS) else None


class _Code:
    """One occurrence's code, parsed only when the identifiers cannot tell (see above)."""

    __slots__ = ("_parsed", "name", "text", "whole")

    def __init__(self, text: bytes, whole: bool, name: bytes = b"") -> None:
        self.text = text
        self.whole = whole  # the module: the whole text is its code
        self.name = name
        self._parsed: tuple[_Tree, tuple[str, ...]] | None = None

    @property
    def names(self) -> list[bytes]:
        """Its identifiers, its own name left out (a rename alone leaves the code the
        same): read only when the texts differ."""
        return _names(self.text, self.name)

    def parsed(self) -> tuple[_Tree, tuple[str, ...]]:
        """(its tree without docstring and name, its docstring); raises ``Unreadable``."""
        if self._parsed is None:
            self._parsed = self._read()
        return self._parsed

    def _read(self) -> tuple[_Tree, tuple[str, ...]]:
        if self.whole:
            module = _parse(self.text)
            if module is None:
                raise Unreadable
            docs, module.body = _docstring(module.body)
            return _Tree(module), docs
        node = _definition(self.text)
        if node is None:
            raise Unreadable
        docs, node.body = _docstring(node.body)
        node.name = ""
        return _Tree(node), docs

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Code):
            return False
        if self.text == other.text:
            return True
        return self.names == other.names and self.parsed()[0] == other.parsed()[0]

    def __hash__(self) -> int:
        return hash(self.text)


class _Docs:
    """The docstrings of one version's occurrences, read from their parses."""

    __slots__ = ("codes",)

    def __init__(self, codes: list[_Code]) -> None:
        self.codes = codes

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Docs) and [c.parsed()[1] for c in self.codes] == [
            c.parsed()[1] for c in other.codes]

    def __hash__(self) -> int:
        return len(self.codes)


def _names(text: bytes, name: bytes) -> list[bytes]:
    """The identifiers of ``text`` but ``name``. A version is read as the new side of one
    event and again as the old side of the next event of the same definition: the last
    few are kept (by text; large ones are lexed again)."""
    cache_key = (text, name)
    found = _SEEN.get(cache_key)
    if found is None:
        found = [m for m in _LEX.findall(text) if m and m not in _KEYWORDS and m != name]
        if len(text) <= _SEEN_MAX_BYTES:
            _SEEN[cache_key] = found
            if len(_SEEN) > _SEEN_MAX:
                _SEEN.popitem(last=False)
    else:
        _SEEN.move_to_end(cache_key)
    return found


_SEEN: OrderedDict[tuple[bytes, bytes], list[bytes]] = OrderedDict()
_SEEN_MAX = 512
_SEEN_MAX_BYTES = 256 * 1024


class _Signature:
    """A function's parameters, return annotation and type parameters, read from the
    parsed tree of its header alone (decorators and ``def`` lines, a ``pass`` for body)
    when the header's text differs. Decorators are parsed with it (they are part of the
    statement) but are no part of the signature: which line is the ``def`` is the tree's
    to say (a decorator's argument line ``default=...`` starts with "def" too)."""

    __slots__ = ("_parsed", "header", "whole")

    def __init__(self, text: list[bytes], header: int | None) -> None:
        if header is None:  # the body starts on the header's line: read it all
            self.header, self.whole = b"\n".join(text), True
        else:
            self.header, self.whole = b"\n".join(line.strip() for line in text[:header]), False
        self._parsed: tuple[_Tree, _Tree, _Tree] | None = None

    def parsed(self) -> tuple[_Tree, _Tree, _Tree]:
        if self._parsed is None:
            text = self.header if self.whole else self.header + b"\n    pass"
            node = _definition(text)
            if node is None or isinstance(node, ast.ClassDef):
                raise Unreadable
            self._parsed = (_Tree(node.args), _Tree(node.returns),
                            _Tree(getattr(node, "type_params", None)))
        return self._parsed

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Signature):
            return False
        if self.header == other.header:
            return True
        return self.parsed() == other.parsed()

    def __hash__(self) -> int:
        return hash(self.header)


def python_key(lines: list[bytes], entities: FileEntities, key: EntityKey) -> CodeKey | None:
    try:
        texts = with_markers(lines, entities, key)
        if not texts or sum(len(line) for text, _ in texts for line in text) > MAX_CODE_BYTES:
            return None
        if not key[1]:
            code = _Code(b"\n".join(texts[0][0]), whole=True)
            return CodeKey((code,), (_Docs([code]),), ())  # type: ignore[arg-type]
        codes: list[_Code] = []
        signature: list[object] = []
        name = key[1].rpartition(".")[2]
        own = name.encode()
        for text, header in texts:
            codes.append(_Code(b"\n".join(text), whole=False, name=own))
            signature.append(name)
            if key[0] == "function":
                signature.append(_Signature(text, header))
        return CodeKey(tuple(codes), (_Docs(codes),), tuple(signature))  # type: ignore[arg-type]
    except RecursionError:
        return None
