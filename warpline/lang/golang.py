"""Go: packages from ``go.mod``, definitions by a tree-sitter query (``docs/languages.md``).

``go:<kind>:<import path>.<name>``: the import path is ``go.mod``'s ``module`` plus the
file's directory below it (the directory alone under no ``go.mod``); a method is
``<Recv>.<Name>`` with the receiver's base type (pointer and type arguments dropped), so
switching a receiver between value and pointer keeps the id. Kinds ``function`` (funcs and
methods), ``struct``, ``interface``, ``type``; the file-level entity is the package
(``go:module:<import path>``), shared by the package's files.
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

__all__ = ["definition_name", "module_name", "read"]

_MODULE = re.compile(rb"^\s*module\s+\"?([^\s\"]+)\"?", re.MULTILINE)
_COMMENTS = frozenset({"comment"})


def module_name(path: str, files: Files | None) -> str | None:
    parts = path.split("/")[:-1]
    for depth in range(len(parts), -1, -1):
        data = files.read("/".join([*parts[:depth], "go.mod"])) if files is not None else None
        if data is None:
            continue
        found = _MODULE.search(data)
        if found is None:
            continue
        return "/".join([found.group(1).decode("utf-8", "replace"), *parts[depth:]])
    return "/".join(parts) or "."


@lru_cache(maxsize=1)
def _grammar() -> tuple[Any, Any]:
    import tree_sitter
    import tree_sitter_go

    language = tree_sitter.Language(tree_sitter_go.language())
    return tree_sitter.Parser(language), load_query(language, "go.scm")


def _record(node: Any, kind: str) -> Rec:
    """One capture read: data ``(kind, name)`` (name "" when it has none)."""
    outer = node
    parent = node.parent
    lo = hi = node.start_byte
    if node.type in ("type_spec", "type_alias") and parent is not None \
            and parent.type == "type_declaration":
        lo, hi = parent.start_byte, parent.end_byte  # how many specs it holds decides
        if len(parent.named_children) == 1:
            outer = parent  # `type X struct{…}`: the declaration is the definition
    first, stop = leading_comments(outer, outer.start_point[0] + 1, _COMMENTS)
    return Rec(node.start_byte, node.end_byte, first, last_line(outer), min(lo, stop),
               max(hi, outer.end_byte), ("function" if kind == "method" else kind,
                                         definition_name(node, kind)))


@never_raises
def read(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    read_out = records(*_grammar(), source, edit, _record)
    if read_out is None:
        return None
    tree, found = read_out
    defs: list[Def] = []
    for rec, _ in nest_records(found):  # Go has no nested named definitions
        kind, name = rec.data
        if name:
            defs.append(Def((kind, name), rec.first, rec.last))
    return build(source, defs, tree.root_node.has_error, "go")


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def definition_name(node: Any, kind: str) -> str:
    """The qualname of a ``function_declaration`` / ``method_declaration`` (``kind``
    ``method``: ``Recv.Name``) or type spec node; "" when it has none."""
    name = node.child_by_field_name("name")
    if name is None:
        return ""
    if kind != "method":
        return _text(name)
    receiver = node.child_by_field_name("receiver")
    base = _receiver_base(receiver) if receiver is not None else None
    return f"{base}.{_text(name)}" if base else _text(name)


def _receiver_base(receiver: Any) -> str | None:
    for param in receiver.named_children:
        if param.type != "parameter_declaration":
            continue
        typ = param.child_by_field_name("type")
        while typ is not None and typ.type in ("pointer_type", "parenthesized_type"):
            typ = next((c for c in typ.named_children), None)
        if typ is None:
            return None
        if typ.type == "generic_type":
            typ = typ.child_by_field_name("type")
        return _text(typ) if typ is not None else None
    return None
