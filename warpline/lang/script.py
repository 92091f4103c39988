"""TypeScript and JavaScript: one locator dialect (``ts:``), so a ``.js`` -> ``.ts``
migration keeps every id (``docs/languages.md``).

``ts:<kind>:<path without extension>.<qualname>``. Definitions: function, class and
method declarations; a function or class bound to a name (``const f = () => …``), to a
member (CommonJS ``exports.f =``, ``module.exports =`` -> ``default``,
``X.prototype.m =`` -> ``X.m``, ``app.get =`` -> ``app.get``) or exported as default
(``default``); TypeScript's interfaces, type aliases, enums and namespaces. Overload
signatures share their implementation's key (one entity), so do a getter and its
setter. Anonymous callbacks (``describe``/``it`` bodies included) are not entities.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from warpline.lang import Files
from warpline.lang.entities import FileEntities
from warpline.lang.tsdefs import (
    Def,
    Edit,
    build,
    last_line,
    leading_comments,
    load_query,
    nest_records,
    never_raises,
)
from warpline.lang.tsregions import Rec, records

__all__ = ["module_name", "read_javascript", "read_tsx", "read_typescript"]

_COMMENTS = frozenset({"comment"})
_KINDS = {"function": "function", "class": "class", "method": "method", "binding": "function",
          "assignment": "function", "default": "function", "interface": "interface",
          "type": "type", "enum": "enum", "namespace": "namespace"}
_CLASS_VALUES = frozenset({"class", "class_declaration"})


def module_name(path: str, files: Files | None) -> str | None:
    stem, dot, _ = path.rpartition(".")
    return stem if dot and stem and not stem.endswith("/") else None


@lru_cache(maxsize=3)
def _grammar(dialect: str) -> tuple[Any, Any]:
    import tree_sitter

    if dialect == "javascript":
        import tree_sitter_javascript

        language = tree_sitter.Language(tree_sitter_javascript.language())
        return tree_sitter.Parser(language), load_query(language, "javascript.scm")
    import tree_sitter_typescript

    raw = tree_sitter_typescript.language_tsx() if dialect == "tsx" \
        else tree_sitter_typescript.language_typescript()
    language = tree_sitter.Language(raw)
    return tree_sitter.Parser(language), load_query(language, "typescript.scm")


@never_raises
def read_javascript(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    return _read(source, "javascript", edit)


@never_raises
def read_typescript(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    return _read(source, "typescript", edit)


@never_raises
def read_tsx(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    return _read(source, "tsx", edit)


def _read(source: bytes, dialect: str, edit: Edit | None) -> FileEntities | None:
    read_out = records(*_grammar(dialect), source, edit, _record)
    if read_out is None:
        return None
    tree, found = read_out
    unique: list[Rec] = []
    for rec in found:  # a statement captured twice counts once (the query's first capture)
        if not unique or (unique[-1].start, unique[-1].end) != (rec.start, rec.end):
            unique.append(rec)
    return build(source, _defs(nest_records(unique), ""), tree.root_node.has_error, dialect)


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
    return Rec(outer.start_byte, outer.end_byte, first, last_line(outer), min(lo, stop), hi,
               _name(_inner(outer, role), role), at=node.start_byte)


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


def _defs(entries: list[tuple[Rec, list[Any]]], prefix: str) -> list[Def]:
    out: list[Def] = []
    for rec, children in entries:
        named = rec.data
        if named is None:
            out.extend(_defs(children, prefix))  # not an entity: its children rise
            continue
        kind, name = named
        qualname = prefix + name
        out.append(Def((kind, qualname), rec.first, rec.last,
                       _defs(children, qualname + ".")))
    return out


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def _name(node: Any, role: str) -> tuple[str, str] | None:
    kind = _KINDS[role]
    if role == "default":
        value = node.child_by_field_name("value")
        return ("class" if value is not None and value.type in _CLASS_VALUES else kind,
                "default")
    if role == "assignment":
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        name = _member_name(_text(left)) if left is not None else None
        if name is None:
            return None
        return ("class" if right is not None and right.type == "class" else kind, name)
    if role == "binding":
        value = node.child_by_field_name("value")
        if value is not None and value.type == "class":
            kind = "class"
    name_node = node.child_by_field_name("name")
    if name_node is None:
        if node.type in ("class", "class_declaration") or role == "class":
            return (kind, "default")
        return None
    return (kind, _text(name_node))


def _member_name(left: str) -> str | None:
    """``exports.f`` -> ``f``, ``module.exports`` -> ``default``, ``X.prototype.m`` ->
    ``X.m``; ``this.x`` and computed members are not names."""
    left = "".join(left.split())
    if left in ("module.exports", "exports"):
        return "default"
    for head in ("module.exports.", "exports."):
        if left.startswith(head):
            left = left[len(head):]
            break
    if left.startswith("this.") or "[" in left or "(" in left:
        return None
    return left.replace(".prototype.", ".")


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
