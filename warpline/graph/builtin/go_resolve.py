"""Pass 2 of Go's built-in edges: packages, types and members across one commit's files.

A package is its import path (``go.mod``'s module plus the directory); an external test
package (``package foo_test``) is a scope of its own under the same path. What a name
means follows Go's scoping where it is cheap to know statically: a declaration's locals
(parameters, receivers, ``:=``, ``var``, ``range``; block scopes are not followed), the
package's top-level names across its files, the file's imports. An expression's type is
known from declarations, parameters, composite literals, ``new``, conversions, type
assertions, the declared results of the functions and methods called, fields, indexing
and ranging; members are found by Go's embedding rule (the shallowest depth wins).
Anything else is unknown: ``go_edges`` gives a candidate edge, marked as such, or none.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from warpline.graph.builtin.go_scan import FileScan, Local, TopDecl
from warpline.lang import GO
from warpline.lang.entities import MODULE_KEY

__all__ = ["OUTSIDE", "Member", "Package", "Resolver", "Ty", "named"]

# A type the resolver follows: ("n", import path, name) for a named type of the
# repository; ("e", ty) the element of a slice, array or map; ("c", ty) a channel's;
# ("s", node, scan) an anonymous struct type (a table test's `[]struct{…}`); OUTSIDE a
# type known not to be the repository's (a builtin, another module's): whatever is
# selected on it, called on it or held in it is outside too, never a guess.
Ty = tuple[Any, ...]
_MAX_DEPTH = 12
_EMBED_DEPTH = 5
_WRAPPERS = ("pointer_type", "parenthesized_type")


OUTSIDE: Ty = ("x",)


def named(path: str, name: str) -> Ty:
    return ("n", path, name)


@dataclass(slots=True)
class Package:
    """One scope of a package: its top-level functions, types, methods and variables."""

    path: str
    name: str
    funcs: dict[str, tuple[TopDecl, FileScan]] = field(default_factory=dict)
    types: dict[str, tuple[TopDecl, FileScan]] = field(default_factory=dict)
    methods: dict[tuple[str, str], tuple[TopDecl, FileScan]] = field(default_factory=dict)
    globals: dict[str, tuple[Local, FileScan]] = field(default_factory=dict)

    def locator(self, decl: TopDecl) -> str:
        return GO.locator(decl.key, self.path)

    @property
    def module_locator(self) -> str:
        return GO.locator(MODULE_KEY, self.path)


@dataclass(frozen=True, slots=True)
class Member:
    """What ``x.name`` selects on a type: a ``method`` (``decl``, in ``package``), a
    ``field`` (``node`` its type, read in ``scan``), or an ``interface`` method (``decl``
    is the interface declaring it)."""

    kind: str
    package: Package
    decl: TopDecl | None = None
    node: Any = None
    scan: FileScan | None = None


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def _unwrap(node: Any) -> Any:
    while node is not None and node.type in _WRAPPERS:
        node = node.named_children[0] if node.named_children else None
    return node


class Resolver:
    """The commit's packages (``scopes``: import path, external-test flag -> package)."""

    def __init__(self, files: list[tuple[str, FileScan]]) -> None:
        self.scopes: dict[tuple[str, bool], Package] = {}
        self.scope_of: dict[str, Package] = {}  # file path -> its scope
        self._types: dict[int, Ty | None] = {}
        self._fields: dict[tuple[str, str], tuple[dict[str, tuple[Any, FileScan]],
                                                  list[tuple[Any, FileScan]]]] = {}
        for import_path, scan in files:
            key = (import_path, scan.external_test)
            pkg = self.scopes.get(key)
            if pkg is None:
                pkg = self.scopes[key] = Package(import_path, scan.package)
            self.scope_of[scan.path] = pkg
            for decl in scan.decls:
                if decl.key == MODULE_KEY:
                    continue
                if decl.kind == "function":
                    pkg.funcs.setdefault(decl.key[1], (decl, scan))
                elif decl.kind == "method":
                    recv, _, name = decl.key[1].rpartition(".")
                    pkg.methods.setdefault((recv, name), (decl, scan))
                else:
                    pkg.types.setdefault(decl.key[1], (decl, scan))
            for name, local in scan.globals.items():
                pkg.globals.setdefault(name, (local, scan))
        self.method_names: dict[str, list[tuple[Package, TopDecl]]] = {}
        for pkg in self.scopes.values():
            for (_, name), (decl, _) in pkg.methods.items():
                self.method_names.setdefault(name, []).append((pkg, decl))

    def package(self, import_path: str) -> Package | None:
        """The importable scope of ``import_path`` (None: not a package of this commit)."""
        return self.scopes.get((import_path, False))

    def declaring(self, import_path: str, type_name: str) -> Package | None:
        """The scope declaring a named type of ``import_path``: the package, or its external
        test package (one import path, two scopes)."""
        for external in (False, True):
            pkg = self.scopes.get((import_path, external))
            if pkg is not None and (type_name in pkg.types or any(
                    recv == type_name for recv, _ in pkg.methods)):
                return pkg
        return self.scopes.get((import_path, False))

    # ---- types -------------------------------------------------------------------------

    def type_node(self, node: Any, scan: FileScan, decl: TopDecl | None) -> Ty | None:
        """The type a type expression names (None: outside the repository, unknown)."""
        node = _unwrap(node)
        if node is None:
            return None
        kind = node.type
        if kind == "generic_type":
            return self.type_node(node.child_by_field_name("type"), scan, decl)
        if kind == "type_identifier":
            name = _text(node)
            if decl is not None and decl.local_type(name, node.start_byte):
                return None  # a type parameter
            pkg = self.scope_of[scan.path]
            return named(pkg.path, name) if name in pkg.types else OUTSIDE
        if kind == "qualified_type":
            found = self.qualified(node, scan)
            package = node.child_by_field_name("package")
            outside = package is not None and self.package(
                scan.imports.get(_text(package), "")) is None
            return OUTSIDE if found is None and outside else found
        if kind in ("slice_type", "array_type", "implicit_length_array_type"):
            inner = self.type_node(node.child_by_field_name("element"), scan, decl)
            return ("e", inner) if inner is not None else None
        if kind == "map_type":
            inner = self.type_node(node.child_by_field_name("value"), scan, decl)
            return ("e", inner) if inner is not None else None
        if kind == "struct_type":
            return ("s", node, scan)
        if kind == "function_type":
            return OUTSIDE  # an anonymous interface stays unknown: any type may be behind it
        if kind == "channel_type":
            inner = self.type_node(node.child_by_field_name("value"), scan, decl)
            return ("c", inner) if inner is not None else None
        return None

    def qualified(self, node: Any, scan: FileScan) -> Ty | None:
        package = node.child_by_field_name("package")
        name = node.child_by_field_name("name")
        if package is None or name is None:
            return None
        target = self.package(scan.imports.get(_text(package), ""))
        if target is None or _text(name) not in target.types:
            return None
        return named(target.path, _text(name))

    def local_type(self, local: Local, scan: FileScan, decl: TopDecl | None,
                   depth: int = 0, at: Any = None) -> Ty | None:
        if local.how == "param":
            ty = self.type_node(local.typ, scan, decl)
            return ("e", ty) if local.variadic and ty is not None else ty
        if local.how == "value":
            if local.typ is not None:
                return self.type_node(local.typ, scan, decl)
            values = local.value.named_children if local.value is not None else []
            if len(values) > 1:
                return self.expr(values[local.index], scan, decl, depth + 1) \
                    if local.index < len(values) else None
            return self.expr(values[0], scan, decl, depth + 1, local.index) if values else None
        if local.how == "switch":
            return self._switch_case(local, scan, decl, at)
        if local.how == "range":
            values = local.value.named_children if local.value is not None else []
            ranged = self.expr(local.value, scan, decl, depth + 1) \
                if local.value is not None and local.value.type != "expression_list" \
                else (self.expr(values[0], scan, decl, depth + 1) if values else None)
            ranged = self.underlying(ranged)
            if ranged is None:
                return None
            if ranged[0] == "c":
                return ranged[1] if local.index == 0 else None
            return ranged[1] if ranged[0] == "e" and local.index == 1 else None
        return None

    def _switch_case(self, local: Local, scan: FileScan, decl: TopDecl | None,
                     at: Any) -> Ty | None:
        """A type switch alias used at ``at``: the type of its clause, when the clause
        names exactly one type."""
        node = at
        while node is not None and node != local.value:
            parent = node.parent
            if node.type == "type_case" and parent == local.value:
                types = node.children_by_field_name("type")
                return self.type_node(types[0], scan, decl) if len(types) == 1 else None
            node = parent
        return None

    def underlying(self, ty: Ty | None) -> Ty | None:
        """A named type defined as a slice, map or channel: that (for ranging, indexing)."""
        if ty is None or ty[0] != "n":
            return ty
        pkg = self.declaring(ty[1], ty[2])
        found = pkg.types.get(ty[2]) if pkg is not None else None
        if found is None or found[0].kind != "type":
            return ty
        decl, scan = found
        inner = self.type_node(decl.node.child_by_field_name("type"), scan, None)
        return inner if inner is not None and inner[0] != "n" else ty

    def expr(self, node: Any, scan: FileScan, decl: TopDecl | None, depth: int = 0,
             result: int = 0) -> Ty | None:
        """The type of an expression (``result``: which result of a call)."""
        if node is None or depth > _MAX_DEPTH:
            return None
        kind = node.type
        if kind == "identifier":
            return self._identifier(node, scan, decl, depth)
        if kind in ("parenthesized_expression", "slice_expression"):
            inner = node.child_by_field_name("operand") or (
                node.named_children[0] if node.named_children else None)
            return self.expr(inner, scan, decl, depth + 1)
        if kind == "unary_expression":
            operand = self.expr(node.child_by_field_name("operand"), scan, decl, depth + 1)
            operator = node.child_by_field_name("operator")
            if operator is not None and _text(operator) == "<-":
                operand = self.underlying(operand)
                return operand[1] if operand is not None and operand[0] == "c" else None
            return operand
        if kind == "composite_literal":
            return self.type_node(node.child_by_field_name("type"), scan, decl)
        if kind in ("type_assertion_expression", "type_conversion_expression"):
            return self.type_node(node.child_by_field_name("type"), scan, decl) \
                if result == 0 else None
        if kind == "index_expression":
            outer = self.underlying(self.expr(node.child_by_field_name("operand"), scan,
                                              decl, depth + 1))
            if outer == OUTSIDE:
                return OUTSIDE
            return outer[1] if outer is not None and outer[0] == "e" and result == 0 \
                else None
        if kind == "selector_expression":
            if self.outside(node, scan, decl, depth + 1):
                return OUTSIDE
            member = self.select(node, scan, decl, depth + 1)
            if member is not None and member.kind == "field" and member.scan is not None:
                return self.type_node(member.node, member.scan, None)
            if member is not None and member.kind == "global" and member.scan is not None:
                local = member.node
                return self.local_type(local, member.scan, None, depth + 1)
            return None
        if kind == "call_expression":
            return self._call(node, scan, decl, depth, result)
        return None

    def _identifier(self, node: Any, scan: FileScan, decl: TopDecl | None,
                    depth: int) -> Ty | None:
        name = _text(node)
        local = decl.local(name, node.start_byte) if decl is not None else None
        if local is not None:
            if local.how == "switch":
                return self.local_type(local, scan, decl, depth + 1, node)
            key = id(local)
            if key in self._types:
                return self._types[key]
            self._types[key] = None  # a cycle (`x = x.next`) ends here
            found = self.local_type(local, scan, decl, depth + 1)
            self._types[key] = found
            return found
        pkg = self.scope_of[scan.path]
        found_global = pkg.globals.get(name)
        if found_global is not None:
            return self.local_type(found_global[0], found_global[1], None, depth + 1)
        return None

    def _call(self, node: Any, scan: FileScan, decl: TopDecl | None, depth: int,
              result: int) -> Ty | None:
        callee = node.child_by_field_name("function")
        while callee is not None and callee.type in ("parenthesized_expression",
                                                     "index_expression"):
            callee = callee.child_by_field_name("operand") or (
                callee.named_children[0] if callee.named_children else None)
        if callee is None:
            return None
        if callee.type == "identifier":
            name = _text(callee)
            local = decl.local(name, callee.start_byte) if decl is not None else None
            if local is not None:
                return self._literal_result(local, scan, decl, result)
            if name in ("new", "make"):
                args = node.child_by_field_name("arguments")
                return self.type_node(args.named_children[0], scan, decl) \
                    if args is not None and args.named_children else None
            pkg = self.scope_of[scan.path]
            if name in pkg.types:
                return named(pkg.path, name) if result == 0 else None
            found = pkg.funcs.get(name)
            return self.results(found[0], found[1], result) if found is not None else None
        if callee.type == "selector_expression":
            if self.outside(callee, scan, decl, depth + 1):
                return OUTSIDE
            member = self.select(callee, scan, decl, depth + 1)
            if member is None or member.decl is None:
                return None
            if member.kind == "type":
                return named(member.package.path, member.decl.key[1]) if result == 0 else None
            if member.kind == "interface" and member.scan is not None:
                spec = TopDecl(MODULE_KEY, member.node, 0, 0)  # the method spec's results
                return self.results(spec, member.scan, result)
            if member.kind in ("method", "function"):
                owner = self._decl_scan(member)
                return self.results(member.decl, owner, result) if owner is not None else None
        return None

    def _literal_result(self, local: Local, scan: FileScan, decl: TopDecl | None,
                        result: int) -> Ty | None:
        """A local bound to a function literal (``mk := func() *T {…}``) or declared with a
        function type (``parse func(string) (*File, error)``): its result."""
        values = local.value.named_children if local.how == "value" and local.value else []
        if local.how == "param" and local.typ is not None:
            values = [self._function_type(local.typ, scan)]
        if len(values) == 1 and values[0].type == "identifier":
            found = self.scope_of[scan.path].funcs.get(_text(values[0]))  # `parse := Parse`
            return self.results(found[0], found[1], result) if found is not None else None
        if len(values) != 1 or values[0].type not in ("func_literal", "function_type"):
            return None
        literal = TopDecl(MODULE_KEY, values[0], 0, 0)
        return self.results(literal, scan, result, decl)

    def _function_type(self, node: Any, scan: FileScan) -> Any:
        """A function type node, also through a named type of the repository defined as
        one (``type EqualFunc func(int, int) Result``); else the node itself."""
        if node.type == "function_type":
            return node
        ty = self.type_node(node, scan, None)
        if ty is None or ty[0] != "n":
            return node
        pkg = self.declaring(ty[1], ty[2])
        found = pkg.types.get(ty[2]) if pkg is not None else None
        inner = found[0].node.child_by_field_name("type") if found is not None else None
        return inner if inner is not None and inner.type == "function_type" else node

    def _decl_scan(self, member: Member) -> FileScan | None:
        decl = member.decl
        if decl is None:
            return None
        pkg = member.package
        table = pkg.funcs if decl.kind == "function" else None
        if table is not None:
            found = table.get(decl.key[1])
            return found[1] if found else None
        recv, _, name = decl.key[1].rpartition(".")
        found = pkg.methods.get((recv, name))
        return found[1] if found else None

    def results(self, decl: TopDecl, scan: FileScan, index: int,
                context: TopDecl | None = None) -> Ty | None:
        """The type of a function's ``index``-th result (``context``: the declaration
        whose type parameters are in scope, for a function literal)."""
        context = context or decl
        result = decl.node.child_by_field_name("result")
        if result is None:
            return None
        if result.type != "parameter_list":
            return self.type_node(result, scan, context) if index == 0 else None
        types: list[Any] = []
        for param in result.named_children:
            typ = param.child_by_field_name("type")
            names = param.children_by_field_name("name")
            types.extend([typ] * max(len(names), 1))
        return self.type_node(types[index], scan, context) if index < len(types) else None

    # ---- members -----------------------------------------------------------------------

    def select(self, node: Any, scan: FileScan, decl: TopDecl | None,
               depth: int = 0) -> Member | None:
        """What a selector ``x.name`` names: a package's function, type or variable
        (``kind`` function/type/global), or a member of ``x``'s type."""
        operand = node.child_by_field_name("operand")
        name_node = node.child_by_field_name("field")
        if operand is None or name_node is None:
            return None
        name = _text(name_node)
        if operand.type == "identifier":
            alias = _text(operand)
            if (decl is None or decl.local(alias, operand.start_byte) is None) \
                    and alias in scan.imports and alias not in self.scope_of[scan.path].globals:
                return self.package_member(scan.imports[alias], name)
        return self.member(self.expr(operand, scan, decl, depth), name)

    def outside(self, node: Any, scan: FileScan, decl: TopDecl | None,
                depth: int = 0) -> bool:
        """Whether a selector ``x.name`` is known to select outside code: ``x`` is an
        import of another module, or its type is known and not the repository's."""
        operand = node.child_by_field_name("operand")
        if operand is None:
            return False
        if operand.type == "identifier":
            alias = _text(operand)
            if (decl is None or decl.local(alias, operand.start_byte) is None) \
                    and alias in scan.imports and alias not in self.scope_of[scan.path].globals:
                return self.package(scan.imports[alias]) is None
        return self.expr(operand, scan, decl, depth) == OUTSIDE

    def package_member(self, import_path: str, name: str) -> Member | None:
        pkg = self.package(import_path)
        if pkg is None:
            return None
        if name in pkg.funcs:
            decl, scan = pkg.funcs[name]
            return Member("function", pkg, decl, scan=scan)
        if name in pkg.types:
            decl, scan = pkg.types[name]
            return Member("type", pkg, decl, scan=scan)
        if name in pkg.globals:
            local, scan = pkg.globals[name]
            return Member("global", pkg, None, local, scan)
        return None

    def member(self, ty: Ty | None, name: str) -> Member | None:
        """``name`` on a named type of the repository, embedded types followed
        (shallowest first); None when the type is unknown or outside the repository."""
        if ty is not None and ty[0] == "s":
            fields, embedded = self.struct_fields(ty[1], ty[2])
            if name in fields:
                return Member("field", self.scope_of[ty[2].path], None, *fields[name])
            nested = [self.type_node(node, scan, None) for node, scan in embedded]
            return next((m for m in (self.member(t, name) for t in nested) if m), None)
        if ty is None or ty[0] != "n":
            return None
        level: list[tuple[str, str]] = [(ty[1], ty[2])]
        seen: set[tuple[str, str]] = set()
        for _ in range(_EMBED_DEPTH):
            following: list[tuple[str, str]] = []
            for path, type_name in level:
                if (path, type_name) in seen:
                    continue
                seen.add((path, type_name))
                pkg = self.declaring(path, type_name)
                if pkg is None:
                    continue
                found = pkg.methods.get((type_name, name))
                if found is not None:
                    return Member("method", pkg, found[0], scan=found[1])
                own = pkg.types.get(type_name)
                if own is None:
                    continue
                fields, embedded = self.fields(pkg, own[0], own[1])
                if name in fields:
                    node, scan = fields[name]
                    kind = "interface" if own[0].kind == "interface" else "field"
                    return Member(kind, pkg, own[0], node, scan)
                for node, scan in embedded:
                    inner = self.type_node(node, scan, None)
                    if inner is not None and inner[0] == "n":
                        following.append((inner[1], inner[2]))
            if not following:
                return None
            level = following
        return None

    @staticmethod
    def struct_fields(body: Any, scan: FileScan
                      ) -> tuple[dict[str, tuple[Any, FileScan]], list[tuple[Any, FileScan]]]:
        """A struct type's fields (name -> type node) and embedded types."""
        named_fields: dict[str, tuple[Any, FileScan]] = {}
        embedded: list[tuple[Any, FileScan]] = []
        for field_list in body.named_children:
            for item in field_list.named_children:
                if item.type != "field_declaration":
                    continue
                typ = item.child_by_field_name("type")
                names = item.children_by_field_name("name")
                if not names:
                    embedded.append((typ, scan))
                for name in names:
                    named_fields[_text(name)] = (typ, scan)
        return named_fields, embedded

    def fields(self, pkg: Package, decl: TopDecl, scan: FileScan
               ) -> tuple[dict[str, tuple[Any, FileScan]], list[tuple[Any, FileScan]]]:
        """A struct's fields (name -> type node) and embedded types, or an interface's
        methods (name -> the method node) and embedded interfaces."""
        key = (pkg.path, decl.key[1])
        cached = self._fields.get(key)
        if cached is not None:
            return cached
        named_fields: dict[str, tuple[Any, FileScan]] = {}
        embedded: list[tuple[Any, FileScan]] = []
        body = decl.node.child_by_field_name("type")
        if body is not None and body.type == "struct_type":
            named_fields, embedded = self.struct_fields(body, scan)
        elif body is not None and body.type == "interface_type":
            for item in body.named_children:
                if item.type == "method_elem":
                    name = item.child_by_field_name("name")
                    if name is not None:
                        named_fields[_text(name)] = (item, scan)
                elif item.type == "type_elem" and len(item.named_children) == 1:
                    embedded.append((item.named_children[0], scan))
        self._fields[key] = (named_fields, embedded)
        return named_fields, embedded
