"""The import-based test floor: which repository modules each test file imports.

A test file that imports a module (or a name from it) can run its code whatever the call
graph says: calls through a framework, callbacks, dunders. For each test file this lists
the repository modules it imports anywhere (module level or inside a function):

* ``import a.b`` imports ``a.b`` (and the packages ``a`` on the way);
* ``from a import name`` imports ``a``, plus ``a.name`` when that is a module, plus the
  module that defines ``name`` when ``a`` re-exports it;
* importing a package counts every module its ``__init__`` imports from (its re-exports),
  transitively through sub-packages.

Modules outside the repository are left out: they are not entities of the graph.
"""

from __future__ import annotations

from warpline.graph.builtin.python_resolve import Resolver
from warpline.graph.builtin.python_scan import ModuleScan


def _is_package(scan: ModuleScan) -> bool:
    return scan.path.rsplit("/", 1)[-1] == "__init__.py"


class ImportFloor:
    def __init__(self, modules: dict[str, ModuleScan], resolver: Resolver) -> None:
        self.modules = modules
        self.resolver = resolver
        self.module_of = {s.locator: dotted for dotted, m in modules.items() for s in m.scopes}
        self._closure: dict[str, frozenset[str]] = {}

    def reexports(self, package: str) -> frozenset[str]:
        """``package`` and every repository module its ``__init__`` imports from."""
        cached = self._closure.get(package)
        if cached is not None:
            return cached
        self._closure[package] = frozenset({package})  # guards import cycles
        found = {package}
        scan = self.modules.get(package)
        if scan is not None and _is_package(scan):
            for binding in scan.scope.imported:
                for module in self._direct(binding.module, binding.name):
                    found |= self.reexports(module) if module != package else {module}
        self._closure[package] = frozenset(found)
        return self._closure[package]

    def _direct(self, module: str, name: str | None) -> set[str]:
        out = {module} if module in self.modules else set()
        if name is None:
            parts = module.split(".")
            out |= {".".join(parts[:i]) for i in range(1, len(parts))} & set(self.modules)
            return out
        if name == "*":
            return out
        if f"{module}.{name}" in self.modules:
            out.add(f"{module}.{name}")
        elif module in self.modules:
            ref = self.resolver.export(module, name)
            if ref.kind == "entity" and ref.target in self.module_of:
                out.add(self.module_of[ref.target])
            elif ref.kind == "module" and ref.target in self.modules:
                out.add(ref.target)
        return out

    def imports_of(self, scan: ModuleScan, *, wide: bool) -> list[str]:
        """The modules ``scan`` imports; ``wide`` adds every module a package it imports
        re-exports from (``import pkg`` then counts all of ``pkg/__init__``'s imports)."""
        found: set[str] = set()
        for scope in scan.scopes:
            for binding in scope.imported:
                for module in self._direct(binding.module, binding.name):
                    found |= self.reexports(module) if wide else {module}
        found.discard(scan.dotted)
        return sorted(found)

    def used_modules(self, scan: ModuleScan, edges: set[tuple[str, str, str]]) -> set[str]:
        """Modules whose entities the module's own entities call or reference directly
        (``requests.get`` through ``import requests`` names ``requests.api``)."""
        own = {s.locator for s in scan.scopes}
        found = {self.module_of[target] for source, target, _ in edges
                 if source in own and target in self.module_of}
        found |= {target.removeprefix("python:module:") for source, target, _ in edges
                  if source in own and target.startswith("python:module:")}
        found.discard(scan.dotted)
        return found & set(self.modules)
