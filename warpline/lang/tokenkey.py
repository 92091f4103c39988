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
from collections import OrderedDict, deque
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from warpline.lang.codekey import CodeKey, Unreadable, own_lines

if TYPE_CHECKING:
    from warpline.lang.entities import EntityKey, FileEntities

__all__ = ["COMMENT_TYPES", "WRAPPED", "parser_of", "token_key"]

COMMENT_TYPES = {
    "rust": frozenset({"line_comment", "block_comment"}),
    "go": frozenset({"comment"}),
    "java": frozenset({"line_comment", "block_comment"}),
    "javascript": frozenset({"comment", "html_comment"}),
    "typescript": frozenset({"comment", "html_comment"}),
    "tsx": frozenset({"comment", "html_comment"}),
}
# Kinds read inside a class wrapper: a method alone is not a program in these grammars.
WRAPPED = {"java": frozenset({"method", "constructor"}),
            "javascript": frozenset({"method"}), "typescript": frozenset({"method"}),
            "tsx": frozenset({"method"})}
_SIGNATURE_FIELDS = ("receiver", "type_parameters", "parameters", "parameter", "return_type",
                     "result")
_FUNCTIONS = frozenset({"function", "method", "constructor", "binding"})
_VERBATIM = ("string", "char", "template", "literal", "raw")
_RUST_DOC = (b"///", b"//!", b"/**", b"/*!")


@lru_cache(maxsize=8)
def parser_of(dialect: str) -> Any:
    import importlib

    import tree_sitter

    if dialect in ("typescript", "tsx"):
        grammar: Any = importlib.import_module("tree_sitter_typescript")
        raw = grammar.language_tsx() if dialect == "tsx" else grammar.language_typescript()
    else:
        raw = importlib.import_module(f"tree_sitter_{dialect}").language()
    return tree_sitter.Parser(tree_sitter.Language(raw))


_VERBATIM_TYPES: dict[str, bool] = {}


def _verbatim(node_type: str) -> bool:
    found = _VERBATIM_TYPES.get(node_type)
    if found is None:
        found = _VERBATIM_TYPES[node_type] = any(part in node_type for part in _VERBATIM)
    return found


def _stream(source: bytes, root: Any, comments: frozenset[str]) -> tuple[list[str], list[bytes]]:
    """The leaves' texts in order, and the text a node holds between its children (kept
    as written inside a string-like node, stripped elsewhere; whitespace alone is layout);
    comment nodes apart. The stack holds nodes and the gap texts queued among them (bytes):
    the hot loop of the facts, so written flat."""
    code: list[str] = []
    docs: list[bytes] = []
    add = code.append
    stack: list[Any] = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if type(node) is bytes:
            add(node.decode("utf-8", "replace"))
            continue
        kind = node.type
        if kind in comments:
            docs.append(source[node.start_byte:node.end_byte])
            continue
        if not node.child_count:
            add(source[node.start_byte:node.end_byte].decode("utf-8", "replace")
                or f"\x00{kind}")  # a missing node, inserted by recovery
            continue
        verbatim = _verbatim(kind)
        end = node.end_byte
        for child in reversed(node.children):  # pushed last first: popped in order
            after = child.end_byte
            if after != end:
                gap = source[after:end]
                kept = gap.strip()
                if kept:
                    push(gap if verbatim else kept)
            push(child)
            end = child.start_byte
        if node.start_byte != end:
            gap = source[node.start_byte:end]
            kept = gap.strip()
            if kept:
                push(gap if verbatim else kept)
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
    differ are a code change, and equal ones are decided by the tokens. One parse serves
    the signature and the tokens (held while few: see ``_hold``)."""

    __slots__ = ("_read", "_signature", "_tree", "cheap", "dialect", "source")

    def __init__(self, dialect: str, source: bytes) -> None:
        self.dialect, self.source = dialect, source
        self.cheap = _LOOKS_LIKE_COMMENT.sub(b"", source).translate(None, _SPACE)
        self._read: tuple[list[str], tuple[str, ...]] | None = None
        self._signature: tuple[str, ...] | None = None
        self._tree: Any = None

    def _root(self) -> Any:
        tree = self._tree
        if tree is None:
            tree = self._tree = parser_of(self.dialect).parse(self.source)
            _hold(self)
        return tree.root_node

    def signature(self) -> tuple[str, ...]:
        """A function's signature tokens (raises what parsing raises)."""
        if self._signature is None:
            self._signature = _signature(self.source, self._root(), COMMENT_TYPES[self.dialect])
        return self._signature

    def read(self) -> tuple[list[str], tuple[str, ...]]:
        """(its tokens, its comments); raises ``Unreadable``."""
        if self._read is None:
            try:
                code, docs = _stream(self.source, self._root(), COMMENT_TYPES[self.dialect])
            except (RecursionError, ValueError, RuntimeError, MemoryError) as exc:
                raise Unreadable from exc
            self._tree = None
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
        return self is other or self.read()[0] == other.read()[0]

    def __hash__(self) -> int:
        return hash(self.cheap)


# Versions by (dialect, source): what a version reads is a function of its text, and a
# definition's old side is often the new side of the event before it (its signature
# parsed, its tokens perhaps walked then: a fifth to a third of the asks on the corpora).
# Bounded by the sources' bytes (a walked version holds its tokens too).
_VERSIONS: OrderedDict[tuple[str, bytes], _Tokens] = OrderedDict()
_VERSIONS_KEPT = 1024
_VERSIONS_BYTES = 256 << 10
_versions_bytes = 0
# The parsed trees held at once (a version read soon after its signature, within one
# commit's facts, reuses the parse; the rest are dropped).
_HOLDING: deque[_Tokens] = deque()
_TREES_HELD = 64


def _version(dialect: str, source: bytes) -> _Tokens:
    global _versions_bytes
    key = (dialect, source)
    found = _VERSIONS.get(key)
    if found is not None:
        _VERSIONS.move_to_end(key)
        return found
    found = _Tokens(dialect, source)
    if len(source) <= _VERSIONS_BYTES // 8:
        _VERSIONS[key] = found
        _versions_bytes += len(source)
        while len(_VERSIONS) > _VERSIONS_KEPT or _versions_bytes > _VERSIONS_BYTES:
            (_, dropped), _ = _VERSIONS.popitem(last=False)
            _versions_bytes -= len(dropped)
    return found


def _hold(tokens: _Tokens) -> None:
    _HOLDING.append(tokens)
    if len(_HOLDING) > _TREES_HELD:
        _HOLDING.popleft()._tree = None


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
    source = b"class W{\n" + text + b"\n}" if key[0] in WRAPPED.get(dialect, ()) else text
    tokens = _version(dialect, source)
    signature: tuple[str, ...] = (leaf(key[1]),)
    if key[0] in _FUNCTIONS:  # a function's signature is read from its parse now
        try:
            signature += tokens.signature()
        except (RecursionError, ValueError, RuntimeError, MemoryError):
            return None
    return CodeKey((tokens,), (_Comments(tokens),), signature)  # type: ignore[arg-type]
