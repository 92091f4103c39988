"""Java's files read for edges: one tree-sitter parse and one query per file
(``lang/queries/java_edges.scm``), the declarations it holds (types, their members and
supertypes, methods with their parameter and return types) and its imports.

Names are the walker's: a declaration is an entity when ``lang/java.read`` has it
(``Outer.Inner.m(int)``, constructors ``<init>(…)``, local classes under their method,
members of anonymous classes not at all); ``java._name`` names each one here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from warpline.lang import JAVA
from warpline.lang.java import _grammar, _name, module_name, read

__all__ = ["FileScan", "MethodDecl", "TypeDecl", "scan_file"]

_TYPE_KINDS = {"class_declaration": "class", "interface_declaration": "interface",
               "enum_declaration": "enum", "record_declaration": "record",
               "annotation_type_declaration": "annotation"}
_METHOD_KINDS = {"method_declaration": "method", "constructor_declaration": "constructor",
                 "compact_constructor_declaration": "constructor",
                 "annotation_type_element_declaration": "method"}


@lru_cache(maxsize=1)
def _edge_query() -> Any:
    import tree_sitter

    from warpline.lang.tsdefs import load_query

    parser, _ = _grammar()
    return load_query(parser.language, "java_edges.scm"), tree_sitter


def text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


@dataclass(eq=False, slots=True)
class MethodDecl:
    """A method or constructor: ``params`` are type nodes (a varargs' element type last)."""
    locator: str | None
    name: str  # ``<init>`` for constructors
    owner: TypeDecl
    node: Any
    params: list[Any]
    varargs: bool
    returns: Any | None
    static: bool
    private: bool
    type_params: frozenset[str]
    erased: tuple[str, ...]


@dataclass(eq=False, slots=True)
class TypeDecl:
    """A class, interface, enum, record, annotation type, or an anonymous class body
    (``anonymous``: ``supers`` holds the type it was created from)."""
    fqn: str
    locator: str | None
    kind: str
    node: Any
    file: FileScan
    outer: TypeDecl | None
    supers: list[Any] = field(default_factory=list)
    type_params: frozenset[str] = frozenset()
    fields: dict[str, Any] = field(default_factory=dict)  # name -> type node
    methods: dict[str, list[MethodDecl]] = field(default_factory=dict)
    ctors: list[MethodDecl] = field(default_factory=list)
    nested: dict[str, str] = field(default_factory=dict)  # simple name -> fqn
    constants: set[str] = field(default_factory=set)  # an enum's constants
    anonymous: bool = False


@dataclass(eq=False, slots=True)
class FileScan:
    """One file: its parse, its query's captures in source order, the walker's entities,
    its imports and its declarations (by node id)."""
    path: str
    package: str
    tree: Any
    captures: list[tuple[Any, str]]  # (node, capture name) in source order
    entities: dict[str, tuple[str, int, int]]  # locator -> (kind, first, last line)
    readable: bool
    single: dict[str, str] = field(default_factory=dict)  # simple name -> fqn
    on_demand: list[str] = field(default_factory=list)  # `import p.*;` -> p
    static_single: dict[str, list[str]] = field(default_factory=dict)  # member -> types
    static_demand: list[str] = field(default_factory=list)  # `import static T.*;` -> T
    types: list[TypeDecl] = field(default_factory=list)
    decls: dict[int, TypeDecl | MethodDecl] = field(default_factory=dict)  # node id ->
    local_types: dict[str, str] = field(default_factory=dict)  # a local class's name -> fqn


class _Files:
    def __init__(self, source: bytes) -> None:
        self.source = source

    def read(self, path: str) -> bytes | None:
        return self.source


def scan_file(path: str, source: bytes) -> FileScan:
    """The file's parse, captures, entities (the walker's) and declarations."""
    parser, _ = _grammar()
    tree = parser.parse(source)
    package = module_name(path, _Files(source)) or "(default)"
    read_out = read(source)
    entities: dict[str, tuple[str, int, int]] = {}
    if read_out is not None:
        for entity in read_out.entities:
            if entity.qualname:
                first, last = entity.spans[0]
                entities[JAVA.locator(entity.key, package)] = (entity.kind, first, last)
    query, tree_sitter = _edge_query()
    found = tree_sitter.QueryCursor(query).captures(tree.root_node)
    captures = [(node, name) for name, nodes in found.items() for node in nodes]
    captures.sort(key=lambda c: (c[0].start_byte, -c[0].end_byte, c[1]))
    scan = FileScan(path, package, tree, captures, entities, read_out is not None)
    _imports(scan, tree.root_node)
    _declarations(scan)
    return scan


def _imports(scan: FileScan, root: Any) -> None:
    for node in root.named_children:
        if node.type != "import_declaration":
            continue
        words = text(node).removeprefix("import").strip().rstrip(";").strip()
        static = words.startswith("static ")
        name = "".join(words.removeprefix("static").split())
        if name.endswith(".*"):
            (scan.static_demand if static else scan.on_demand).append(name[:-2])
        elif static:
            owner, _, member = name.rpartition(".")
            scan.static_single.setdefault(member, []).append(owner)
        else:
            scan.single[name.rpartition(".")[2]] = name


def _declarations(scan: FileScan) -> None:
    """Every type and method declaration of the file, nested by byte ranges (the
    captures come in source order, outer before inner)."""
    stack: list[tuple[int, TypeDecl | MethodDecl | None, str]] = []  # (end, decl, qualname)
    for node, name in scan.captures:
        if name not in ("type", "method", "new", "constant"):
            continue
        while stack and node.start_byte >= stack[-1][0]:
            stack.pop()
        outer_type = next((d for _, d, _ in reversed(stack) if isinstance(d, TypeDecl)), None)
        prefix = next((q for _, _, q in reversed(stack) if q), "")
        if name == "type":
            _type_decl(scan, node, stack, outer_type, prefix)
        elif name == "method":
            _method_decl(scan, node, stack, outer_type, prefix)
        else:
            body = node.child_by_field_name("body") if name == "constant" else next(
                (c for c in node.named_children if c.type == "class_body"), None)
            if body is None or outer_type is None:
                continue
            base = outer_type if name == "constant" else node.child_by_field_name("type")
            anon = TypeDecl(f"{outer_type.fqn}$anon@{node.start_byte}", None, "class", body,
                            scan, outer_type, anonymous=True)
            anon.supers = [base]
            scan.decls[body.id] = anon
            stack.append((body.end_byte, anon, ""))


def _type_decl(scan: FileScan, node: Any, stack: list[tuple[int, Any, str]],
               outer: TypeDecl | None, prefix: str) -> None:
    kind = _TYPE_KINDS[node.type]
    simple = _name(node, kind)[0]
    qualname = f"{prefix}.{simple}" if prefix else simple
    written = f"java:{kind}:{scan.package}.{qualname}"
    locator = written if written in scan.entities else None  # None: not an entity
    fqn = f"{scan.package}.{qualname}" if scan.package != "(default)" else qualname
    decl = TypeDecl(fqn, locator, kind, node, scan, outer)
    decl.type_params = _type_params(node)
    for field_name in ("superclass", "interfaces"):
        child = node.child_by_field_name(field_name)
        if child is not None:
            decl.supers.extend(_type_list(child))
    for child in node.named_children:
        if child.type == "extends_interfaces":
            decl.supers.extend(_type_list(child))
    body = node.child_by_field_name("body")
    if body is not None:
        _members(decl, body)
    if outer is not None and not outer.anonymous and stack and stack[-1][1] is outer:
        outer.nested[simple] = fqn
    elif stack:
        scan.local_types.setdefault(simple, fqn)  # a local class (or one in an anonymous)
    scan.types.append(decl)
    scan.decls[node.id] = decl
    stack.append((node.end_byte, decl, qualname))


def _type_list(node: Any) -> list[Any]:
    out = []
    for child in node.named_children:
        if child.type == "type_list":
            out.extend(child.named_children)
        else:
            out.append(child)
    return out


def bounds(node: Any) -> dict[str, Any]:
    """A declaration's type variables with a bound (``T extends Foo<T>``): name -> the
    first bound's type node."""
    params = node.child_by_field_name("type_parameters")
    out: dict[str, Any] = {}
    for param in params.named_children if params is not None else ():
        bound = next((c for c in param.named_children if c.type == "type_bound"), None)
        if param.type == "type_parameter" and bound is not None and bound.named_children:
            out[text(param.named_children[0])] = bound.named_children[0]
    return out


def _type_params(node: Any) -> frozenset[str]:
    params = node.child_by_field_name("type_parameters")
    if params is None:
        return frozenset()
    return frozenset(text(p.named_children[0]) for p in params.named_children
                     if p.type == "type_parameter" and p.named_children)


def _members(decl: TypeDecl, body: Any) -> None:
    for child in body.named_children:
        if child.type in ("field_declaration", "constant_declaration"):
            typ = child.child_by_field_name("type")
            for declarator in child.children_by_field_name("declarator"):
                name = declarator.child_by_field_name("name")
                if name is not None and typ is not None:
                    decl.fields[text(name)] = (typ, declarator.child_by_field_name("dimensions"))
        elif child.type == "enum_constant":
            name = child.child_by_field_name("name")
            if name is not None:
                decl.constants.add(text(name))
        elif child.type == "enum_body_declarations":
            _members(decl, child)
    if decl.kind == "record":
        params = decl.node.child_by_field_name("parameters")
        for param in params.named_children if params is not None else ():
            name, typ = param.child_by_field_name("name"), param.child_by_field_name("type")
            if name is not None and typ is not None:
                decl.fields[text(name)] = (typ, None)


def _modifiers(node: Any) -> str:
    mods = next((c for c in node.children if c.type == "modifiers"), None)
    return text(mods) if mods is not None else ""


def _method_decl(scan: FileScan, node: Any, stack: list[tuple[int, Any, str]],
                 owner: TypeDecl | None, prefix: str) -> None:
    kind = _METHOD_KINDS[node.type]
    label = _name(node, kind)[0]
    if owner is None or not label:
        return
    qualname = f"{prefix}.{label}" if prefix else label
    written = f"java:{kind}:{scan.package}.{qualname}"
    if written not in scan.entities:
        written = _qualified_twin(scan, written, node)
    anonymous = owner.anonymous and bool(stack) and stack[-1][1] is owner
    locator = None if anonymous or written not in scan.entities else written
    params: list[Any] = []
    varargs = False
    plist = node.child_by_field_name("parameters")
    for param in plist.named_children if plist is not None else ():
        if param.type == "formal_parameter":
            typ = param.child_by_field_name("type")
            dims = param.child_by_field_name("dimensions")
            params.append((typ, dims))
        elif param.type == "spread_parameter":
            typ = next((c for c in param.named_children
                        if c.type not in ("modifiers", "variable_declarator")), None)
            params.append((typ, None))
            varargs = True
    mods = _modifiers(node)
    name = "<init>" if kind == "constructor" else label.partition("(")[0]
    erased = tuple(label.partition("(")[2].rstrip(")").split(",")) if params else ()
    method = MethodDecl(locator, name, owner, node, params, varargs,
                        node.child_by_field_name("type"), "static" in mods.split(),
                        "private" in mods.split(), _type_params(node), erased)
    if kind == "constructor":
        if stack and stack[-1][1] is owner:
            owner.ctors.append(method)
    elif stack and stack[-1][1] is owner:
        owner.methods.setdefault(name, []).append(method)
    scan.decls[node.id] = method
    stack.append((node.end_byte, method, qualname if locator or not anonymous else ""))


def _qualified_twin(scan: FileScan, written: str, node: Any) -> str:
    """An overload whose parameter types share simple names with a sibling's is named with
    the differing types qualified (``java.read``): the entity of its name ending on its
    last line; else ``written``."""
    head = written.partition("(")[0] + "("
    last = node.end_point[0] + 1
    return next((locator for locator, (_, _, end) in scan.entities.items()
                 if locator.startswith(head) and end == last), written)
