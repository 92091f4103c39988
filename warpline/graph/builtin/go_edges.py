"""Pass 3 of Go's built-in edges: each use in a file becomes an edge, or is counted.

* A name used as a value (``f``, ``T``, a package variable) and a selector of an import
  (``pkg.F``) resolve through the package's scope: a function called is ``calls``, a
  function used as a value, a type, or a package-level ``var``/``const`` (the package
  entity owns their lines) is ``references``.
* ``x.M`` resolves by ``x``'s type (``go_resolve``): a method of the repository is
  ``calls`` when called; an interface's method names the interface (its method specs are
  its own lines), and every type of the repository implementing it gets a ``dispatch``
  candidate edge (which one runs is decided at run time).
* Where ``x``'s type is unknown, a method name that few types of the repository declare
  gives ``candidate`` edges to each (at most ``MAX_CANDIDATES``) and counts as unresolved;
  a name no type of the repository declares is a field or a method of outside code.
* Types named in a declaration (fields, embedding, signatures, conversions, literals) are
  ``references``; a type implementing an interface of the repository (its method set, by
  name) ``references`` it with confidence ``implements``.

Certain edges are ``resolved``; the others carry their confidence, so a reader (and the
truth bench) can tell a guess from a fact.
"""

from __future__ import annotations

from typing import Any

from warpline.graph.builtin.go_resolve import Member, Package, Resolver
from warpline.graph.builtin.go_scan import FileScan, TopDecl
from warpline.graph.builtin.python_resolve import EdgeSink
from warpline.graph.model import EdgeKind

__all__ = ["MAX_CANDIDATES", "Emitter", "implementations"]

MAX_CANDIDATES = 4
MAX_DISPATCH = 24
_BUILTINS = frozenset((
    "append cap clear close complex copy delete imag len make max min new panic print "
    "println real recover bool byte comparable complex64 complex128 error float32 float64 "
    "int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any "
    "true false iota nil _").split())
_CALL_WRAPPERS = ("parenthesized_expression", "index_expression", "generic_type")


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def is_callee(node: Any) -> bool:
    """Whether ``node`` is what a call expression calls (through parentheses and type
    arguments)."""
    parent = node.parent
    while parent is not None and parent.type in _CALL_WRAPPERS and (
            parent.type == "parenthesized_expression"
            or parent.child_by_field_name("operand") == node
            or parent.child_by_field_name("type") == node):
        node, parent = parent, parent.parent
    return parent is not None and parent.type in ("call_expression",
                                                  "type_conversion_expression") \
        and parent.child_by_field_name("function") == node


class Emitter:
    """Edges of every file into ``sink``; ``dispatch`` maps an interface's locator to its
    implementing types (``implementations``)."""

    def __init__(self, resolver: Resolver, sink: EdgeSink,
                 dispatch: dict[str, list[tuple[Package, str]]]) -> None:
        self.resolver = resolver
        self.sink = sink
        self.dispatch = dispatch

    def _add(self, source: str, target: str, kind: EdgeKind, confidence: str = "resolved"
             ) -> None:
        if source == target:
            return
        edge = (source, target, kind)
        if confidence == "resolved":
            self.sink.edges.add(edge)
            self.sink.confidence.pop(edge, None)
        elif edge not in self.sink.edges:
            self.sink.edges.add(edge)
            self.sink.confidence[edge] = confidence

    def file(self, scan: FileScan) -> None:
        pkg = self.resolver.scope_of[scan.path]
        for node in scan.uses:
            self._use(scan, pkg, node)
        for node in scan.types:
            self._type(scan, pkg, node)
        for node in scan.qualified:
            decl = scan.owner(node.start_byte)
            ty = self.resolver.qualified(node, scan)
            if ty is not None:
                target = self.resolver.package(ty[1])
                if target is not None:
                    self._add(self._source(pkg, decl), target.locator(target.types[ty[2]][0]),
                              "references")
        for node in scan.selectors:
            self._selector(scan, pkg, node)

    def _source(self, pkg: Package, decl: TopDecl | None) -> str:
        return pkg.locator(decl) if decl is not None else pkg.module_locator

    def _use(self, scan: FileScan, pkg: Package, node: Any) -> None:
        name = _text(node)
        decl = scan.owner(node.start_byte)
        if decl is not None and decl.local(name, node.start_byte) is not None:
            return
        source = self._source(pkg, decl)
        call = is_callee(node)
        if name in pkg.funcs:
            self._add(source, pkg.locator(pkg.funcs[name][0]), "calls" if call else "references")
        elif name in pkg.types:
            self._add(source, pkg.locator(pkg.types[name][0]), "references")
        elif name in pkg.globals:
            self._add(source, pkg.module_locator, "references")
        elif call and name not in _BUILTINS and name not in scan.imports:
            self.sink.unresolved += 1  # a dot import, or a name we cannot see

    def _type(self, scan: FileScan, pkg: Package, node: Any) -> None:
        parent = node.parent
        if parent is not None and parent.type in ("type_spec", "type_alias", "qualified_type") \
                and parent.child_by_field_name("name") == node:
            return
        decl = scan.owner(node.start_byte)
        name = _text(node)
        if name not in pkg.types or (decl is not None
                                     and decl.local_type(name, node.start_byte)):
            return
        if decl is not None and decl.kind == "method" and _receiver_parameter(decl, name):
            return
        self._add(self._source(pkg, decl), pkg.locator(pkg.types[name][0]), "references")

    def _selector(self, scan: FileScan, pkg: Package, node: Any) -> None:
        decl = scan.owner(node.start_byte)
        source = self._source(pkg, decl)
        field = node.child_by_field_name("field")
        if field is None:
            return
        call = is_callee(node)
        member = self.resolver.select(node, scan, decl)
        if member is not None:
            self._member(source, member, call)
            return
        operand = node.child_by_field_name("operand")
        if operand is not None and operand.type == "identifier" \
                and _text(operand) in scan.imports:
            return  # outside code (or a name the package does not hold)
        if not call:
            return
        declared = self.resolver.method_names.get(_text(field), [])
        if not declared or self.resolver.outside(node, scan, decl):
            return
        self.sink.unresolved += 1
        if len(declared) <= MAX_CANDIDATES:
            for owner, method in declared:
                self._add(source, owner.locator(method), "calls", "candidate")

    def _member(self, source: str, member: Member, call: bool) -> None:
        pkg = member.package
        kind: EdgeKind = "calls" if call else "references"
        if member.kind == "global":
            self._add(source, pkg.module_locator, "references")
        elif member.decl is None or member.kind == "field":
            return
        elif member.kind == "type":
            self._add(source, pkg.locator(member.decl), "references")
        elif member.kind == "interface":
            target = pkg.locator(member.decl)
            self._add(source, target, kind)
            name = _text(member.node.child_by_field_name("name"))
            for owner, type_name in self.dispatch.get(target, [])[:MAX_DISPATCH]:
                found = self.resolver.member(("n", owner.path, type_name), name)
                if found is not None and found.kind == "method" and found.decl is not None:
                    self._add(source, found.package.locator(found.decl), kind, "dispatch")
        else:
            self._add(source, pkg.locator(member.decl), kind)


def _receiver_parameter(decl: TopDecl, name: str) -> bool:
    """``name`` is a type parameter of a method's receiver (``func (l *List[T]) …``)."""
    receiver = decl.node.child_by_field_name("receiver")
    if receiver is None or "[" not in _text(receiver):
        return False
    return any(_text(n) == name for param in receiver.named_children
               for n in _type_arguments(param))


def _type_arguments(param: Any) -> list[Any]:
    typ = param.child_by_field_name("type")
    while typ is not None and typ.type == "pointer_type":
        typ = typ.named_children[0] if typ.named_children else None
    if typ is None or typ.type != "generic_type":
        return []
    args = typ.child_by_field_name("type_arguments")
    out: list[Any] = []
    for elem in args.named_children if args is not None else []:
        out.extend(c for c in elem.named_children if c.type == "type_identifier")
    return out


def implementations(resolver: Resolver) -> dict[str, list[tuple[Package, str]]]:
    """Interface locator -> the repository's named types whose method set holds every
    method it names (by name; an interface embedding one from outside is skipped)."""
    method_sets: dict[tuple[str, str], set[str]] = {}
    for pkg in resolver.scopes.values():
        for recv, name in pkg.methods:
            method_sets.setdefault((pkg.path, recv), set()).add(name)
    out: dict[str, list[tuple[Package, str]]] = {}
    for pkg in resolver.scopes.values():
        for decl, scan in pkg.types.values():
            if decl.kind != "interface":
                continue
            names = _interface_methods(resolver, pkg, decl, scan, 0)
            if not names:
                continue
            found = []
            for (path, type_name), methods in method_sets.items():
                owner = resolver.declaring(path, type_name)
                if owner is None or (path, type_name) == (pkg.path, decl.key[1]):
                    continue
                promoted = methods | _promoted(resolver, owner, type_name)
                if names <= promoted:
                    found.append((owner, type_name))
            if found:
                out[pkg.locator(decl)] = sorted(found, key=lambda f: (f[0].path, f[1]))
    return out


def _interface_methods(resolver: Resolver, pkg: Package, decl: TopDecl, scan: FileScan,
                       depth: int) -> set[str] | None:
    fields, embedded = resolver.fields(pkg, decl, scan)
    names = set(fields)
    for node, inner_scan in embedded:
        ty = resolver.type_node(node, inner_scan, None)
        inner_pkg = resolver.package(ty[1]) if ty is not None and ty[0] == "n" else None
        inner = inner_pkg.types.get(ty[2]) if inner_pkg is not None and ty is not None \
            else None
        if inner is None or inner[0].kind != "interface" or depth > 4:
            return None  # embeds an interface we cannot read: its method set is unknown
        more = _interface_methods(resolver, inner_pkg, inner[0], inner[1], depth + 1) \
            if inner_pkg is not None else None
        if more is None:
            return None
        names |= more
    return names


def _promoted(resolver: Resolver, pkg: Package, type_name: str) -> set[str]:
    """Method names a struct gets from the repository's types it embeds (one level)."""
    own = pkg.types.get(type_name)
    if own is None or own[0].kind != "struct":
        return set()
    _, embedded = resolver.fields(pkg, own[0], own[1])
    out: set[str] = set()
    for node, scan in embedded:
        ty = resolver.type_node(node, scan, None)
        if ty is None or ty[0] != "n":
            continue
        inner = resolver.package(ty[1])
        if inner is not None:
            out |= {name for recv, name in inner.methods if recv == ty[2]}
    return out
