"""Java: packages, definitions by a tree-sitter query, overloads told apart by their
parameter types (``docs/languages.md``).

``java:<kind>:<package>.<Outer>.<Inner>.<name>(<simple erased parameter types>)``;
constructors are ``<init>(…)``. The package is the file's own ``package`` declaration
(read from the same version of the repository), else its directories below the source
root (``src/main/java/``, ``src/test/java/``, ``src/``).
"""

from __future__ import annotations

import re
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

__all__ = ["module_name", "read"]

_PACKAGE = re.compile(rb"^\s*package\s+([\w.]+)\s*;", re.MULTILINE)
_ROOTS = ("src/main/java/", "src/test/java/", "src/")
_COMMENTS = frozenset({"block_comment", "line_comment"})
_TYPES = frozenset({"class", "interface", "enum", "record", "annotation"})


def module_name(path: str, files: Files | None) -> str | None:
    data = files.read(path) if files is not None else None
    if data is not None:
        found = _PACKAGE.search(data[:65536])
        if found is not None:
            return found.group(1).decode("ascii", "replace")
    directory = path.rpartition("/")[0]
    for root in _ROOTS:
        at = (directory + "/").find(root)
        if at >= 0 and (at == 0 or directory[at - 1] == "/"):
            directory = (directory + "/")[at + len(root):].rstrip("/")
            break
    return directory.replace("/", ".") or "(default)"


@lru_cache(maxsize=1)
def _grammar() -> tuple[Any, Any]:
    import tree_sitter
    import tree_sitter_java

    language = tree_sitter.Language(tree_sitter_java.language())
    return tree_sitter.Parser(language), load_query(language, "java.scm")


def _record(node: Any, kind: str) -> Rec:
    """One capture read: data ``(kind, name, anonymous)``; ``anonymous``: a member of an
    anonymous class or an enum constant's body, whose lines belong to the definition
    around it. Both are decided by the header of the body's owner (``head``)."""
    body = node.parent
    owner = body.parent if body is not None else None
    head = (owner.start_byte, body.start_byte + 1) if owner is not None else None
    anonymous = body is not None and body.type == "class_body" and owner is not None \
        and owner.type in ("object_creation_expression", "enum_constant")
    first, lo = leading_comments(node, node.start_point[0] + 1, _COMMENTS)
    return Rec(node.start_byte, node.end_byte, first, last_line(node), lo, node.end_byte,
               (kind, _name(node, kind), anonymous), head)


@never_raises
def read(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    read_out = records(*_grammar(), source, edit, _record)
    if read_out is None:
        return None
    tree, found = read_out
    named = nest_records([rec for rec in found if not rec.data[2]])
    return build(source, _defs(named, ""), tree.root_node.has_error, "java")


def _defs(entries: list[tuple[Rec, list[Any]]], prefix: str) -> list[Def]:
    out: list[Def] = []
    for rec, children in entries:
        kind, name, _ = rec.data
        if not name:
            continue
        qualname = prefix + name
        out.append(Def((kind, qualname), rec.first, rec.last,
                       _defs(children, qualname + ".")))
    return out


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def _name(node: Any, kind: str) -> str:
    name = node.child_by_field_name("name")
    if kind in _TYPES:
        return _text(name) if name is not None else ""
    label = "<init>" if kind == "constructor" else (_text(name) if name is not None else "")
    if not label:
        return ""
    params = node.child_by_field_name("parameters")
    if params is None:  # a record's compact constructor takes the record's components
        return f"{label}()" if kind != "constructor" else _compact(node, label)
    return f"{label}({','.join(_params(params))})"


def _compact(node: Any, label: str) -> str:
    record = node.parent.parent if node.parent is not None else None
    params = record.child_by_field_name("parameters") if record is not None else None
    return f"{label}({','.join(_params(params)) if params is not None else ''})"


def _params(params: Any) -> list[str]:
    out: list[str] = []
    for param in params.named_children:
        if param.type == "formal_parameter":
            typ = param.child_by_field_name("type")
            dims = param.child_by_field_name("dimensions")
            text = _erase(typ) if typ is not None else "?"
            out.append(text + (_text(dims).replace(" ", "") if dims is not None else ""))
        elif param.type == "spread_parameter":
            typ = next((c for c in param.named_children
                        if c.type not in ("modifiers", "variable_declarator")), None)
            out.append((_erase(typ) if typ is not None else "?") + "[]")  # as erased
    return out


def _erase(typ: Any) -> str:
    """The simple name of a type without its arguments: ``java.util.List<String>`` ->
    ``List``, ``Map.Entry<K, V>[]`` -> ``Entry[]``."""
    kind = typ.type
    if kind == "generic_type":
        base = next((c for c in typ.named_children if c.type != "type_arguments"), None)
        return _erase(base) if base is not None else _text(typ)
    if kind == "array_type":
        element = typ.child_by_field_name("element")
        dims = typ.child_by_field_name("dimensions")
        return (_erase(element) if element is not None else "?") + (
            "".join(_text(dims).split()) if dims is not None else "[]")
    if kind == "scoped_type_identifier":
        last = typ.named_children[-1] if typ.named_children else None
        return _erase(last) if last is not None else _text(typ)
    if kind == "annotated_type":
        inner = typ.named_children[-1] if typ.named_children else None
        return _erase(inner) if inner is not None else _text(typ)
    return "".join(_text(typ).split())
