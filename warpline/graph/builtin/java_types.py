"""Java's types for the built-in edges: every type the repository declares, by fully
qualified name, and the names a file's code can mean (Java's own scoping, simplified).

A type is a string: ``R:org.demo.Foo`` (declared in the repository), ``P:int`` (a
primitive), ``X:String`` (outside the repository, by its simple name), ``V:T`` (a type
variable), ``N`` (the null type), each with ``[]`` per array dimension; None is unknown.

A simple type name is looked up as javac does, in order: type variables in scope, member
types of the enclosing classes (inherited ones too), local classes, single-type imports,
the file's own package, on-demand imports (``p.*``, also a type's members); anything else is
outside the repository.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from warpline.graph.builtin.java_scan import FileScan, MethodDecl, TypeDecl, text

__all__ = ["Context", "TypeTable", "element_of", "plain"]

_PRIMITIVES = frozenset({"int", "long", "short", "byte", "char", "boolean", "float",
                         "double", "void"})
# Supertypes of a few library types code passes around most (the JDK's own).
_KNOWN_SUPERS: dict[str, tuple[str, ...]] = {
    "String": ("CharSequence", "Comparable", "Serializable", "Object"),
    "RuntimeException": ("Exception", "Throwable", "Serializable", "Object"),
    "Exception": ("Throwable", "Serializable", "Object"),
    "Error": ("Throwable", "Serializable", "Object"),
    "AssertionError": ("Error", "Throwable", "Serializable", "Object"),
    "Throwable": ("Serializable", "Object"),
    "IllegalArgumentException": ("RuntimeException", "Exception", "Throwable", "Object"),
    "IllegalStateException": ("RuntimeException", "Exception", "Throwable", "Object"),
    "Integer": ("Number", "Comparable", "Serializable", "Object"),
    "Long": ("Number", "Comparable", "Serializable", "Object"),
    "Double": ("Number", "Comparable", "Serializable", "Object"),
    "Float": ("Number", "Comparable", "Serializable", "Object"),
    "Short": ("Number", "Comparable", "Serializable", "Object"),
    "Byte": ("Number", "Comparable", "Serializable", "Object"),
    "Number": ("Serializable", "Object"),
    "Boolean": ("Comparable", "Serializable", "Object"),
    "Character": ("Comparable", "Serializable", "Object"),
    "ArrayList": ("List", "Collection", "Iterable", "Object"),
    "List": ("Collection", "Iterable", "Object"),
    "Set": ("Collection", "Iterable", "Object"),
    "HashMap": ("Map", "Object"),
    "Class": ("Object", "Type", "AnnotatedElement"),
    "Method": ("Executable", "AccessibleObject", "Member", "AnnotatedElement", "Object"),
    "Field": ("AccessibleObject", "Member", "AnnotatedElement", "Object"),
    "Object": (),
}


_CONTAINERS = frozenset({
    "List", "ArrayList", "LinkedList", "Collection", "Set", "HashSet", "LinkedHashSet",
    "TreeSet", "SortedSet", "Iterable", "Iterator", "ListIterator", "Optional", "Queue",
    "Deque", "ArrayDeque", "Stack", "Vector", "CopyOnWriteArrayList", "Enumeration",
    "Future", "AtomicReference", "ThreadLocal", "Supplier", "Callable"})
_MAPS = frozenset({"Map", "HashMap", "LinkedHashMap", "TreeMap", "ConcurrentHashMap",
                   "SortedMap", "ConcurrentMap"})


class Context:
    """Where a name is read: a file, the innermost type around it, and the type variables
    of the methods around it."""
    __slots__ = ("decl", "file", "tvars")

    def __init__(self, file: FileScan, decl: TypeDecl | None,
                 tvars: frozenset[str] = frozenset()) -> None:
        self.file, self.decl, self.tvars = file, decl, tvars


class TypeTable:
    def __init__(self, files: list[FileScan]) -> None:
        self.types: dict[str, TypeDecl] = {}
        for scan in files:
            for decl in scan.types:
                self.types.setdefault(decl.fqn, decl)
        self._supers: dict[int, list[str]] = {}
        self._simple: dict[tuple[int, int, frozenset[str], str], str | None] = {}

    # -- names -----------------------------------------------------------------------
    def simple(self, name: str, ctx: Context) -> str:
        key = (id(ctx.file), id(ctx.decl), ctx.tvars, name)
        found = self._simple.get(key)
        if found is None:
            found = self._simple[key] = self._lookup(name, ctx)
        return found

    def _lookup(self, name: str, ctx: Context) -> str:
        if name in ctx.tvars:
            return f"V:{name}"
        decl = ctx.decl
        while decl is not None:
            if name in decl.type_params:
                return f"V:{name}"
            member = self.member_type(decl, name)
            if member is not None:
                return f"R:{member}"
            decl = decl.outer
        scan = ctx.file
        local = scan.local_types.get(name)
        if local is not None and local in self.types:
            return f"R:{local}"
        imported = scan.single.get(name)
        if imported is not None:  # a single-type import shadows the package's own
            return f"R:{imported}" if imported in self.types else f"X:{name}"
        own = f"{scan.package}.{name}" if scan.package != "(default)" else name
        if own in self.types:
            return f"R:{own}"
        for prefix in scan.on_demand:
            if f"{prefix}.{name}" in self.types:
                return f"R:{prefix}.{name}"
        return f"X:{name}"

    def member_type(self, decl: TypeDecl, name: str) -> str | None:
        for owner in self.hierarchy(decl):
            found = owner.nested.get(name)
            if found is not None:
                return found
        return None

    def qualified(self, parts: list[str], ctx: Context) -> str:
        """``a.b.C`` or ``Outer.Inner``: the first part as a type in scope, then members;
        else the longest package-qualified prefix the repository declares."""
        head = self.simple(parts[0], ctx)
        if head.startswith("R:"):
            fqn: str | None = head[2:]
            for part in parts[1:]:
                decl = self.types.get(fqn) if fqn else None
                fqn = self.member_type(decl, part) if decl is not None else None
            if fqn is not None:
                return f"R:{fqn}"
        for cut in range(len(parts), 0, -1):
            fqn = ".".join(parts[:cut])
            if fqn in self.types:
                for part in parts[cut:]:
                    decl = self.types.get(fqn) if fqn else None
                    member = self.member_type(decl, part) if decl is not None else None
                    if member is None:
                        return f"X:{parts[-1]}"
                    fqn = member
                return f"R:{fqn}"
        return f"X:{parts[-1]}"

    def of_node(self, node: Any, ctx: Context, dims: Any = None) -> str | None:
        """The type a type node names (``dims``: a declarator's extra ``[]``)."""
        found = self._of_node(node, ctx) if node is not None else None
        if found is not None and dims is not None:
            found = found.partition("|")[0] + "[]" * text(dims).count("[")
        return found

    def _element(self, base: str, node: Any, ctx: Context) -> str:
        """A library container of a repository type keeps its element's type:
        ``List<Failure>`` -> ``X:List|R:org.junit.runner.notification.Failure`` (``get``,
        ``next``, ``iterator`` … give it back); any other generic type is its base."""
        name = base[2:] if base.startswith("X:") else ""
        arguments = next((c for c in node.named_children if c.type == "type_arguments"), None)
        found = [c for c in arguments.named_children] if arguments is not None else []
        wanted = 0 if name in _CONTAINERS and len(found) == 1 else \
            1 if name in _MAPS and len(found) == 2 else None
        if wanted is None:
            return base
        argument = found[wanted]
        if argument.type == "wildcard":  # `? extends Foo`: a Foo comes out
            bound = argument.named_children[-1] if argument.named_children else None
            if bound is None or "super" in text(argument):
                return base
            argument = bound
        element = self._of_node(argument, ctx)
        if element is None or not element.startswith("R:") or element.endswith("[]"):
            return base
        return f"{base}|{plain(element)}"

    def _of_node(self, node: Any, ctx: Context) -> str | None:
        kind = node.type
        if kind in ("integral_type", "floating_point_type", "boolean_type", "void_type"):
            return f"P:{text(node)}"
        if kind == "type_identifier":
            name = text(node)
            return None if name == "var" else self.simple(name, ctx)
        if kind in ("scoped_type_identifier", "scoped_identifier"):
            return self.qualified(_parts(node), ctx)
        if kind == "generic_type":
            base = next((c for c in node.named_children if c.type != "type_arguments"), None)
            found = self._of_node(base, ctx) if base is not None else None
            return self._element(found, node, ctx) if found else found
        if kind == "array_type":
            element = plain(self._of_node(node.child_by_field_name("element"), ctx))
            dims = node.child_by_field_name("dimensions")
            return None if element is None else \
                element + "[]" * (text(dims).count("[") if dims is not None else 1)
        if kind == "annotated_type":
            return self._of_node(node.named_children[-1], ctx)
        if kind == "identifier":
            return self.simple(text(node), ctx)
        return None

    # -- hierarchy -------------------------------------------------------------------
    def supers(self, decl: TypeDecl) -> list[str]:
        """The direct supertypes, resolved where the class header is read."""
        found = self._supers.get(id(decl))
        if found is None:
            self._supers[id(decl)] = []  # a cycle (bad code) ends here
            ctx = Context(decl.file, decl.outer, decl.type_params)
            found = [t for t in (f"R:{n.fqn}" if isinstance(n, TypeDecl) else
                                 self.of_node(n, ctx) for n in decl.supers) if t]
            if decl.kind == "enum":
                found.append("X:Enum")
            self._supers[id(decl)] = found
        return found

    def hierarchy(self, decl: TypeDecl) -> Iterator[TypeDecl]:
        """The type and its repository supertypes, nearest first, each once."""
        seen = {id(decl)}
        queue = [decl]
        while queue:
            current = queue.pop(0)
            yield current
            for sup in self.supers(current):
                nxt = self.types.get(sup[2:]) if sup.startswith("R:") else None
                if nxt is not None and id(nxt) not in seen:
                    seen.add(id(nxt))
                    queue.append(nxt)

    def external_supers(self, decl: TypeDecl) -> set[str]:
        """Simple names of supertypes outside the repository (with the JDK's known ones)."""
        out: set[str] = set()
        for owner in self.hierarchy(decl):
            for sup in self.supers(owner):
                if sup.startswith("X:"):
                    name = sup[2:]
                    out.add(name)
                    out.update(_KNOWN_SUPERS.get(name, ()))
        return out

    def opaque(self, decl: TypeDecl) -> bool:
        """A supertype outside the repository whose members are unknown."""
        return any(name not in ("Object", "Serializable", "Cloneable")
                   for name in self.external_supers(decl))

    def is_subclass(self, sub: str, sup: str) -> bool | None:
        """``R:a`` <: ``R:b`` / ``X:n``: True, False, or None (cannot tell)."""
        decl = self.types.get(sub[2:])
        if decl is None:
            return None
        if sup.startswith("R:"):
            return any(d.fqn == sup[2:] for d in self.hierarchy(decl))
        external = self.external_supers(decl)
        if sup[2:] in external or sup == "X:Object":
            return True
        if any(name not in _KNOWN_SUPERS for name in external):
            return None
        return False

    # -- members ---------------------------------------------------------------------
    def methods(self, decl: TypeDecl, name: str) -> list[MethodDecl]:
        """Methods named ``name`` visible in ``decl``: the nearest declaration of each
        erased signature (an override hides what it overrides)."""
        out: list[MethodDecl] = []
        seen: set[tuple[str, ...]] = set()
        for owner in self.hierarchy(decl):
            for method in owner.methods.get(name, ()):
                if method.erased not in seen:
                    seen.add(method.erased)
                    out.append(method)
        return out

    def field(self, decl: TypeDecl, name: str) -> str | None:
        for owner in self.hierarchy(decl):
            if name in owner.constants:
                return f"R:{owner.fqn}"
            declared = owner.fields.get(name)
            if declared is not None:
                typ, dims = declared
                return self.of_node(typ, Context(owner.file, owner, frozenset()), dims) or "?"
        return None

    def returns(self, method: MethodDecl) -> str | None:
        if method.returns is None:
            return None
        found = self.of_node(method.returns, self.context_of(method))
        return None if found is None or found.startswith("V:") else found

    def params(self, method: MethodDecl) -> list[str | None]:
        ctx = self.context_of(method)
        found = [self.of_node(typ, ctx, dims) for typ, dims in method.params]
        if method.varargs and found and found[-1] is not None:
            found[-1] += "[]"  # `T...` is `T[]` once compiled
        return found

    def context_of(self, method: MethodDecl) -> Context:
        return Context(method.owner.file, method.owner, method.type_params)


_ARGUMENTS = re.compile(r"<[^<>]*>")


def _parts(node: Any) -> list[str]:
    """``a.b.Outer<T>.Inner`` -> ``["a", "b", "Outer", "Inner"]``."""
    flat = "".join(text(node).split())
    while "<" in flat:
        shorter = _ARGUMENTS.sub("", flat)
        if shorter == flat:
            break
        flat = shorter
    return [p for p in flat.split(".") if p and p[0] != "@"] or [""]


def plain(typ: str | None) -> str | None:
    """A type without the element a container carries (``X:List|R:a.B`` -> ``X:List``)."""
    return typ.partition("|")[0] if typ is not None else None


def element_of(typ: str | None) -> str | None:
    """The repository element type a library container carries, else None."""
    return typ.partition("|")[2] or None if typ is not None else None


def primitive(name: str) -> bool:
    return name in _PRIMITIVES
