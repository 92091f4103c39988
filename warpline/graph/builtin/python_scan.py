"""Pass 1 of the built-in extractor: one module's definitions, scopes and name bindings.

Nothing here resolves across modules; ``python_resolve`` does that once every module of
the commit has been scanned. A ``Scope`` is an entity (module, class or function) plus the
names it binds and the expressions whose evaluation belongs to it.

Binding precedence inside one scope is deliberately simple and deterministic:
definition (``def``/``class``) > import > any other assignment. It matches the common
idioms (``try: import x except ImportError: x = None``; ``f = decorate(f)`` after
``def f``) without simulating control flow.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Literal

from warpline.lang.locators import entity_locator

ScopeKind = Literal["module", "class", "function"]

# Fields that never hold evaluated expressions.
_SKIPPED_FIELDS = frozenset({"type_comment", "type_params"})
_PROPERTY_DECORATORS = frozenset({"property", "cached_property"})
# Statement fields that bind names (Assign/Delete targets, For/AugAssign/AnnAssign target).
_TARGET_FIELDS = frozenset({"targets", "target"})


@dataclass(frozen=True, slots=True)
class ImportBinding:
    """``import module`` (``name is None``) or ``from module import name``."""

    module: str
    name: str | None


@dataclass(eq=False, slots=True)
class Scope:
    """A module, class or function scope of a scanned file, with its line span."""
    kind: ScopeKind
    locator: str
    qualname: str  # "" for a module
    module: str  # dotted name of the module the scope lives in
    parent: Scope | None
    start_line: int
    end_line: int
    defs: dict[str, str] = field(default_factory=dict)  # name -> entity locator
    imports: dict[str, ImportBinding] = field(default_factory=dict)
    variables: set[str] = field(default_factory=set)
    declared_global: set[str] = field(default_factory=set)
    star_imports: list[str] = field(default_factory=list)
    # Every import statement as written (``import a.b`` keeps ``a.b``; ``name`` is ``*``
    # for a star import): the import-based test floor reads these.
    imported: list[ImportBinding] = field(default_factory=list)
    self_name: str | None = None  # first parameter of a method: binds the instance
    # `x = Something(...)` as the only binding of `x` in a function: `x.meth()` can then
    # resolve through Something when it is a class of the repository.
    constructed: dict[str, ast.expr] = field(default_factory=dict)
    # `def f(x: Something)`: `x.meth()` resolves through Something when it is a class of
    # the repository (annotations of parameters are resolved in the enclosing scope).
    annotated: dict[str, ast.expr] = field(default_factory=dict)
    is_property: bool = False
    returns_self: bool = False  # a method with a `return self` (an `__enter__` that does)
    # `with Something() as x`: x is what Something's __enter__ returns.
    entered: set[str] = field(default_factory=set)
    # A function's named parameters, in order (pytest injects fixtures by these names).
    params: list[str] = field(default_factory=list)
    binding_counts: dict[str, int] = field(default_factory=dict)
    # Expressions evaluated on this entity's behalf, each with the scope that resolves
    # its names (a decorator, default or base is resolved in the enclosing scope).
    owned: list[tuple[ast.AST, Scope]] = field(default_factory=list)
    decorators: list[ast.expr] = field(default_factory=list)
    bases: list[ast.expr] = field(default_factory=list)
    children: list[Scope] = field(default_factory=list)

    def enclosing_class(self) -> Scope | None:
        """The class whose method (possibly nested) this scope is, for ``super()``."""
        scope: Scope | None = self
        while scope is not None and scope.kind == "function":
            if scope.parent is not None and scope.parent.kind == "class":
                return scope.parent
            scope = scope.parent
        return None


@dataclass(slots=True)
class ModuleScan:
    """One scanned module: its path, dotted name and every scope in it."""
    path: str
    dotted: str
    scope: Scope
    scopes: list[Scope]  # every scope of the module, module first, in source order


def scan_module(
    path: str, dotted: str, tree: ast.Module, line_count: int, *, walrus: bool = True
) -> ModuleScan:
    """``walrus=False`` promises the source has no ``:=`` (a byte check by the caller),
    which lets the scan look for bindings only in assignment targets: a several-fold
    saving on large trees."""
    module = Scope(
        kind="module",
        locator=entity_locator("module", dotted, ""),
        qualname="",
        module=dotted,
        parent=None,
        start_line=1,
        end_line=max(line_count, 1),
    )
    scanner = _Scanner(path, dotted, walrus)
    scanner.scopes.append(module)
    scanner.body(tree.body, module)
    return ModuleScan(path=path, dotted=dotted, scope=module, scopes=scanner.scopes)


def _is_overload(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``@overload`` / ``@<anything>.overload`` stubs are not entities (as in
    ``warpline.lang.pyentities``, so graph nodes join the change history)."""
    return any(
        (isinstance(d, ast.Name) and d.id == "overload")
        or (isinstance(d, ast.Attribute) and d.attr == "overload")
        for d in node.decorator_list
    )


def _is_staticmethod(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def _stored_names(node: ast.AST) -> set[str]:
    """Names an expression binds in its own scope (lambdas/comprehensions bind their own)."""
    names: set[str] = set()
    stack: list[ast.AST] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Name) and isinstance(current.ctx, ast.Store | ast.Del):
            names.add(current.id)
        elif isinstance(current, ast.NamedExpr) and isinstance(current.target, ast.Name):
            names.add(current.target.id)
        if isinstance(current, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp):
            continue
        if isinstance(current, ast.GeneratorExp):
            continue
        stack.extend(ast.iter_child_nodes(current))
    return names


def _pattern_names(pattern: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(pattern):
        if isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            names.add(node.rest)
    return names


class _Scanner:
    def __init__(self, path: str, dotted: str, walrus: bool) -> None:
        self.dotted = dotted
        self.walrus = walrus
        # `from . import x` in a package's __init__ is relative to the package itself.
        is_package = PurePosixPath(path).name == "__init__.py"
        self.package = dotted if is_package else dotted.rpartition(".")[0]
        self.scopes: list[Scope] = []

    def body(self, statements: list[ast.stmt], scope: Scope) -> None:
        for statement in statements:
            self.statement(statement, scope)

    def statement(self, node: ast.stmt, scope: Scope) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if not _is_overload(node):
                self.function(node, scope)
        elif isinstance(node, ast.ClassDef):
            self.klass(node, scope)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                scope.imported.append(ImportBinding(alias.name, None))
                if alias.asname:
                    scope.imports[alias.asname] = ImportBinding(alias.name, None)
                else:
                    top = alias.name.partition(".")[0]
                    scope.imports.setdefault(top, ImportBinding(top, None))
        elif isinstance(node, ast.ImportFrom):
            self.import_from(node, scope)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            scope.declared_global.update(node.names)
        else:
            self.compound(node, scope)

    def compound(self, node: ast.AST, scope: Scope) -> None:
        """Any other statement: nested bodies are scanned, expressions become owned."""
        for name, value in ast.iter_fields(node):
            if name in _SKIPPED_FIELDS:
                continue
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, ast.stmt):
                    self.statement(item, scope)
                elif isinstance(item, ast.ExceptHandler):
                    if item.name:
                        self.bind(scope, {item.name})
                    if item.type is not None:
                        scope.owned.append((item.type, scope))
                    self.body(item.body, scope)
                elif isinstance(item, ast.match_case):
                    self.bind(scope, _pattern_names(item.pattern))
                    self.compound(item.pattern, scope)
                    if item.guard is not None:
                        scope.owned.append((item.guard, scope))
                    self.body(item.body, scope)
                elif isinstance(item, ast.pattern):
                    self.compound(item, scope)
                elif isinstance(item, ast.AST):
                    if name in _TARGET_FIELDS or self.walrus:
                        self.bind(scope, _stored_names(item))
                    elif isinstance(item, ast.withitem) and item.optional_vars is not None:
                        self.bind(scope, _stored_names(item.optional_vars))
                    scope.owned.append((item, scope))
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if isinstance(item.optional_vars, ast.Name) and isinstance(
                        item.context_expr, ast.Call):
                    scope.constructed[item.optional_vars.id] = item.context_expr.func
                    scope.entered.add(item.optional_vars.id)
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
        ):
            scope.constructed[node.targets[0].id] = node.value.func

    @staticmethod
    def bind(scope: Scope, names: set[str]) -> None:
        scope.variables.update(names)
        for name in names:
            scope.binding_counts[name] = scope.binding_counts.get(name, 0) + 1

    def import_from(self, node: ast.ImportFrom, scope: Scope) -> None:
        if node.level:
            parts = self.package.split(".") if self.package else []
            if node.level - 1 > len(parts):
                return  # beyond the top-level package: Python rejects it too
            base = parts[: len(parts) - (node.level - 1)]
            if node.module:
                base.append(node.module)
            module = ".".join(base)
        else:
            module = node.module or ""
        if not module:
            return
        for alias in node.names:
            scope.imported.append(ImportBinding(module, alias.name))
            if alias.name == "*":
                scope.star_imports.append(module)
            else:
                scope.imports[alias.asname or alias.name] = ImportBinding(module, alias.name)

    def _child(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, parent: Scope
    ) -> Scope:
        if parent.kind == "function":
            qualname = f"{parent.qualname}.<locals>.{node.name}"
        elif parent.qualname:
            qualname = f"{parent.qualname}.{node.name}"
        else:
            qualname = node.name
        kind: ScopeKind = "class" if isinstance(node, ast.ClassDef) else "function"
        # A definition starts at its first decorator line, as loomweave records it.
        start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        child = Scope(
            kind=kind,
            locator=entity_locator(kind, self.dotted, qualname),
            qualname=qualname,
            module=self.dotted,
            parent=parent,
            start_line=start,
            end_line=node.end_lineno or node.lineno,
            decorators=list(node.decorator_list),
        )
        # First definition wins, like loomweave; a redefinition's body still feeds the
        # same locator, so its calls are not lost.
        parent.defs.setdefault(node.name, child.locator)
        parent.children.append(child)
        self.scopes.append(child)
        return child

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, parent: Scope) -> None:
        child = self._child(node, parent)
        arguments = node.args
        params = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        params += [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
        self.bind(child, {p.arg for p in params})
        child.params = [p.arg for p in [*arguments.posonlyargs, *arguments.args,
                                        *arguments.kwonlyargs]]
        positional = [*arguments.posonlyargs, *arguments.args]
        if parent.kind == "class" and positional and not _is_staticmethod(node):
            child.self_name = positional[0].arg
        for default in [*arguments.defaults, *(d for d in arguments.kw_defaults if d)]:
            child.owned.append((default, parent))
        # Annotations are references too (a changed type can break a type check), as
        # loomweave records them; they are evaluated where the `def` is.
        for param in params:
            if param.annotation is not None:
                child.annotated[param.arg] = param.annotation
                child.owned.append((param.annotation, parent))
        if node.returns is not None:
            child.owned.append((node.returns, parent))
        child.is_property = any(
            (isinstance(d, ast.Name) and d.id in _PROPERTY_DECORATORS)
            or (isinstance(d, ast.Attribute) and d.attr in _PROPERTY_DECORATORS)
            for d in node.decorator_list
        )
        self.body(node.body, child)
        if child.self_name is not None and node.name == "__enter__":
            child.returns_self = any(
                isinstance(n, ast.Return) and isinstance(n.value, ast.Name)
                and n.value.id == child.self_name for n in ast.walk(node))

    def klass(self, node: ast.ClassDef, parent: Scope) -> None:
        child = self._child(node, parent)
        child.bases = list(node.bases)
        for keyword in node.keywords:
            child.owned.append((keyword.value, parent))
        self.body(node.body, child)
