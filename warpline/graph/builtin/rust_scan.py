"""Pass 1 of Rust's built-in edges: what one ``.rs`` file declares and uses.

The items (functions, impls, traits, inline modules, types, ``use`` and ``mod``
declarations) are the file's item tree, read by following item lists only (never into
bodies); the uses inside bodies come from one tree-sitter query (``queries/
rust_edges.scm``), each use kept with the context of the innermost item around it (a
sweep over the items' byte ranges). Nothing here resolves a name across files:
``rust_resolve`` does, over every file of the commit.

Each item's locator is the reader's (``warpline.lang.rust``): the owner of the line its
name is on, so the names (impl keys, cfg suffixes) are never built twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from warpline.graph.builtin.rust_ctx import (
    Ctx,
    Local,
    bind,
    let,
    names,
    segments,
    text,
    variant_bindings,
)
from warpline.lang.entities import MODULE_KEY, EntityKey, FileEntities
from warpline.lang.tsdefs import load_query
from warpline.runners.cargo_rules import attributes

__all__ = ["Ctx", "FileScan", "Local", "ModDecl", "Use", "Used", "parser_and_query", "scan_file",
           "segments", "text"]

_TYPES = {"struct_item": "struct", "enum_item": "enum", "union_item": "union",
          "trait_item": "trait", "type_item": "type_alias"}
_VALUES = {"function_item": "function", "const_item": "const", "static_item": "static"}


@lru_cache(maxsize=1)
def _grammar() -> tuple[Any, Any]:
    import tree_sitter
    import tree_sitter_rust

    language = tree_sitter.Language(tree_sitter_rust.language())
    return tree_sitter.Parser(language), load_query(language, "rust_edges.scm")


def parser_and_query() -> tuple[Any, Any]:
    return _grammar()


@dataclass(frozen=True, slots=True)
class Use:
    """``use a::b as c`` in ``module``: ``c`` names ``a::b`` (``glob``: ``a::b::*``)."""

    module: str
    name: str
    path: tuple[str, ...]
    glob: bool = False


@dataclass(frozen=True, slots=True)
class ModDecl:
    """``mod x;`` in ``module`` (``path``: a ``#[path = "..."]`` attribute)."""

    module: str
    name: str
    path: str | None


@dataclass(frozen=True, slots=True)
class Used:
    """One use found by the query: its capture name, node, context and owner entity key."""

    what: str
    node: Any
    ctx: Ctx
    owner: EntityKey
    at: int


@dataclass(slots=True)
class FileScan:
    """What one query over a ``.rs`` file found: items, uses, mod declarations, impls."""
    path: str
    module: str
    defs: FileEntities
    source: bytes
    items: list[tuple[str, str, str, str]] = field(default_factory=list)  # module, name, kind, key
    uses: list[Use] = field(default_factory=list)
    mods: list[ModDecl] = field(default_factory=list)
    inline_mods: list[tuple[str, str]] = field(default_factory=list)  # (parent, child)
    impls: list[tuple[Ctx, dict[str, list[EntityKey]]]] = field(default_factory=list)
    traits: dict[EntityKey, dict[str, EntityKey]] = field(default_factory=dict)
    fields: dict[EntityKey, tuple[Ctx, dict[str, Any]]] = field(default_factory=dict)
    variants: dict[EntityKey, tuple[Ctx, dict[str, list[Any]]]] = field(default_factory=dict)
    fns: dict[EntityKey, Ctx] = field(default_factory=dict)
    aliases: dict[EntityKey, tuple[Ctx, Any]] = field(default_factory=dict)
    used: list[Used] = field(default_factory=list)
    attrs: dict[EntityKey, list[str]] = field(default_factory=dict)
    macro_calls: list[tuple[str, Any, Ctx, EntityKey]] = field(default_factory=list)
    cfg_test_mods: set[str] = field(default_factory=set)
    owners: list[EntityKey] = field(default_factory=list)

    def owner(self, line: int) -> EntityKey:
        """The entity owning 1-based ``line``."""
        if 1 <= line <= len(self.owners):
            return self.owners[line - 1]
        return MODULE_KEY


def scan_file(path: str, module: str, defs: FileEntities, source: bytes) -> FileScan | None:
    """The items and uses of one file; None when tree-sitter cannot parse it."""
    parser, query = _grammar()
    tree = parser.parse(source)
    scan = FileScan(path, module, defs, source)
    scan.owners = defs.paint(1, defs.line_count)
    root = Ctx(module, 0, len(source), "mod")
    regions: list[Ctx] = [root]
    _walk(scan, tree.root_node, root, regions)
    regions.sort(key=lambda c: (c.start, -c.end))
    _sweep(scan, query, tree.root_node, regions)
    return scan


def _generics(node: Any) -> dict[str, list[Any]]:
    """Type parameters of an item and their bounds (``where`` clauses included)."""
    out: dict[str, list[Any]] = {}
    params = node.child_by_field_name("type_parameters")
    for param in params.named_children if params is not None else ():
        if param.type in ("lifetime", "lifetime_parameter", "const_parameter",
                          "attribute_item"):
            continue
        name = param.child_by_field_name("name")
        if name is None:
            name = next((c for c in param.named_children if c.type == "type_identifier"), None)
        if name is None:
            continue
        bounds = param.child_by_field_name("bounds")
        out.setdefault(text(name), []).extend(_bounds(bounds))
    for child in node.named_children:
        if child.type != "where_clause":
            continue
        for pred in child.named_children:
            left = pred.child_by_field_name("left")
            bounds = pred.child_by_field_name("bounds")
            if left is not None and left.type == "type_identifier":
                out.setdefault(text(left), []).extend(_bounds(bounds))
    return out


def _bounds(bounds: Any) -> list[Any]:
    if bounds is None:
        return []
    return [b for b in bounds.named_children
            if b.type in ("type_identifier", "scoped_type_identifier", "generic_type")]


def _key_at(scan: FileScan, node: Any) -> EntityKey:
    name = node.child_by_field_name("name")
    return scan.owner((name or node).start_point[0] + 1)


def _walk(scan: FileScan, container: Any, ctx: Ctx, regions: list[Ctx]) -> None:
    for child in container.named_children:
        kind = child.type
        if kind == "function_item" or kind == "function_signature_item":
            key = _key_at(scan, child)
            fn = Ctx(ctx.module, child.start_byte, child.end_byte, "fn", ctx,
                     generics=_generics(child), returns=child.child_by_field_name(
                         "return_type"), locator=_loc(scan, key))
            fn.fn_locator = fn.locator
            params = child.child_by_field_name("parameters")
            for param in params.named_children if params is not None else ():
                pattern = param.child_by_field_name("pattern")
                if param.type == "parameter" and pattern is not None:
                    for name in names(pattern):
                        fn.locals.setdefault(name, []).append(
                            Local(0, param.child_by_field_name("type")))
            regions.append(fn)
            scan.fns[key] = fn
            scan.attrs[key] = attributes(child)
            if ctx.kind == "mod":
                scan.items.append((ctx.module, _name(child), "function", key[1]))
        elif kind == "impl_item":
            impl = Ctx(ctx.module, child.start_byte, child.end_byte, "impl", ctx,
                       self_type=child.child_by_field_name("type"),
                       trait=child.child_by_field_name("trait"), generics=_generics(child))
            impl.locator = _loc(scan, scan.owner(child.start_point[0] + 1))
            regions.append(impl)
            body = child.child_by_field_name("body")
            if body is not None:
                _walk(scan, body, impl, regions)
                methods: dict[str, list[EntityKey]] = {}
                for f in body.named_children:  # cfg twins share a name: each is kept
                    if f.type == "function_item":
                        methods.setdefault(_name(f), []).append(_key_at(scan, f))
                scan.impls.append((impl, methods))
        elif kind == "trait_item":
            key = _key_at(scan, child)
            trait = Ctx(ctx.module, child.start_byte, child.end_byte, "trait", ctx,
                        generics=_generics(child), trait_locator=_loc(scan, key))
            trait.generics.setdefault("Self", [])
            regions.append(trait)
            body = child.child_by_field_name("body")
            if body is not None:
                _walk(scan, body, trait, regions)
                scan.traits[key] = {_name(f): _key_at(scan, f) for f in body.named_children
                                    if f.type in ("function_item", "function_signature_item")}
            scan.items.append((ctx.module, _name(child), "trait", key[1]))
        elif kind == "mod_item":
            name = _name(child)
            body = child.child_by_field_name("body")
            if body is None:
                scan.mods.append(ModDecl(ctx.module, name, _path_attr(child)))
                continue
            inner = Ctx(f"{ctx.module}.{name}", child.start_byte, child.end_byte, "mod", ctx)
            regions.append(inner)
            scan.inline_mods.append((ctx.module, inner.module))
            if "cfg(test)" in attributes(child):
                scan.cfg_test_mods.add(inner.module)
            _walk(scan, body, inner, regions)
        elif kind in _TYPES or kind in _VALUES or kind == "macro_definition":
            key = _key_at(scan, child)
            entity_kind = _TYPES.get(kind) or _VALUES.get(kind) or "macro"
            if kind in _TYPES:
                region = Ctx(ctx.module, child.start_byte, child.end_byte, "type", ctx,
                             generics=_generics(child), locator=_loc(scan, key))
                regions.append(region)
                if kind in ("struct_item", "union_item"):
                    scan.fields[key] = (region, _fields(child))
                elif kind == "type_item":
                    scan.aliases[key] = (region, child.child_by_field_name("type"))
                elif kind == "enum_item":
                    scan.variants[key] = (region, _variants(child))
            if ctx.kind == "mod":
                scan.items.append((ctx.module, _name(child), entity_kind, key[1]))
        elif kind == "use_declaration" and ctx.kind == "mod":
            argument = child.child_by_field_name("argument")
            if argument is not None:
                _uses(scan, ctx.module, argument, ())


def _loc(scan: FileScan, key: EntityKey) -> str:
    from warpline.lang import RUST

    return RUST.locator(key, scan.module)


def _name(node: Any) -> str:
    name = node.child_by_field_name("name")
    return text(name) if name is not None else ""


def _path_attr(node: Any) -> str | None:
    for attr in attributes(node):
        if attr.startswith("path=") and attr.endswith('"'):
            return attr[len("path=") :].strip('"')
    return None


def _fields(node: Any) -> dict[str, Any]:
    body = node.child_by_field_name("body")
    out: dict[str, Any] = {}
    if body is not None and body.type == "ordered_field_declaration_list":
        types = [c for c in body.named_children
                 if c.type not in ("visibility_modifier", "attribute_item")]
        return {str(index): typ for index, typ in enumerate(types)}
    for decl in body.named_children if body is not None else ():
        if decl.type == "field_declaration":
            name = decl.child_by_field_name("name")
            if name is not None:
                out[text(name)] = decl.child_by_field_name("type")
    return out


def _uses(scan: FileScan, module: str, node: Any, prefix: tuple[str, ...]) -> None:
    kind = node.type
    if kind in ("identifier", "scoped_identifier", "self", "crate", "super"):
        path = (*prefix, *segments(text(node)))
        name = path[-1]
        if name == "self":  # `use a::b::{self}` names `b`
            path = path[:-1]
            name = path[-1] if path else ""
        if name:
            scan.uses.append(Use(module, name, path))
    elif kind == "use_as_clause":
        path_node = node.child_by_field_name("path")
        alias = node.child_by_field_name("alias")
        if path_node is not None and alias is not None:
            scan.uses.append(Use(module, text(alias), (*prefix, *segments(text(path_node)))))
    elif kind == "use_wildcard":
        inner = node.named_children[0] if node.named_children else None
        path = (*prefix, *segments(text(inner))) if inner is not None else prefix
        scan.uses.append(Use(module, "*", path, glob=True))
    elif kind == "scoped_use_list":
        path_node = node.child_by_field_name("path")
        inner_prefix = (*prefix, *segments(text(path_node))) if path_node is not None \
            else prefix
        listing = node.child_by_field_name("list")
        if listing is not None:
            _uses(scan, module, listing, inner_prefix)
    elif kind == "use_list":
        for child in node.named_children:
            _uses(scan, module, child, prefix)


def _sweep(scan: FileScan, query: Any, root: Any, regions: list[Ctx]) -> None:
    """Every use in the file, with the innermost item around it."""
    import tree_sitter

    cursor = tree_sitter.QueryCursor(query)
    found: list[tuple[int, str, Any]] = []
    for name, nodes in cursor.captures(root).items():
        found.extend((n.start_byte, name, n) for n in nodes)
    found.sort(key=lambda item: item[0])
    stack: list[Ctx] = []
    nxt = 0
    for at, what, node in found:
        while nxt < len(regions) and regions[nxt].start <= at:
            region = regions[nxt]
            nxt += 1
            while stack and stack[-1].end <= region.start:
                stack.pop()
            if region.end > at:
                stack.append(region)
        while stack and stack[-1].end <= at:
            stack.pop()
        ctx = stack[-1] if stack else regions[0]
        owner = scan.owner(node.start_point[0] + 1)
        if what == "let":
            let(ctx, node)
        elif what == "bind":
            typed = variant_bindings(node)
            scope = node.parent  # a match arm, a `for`, a closure
            while scope is not None and scope.type in ("let_condition", "let_chain"):
                scope = scope.parent  # `if let`/`while let`: the whole expression
            end = scope.end_byte if scope is not None else 1 << 62
            for name in names(node):
                local = typed.get(name) or Local(node.start_byte)
                local.end = end
                bind(ctx, name, local)
        else:
            scan.used.append(Used(what, node, ctx, owner, at))


def _variants(node: Any) -> dict[str, list[Any]]:
    """An enum's tuple variants: name -> its fields' type nodes, in order."""
    body = node.child_by_field_name("body")
    out: dict[str, list[Any]] = {}
    for variant in body.named_children if body is not None else ():
        name = variant.child_by_field_name("name")
        fields = variant.child_by_field_name("body")
        if variant.type == "enum_variant" and name is not None and fields is not None \
                and fields.type == "ordered_field_declaration_list":
            out[text(name)] = [c for c in fields.named_children
                               if c.type not in ("visibility_modifier", "attribute_item")]
    return out


