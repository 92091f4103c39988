"""Pass 1 of Go's built-in edges: what one ``.go`` file declares and uses.

One tree-sitter query (``queries/go_edges.scm``) finds the identifiers, type names,
qualified types and selectors; each is classified by its parent (a declaration, a use, a
selector's operand, a struct literal's key). The top-level declarations (functions,
methods, type specs; ``var``/``const``/``import`` belong to the package entity) are the
file's root children, read directly. Nothing here resolves a name across files:
``go_resolve`` does, over every file of the commit.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from warpline.lang.entities import MODULE_KEY, EntityKey
from warpline.lang.golang import definition_name
from warpline.lang.tsdefs import load_query

__all__ = ["FileScan", "Local", "TopDecl", "scan_file"]

_PARAMS = ("parameter_declaration", "variadic_parameter_declaration")
_SPEC_KINDS = {"struct_type": "struct", "interface_type": "interface"}


@lru_cache(maxsize=1)
def _grammar() -> tuple[Any, Any]:
    import tree_sitter
    import tree_sitter_go

    language = tree_sitter.Language(tree_sitter_go.language())
    return tree_sitter.Parser(language), load_query(language, "go_edges.scm")


@dataclass(frozen=True, slots=True)
class Local:
    """A name declared inside a declaration: how its type can be found.

    ``how``: ``param`` (``typ`` is the declared type node; ``variadic``: a slice of it),
    ``value`` (``value`` is the expression list assigned, ``index`` this name's position;
    ``typ`` a declared type if any), ``range`` (an element of ``value``), ``type`` (a type
    parameter), ``switch`` (a type switch's alias: ``value`` is the switch, its type the
    one type of the clause a use is in), ``opaque`` (a receive). ``start``: where its scope
    begins (after its statement for ``:=``, ``var`` and ``range``)."""

    how: str
    start: int
    typ: Any = None
    value: Any = None
    index: int = 0
    variadic: bool = False


@dataclass(slots=True)
class TopDecl:
    """A top-level declaration: its entity key, its node and the names declared inside."""

    key: EntityKey
    node: Any
    start: int
    end: int
    kind: str = ""  # function | method | struct | interface | type | module
    locals: dict[str, list[Local]] = field(default_factory=dict)

    def local_type(self, name: str, at: int) -> bool:
        """Whether ``name`` is a type parameter here (a value never shadows a type name
        where a type is written)."""
        found = self.local(name, at)
        return found is not None and found.how == "type"

    def local(self, name: str, at: int) -> Local | None:
        """The latest declaration of ``name`` before byte ``at`` (block scopes are not
        followed: a name declared in an earlier sibling block still counts)."""
        found = None
        for decl in self.locals.get(name, ()):
            if decl.start <= at and (decl.how != "switch"
                                     or decl.value.start_byte <= at < decl.value.end_byte):
                found = decl  # a type switch's alias: only inside its switch
        return found


@dataclass(slots=True)
class FileScan:
    """One file: its package clause, imports, top-level declarations and the captures."""

    path: str
    package: str
    imports: dict[str, str]  # local name -> import path ("." imports under ".")
    decls: list[TopDecl]
    uses: list[Any] = field(default_factory=list)  # identifiers used as values
    types: list[Any] = field(default_factory=list)  # type_identifier nodes
    qualified: list[Any] = field(default_factory=list)  # pkg.Type nodes
    selectors: list[Any] = field(default_factory=list)
    globals: dict[str, Local] = field(default_factory=dict)  # package-level var/const
    root: Any = None  # the parsed tree's root node
    _starts: list[int] = field(default_factory=list)

    @property
    def external_test(self) -> bool:
        return self.package.endswith("_test") and self.path.endswith("_test.go")

    def owner(self, at: int) -> TopDecl | None:
        """The top-level declaration holding byte ``at`` (None: outside every one)."""
        index = bisect_right(self._starts, at) - 1
        if index >= 0 and at < self.decls[index].end:
            return self.decls[index]
        return None


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def _string(node: Any) -> str:
    text = _text(node)
    return text[1:-1] if len(text) >= 2 else text


def _imports(node: Any, out: dict[str, str]) -> None:
    path_node = node.child_by_field_name("path")
    if path_node is None:
        return
    path = _string(path_node)
    name_node = node.child_by_field_name("name")
    if name_node is not None:
        name = _text(name_node)
        if name != "_":
            out[name] = path
        return
    parts = [p for p in path.split("/") if p]
    # `.../v3` is the package of the directory above it; `go-md2man` names `md2man`.
    while len(parts) > 1 and parts[-1][:1] == "v" and parts[-1][1:].isdigit():
        parts.pop()
    if parts:
        out[parts[-1].removeprefix("go-").replace("-", "_").removesuffix(".go")] = path


def _top_decls(root: Any) -> list[TopDecl]:
    decls: list[TopDecl] = []
    for child in root.named_children:
        kind = child.type
        if kind in ("function_declaration", "method_declaration"):
            short = "method" if kind == "method_declaration" else "function"
            name = definition_name(child, short)
            key = ("function", name) if name else MODULE_KEY
            decls.append(TopDecl(key, child, child.start_byte, child.end_byte, short))
        elif kind == "type_declaration":
            for spec in child.named_children:
                if spec.type not in ("type_spec", "type_alias"):
                    continue
                typ = spec.child_by_field_name("type")
                spec_kind = "type" if spec.type == "type_alias" or typ is None \
                    else _SPEC_KINDS.get(typ.type, "type")
                name = definition_name(spec, spec_kind)
                key = (spec_kind, name) if name else MODULE_KEY
                # A lone spec's declaration (`type X …`) is the definition.
                outer = child if len(child.named_children) == 1 else spec
                decls.append(TopDecl(key, spec, outer.start_byte, outer.end_byte, spec_kind))
        elif kind in ("var_declaration", "const_declaration"):
            # The package's own lines; a function literal in an initializer has locals.
            decls.append(TopDecl(MODULE_KEY, child, child.start_byte, child.end_byte, "module"))
    return decls


def _declaration(node: Any) -> Local | bool | None:
    """What an identifier is by its parent: a ``Local`` it declares, False for a name
    that is neither a declaration nor a value use (a declared func's name, a struct
    literal's key), None for a use (a selector's operand too: it may name an import)."""
    parent = node.parent
    kind = parent.type
    if kind in _PARAMS:
        return Local("param", node.start_byte, parent.child_by_field_name("type"),
                     variadic=kind == "variadic_parameter_declaration")
    if kind == "expression_list":
        owner = parent.parent
        if owner is None or owner.child_by_field_name("left") != parent:
            if owner is not None and owner.type == "type_switch_statement" \
                    and owner.child_by_field_name("alias") == parent:
                header = owner.child_by_field_name("value") or parent
                return Local("switch", header.end_byte, value=owner)
            return None
        index = parent.named_children.index(node)
        if owner.type == "short_var_declaration":
            # In scope after the statement: `x, err := x.Open()` reads the outer `x`.
            return Local("value", owner.end_byte, value=owner.child_by_field_name("right"),
                         index=index)
        if owner.type == "range_clause":
            return Local("range", owner.end_byte, value=owner.child_by_field_name("right"),
                         index=index)
        if owner.type == "receive_statement":
            return Local("opaque", node.start_byte)
        return None  # an assignment's left side uses the names
    if kind in ("var_spec", "const_spec"):
        if node not in parent.children_by_field_name("name"):
            return None
        index = parent.children_by_field_name("name").index(node)
        return Local("value", parent.end_byte, parent.child_by_field_name("type"),
                     parent.child_by_field_name("value"), index)
    if kind == "type_parameter_declaration":
        return Local("type", node.start_byte)
    if kind in ("function_declaration", "method_declaration", "method_elem",
                "labeled_statement"):
        return False
    if kind == "literal_element":
        keyed = parent.parent
        if keyed is not None and keyed.type == "keyed_element" and keyed.named_children \
                and keyed.named_children[0] == parent and not _map_literal(keyed):
            return False  # a field name in a struct literal
    return None


def _map_literal(keyed: Any) -> bool:
    """Whether a keyed element's literal is a map's (its keys are values, not fields)."""
    body = keyed.parent
    literal = body.parent if body is not None else None
    while literal is not None and literal.type == "literal_element":
        # `[]map[K]V{{k: v}}`: the element type of the outer literal decides.
        outer = literal.parent.parent if literal.parent is not None else None
        if outer is None or outer.type != "composite_literal":
            return False
        typ = outer.child_by_field_name("type")
        while typ is not None and typ.type in ("slice_type", "array_type",
                                               "implicit_length_array_type", "map_type"):
            typ = typ.child_by_field_name("element") if typ.type != "map_type" \
                else typ.child_by_field_name("value")
            if typ is not None and typ.type == "map_type":
                return True
        return False
    if literal is None or literal.type != "composite_literal":
        return False
    typ = literal.child_by_field_name("type")
    return typ is not None and typ.type == "map_type"


def _top_level(node: Any) -> bool:
    """A package-level ``var``/``const`` name (not one inside a function literal)."""
    spec = node.parent
    decl = spec.parent if spec is not None else None
    if decl is not None and decl.type in ("var_spec_list", "const_spec_list"):
        decl = decl.parent
    return decl is not None and decl.parent is not None and decl.parent.type == "source_file"


def scan_file(path: str, source: bytes) -> FileScan | None:
    """The scan of one file; None when it has no package clause (not Go we can read)."""
    parser, query = _grammar()
    import tree_sitter

    tree = parser.parse(source)
    captures = tree_sitter.QueryCursor(query).captures(tree.root_node)
    packages = captures.get("package", [])
    if not packages:
        return None
    imports: dict[str, str] = {}
    for node in captures.get("import", []):
        _imports(node, imports)
    decls = _top_decls(tree.root_node)
    decls.sort(key=lambda d: d.start)
    scan = FileScan(path, _text(packages[0]), imports, decls, root=tree.root_node,
                    _starts=[d.start for d in decls])
    for node in sorted(captures.get("id", []), key=lambda n: n.start_byte):
        what = _declaration(node)
        if what is None:
            scan.uses.append(node)
        elif isinstance(what, Local) and node.text != b"_":
            owner = scan.owner(node.start_byte)
            if _top_level(node):
                scan.globals[_text(node)] = what
            elif owner is not None:
                owner.locals.setdefault(_text(node), []).append(what)
    scan.types = captures.get("type", [])
    scan.qualified = captures.get("qualified", [])
    scan.selectors = captures.get("selector", [])
    return scan
