"""The tree-sitter rows' ``code_key``: the token stream of a definition's own lines, comment
nodes dropped (DESIGN §4, "What a change means").

A definition's own lines (its spans minus nested definitions') are parsed alone (a method
inside a ``class W{…}`` wrapper where its grammar wants one). Its tokens are the texts of
the leaves, plus any text a node holds between its children (a grammar that keeps a
string's content unnamed); whitespace between tokens is layout. Comment nodes go to
``docs``; in Rust, doc comments holding a code fence are doc tests (``cargo test`` runs
them), so they stay in the code. A function's signature is its name and the tokens of its
parameters, return type, generics and receiver.

Cost: only a function is parsed up front (its signature); the code is parsed and walked
only when its cheap form (see ``_Tokens``) is the same on both sides.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from warpline.lang.codekey import CodeKey, Unreadable, own_lines

if TYPE_CHECKING:
    from warpline.lang.entities import EntityKey, FileEntities

__all__ = ["token_key"]

_COMMENTS = {
    "rust": frozenset({"line_comment", "block_comment"}),
    "go": frozenset({"comment"}),
    "java": frozenset({"line_comment", "block_comment"}),
    "javascript": frozenset({"comment", "html_comment"}),
    "typescript": frozenset({"comment", "html_comment"}),
    "tsx": frozenset({"comment", "html_comment"}),
}
# Kinds read inside a class wrapper: a method alone is not a program in these grammars.
_WRAPPED = {"java": frozenset({"method", "constructor"}),
            "javascript": frozenset({"method"}), "typescript": frozenset({"method"}),
            "tsx": frozenset({"method"})}
_SIGNATURE_FIELDS = ("receiver", "type_parameters", "parameters", "parameter", "return_type",
                     "result")
_FUNCTIONS = frozenset({"function", "method", "constructor", "binding"})
_VERBATIM = ("string", "char", "template", "literal", "raw")
_RUST_DOC = (b"///", b"//!", b"/**", b"/*!")


@lru_cache(maxsize=8)
def _parser(dialect: str) -> Any:
    import importlib

    import tree_sitter

    if dialect in ("typescript", "tsx"):
        grammar: Any = importlib.import_module("tree_sitter_typescript")
        raw = grammar.language_tsx() if dialect == "tsx" else grammar.language_typescript()
    else:
        raw = importlib.import_module(f"tree_sitter_{dialect}").language()
    return tree_sitter.Parser(tree_sitter.Language(raw))


def _gap(text: bytes, verbatim: bool, out: list[Any]) -> None:
    kept = text if verbatim else text.strip()
    if kept.strip():
        out.append(_Text(kept))


class _Text:
    """Text a node holds between its children, queued in order among them."""

    __slots__ = ("children", "end_byte", "start_byte", "text", "type")

    def __init__(self, text: bytes) -> None:
        self.text, self.type, self.children = text, "\x00text", ()
        self.start_byte, self.end_byte = 0, 0


def _stream(source: bytes, root: Any, comments: frozenset[str]) -> tuple[list[str], list[bytes]]:
    code: list[str] = []
    docs: list[bytes] = []
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, _Text):
            code.append(node.text.decode("utf-8", "replace"))
            continue
        if node.type in comments:
            docs.append(source[node.start_byte:node.end_byte])
            continue
        if not node.children:
            code.append(source[node.start_byte:node.end_byte].decode("utf-8", "replace")
                        or f"\x00{node.type}")  # a missing node, inserted by recovery
            continue
        verbatim = any(part in node.type for part in _VERBATIM)
        at = node.start_byte
        queued: list[Any] = []
        for child in node.children:
            _gap(source[at:child.start_byte], verbatim, queued)
            queued.append(child)
            at = child.end_byte
        _gap(source[at:node.end_byte], verbatim, queued)
        stack.extend(reversed(queued))
    return code, docs


def _signature(source: bytes, root: Any, comments: frozenset[str]) -> tuple[str, ...]:
    stack: list[Any] = [root]
    while stack:
        node = stack.pop()
        if node.child_by_field_name("parameters") is not None or (
                node.child_by_field_name("parameter") is not None):
            out: list[str] = []
            fields = _SIGNATURE_FIELDS + (("type",) if node.type == "method_declaration"
                                          else ())
            for name in fields:
                part = node.child_by_field_name(name)
                if part is not None:
                    out.append(name)
                    out.extend(_stream(source, part, comments)[0])
            return tuple(out)
        stack.extend(reversed(node.children))
    return ()


class _Tokens:
    """One version's token stream, parsed and walked only when a cheap form cannot tell:
    its text with what looks like a comment (``//…``, ``/*…*/``, read without the grammar)
    and every whitespace removed. Two versions differing only in comments and layout have
    equal cheap forms (a ``//`` inside a string is cut alike on both sides unless a
    re-wrap moved it: then the answer errs towards a code change), so cheap forms that
    differ are a code change, and equal ones are decided by the tokens."""

    __slots__ = ("_read", "cheap", "dialect", "source")

    def __init__(self, dialect: str, source: bytes) -> None:
        self.dialect, self.source = dialect, source
        self.cheap = _LOOKS_LIKE_COMMENT.sub(b"", source).translate(None, _SPACE)
        self._read: tuple[list[str], tuple[str, ...]] | None = None

    def read(self) -> tuple[list[str], tuple[str, ...]]:
        """(its tokens, its comments); raises ``Unreadable``."""
        if self._read is None:
            try:
                root = _parser(self.dialect).parse(self.source).root_node
                code, docs = _stream(self.source, root, _COMMENTS[self.dialect])
            except (RecursionError, ValueError, RuntimeError, MemoryError) as exc:
                raise Unreadable from exc
            if self.dialect == "rust" and any(
                    d.startswith(_RUST_DOC) and b"```" in d for d in docs):
                code.extend(d.decode("utf-8", "replace") for d in docs
                            if d.startswith(_RUST_DOC))  # doc tests are code
            self._read = (code, tuple(" ".join(d.decode("utf-8", "replace").split())
                                      for d in docs))
        return self._read

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _Tokens) or self.cheap != other.cheap:
            return False
        return self.read()[0] == other.read()[0]

    def __hash__(self) -> int:
        return hash(self.cheap)


class _Comments:
    """One version's comments, read from the same parse."""

    __slots__ = ("tokens",)

    def __init__(self, tokens: _Tokens) -> None:
        self.tokens = tokens

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Comments) and self.tokens.read()[1] == other.tokens.read()[1]

    def __hash__(self) -> int:
        return hash(self.tokens)


_LOOKS_LIKE_COMMENT = re.compile(rb"//[^\n]*|/\*.*?\*/", re.DOTALL)
_SPACE = b" \t\n\r\f\v"


def token_key(dialect: str, lines: list[bytes], entities: FileEntities,
              key: EntityKey) -> CodeKey | None:
    """One tree-sitter row's ``code_key`` (``dialect``: its grammar)."""
    from warpline.git.deftext import leaf

    text = own_lines(lines, entities, key)
    source = b"class W{\n" + text + b"\n}" if key[0] in _WRAPPED.get(dialect, ()) else text
    signature: tuple[str, ...] = (leaf(key[1]),)
    if key[0] in _FUNCTIONS:  # a function's signature is read from its parse now
        try:
            root = _parser(dialect).parse(source).root_node
            signature += _signature(source, root, _COMMENTS[dialect])
        except (RecursionError, ValueError, RuntimeError, MemoryError):
            return None
    tokens = _Tokens(dialect, source)
    return CodeKey((tokens,), (_Comments(tokens),), signature)  # type: ignore[arg-type]
