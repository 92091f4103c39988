"""One TypeScript/JavaScript file's facts for the built-in edges: its definitions (the
``ts:`` locators warpline's reader gives), what its names are bound to, what it exports,
and every use of a name inside a definition, found by a tree-sitter query
(``lang/queries/*_refs.scm``) and resolved by scope here.

A name is looked up from the use outwards: the parameters and declarations of each
enclosing function, then the file's top level (its definitions, imports and
``require`` bindings). A name bound to nothing in the file is a global or a library's:
no edge. What a binding points into another file (an import) is resolved across files
by ``script_resolve``.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass, field
from typing import Any

from warpline.graph.model import EdgeKind
from warpline.lang import Language
from warpline.lang.entities import FileEntities
from warpline.lang.script import definition_bytes, grammar
from warpline.lang.scriptnames import unwrap

__all__ = ["Binding", "FileScan", "Use", "scan_file"]

# A binding: ("qual", qualname) a named place of this file (a definition or a naming
# scope: its members are ``qualname.m``); ("import", specifier, name) an imported name
# (``default`` for a default import); ("ns", specifier) a module object (``import * as``;
# ``require``: ("require", specifier), whose value is the module's default export);
# ("ret", function name or "", *binding) the value a call returns (``f()``: the binding
# of f; ``x.f()``: f and x's binding), typed by the callee's declared return type;
# ("var", type name or "") a local value, of a class or interface named by
# its annotation or ``new``.
Binding = tuple[str, ...]

_SCOPES = frozenset({"function_declaration", "function_expression", "arrow_function",
                     "method_definition", "generator_function",
                     "generator_function_declaration", "program"})
_DEFINING = frozenset({"arrow_function", "function_expression", "generator_function",
                       "class"})
_SKIP_PARENTS = frozenset({"import_specifier", "export_specifier", "namespace_import",
                           "import_clause", "namespace_export", "labeled_statement",
                           "break_statement", "continue_statement", "pair_pattern"})


@dataclass(frozen=True, slots=True)
class Use:
    """A use of a name inside the definition ``owner`` (a qualname, "" the module; its
    ``kind``-qualified key is ``source``, None for the module):
    ``calls`` or ``references``; ``target`` a binding, or for a member ``obj.m`` the
    object's binding and ``member`` (``this``: the binding ("this",))."""

    owner: str
    source: tuple[str, str] | None
    kind: EdgeKind
    target: Binding
    member: str = ""
    value: bool = True  # a value's use (not a type's): never an interface or type alias


@dataclass(slots=True)
class FileScan:
    """What one file's scan found: its definitions' locators by qualname, the names its
    top level binds, its exports (``export *`` specifiers apart), the uses inside its
    definitions, and what resolving a member needs (fields' types, statics, aliases)."""

    path: str
    module: str
    lang: Language
    entities: FileEntities
    locators: dict[str, str] = field(default_factory=dict)  # qualname -> locator
    top: dict[str, Binding] = field(default_factory=dict)
    exports: dict[str, Binding] = field(default_factory=dict)
    stars: list[str] = field(default_factory=list)  # export * from …
    uses: list[Use] = field(default_factory=list)
    specifiers: list[str] = field(default_factory=list)  # every import/require source
    fields: dict[str, str] = field(default_factory=dict)  # class field qualname -> its type
    statics: set[str] = field(default_factory=set)  # static methods' qualnames
    # type X = Y or G<Y, …> (Partial, Pick, Except…): X's members are Y's (a mapped type
    # keeps its properties' declarations)
    aliases: dict[str, str] = field(default_factory=dict)
    returns: dict[str, str] = field(default_factory=dict)  # qualname -> declared return type


def _text(node: Any) -> str:
    return str(node.text.decode("utf-8", "replace"))


def _string(node: Any) -> str:
    return "".join(_text(c) for c in node.named_children if c.type == "string_fragment")


def _scope_of(node: Any) -> Any:
    node = node.parent
    while node is not None and node.type not in _SCOPES:
        node = node.parent
    return node


def _base(qualname: str) -> str:
    last = qualname.rpartition(".")[2]
    return last.partition("~")[0]


class _Scanner:
    def __init__(self, scan: FileScan, root: Any, source: bytes) -> None:
        self.scan = scan
        self.root = root
        self.scopes: dict[int, dict[str, Binding]] = {}
        entities = [e for e in scan.entities.entities if e.qualname]
        self.spans = [(e.spans, e.qualname) for e in entities]
        # the innermost definition of each byte (0: the module), painted outside in
        self.names: list[tuple[str, str] | None] = [None]
        self.owners = array("i", bytes(4 * (len(source) + 1)))
        for start, end, key in definition_bytes(source, scan.path):
            self.names.append(key)
            index = len(self.names) - 1
            self.owners[start:end] = array("i", [index]) * (end - start)

    def entity_at(self, line: int, name: str) -> str | None:
        """The innermost definition named ``name`` whose span holds ``line``."""
        best: tuple[int, str] | None = None
        for spans, qualname in self.spans:
            if _base(qualname) != name:
                continue
            for first, last in spans:
                if first <= line <= last and (best is None or last - first < best[0]):
                    best = (last - first, qualname)
        return best[1] if best else None

    def owner(self, line: int) -> str:
        return self.scan.entities.owner_of_line(line).qualname

    def owner_at(self, node: Any) -> tuple[str, tuple[str, str] | None]:
        """The innermost definition holding ``node``: its qualname and key (by bytes: a
        call on the line a named callback starts is not the callback's)."""
        at = min(int(node.start_byte), len(self.owners) - 1)
        key = self.names[self.owners[at]]
        return (key[1] if key else "", key)

    def bind(self, scope: Any, name: str, binding: Binding) -> None:
        table = self.scopes.setdefault(scope.id if scope is not None else self.root.id, {})
        table.setdefault(name, binding)

    def lookup(self, node: Any, name: str) -> Binding | None:
        scope = _scope_of(node)
        while scope is not None:
            found = self.scopes.get(scope.id, {}).get(name)
            if found is not None:
                return found
            scope = _scope_of(scope)
        return self.scopes.get(self.root.id, {}).get(name)


def _type_name(annotation: Any) -> str:
    """The class or interface a type annotation names (``Foo``, ``Foo<T>``), else ""."""
    if annotation is None:
        return ""
    for child in annotation.named_children:
        if child.type == "type_identifier":
            return _text(child)
        if child.type == "generic_type":
            name = child.child_by_field_name("name")
            return _text(name) if name is not None and name.type == "type_identifier" else ""
    return ""


def _require(value: Any) -> str | None:
    """``require('x')``'s specifier."""
    value = unwrap(value)
    if value is None or value.type != "call_expression":
        return None
    fn, args = value.child_by_field_name("function"), value.child_by_field_name("arguments")
    if fn is None or fn.type != "identifier" or _text(fn) != "require" or args is None:
        return None
    first = args.named_children[0] if args.named_children else None
    return _string(first) if first is not None and first.type == "string" else None


def scan_file(path: str, module: str, lang: Language, entities: FileEntities,
              source: bytes, dialect: str) -> FileScan:
    parser, query = grammar(dialect, "_refs")
    import tree_sitter

    tree = parser.parse(source)
    scan = FileScan(path, module, lang, entities)
    for entity in entities.entities:
        if entity.qualname:
            scan.locators.setdefault(entity.qualname,
                                     lang.locator(entity.key, module))
    s = _Scanner(scan, tree.root_node, source)
    captures = tree_sitter.QueryCursor(query).captures(tree.root_node)
    declared: set[int] = set()
    for node in captures.get("fname", []):
        declared.add(node.id)
        definition = node.parent
        if definition is None:
            continue
        line = definition.start_point[0] + 1
        qual = s.entity_at(line, _text(node))
        s.bind(_scope_of(definition), _text(node), ("qual", qual) if qual else ("var", ""))
    for node in captures.get("param", []):
        declared.add(node.id)
        holder = node.parent
        annotation = holder.child_by_field_name("type") if holder is not None else None
        s.bind(_scope_of(node), _text(node), ("var", _type_name(annotation)))
    for node in captures.get("decl", []):
        declared.add(node.id)
        _declare(s, node)
    for node in captures.get("import", []):
        _import(s, node.parent, _string(node))
    for node in captures.get("reexport", []):
        _reexport(scan, node.parent, _string(node))
    _local_exports(s, tree.root_node)
    for node in captures.get("ident", []):
        if node.id in declared or (node.parent is not None
                                   and node.parent.type in _SKIP_PARENTS):
            continue
        parent = node.parent
        if parent is not None and parent.type in ("variable_declarator", "pair") and \
                parent.child_by_field_name("name" if parent.type != "pair" else "key") == node:
            continue
        binding = s.lookup(node, _text(node))
        if binding is None or binding[0] == "ns":
            continue
        scan.uses.append(Use(*s.owner_at(node), _kind(node), binding,
                             value=node.type != "type_identifier"))
    for node in captures.get("alias", []):
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        base = value
        if value is not None and value.type == "generic_type":
            args = value.child_by_field_name("type_arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            base = first if first is not None and first.type == "type_identifier" else None
        if name is not None and base is not None and base.type == "type_identifier":
            scan.aliases[_text(name)] = _text(base)
    for node in captures.get("callable", []):
        typed = _type_name(node.child_by_field_name("return_type")) or _jsdoc_return(node)
        if typed:
            qualname, _ = s.owner_at(node)
            if qualname:
                scan.returns[qualname] = typed
    for node in captures.get("retmember", []):
        prop = node.child_by_field_name("property")
        binding = _returned(s, node.child_by_field_name("object"))
        if prop is not None and binding is not None:
            owner, key = s.owner_at(node)
            scan.uses.append(Use(owner, key, _kind(node), binding, _text(prop)))
    for node in captures.get("static", []):
        found = s.entity_at(node.start_point[0] + 1, _text(node))
        if found is not None:
            scan.statics.add(found)
    for node in captures.get("field", []):
        name = node.child_by_field_name("name") or node.child_by_field_name("property")
        typed = _type_name(node.child_by_field_name("type"))
        if name is not None and typed:
            owner = s.owner(node.start_point[0] + 1)
            scan.fields[f"{owner}.{_text(name)}" if owner else _text(name)] = typed
    for node in captures.get("member", []):
        obj = node.child_by_field_name("object")
        prop = node.child_by_field_name("property")
        if obj is None or prop is None:
            continue
        if obj.type == "member_expression":  # this.a.b: b of a's declared type
            inner = obj.child_by_field_name("property")
            binding = ("thisfield", _text(inner)) if inner is not None else ("var", "")
        else:
            binding = ("this",) if obj.type == "this" else s.lookup(obj, _text(obj))
        owner, key = s.owner_at(node)
        if binding is None:
            binding = ("var", "")
        scan.uses.append(Use(owner, key, _kind(node), binding, _text(prop)))
    scan.top = s.scopes.get(tree.root_node.id, {})
    return scan


_RETURN = re.compile(r"@returns?\s*\{\s*([A-Za-z_$][\w$]*)\s*\}")


def _jsdoc_return(node: Any) -> str:
    """The type a JSDoc block right above ``node`` says it returns (``@return {X}``)."""
    above = node.prev_sibling
    if above is None or above.type != "comment":
        return ""
    found = _RETURN.search(_text(above))
    return found.group(1) if found else ""


def _returned(s: _Scanner, call: Any) -> Binding | None:
    """The binding of the value ``call`` returns: ``f()``, ``x.f()``, ``this.f()``."""
    fn = call.child_by_field_name("function") if call is not None else None
    if fn is None:
        return None
    if fn.type == "identifier":
        inner = s.lookup(fn, _text(fn))
        return ("ret", "", *inner) if inner is not None and inner[0] != "ret" else None
    obj, prop = fn.child_by_field_name("object"), fn.child_by_field_name("property")
    if obj is None or prop is None:
        return None
    inner = ("this",) if obj.type == "this" else s.lookup(obj, _text(obj))
    if inner is None:
        return None
    return ("ret", _text(prop), *inner)


def _kind(node: Any) -> EdgeKind:
    parent = node.parent
    if parent is not None and (
            (parent.type == "call_expression" and parent.child_by_field_name("function") == node)
            or (parent.type == "new_expression"
                and parent.child_by_field_name("constructor") == node)):
        return "calls"
    return "references"


def _declare(s: _Scanner, node: Any) -> None:
    declarator = node
    while declarator is not None and declarator.type != "variable_declarator":
        declarator = declarator.parent
    if declarator is None:
        return
    name = _text(node)
    scope = _scope_of(declarator)
    value = declarator.child_by_field_name("value")
    spec = _require(value) if value is not None else None
    if declarator.child_by_field_name("name") != node:  # destructured: const { a } = …
        key = node.parent.child_by_field_name("key") if node.parent.type == "pair_pattern" \
            else node
        if spec:
            s.bind(scope, name, ("import", spec, _text(key)))
        elif value is not None and value.type == "this":  # const { a } = this
            s.bind(scope, name, ("thisfield", _text(key)))
        else:
            s.bind(scope, name, ("var", ""))
        return
    if spec is not None:
        s.bind(scope, name, ("require", spec))
        return
    inner = unwrap(value) if value is not None else None
    if inner is not None and inner.type == "member_expression":  # require('x').name
        obj, prop = inner.child_by_field_name("object"), inner.child_by_field_name("property")
        spec = _require(obj) if obj is not None else None
        if spec is not None and prop is not None:
            s.bind(scope, name, ("import", spec, _text(prop)))
            return
    line = declarator.start_point[0] + 1
    if inner is not None and inner.type == "member_expression" and \
            declarator.child_by_field_name("type") is None:
        obj, prop = inner.child_by_field_name("object"), inner.child_by_field_name("property")
        if obj is not None and obj.type == "this" and prop is not None:  # const a = this.a
            s.bind(scope, name, ("thisfield", _text(prop)))
            return
    if inner is not None and inner.type in _DEFINING:
        qual = s.entity_at(line, name)
        s.bind(scope, name, ("qual", qual) if qual else ("var", ""))
        return
    if inner is not None and inner.type == "object":
        owner = s.owner(line)
        s.bind(scope, name, ("qual", f"{owner}.{name}" if owner else name))
        return
    if inner is not None and inner.type == "call_expression" and \
            declarator.child_by_field_name("type") is None:
        returned = _returned(s, inner)  # const dt = DateTime.fromObject(…)
        if returned is not None:
            s.bind(scope, name, returned)
            return
    if inner is not None and inner.type == "new_expression":
        ctor = inner.child_by_field_name("constructor")
        s.bind(scope, name, ("var", _text(ctor) if ctor is not None and
                             ctor.type == "identifier" else ""))
        return
    s.bind(scope, name, ("var", _type_name(declarator.child_by_field_name("type"))))


def _import(s: _Scanner, statement: Any, spec: str) -> None:
    s.scan.specifiers.append(spec)
    for clause in statement.named_children:
        if clause.type != "import_clause":
            continue
        for part in clause.named_children:
            if part.type == "identifier":
                s.bind(None, _text(part), ("import", spec, "default"))
            elif part.type == "namespace_import":
                ident = part.named_children[-1] if part.named_children else None
                if ident is not None:
                    s.bind(None, _text(ident), ("ns", spec))
            elif part.type == "named_imports":
                for item in part.named_children:
                    if item.type != "import_specifier":
                        continue
                    name, alias = item.child_by_field_name("name"), \
                        item.child_by_field_name("alias")
                    if name is not None:
                        s.bind(None, _text(alias or name), ("import", spec, _text(name)))


def _reexport(scan: FileScan, statement: Any, spec: str) -> None:
    scan.specifiers.append(spec)
    clause = next((c for c in statement.named_children if c.type == "export_clause"), None)
    space = next((c for c in statement.named_children if c.type == "namespace_export"), None)
    if clause is None and space is None:
        scan.stars.append(spec)
        return
    if space is not None:
        ident = space.named_children[-1] if space.named_children else None
        if ident is not None:
            scan.exports.setdefault(_text(ident), ("ns", spec))
        return
    assert clause is not None
    for item in clause.named_children:
        name, alias = item.child_by_field_name("name"), item.child_by_field_name("alias")
        if name is not None:
            scan.exports.setdefault(_text(alias or name), ("import", spec, _text(name)))


def _local_exports(s: _Scanner, root: Any) -> None:
    """Top-level definitions by name, ``export { a as b }``, ``export default x`` and
    ``module.exports = x``."""
    scan = s.scan
    for qualname in scan.locators:
        if "." not in qualname and "~" not in qualname:
            scan.exports.setdefault(qualname, ("qual", qualname))
    for statement in root.named_children:
        if statement.type == "export_statement":
            value = statement.child_by_field_name("value")
            if value is not None and value.type == "identifier":
                found = s.lookup(value, _text(value))
                if found is not None:
                    scan.exports["default"] = found
            declaration = statement.child_by_field_name("declaration")
            if declaration is not None and any(c.type == "default" for c in statement.children):
                name = declaration.child_by_field_name("name")
                if name is not None and _text(name) in scan.locators:
                    scan.exports["default"] = ("qual", _text(name))
            for clause in statement.named_children:
                if clause.type == "export_clause" and statement.child_by_field_name(
                        "source") is None:
                    for item in clause.named_children:
                        name, alias = item.child_by_field_name("name"), \
                            item.child_by_field_name("alias")
                        if name is None:
                            continue
                        found = s.lookup(name, _text(name))
                        if found is not None:
                            scan.exports[_text(alias or name)] = found
        elif statement.type == "expression_statement" and statement.named_children:
            expr = statement.named_children[0]
            if expr.type != "assignment_expression":
                continue
            left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
            if left is None or right is None or "".join(_text(left).split()) not in (
                    "module.exports", "exports"):
                continue
            right = unwrap(right)
            if right is not None and right.type == "identifier":
                found = s.lookup(right, _text(right))
                if found is not None:
                    scan.exports["default"] = found
            spec = _require(right)
            if spec is not None:
                scan.stars.append(spec)
