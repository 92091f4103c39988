"""Registered callbacks: a function stored in a table is called by whoever reads the table.

Frameworks register callbacks with a decorator (``@app.route``, ``@registry.register``)
or a call (``register("add", add)``) that stores the function in a table; a dispatcher
later reads the table and calls what it finds. Nothing in the source calls the callback,
so the call graph alone never reaches it from the tests that dispatch to it.

A *table* is a module-level variable (``HANDLERS``) or an attribute of ``self``
(``self._handlers``, keyed by the class). A function *stores into* it with
``table[key] = …`` or ``table.append/add/insert/extend/setdefault/update(…)``
(``clear``/``pop``/``remove``/``discard`` change it too, and read nothing from it); any
other read of the table *reads* it. When a registrar (the decorator, the function it returns,
or the function called with the callback) stores into a table, every reader of that table
gets a ``calls`` edge to the callback, with confidence ``inferred``.

Registration itself is not a call: the registrar and the code that builds the table get
no edge to the callback (the callback keeps its ``references`` edge to its decorator).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from warpline.graph.builtin.python_resolve import EdgeSink, Resolver
from warpline.graph.builtin.python_scan import ModuleScan, Scope
from warpline.graph.model import EdgeKind

# Methods that change a table rather than read it (``clear``/``pop`` build or reset it).
_STORING_METHODS = frozenset({"append", "add", "insert", "extend", "setdefault", "update",
                              "__setitem__", "clear", "pop", "remove", "discard"})
Table = tuple[str, str]  # (module dotted or class locator, name)
CONFIDENCE = "inferred"


def _method_binding(scope: Scope, name: str) -> Scope | None:
    """The method whose ``self`` parameter ``name`` is, seen from ``scope`` (the method
    itself or a function nested in it that does not rebind the name)."""
    current: Scope | None = scope
    while current is not None and current.kind == "function":
        if current.self_name == name and current.parent is not None \
                and current.parent.kind == "class":
            return current
        if name in current.variables:
            return None
        current = current.parent
    return None


class Registrations:
    def __init__(self, modules: dict[str, ModuleScan], resolver: Resolver) -> None:
        self.resolver = resolver
        self.stores: dict[str, set[Table]] = {}  # function locator -> tables it stores into
        self.readers: dict[Table, set[str]] = {}
        self.functions: dict[str, Scope] = {}
        self._scanned: set[str] = set()
        for scan in modules.values():
            for scope in scan.scopes:
                if scope.kind == "function":
                    self.functions[scope.locator] = scope

    def _table(self, node: ast.AST, scope: Scope) -> Table | None:
        if isinstance(node, ast.Name):
            ref = self.resolver.lookup(node.id, scope)
            if ref.kind == "variable":
                return (ref.target, node.id)
            return None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            method = _method_binding(scope, node.value.id)
            if method is not None and method.parent is not None:
                return (method.parent.locator, node.attr)
        return None

    def _uses(self, scope: Scope) -> None:
        if scope.locator in self._scanned:
            return
        self._scanned.add(scope.locator)
        stored: set[int] = set()
        for root, where in scope.owned:
            if where is not scope:
                continue  # defaults and annotations belong to the enclosing scope
            for node in ast.walk(root):
                target: ast.AST | None = None
                if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                    target = node.value
                elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                        and node.func.attr in _STORING_METHODS:
                    target = node.func.value
                if target is None:
                    continue
                table = self._table(target, scope)
                if table is not None:
                    self.stores.setdefault(scope.locator, set()).add(table)
                    stored.add(id(target))
        for root, where in scope.owned:
            if where is not scope:
                continue
            for node in ast.walk(root):
                if id(node) in stored or not isinstance(node, ast.Name | ast.Attribute):
                    continue
                if not isinstance(node.ctx, ast.Load):
                    continue
                table = self._table(node, scope)
                if table is not None:
                    self.readers.setdefault(table, set()).add(scope.locator)

    def _registrar_tables(self, locator: str) -> set[Table]:
        """Tables the function ``locator`` or a function nested in it stores into."""
        found: set[Table] = set()
        stack = [locator]
        while stack:
            current = stack.pop()
            found |= self.stores.get(current, set())
            scope = self.functions.get(current)
            if scope is not None:
                stack.extend(c.locator for c in scope.children if c.kind == "function")
        return found

    def _registrars(self, scope: Scope) -> Iterator[tuple[str, str]]:
        """(registrar locator, callback locator) pairs: decorators of ``scope`` and, in
        module/class bodies, calls that pass a function of the repository."""
        outer = scope.parent or scope
        if scope.kind == "function":
            for decorator in scope.decorators:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                ref = self.resolver.resolve(target, outer, ())
                if ref.kind == "entity" and ref.target in self.functions:
                    yield ref.target, scope.locator
        if scope.kind == "function":
            return
        for root, where in scope.owned:
            for node in ast.walk(root):
                if not isinstance(node, ast.Call):
                    continue
                passed = [ref.target for argument in [*node.args,
                                                      *(k.value for k in node.keywords)]
                          if isinstance(argument, ast.Name | ast.Attribute)
                          for ref in [self.resolver.resolve(argument, where, ())]
                          if ref.kind == "entity" and ref.target in self.functions]
                if not passed:
                    continue  # most calls pass no function: skip resolving the callee
                ref = self.resolver.resolve(node.func, where, ())
                if ref.kind == "entity" and ref.target in self.functions:
                    yield from ((ref.target, callback) for callback in passed)

    def _read_candidates(self, modules: dict[str, ModuleScan], tables: set[Table]) -> None:
        """Scan the functions that can read ``tables``: those of the modules defining them
        and of the modules importing those (walking every function would double the cost
        of a capture)."""
        homes = {self.resolver.classes[owner].module if owner in self.resolver.classes
                 else owner for owner, _ in tables}
        for scan in modules.values():
            related = scan.dotted in homes or any(
                b.module in homes or (b.name is not None and f"{b.module}.{b.name}" in homes)
                for scope in scan.scopes for b in scope.imported)
            if related:
                for scope in scan.scopes:
                    if scope.kind == "function":
                        self._uses(scope)

    def emit(self, modules: dict[str, ModuleScan], sink: EdgeSink) -> None:
        pairs = [pair for scan in modules.values() for scope in scan.scopes
                 for pair in self._registrars(scope)]
        for registrar in {r for r, _ in pairs}:
            for inner in self._nested(registrar):
                self._uses(self.functions[inner])
        tables = {t for r, _ in pairs for t in self._registrar_tables(r)}
        if not tables:
            return
        self._read_candidates(modules, tables)
        for registrar, callback in pairs:
            nested = self._nested(registrar)
            for table in self._registrar_tables(registrar):
                for reader in self.readers.get(table, ()):
                    if reader == callback or reader in nested:
                        continue
                    edge: tuple[str, str, EdgeKind] = (reader, callback, "calls")
                    if edge not in sink.edges:
                        sink.edges.add(edge)
                        sink.confidence[edge] = CONFIDENCE

    def _nested(self, locator: str) -> set[str]:
        found = {locator}
        stack = [locator]
        while stack:
            scope = self.functions.get(stack.pop())
            if scope is None:
                continue
            for child in scope.children:
                if child.kind == "function" and child.locator not in found:
                    found.add(child.locator)
                    stack.append(child.locator)
        return found
