"""TypeScript and JavaScript: one locator dialect (``ts:``), so a ``.js`` -> ``.ts``
migration keeps every id (``docs/languages.md``).

``ts:<kind>:<module>.<qualname>``, the module the path without its extension (the whole
path beside a same-stem file of a higher rank). Definitions: function, class and method
declarations; a function or class bound to a name (``const f = () => …``), to a member
(CommonJS ``exports.f =``, ``module.exports =`` -> ``default``, ``X.prototype.m =`` ->
``X.m``, ``app.get =`` -> ``app.get``), to an object key or class field, or exported as
default (``default``); named function and class expressions; TypeScript's interfaces,
type aliases, enums and namespaces. Names: ``lang/scriptnames.py`` (one entity per
definition). Anonymous callbacks (``describe``/``it`` bodies included) are not entities.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from warpline.lang import Files
from warpline.lang.entities import EntityKey, FileEntities
from warpline.lang.scriptnames import Names, name_of, owner, qualify
from warpline.lang.tsdefs import (
    Edit,
    build,
    last_line,
    leading_comments,
    load_query,
    nest_records,
    never_raises,
)
from warpline.lang.tsregions import Rec, records

__all__ = ["definition_bytes", "grammar", "module_name", "overload_groups", "read_javascript",
           "read_tsx", "read_typescript", "siblings"]

_COMMENTS = frozenset({"comment"})


# One stem's files by rank: a file keeps the bare stem as its module unless a file of a
# higher rank shares its directory and stem (then its module is its whole path).
_RANKED = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def module_name(path: str, files: Files | None) -> str | None:
    """The path without its extension (``index.d.cts`` -> ``index.d``), or the whole path
    where a sibling of a higher rank (``_RANKED``) has that stem in the same version:
    ``X.ts`` and ``X.js`` side by side are modules ``X`` and ``X.js``."""
    stem, dot, suffix = path.rpartition(".")
    if not dot or not stem or stem.endswith("/"):
        return None
    if files is not None:
        rank = _rank("." + suffix)
        if any(files.read(stem + higher) is not None for higher in _RANKED[:rank]):
            return path
    return stem


def siblings(path: str) -> tuple[str, ...]:
    """The files whose module ``path``'s presence renames: its stem's lower ranks."""
    stem, dot, suffix = path.rpartition(".")
    if not dot or not stem or stem.endswith("/"):
        return ()
    return tuple(stem + lower for lower in _RANKED[_rank("." + suffix) + 1:])


def _rank(suffix: str) -> int:
    return _RANKED.index(suffix) if suffix in _RANKED else len(_RANKED)


@lru_cache(maxsize=6)
def grammar(dialect: str, queries: str = "") -> tuple[Any, Any]:
    """A parser of ``dialect`` (javascript, typescript, tsx) and its query file:
    ``typescript.scm`` (definitions), with ``queries="_refs"`` ``typescript_refs.scm``
    (the built-in edges' uses). One parser per pair (the kept trees are per parser)."""
    import tree_sitter

    if dialect == "javascript":
        import tree_sitter_javascript

        language = tree_sitter.Language(tree_sitter_javascript.language())
        return tree_sitter.Parser(language), load_query(language, f"javascript{queries}.scm")
    import tree_sitter_typescript

    raw = tree_sitter_typescript.language_tsx() if dialect == "tsx" \
        else tree_sitter_typescript.language_typescript()
    language = tree_sitter.Language(raw)
    return tree_sitter.Parser(language), load_query(language, f"typescript{queries}.scm")


@never_raises
def read_javascript(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    return _read(source, "javascript", edit)


@never_raises
def read_typescript(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    return _read(source, "typescript", edit)


@never_raises
def read_tsx(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    return _read(source, "tsx", edit)


def _read(source: bytes, dialect: str, edit: Edit | None,
          names: Names | None = None) -> FileEntities | None:
    read_out = records(*grammar(dialect), source, edit, _record)
    if read_out is None:
        return None
    tree, found = read_out
    unique: list[Rec] = []
    for rec in found:  # a statement captured twice counts once (the query's first capture)
        if not unique or (unique[-1].start, unique[-1].end) != (rec.start, rec.end):
            unique.append(rec)
    return build(source, qualify(nest_records(unique), "", names), tree.root_node.has_error,
                 dialect)


_DIALECTS = {".js": "javascript", ".jsx": "javascript", ".mjs": "javascript",
             ".cjs": "javascript", ".tsx": "tsx"}


def definition_bytes(source: bytes, path: str) -> list[tuple[int, int, EntityKey]]:
    """``(first byte, end byte, key)`` of each definition of ``path``'s version, in
    source order (the built-in edges' owner of a use, finer than a line)."""
    names = Names()
    _read(source, _DIALECTS.get(path[path.rfind("."):], "typescript"), None, names)
    return names.spans


def overload_groups(source: bytes, path: str) -> set[EntityKey]:
    """The keys of ``path``'s version that are one overload group or get/set pair (the
    only keys two definitions of one file may share; ``bench/bench_uniqueness.py``)."""
    names = Names()
    _read(source, _DIALECTS.get(path[path.rfind("."):], "typescript"), None, names)
    return names.grouped


def _record(node: Any, role: str) -> Rec:
    """One capture read, by the statement it stands in: data ``(kind, name)`` or None (not
    an entity: its children rise)."""
    outer = _outer(node, role)
    lo, hi = outer.start_byte, outer.end_byte
    parent = node.parent
    if role in ("binding", "assignment") and parent is not None:
        # how many names the declaration holds, what the assignment stands in
        lo, hi = min(lo, parent.start_byte), max(hi, parent.end_byte)
    first, stop = _leading(outer)
    if role == "named":  # whether it is the value of a binding: its owner's bytes
        above = owner(node)
        if above is not None:
            lo, hi = min(lo, above.start_byte), max(hi, above.end_byte)
    return Rec(outer.start_byte, outer.end_byte, first, last_line(outer), min(lo, stop), hi,
               name_of(_inner(outer, role), role), at=node.start_byte)


def _outer(node: Any, role: str) -> Any:
    """The statement a definition stands in (its span and leading comments): a binding's
    declaration when it declares only that name, an assignment's expression statement,
    an ``export`` around either."""
    outer = node
    if role == "binding":
        declaration = node.parent
        if declaration is not None and len(declaration.named_children) == 1:
            outer = declaration
    elif role == "assignment":
        if node.parent is not None and node.parent.type == "expression_statement":
            outer = node.parent
    if outer.parent is not None and outer.parent.type == "export_statement":
        outer = outer.parent
    return outer


def _inner(outer: Any, role: str) -> Any:
    """The definition node inside the statement ``_outer`` chose."""
    node = outer
    if node.type == "export_statement" and role != "default":
        node = node.child_by_field_name("declaration") or node
    if role == "binding" and node.type in ("lexical_declaration", "variable_declaration"):
        node = node.named_children[0]
    if role == "assignment" and node.type == "expression_statement":
        node = node.named_children[0]
    return node


def _leading(outer: Any) -> tuple[int, int]:
    """First line: decorators right before the definition (class members), then the
    comment block directly above; and the first byte that reading looked at."""
    first = outer.start_point[0] + 1
    sibling = outer.prev_sibling
    anchor = outer
    while sibling is not None and sibling.type == "decorator":
        first = sibling.start_point[0] + 1
        anchor = sibling
        sibling = sibling.prev_sibling
    return leading_comments(anchor, first, _COMMENTS)
