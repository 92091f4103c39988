"""Rust: module names from the crate layout, definitions by a tree-sitter query, named in
loomweave's Rust dialect (``docs/languages.md``).

``rust:<kind>:<crate>.<modules>.<item>`` with kinds ``module function struct enum trait
type_alias const static macro impl``. Where loomweave emits nothing, warpline still records
entities under names loomweave can never produce: every such name carries ``~`` (no Rust
identifier, type or cfg text holds one; a ``~`` in a name is escaped ``%7E``):

* files of a crate outside ``src/`` (``tests/``, ``benches/``, ``examples/``,
  ``build.rs``): module ``<crate>~tests.it``; a ``.rs`` file under no crate: ``~<path>``;
* items of a trait (default and required methods): ``<Trait>.~trait.<name>``;
* items inside a function (nested fns, local structs and impls): ``<fn>.~fn.<name>``;
* ``union`` items: kind ``union`` (loomweave has no such kind).
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from typing import Any

from warpline.lang import Files
from warpline.lang.entities import FileEntities
from warpline.lang.tsdefs import (
    Def,
    Edit,
    build,
    escape,
    last_line,
    load_query,
    never_raises,
    squash,
    stop_byte,
)
from warpline.lang.tsregions import Rec, records

__all__ = ["module_name", "read"]

_MANIFEST = "Cargo.toml"


# -- module names --------------------------------------------------------------------------

def module_name(path: str, files: Files | None) -> str | None:
    """The module a ``.rs`` file is, in loomweave's dialect (``src/lib.rs`` of package
    ``demo-crate`` -> ``demo_crate``, ``src/shapes/mod.rs`` -> ``demo_crate.shapes``)."""
    parts = path.split("/")
    crate, root = _crate_of(parts, files)
    rel = parts[root:]
    rel[-1] = rel[-1][:-3]  # ".rs"
    if crate is None:
        return "~" + ".".join(escape(p) for p in _collapse(rel))
    if rel[0] == "src" and len(rel) > 1:
        inner = rel[1:]
        if inner == ["lib"]:
            return crate
        if inner == ["main"]:
            lib = "/".join([*parts[:root], "src", "lib.rs"])
            has_lib = files is not None and files.read(lib) is not None
            return f"{crate}@bin({crate})" if has_lib else crate
        if inner[0] == "bin" and len(inner) > 1:
            rest = _collapse(inner[2:]) if len(inner) > 2 else []
            if rest == ["main"]:
                rest = []
            head = f"{crate}@bin({escape(inner[1])})"
            return ".".join([head, *(escape(p) for p in rest)])
        segments = _collapse(inner)
        return ".".join([crate, *(escape(p) for p in segments)])
    segments = _collapse(rel)
    return crate + "~" + ".".join(escape(p) for p in segments)


def _collapse(parts: list[str]) -> list[str]:
    """``mod.rs`` names its directory."""
    if parts and parts[-1] == "mod":
        return parts[:-1]
    return parts


def _crate_of(parts: list[str], files: Files | None) -> tuple[str | None, int]:
    """The crate name of the nearest ``Cargo.toml`` with a ``[package]`` above the file,
    and how many path components its directory has; (None, 0) under no crate."""
    if files is None:
        return None, 0
    for depth in range(len(parts) - 1, -1, -1):
        data = files.read("/".join([*parts[:depth], _MANIFEST]))
        if data is None:
            continue
        name = _package_name(data)
        if name is not None:
            return name, depth
    return None, 0


@lru_cache(maxsize=256)
def _package_name(manifest: bytes) -> str | None:
    try:
        table = tomllib.loads(manifest.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    package = table.get("package")
    name = package.get("name") if isinstance(package, dict) else None
    if not isinstance(name, str) or not name:
        return None
    return escape(name.replace("-", "_"))


# -- definitions ---------------------------------------------------------------------------

@lru_cache(maxsize=1)
def _grammar() -> tuple[Any, Any, Any]:
    import tree_sitter
    import tree_sitter_rust

    language = tree_sitter.Language(tree_sitter_rust.language())
    return language, tree_sitter.Parser(language), load_query(language, "rust.scm")


_INSIDE_IMPL = frozenset({"function"})  # associated consts and types are not entities
_COMMENTS = frozenset({"line_comment", "block_comment"})
# A trait's method signatures are captured through the trait (the query's context).
_CONTEXT = frozenset({"trait_item"})


def _record(node: Any, kind: str) -> Rec:
    """One capture read: data ``(kind, name, cfg, skip)``; ``skip``: never an entity (a
    static of an extern block, whose fns are signatures and not captured; ``const _``)."""
    first, cfg, lo = _leading(node)
    head: tuple[int, int] | None = None
    skip = False
    parent = node.parent
    outer = parent.parent if parent is not None else None
    if kind == "static" and outer is not None:
        skip = outer.type == "foreign_mod_item"
        head = (outer.start_byte, parent.start_byte + 1)  # the block's header decides
    elif kind == "const":
        skip = _field(node, "name") == "_"
    elif outer is not None and node.type == "function_signature_item":
        head = (outer.start_byte, parent.start_byte + 1)  # captured as a trait's item
    name = _impl_name(node) if kind == "impl" else escape(_field(node, "name"))
    return Rec(node.start_byte, node.end_byte, first, last_line(node), lo, node.end_byte,
               (kind, name, cfg, skip), head)


class _Item:
    __slots__ = ("cfg", "children", "end", "first", "kind", "last", "name")

    def __init__(self, rec: Rec) -> None:
        self.kind, self.name, self.cfg, _ = rec.data
        self.end = rec.end
        self.first = rec.first
        self.last = rec.last
        self.children: list[_Item] = []


@never_raises
def read(source: bytes, edit: Edit | None = None) -> FileEntities | None:
    """The definitions of one Rust source; None when it cannot be read."""
    _, parser, query = _grammar()
    read_out = records(parser, query, source, edit, _record, _CONTEXT)
    if read_out is None:
        return None
    tree, found = read_out
    top: list[_Item] = []
    stack: list[_Item] = []
    for rec in found:
        while stack and stack[-1].end <= rec.start:
            stack.pop()
        parent = stack[-1] if stack else None
        kind, _, _, skip = rec.data
        if skip or (parent is not None and parent.kind in ("impl", "trait")
                    and kind not in _INSIDE_IMPL):
            continue
        item = _Item(rec)
        (parent.children if parent is not None else top).append(item)
        stack.append(item)
    return build(source, _defs(top, ""), tree.root_node.has_error, "rust")


def _defs(items: list[_Item], prefix: str) -> list[Def]:
    shared: dict[tuple[str, str], int] = {}
    for item in items:
        shared[(item.kind, item.name)] = shared.get((item.kind, item.name), 0) + 1
    out: list[Def] = []
    for item in items:
        name = item.name
        if item.cfg is not None and shared[(item.kind, name)] > 1:
            name = f"{name}@{escape(item.cfg)}"
        qualname = prefix + name
        if item.kind == "function":
            inner = qualname + ".~fn."
        elif item.kind == "trait":
            inner = qualname + ".~trait."
        else:
            inner = qualname + "."
        out.append(Def((item.kind, qualname), item.first, item.last,
                       _defs(item.children, inner)))
    return out


def _field(node: Any, name: str) -> str:
    child = node.child_by_field_name(name)
    return "" if child is None else str(child.text.decode("utf-8", "replace"))


def _leading(node: Any) -> tuple[int, str | None, int]:
    """The first line of ``node`` with its doc comments and attributes, its ``#[cfg(…)]``
    predicates as loomweave renders them (``_cfg``), if any, and the first byte that
    reading looked at."""
    first = node.start_point[0] + 1
    predicates: list[str] = []
    sibling = node.prev_sibling
    while sibling is not None:
        kind = sibling.type
        if kind == "attribute_item":
            first = sibling.start_point[0] + 1
            attribute = sibling.named_children[0] if sibling.named_children else None
            if attribute is not None:
                text = squash(attribute.text)
                if text.startswith("cfg(") and text.endswith(")"):
                    predicates.append(text[4:-1])
        elif kind in _COMMENTS:
            if _is_outer_doc(sibling):
                first = sibling.start_point[0] + 1
        else:
            break
        sibling = sibling.prev_sibling
    return first, _cfg(predicates) if predicates else None, stop_byte(node, sibling)


def _cfg(predicates: list[str]) -> str:
    """loomweave-plugin-rust 1.6.1's rendering of an item's ``#[cfg]`` predicates
    (whitespace already dropped): the arguments of a top-level ``all(…)``/``any(…)`` sorted
    (bytewise), several attributes sorted and joined by ``&``. Its sort splits the
    arguments at every comma, nested parentheses and strings included, so
    ``any(all(b,a),c)`` renders ``any(a),all(b,c)`` and a trailing comma an empty first
    argument; ids are join keys with loomweave's index, so warpline renders the same
    (docs/languages.md, "cfg suffixes")."""
    return "cfg(" + "&".join(sorted(_sorted_arguments(p) for p in predicates)) + ")"


def _sorted_arguments(predicate: str) -> str:
    if predicate.startswith(("all(", "any(")) and predicate.endswith(")"):
        return predicate[:4] + ",".join(sorted(predicate[4:-1].split(","))) + ")"
    return predicate


def _is_outer_doc(comment: Any) -> bool:
    return any(child.type == "outer_doc_comment_marker" for child in comment.children)


def _impl_name(node: Any) -> str:
    """``Shape.impl[Area]`` for a trait impl, ``Point<$0>.impl#<$0>`` for an inherent
    one: the impl's own type parameters are numbered, lifetimes dropped."""
    params: dict[str, int] = {}
    generics = node.child_by_field_name("type_parameters")
    if generics is not None:
        for param in generics.named_children:
            if param.type in ("lifetime", "lifetime_parameter", "attribute_item"):
                continue
            name_node = param.child_by_field_name("name")
            if name_node is None:
                name_node = next((c for c in param.named_children
                                  if c.type in ("type_identifier", "identifier")), param)
            params.setdefault(str(name_node.text.decode("utf-8", "replace")), len(params))
    self_type = node.child_by_field_name("type")
    self_text = _self_type(self_type, params) if self_type is not None else ""
    trait = node.child_by_field_name("trait")
    if trait is not None:
        return f"{escape(self_text)}.impl[{escape(_trait_text(trait))}]"
    numbered = ",".join(f"${i}" for i in range(len(params)))
    return f"{escape(self_text)}.impl#<{numbered}>"


def _self_type(node: Any, params: dict[str, int]) -> str:
    """A path type by its last segment (``io::Error`` -> ``Error``), its top-level
    arguments without lifetimes, an impl parameter as ``$n``; any other type as written,
    whitespace dropped (``&'amutP``, ``dynfmt::Debug``)."""
    return _path_type(node, params)


def _trait_text(node: Any) -> str:
    """The trait's last path segment with its arguments, lifetimes dropped
    (``serde::Deserialize<'de>`` -> ``Deserialize``, ``From<u8>`` stays)."""
    return _path_type(node, {})


def _path_type(node: Any, params: dict[str, int]) -> str:
    if node.type == "scoped_type_identifier":
        name = node.child_by_field_name("name")
        return squash(name.text) if name is not None else squash(node.text)
    if node.type != "generic_type":
        return squash(node.text)
    base = node.child_by_field_name("type")
    arguments = node.child_by_field_name("type_arguments")
    head = _path_type(base, {}) if base is not None else ""
    if arguments is None:
        return head
    args: list[str] = []
    for arg in arguments.named_children:
        if arg.type == "lifetime":
            continue
        text = squash(arg.text)
        args.append(f"${params[text]}" if arg.type == "type_identifier" and text in params
                    else text)
    return f"{head}<{','.join(args)}>" if args else head
