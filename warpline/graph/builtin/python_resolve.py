"""Pass 2 of the built-in extractor: resolve names across modules and emit edges.

Resolution follows Python's own lookup where it is cheap to do so statically: function
locals, enclosing functions (class bodies are skipped, as CPython skips them), module
globals, star imports, builtins; ``import``/``from … import`` (relative too) and
re-exports; attributes of modules, classes and ``self``/``cls``/``super()`` through
base classes defined in the repository. Anything else is *unknown*: a call to it is
counted in ``unresolved`` and no edge is invented.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Literal

from warpline.graph.builtin.python_scan import ImportBinding, ModuleScan, Scope
from warpline.graph.model import EdgeKind

_BUILTIN_NAMES = frozenset(dir(builtins))
# Every class inherits these from ``object``: a miss on them is external, not unknown.
_OBJECT_ATTRIBUTES = frozenset(dir(object))
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)

RefKind = Literal[
    "entity",  # a class or function of the repository (target = locator)
    "module",  # a module or namespace package of the repository (target = dotted)
    "variable",  # a module-level variable (target = module dotted)
    "class_attr",  # a class-level attribute that is not a method (target = class locator)
    "instance",  # self / cls (target = class locator)
    "super",  # super() inside a method (target = class locator)
    "external",  # outside the repository, or a builtin: no edge, not unresolved
    "unknown",  # a local, a missing name, an attribute we cannot follow
]


@dataclass(frozen=True, slots=True)
class Ref:
    """What a name refers to, as far as the scan can tell."""
    kind: RefKind
    target: str = ""


UNKNOWN = Ref("unknown")
EXTERNAL = Ref("external")


@dataclass(slots=True)
class EdgeSink:
    """The edges resolved so far, how many references were not, and the confidences."""
    edges: set[tuple[str, str, EdgeKind]] = field(default_factory=set)
    unresolved: int = 0
    # Edges that are not plain resolutions (a registered callback): their confidence.
    confidence: dict[tuple[str, str, EdgeKind], str] = field(default_factory=dict)


class Resolver:
    def __init__(self, modules: dict[str, ModuleScan]) -> None:
        self.modules = modules
        self.namespaces = {
            ".".join(parts[:i])
            for dotted in modules
            for parts in [dotted.split(".")]
            for i in range(1, len(parts))
        } - set(modules)
        self.classes: dict[str, Scope] = {
            s.locator: s for m in modules.values() for s in m.scopes if s.kind == "class"
        }
        self._exports: dict[tuple[str, str], Ref] = {}
        self._bases: dict[str, tuple[str, ...]] = {}
        # Classes with a base we cannot see (an import from outside the repo, an
        # expression): a member we do not find may well live there.
        self._opaque: set[str] = set()
        self._typing: set[tuple[int, str]] = set()
        self._module_typed: dict[tuple[str, str], Ref] = {}
        self.properties = {s.locator for m in modules.values() for s in m.scopes if s.is_property}
        self._methods: dict[str, list[Scope]] = {}
        for m in modules.values():
            for s in m.scopes:
                if s.returns_self:
                    self._methods.setdefault(s.locator, []).append(s)

    # -- names -----------------------------------------------------------------------

    def module_ref(self, dotted: str) -> Ref:
        if dotted in self.modules or dotted in self.namespaces:
            return Ref("module", dotted)
        return EXTERNAL

    def binding(self, scope: Scope, name: str, seen: set[tuple[str, str]] | None) -> Ref | None:
        if name in scope.defs:
            return Ref("entity", scope.defs[name])
        if name in scope.imports:
            return self.imported(scope.imports[name], seen)
        if scope.self_name == name and scope.parent is not None:
            return Ref("instance", scope.parent.locator)
        if name in scope.variables:
            if scope.kind == "function" and scope.binding_counts.get(name) == 1:
                return self.typed_local(scope, name)
            if scope.kind == "module":
                if scope.binding_counts.get(name) == 1 and name in scope.constructed:
                    # `bus = EventBus()`: `bus.on(...)` resolves through EventBus.
                    key = (scope.module, name)
                    typed = self._module_typed.get(key)
                    if typed is None:
                        typed = self._module_typed[key] = self.typed_local(scope, name)
                    if typed.kind == "instance":
                        return typed
                return Ref("variable", scope.module)
            if scope.kind == "class":
                return Ref("class_attr", scope.locator)
            return UNKNOWN
        return None

    def typed_local(self, scope: Scope, name: str) -> Ref:
        """A local bound once, by calling a class or as a parameter annotated with one,
        is an instance of that class; any other local is unknown."""
        if name in scope.constructed:
            expression, where = scope.constructed[name], scope
        elif name in scope.annotated and scope.parent is not None:
            expression, where = _strip_optional(scope.annotated[name]), scope.parent
        else:
            return UNKNOWN
        key = (id(scope), name)
        if key in self._typing:
            return UNKNOWN  # `a = b(); b = a()`-style loops
        self._typing.add(key)
        try:
            ref = self.resolve(expression, where, ())
        finally:
            self._typing.discard(key)
        if ref.kind == "entity" and ref.target in self.classes:
            if name in scope.entered and not self._enters_itself(ref.target):
                return UNKNOWN  # `with C() as x`: x is whatever C.__enter__ returns
            return Ref("instance", ref.target)
        # An instance of an outside type (`s = requests.Session()`, `n: int`): calls on
        # it leave the repository; neither an edge nor an unresolved call.
        return EXTERNAL if ref.kind == "external" else UNKNOWN

    def _enters_itself(self, class_locator: str) -> bool:
        enter = self.member(class_locator, "__enter__")
        if enter.kind != "entity":
            return False
        return any(s.returns_self for s in self._methods.get(enter.target, ()))

    def imported(self, binding: ImportBinding, seen: set[tuple[str, str]] | None) -> Ref:
        if binding.name is None:
            return self.module_ref(binding.module)
        return self.export(binding.module, binding.name, seen)

    def export(self, module: str, name: str, seen: set[tuple[str, str]] | None = None) -> Ref:
        """What ``from module import name`` binds, following re-exports."""
        key = (module, name)
        if key in self._exports:
            return self._exports[key]
        top_level = seen is None
        seen = set() if seen is None else seen
        if key in seen:
            return UNKNOWN  # an import cycle that never reaches a definition
        seen.add(key)
        result = self._export(module, name, seen)
        if top_level:
            self._exports[key] = result
        return result

    def _export(self, module: str, name: str, seen: set[tuple[str, str]]) -> Ref:
        scan = self.modules.get(module)
        if scan is not None:
            found = self.binding(scan.scope, name, seen)
            if found is not None:
                return found
        submodule = self.module_ref(f"{module}.{name}")
        if submodule.kind == "module":
            return submodule
        if scan is None:
            return EXTERNAL if module not in self.namespaces else UNKNOWN
        for star in scan.scope.star_imports:
            found = self.export(star, name, seen)
            if found.kind != "unknown":
                return found
        return UNKNOWN

    def lookup(self, name: str, scope: Scope) -> Ref:
        current: Scope | None = scope
        innermost = True
        while current is not None:
            if current.kind == "class" and not innermost:
                current = current.parent  # methods do not see their class namespace
                continue
            if current.kind != "module" and name in current.declared_global:
                while current.parent is not None:
                    current = current.parent
                innermost = False
                continue
            found = self.binding(current, name, None)
            if found is not None:
                return found
            innermost = False
            if current.parent is None:
                for star in current.star_imports:
                    found = self.export(star, name)
                    if found.kind != "unknown":
                        return found
            current = current.parent
        return EXTERNAL if name in _BUILTIN_NAMES else UNKNOWN

    # -- attributes ------------------------------------------------------------------

    def bases(self, class_locator: str) -> tuple[str, ...]:
        if class_locator in self._bases:
            return self._bases[class_locator]
        self._bases[class_locator] = ()  # guards against `class A(A)`-style cycles
        scope = self.classes[class_locator]
        found: list[str] = []
        for base in scope.bases:
            ref = self.resolve(base, scope.parent or scope, ())
            if ref.kind == "entity" and ref.target in self.classes:
                found.append(ref.target)
            else:
                self._opaque.add(class_locator)
        self._bases[class_locator] = tuple(found)
        return self._bases[class_locator]

    def member(self, class_locator: str, name: str, seen: frozenset[str] = frozenset()) -> Ref:
        if class_locator in seen or class_locator not in self.classes:
            return UNKNOWN
        scope = self.classes[class_locator]
        if name in scope.defs:
            return Ref("entity", scope.defs[name])
        if name in scope.variables:
            return Ref("class_attr", class_locator)
        return self.inherited(class_locator, name, seen | {class_locator})

    def inherited(self, class_locator: str, name: str, seen: frozenset[str]) -> Ref:
        for base in self.bases(class_locator):
            found = self.member(base, name, seen)
            if found.kind != "unknown":
                return found
        if name in _OBJECT_ATTRIBUTES or class_locator in self._opaque:
            return EXTERNAL
        return UNKNOWN

    def attribute(self, value: Ref, name: str) -> Ref:
        if value.kind == "module":
            return self.export(value.target, name)
        if value.kind == "instance" or (value.kind == "entity" and value.target in self.classes):
            return self.member(value.target, name)
        if value.kind == "super":
            return self.inherited(value.target, name, frozenset({value.target}))
        if value.kind in ("external", "variable", "class_attr"):
            # An attribute of a variable still depends on the code that defines it.
            return value
        return UNKNOWN

    def resolve(self, node: ast.AST, scope: Scope, extra: tuple[frozenset[str], ...]) -> Ref:
        """A ``Name``/``Attribute`` chain (or ``super()``) → Ref; ``NOT_A_CHAIN`` otherwise."""
        if isinstance(node, ast.Name):
            if any(node.id in names for names in extra):
                return UNKNOWN
            return self.lookup(node.id, scope)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value, scope, extra)
            return base if base is NOT_A_CHAIN else self.attribute(base, node.attr)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "super"
            and self.lookup("super", scope).kind == "external"
        ):
            owner = scope.enclosing_class()
            return Ref("super", owner.locator) if owner is not None else UNKNOWN
        return NOT_A_CHAIN


NOT_A_CHAIN = Ref("unknown", "<expression>")


def _strip_optional(annotation: ast.expr) -> ast.expr:
    """``X | None`` and ``Optional[X]`` → ``X``; anything else unchanged."""
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [annotation.left, annotation.right]
        others = [s for s in sides if not (isinstance(s, ast.Constant) and s.value is None)]
        if len(others) == 1:
            return others[0]
    if isinstance(annotation, ast.Subscript):
        head = annotation.value
        name = head.id if isinstance(head, ast.Name) else getattr(head, "attr", None)
        if name == "Optional":
            return annotation.slice
    return annotation


class Emitter:
    """Walks the expressions one entity owns and records its calls and references."""

    def __init__(self, resolver: Resolver, sink: EdgeSink) -> None:
        self.resolver = resolver
        self.sink = sink

    def entity(self, scope: Scope) -> None:
        referrer = scope.locator
        outer = scope.parent or scope
        for decorator in scope.decorators:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            self.reference_or_visit(referrer, target, outer, ())
            if isinstance(decorator, ast.Call):
                for argument in [*decorator.args, *(k.value for k in decorator.keywords)]:
                    self.visit(referrer, argument, outer, ())
        for base in scope.bases:
            self.reference_or_visit(referrer, base, outer, ())
        for node, resolution_scope in scope.owned:
            self.visit(referrer, node, resolution_scope, ())

    def reference_or_visit(
        self, referrer: str, node: ast.AST, scope: Scope, extra: tuple[frozenset[str], ...]
    ) -> None:
        ref = self.resolver.resolve(node, scope, extra)
        if ref is NOT_A_CHAIN:
            for child in ast.iter_child_nodes(node):
                self.visit(referrer, child, scope, extra)
        else:
            self.reference(referrer, ref)

    def reference(self, referrer: str, ref: Ref) -> None:
        target: str | None = None
        if ref.kind in ("entity", "class_attr"):
            target = ref.target
        elif ref.kind in ("module", "variable") and ref.target in self.resolver.modules:
            target = f"python:module:{ref.target}"
        # A self-reference carries no dependency information; recursion is a call.
        if target is None or target == referrer:
            return
        # Reading a property runs it: loomweave records that as a call, and so do we.
        kind: EdgeKind = "calls" if target in self.resolver.properties else "references"
        self.sink.edges.add((referrer, target, kind))

    def call(self, caller: str, ref: Ref) -> None:
        if ref.kind == "external":
            return
        if ref.kind != "entity":
            self.sink.unresolved += 1
            return
        self.sink.edges.add((caller, ref.target, "calls"))
        if ref.target in self.resolver.classes:
            # Calling a class runs its (possibly inherited) __new__ and __init__.
            for dunder in ("__new__", "__init__"):
                method = self.resolver.member(ref.target, dunder)
                if method.kind == "entity":
                    self.sink.edges.add((caller, method.target, "calls"))

    def visit(
        self, referrer: str, node: ast.AST, scope: Scope, extra: tuple[frozenset[str], ...]
    ) -> None:
        if isinstance(node, ast.Call):
            ref = self.resolver.resolve(node.func, scope, extra)
            if ref is NOT_A_CHAIN:
                self.visit(referrer, node.func, scope, extra)
                self.sink.unresolved += 1
            else:
                self.call(referrer, ref)
            for argument in [*node.args, *(k.value for k in node.keywords)]:
                self.visit(referrer, argument, scope, extra)
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                self.reference(referrer, self.resolver.resolve(node, scope, extra))
        elif isinstance(node, ast.Attribute):
            if isinstance(node.ctx, ast.Load):
                self.reference_or_visit(referrer, node, scope, extra)
            else:
                self.visit(referrer, node.value, scope, extra)
        elif isinstance(node, ast.Lambda):
            for default in [*node.args.defaults, *(d for d in node.args.kw_defaults if d)]:
                self.visit(referrer, default, scope, extra)
            args = node.args
            names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]}
            names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
            self.visit(referrer, node.body, scope, (*extra, frozenset(names)))
        elif isinstance(node, _COMPREHENSIONS):
            bound = frozenset(
                n.id
                for generator in node.generators
                for n in ast.walk(generator.target)
                if isinstance(n, ast.Name)
            )
            inner = (*extra, bound)
            for index, generator in enumerate(node.generators):
                # The first iterable is evaluated in the enclosing scope.
                self.visit(referrer, generator.iter, scope, extra if index == 0 else inner)
                for condition in generator.ifs:
                    self.visit(referrer, condition, scope, inner)
            elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for element in elements:
                self.visit(referrer, element, scope, inner)
        else:
            for child in ast.iter_child_nodes(node):
                self.visit(referrer, child, scope, extra)
