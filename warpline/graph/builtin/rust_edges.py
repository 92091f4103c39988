"""Pass 3 of Rust's built-in edges: what each use found by ``rust_scan`` means.

* a call of a function (``f()``, ``a::f()``, ``Type::new()``, ``Self::f()``): ``calls``
  the function; a tuple struct's constructor references the struct; the path's earlier
  segments naming a type reference it;
* a method call ``recv.m()``: ``calls`` the method of the receiver's type (``rust_resolve``
  knows the type as far as it is written); a trait's method called on a value known by its
  bounds calls the trait's method and, as ``candidate`` edges, every implementation of it;
  a receiver of unknown type calls each of the few (at most ``MAX_CANDIDATES``) repository
  methods of that name as ``candidate`` edges, more are counted unresolved;
* a type written anywhere (signatures, fields, ``impl Trait for T``, ``let``, literals)
  references its definition (an impl references its trait and its self type);
* a function named as a value (``map(f)``, ``map(T::new)``) references it;
* a macro invocation ``calls`` a ``macro_rules!`` of the repository, and its arguments are
  read as expressions (``assert_eq!(f(x), y)`` calls ``f``) where they parse as such;
* a ``use`` references what it imports (from the module).

Never a guess as a certain edge: what is not resolved is a candidate (said so in its
confidence) or nothing.
"""

from __future__ import annotations

from typing import Any

from warpline.graph.builtin.python_resolve import EdgeSink
from warpline.graph.builtin.rust_resolve import Resolver
from warpline.graph.builtin.rust_scan import Ctx, FileScan, Used, parser_and_query, segments, text
from warpline.graph.model import EdgeKind
from warpline.lang import RUST

__all__ = ["CANDIDATE", "MAX_CANDIDATES", "Emitter"]

CANDIDATE = "candidate"
MAX_CANDIDATES = 4
_MAX_MACRO_DEPTH = 3
_SKIP_PATH_PARENTS = frozenset({
    "scoped_identifier", "scoped_type_identifier", "use_declaration", "use_list",
    "scoped_use_list", "use_as_clause", "use_wildcard", "generic_function", "visibility_modifier",
    "attribute", "macro_invocation", "meta_item"})
_SKIP_TYPE_PARENTS = frozenset({
    "scoped_type_identifier", "struct_item", "enum_item", "union_item", "trait_item",
    "type_item", "type_parameter", "type_parameters", "constrained_type_parameter",
    "associated_type", "optional_type_parameter"})
_SKIP_ID_PARENTS = _SKIP_PATH_PARENTS | frozenset({
    "function_item", "function_signature_item", "const_item", "static_item", "parameter",
    "let_declaration", "mod_item", "macro_definition", "enum_variant", "field_pattern",
    "closure_parameters", "tuple_pattern", "ref_pattern", "mut_pattern", "struct_item",
    "shorthand_field_initializer", "field_initializer", "lifetime", "label",
    "match_pattern", "tuple_struct_pattern", "or_pattern", "captured_pattern", "arguments",
    "token_tree"})
_VALUE_KINDS = frozenset({"function", "const", "static"})
_TYPE_KINDS = frozenset({"struct", "enum", "union", "trait", "type_alias"})
_ENTITY_KINDS = _VALUE_KINDS | _TYPE_KINDS


def _use_paths(node: Any, prefix: tuple[str, ...]) -> list[list[str]]:
    """The paths a ``use`` inside a function names (a ``*`` import: its module or type)."""
    kind = node.type
    if kind in ("identifier", "scoped_identifier"):
        return [[*prefix, *segments(text(node))]]
    if kind == "use_as_clause":
        path = node.child_by_field_name("path")
        return [[*prefix, *segments(text(path))]] if path is not None else []
    if kind == "use_wildcard":
        inner = node.named_children[0] if node.named_children else None
        return [[*prefix, *segments(text(inner))]] if inner is not None else []
    if kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        listing = node.child_by_field_name("list")
        inner = (*prefix, *segments(text(path))) if path is not None else prefix
        return _use_paths(listing, inner) if listing is not None else []
    if kind == "use_list":
        return [p for child in node.named_children for p in _use_paths(child, prefix)]
    return []


class Emitter:
    def __init__(self, resolver: Resolver, sink: EdgeSink) -> None:
        self.r = resolver
        self.sink = sink
        self._parser, self._query = parser_and_query()

    def file(self, scan: FileScan) -> None:
        for use in scan.used:
            self._use(scan, use.what, use.node, use.ctx, self._source(scan, use), use.at, 0)
        for use_decl in scan.uses:
            if use_decl.glob:
                continue
            source = RUST.locator(("module", ""), use_decl.module)
            targets, _ = self.r.resolve(list(use_decl.path), use_decl.module, None)
            for kind, target in targets:
                if kind in _ENTITY_KINDS or kind == "macro":
                    self._edge(source, target, "references")

    def _source(self, scan: FileScan, use: Used) -> str:
        return RUST.locator(use.owner, scan.module)

    def _edge(self, source: str, target: str, kind: EdgeKind, candidate: bool = False) -> None:
        if source == target:
            return
        edge = (source, target, kind)
        if candidate:
            if edge not in self.sink.edges:
                self.sink.edges.add(edge)
                self.sink.confidence[edge] = CANDIDATE
            return
        self.sink.edges.add(edge)
        self.sink.confidence.pop(edge, None)

    def _use(self, scan: FileScan, what: str, node: Any, ctx: Ctx, source: str, at: int,
             depth: int) -> None:
        parent = node.parent
        parent_type = parent.type if parent is not None else ""
        if what == "callee":
            self._call(node, ctx, source, at)
        elif what == "path":
            if parent_type in _SKIP_PATH_PARENTS or (
                    parent_type == "call_expression"
                    and parent.child_by_field_name("function") == node):
                return
            self._path(segments(text(node)), ctx, source, None)
        elif what == "tpath":
            self._types(segments(text(node)), ctx, source)
        elif what == "type":
            if parent_type in _SKIP_TYPE_PARENTS and not (
                    parent_type == "type_item" and parent.child_by_field_name("name") != node):
                return  # a definition's own name (an associated `type Err = E;`: E is used)
            if parent_type in ("trait_bounds", "where_predicate", "higher_ranked_trait_bound") \
                    and parent.child_by_field_name("left") == node:
                return
            name = text(node)
            if ctx.generic(name) is not None and name != "Self":
                return
            if name == "Self":
                impl = ctx.impl()
                ty = self.r.self_type(impl) if impl is not None else None
                own = impl is not None and impl.kind == "trait"
                for target in ([ty.locator] if ty.locator else list(ty.traits) if own else []) \
                        if ty is not None else []:
                    self._edge(source, target, "references")
                return
            self._types([name], ctx, source)
        elif what in ("arg", "id"):
            name = text(node)
            if what == "id" and (name not in self.r.value_names
                                 or parent_type in _SKIP_ID_PARENTS
                                 or (parent_type == "call_expression"
                                     and parent.child_by_field_name("function") == node)):
                return
            if ctx.local(name, at) is None:
                self._path([name], ctx, source, _VALUE_KINDS)
        elif what == "use":
            argument = node.child_by_field_name("argument")
            if argument is not None and ctx.kind == "fn":
                for path in _use_paths(argument, ()):
                    self._path(path, ctx, source, None)
        elif what == "macro":
            self._macro(scan, node, ctx, source, at, depth)

    def _types(self, segs: list[str], ctx: Ctx, source: str) -> None:
        targets, named = self.r.resolve(segs, ctx.module, ctx)
        for kind, target in [*named, *targets]:
            if kind in _TYPE_KINDS:
                self._edge(source, target, "references")

    def _path(self, segs: list[str], ctx: Ctx, source: str,
              only: frozenset[str] | None) -> None:
        targets, named = self.r.resolve(segs, ctx.module, ctx)
        for kind, target in named:
            if kind in _TYPE_KINDS:
                self._edge(source, target, "references")
        for kind, target in targets:
            if kind in _ENTITY_KINDS and (only is None or kind in only):
                self._edge(source, target, "references")

    def _call(self, function: Any, ctx: Ctx, source: str, at: int) -> None:
        kind = function.type
        if kind == "generic_function":
            inner = function.child_by_field_name("function")
            if inner is not None:
                self._call(inner, ctx, source, at)
            return
        if kind == "field_expression":
            self._method(function, ctx, source, at)
            return
        if kind == "identifier":
            name = text(function)
            if ctx.local(name, at) is not None:
                return  # a closure or a function pointer bound here
            segs = [name]
        elif kind == "scoped_identifier":
            segs = segments(text(function))
        else:
            return
        targets, named = self.r.resolve(segs, ctx.module, ctx)
        for target_kind, target in named:
            if target_kind in _TYPE_KINDS:
                self._edge(source, target, "references")
        called = False
        for target_kind, target in targets:
            if target_kind == "function":
                self._edge(source, target, "calls")
                called = True
                trait = self._trait_of(target)
                if trait is not None:
                    for impl in self.r._implementations(trait, segs[-1]):
                        self._edge(source, impl, "calls", candidate=True)
            elif target_kind in _ENTITY_KINDS:
                self._edge(source, target, "references")
                called = True
        if not called and len(segs) > 1 and named and segs[-1] in self.r.methods_named:
            self.sink.unresolved += 1  # `T::f` of a repository type, f not found

    def _trait_of(self, method: str) -> str | None:
        if ".~trait." not in method:
            return None
        trait = method.rsplit(".~trait.", 1)[0].replace("rust:function:", "rust:trait:", 1)
        return trait if trait in self.r.traits else None

    def _method(self, function: Any, ctx: Ctx, source: str, at: int) -> None:
        certain, candidates = self.r.method(function, ctx, at)
        for target in certain:
            self._edge(source, target, "calls")
        for target in candidates:
            self._edge(source, target, "calls", candidate=True)
        if certain or candidates:
            return
        name_node = function.child_by_field_name("field")
        name = text(name_node) if name_node is not None else ""
        named = self.r.methods_named.get(name, [])
        if not named:
            return  # no repository method of that name: the std's or a dependency's
        if len(named) > MAX_CANDIDATES:
            self.sink.unresolved += 1
            return
        for target in named:
            self._edge(source, target, "calls", candidate=True)

    def _macro(self, scan: FileScan, node: Any, ctx: Ctx, source: str, at: int,
               depth: int) -> None:
        macro = node.child_by_field_name("macro")
        if macro is not None:
            segs = segments(text(macro))
            name = segs[-1]
            local = self.r.resolve(segs, ctx.module, ctx)[0] if len(segs) > 1 else []
            root = self.r.mods[ctx.module].root if ctx.module in self.r.mods else None
            targets = [t for k, t in local if k == "macro"] or [
                t for t in self.r.macros.get(name, [])
                if root and self.r.crate_of(t) == root]
            for target in targets[:1] if len(targets) > 1 else targets:
                if len(targets) == 1:
                    self._edge(source, target, "calls")
        if depth >= _MAX_MACRO_DEPTH:
            return
        tree_node = next((c for c in node.named_children if c.type == "token_tree"), None)
        if tree_node is None:
            return
        body = tree_node.text[1:-1]
        if not body.strip():
            return
        import tree_sitter

        prefix = b"fn __w() { __m("
        synthetic = self._parser.parse(prefix + body + b"); }")
        if synthetic.root_node.has_error:
            return
        cursor = tree_sitter.QueryCursor(self._query)
        for what, nodes in cursor.captures(synthetic.root_node).items():
            if what in ("let", "bind"):
                continue
            for inner in nodes:
                self._use(scan, what, inner, ctx, source, at, depth + 1)
