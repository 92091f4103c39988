"""The tree-sitter rows' ``code_key``: the token stream of a definition's own lines, comment
nodes dropped (DESIGN §4, "What a change means").

A definition's own lines (its spans minus nested definitions') are parsed alone (a method
inside a ``class W{…}`` wrapper where its grammar wants one). Its tokens are the texts of
the leaves, plus any text a node holds between its children (a grammar that keeps a
string's content unnamed); whitespace between tokens is layout. Comment nodes go to
``docs``; in Rust, doc comments holding a code fence are doc tests (``cargo test`` runs
them), so they stay in the code. A function's signature is its name and the tokens of its
parameters, return type, generics and receiver.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from warpline.lang.codekey import CodeKey, own_lines

if TYPE_CHECKING:
    from warpline.git.pyentities import EntityKey, FileEntities

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


def token_key(dialect: str, lines: list[bytes], entities: FileEntities,
              key: EntityKey) -> CodeKey | None:
    """One tree-sitter row's ``code_key`` (``dialect``: its grammar)."""
    from warpline.git.deftext import leaf

    comments = _COMMENTS[dialect]
    text = own_lines(lines, entities, key)
    source = b"class W{\n" + text + b"\n}" if key[0] in _WRAPPED.get(dialect, ()) else text
    try:
        root = _parser(dialect).parse(source).root_node
        code, docs = _stream(source, root, comments)
        signature: tuple[str, ...] = (leaf(key[1]),)
        if key[0] in _FUNCTIONS:
            signature += _signature(source, root, comments)
    except (RecursionError, ValueError, RuntimeError, MemoryError):
        return None
    if dialect == "rust" and any(d.startswith(_RUST_DOC) and b"```" in d for d in docs):
        code.extend(d.decode("utf-8", "replace") for d in docs if d.startswith(_RUST_DOC))
    return CodeKey(tuple(code), tuple(" ".join(d.decode("utf-8", "replace").split())
                                      for d in docs), signature)
