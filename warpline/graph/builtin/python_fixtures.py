"""pytest fixtures as edges: a test (or fixture) that requests a fixture by name calls it.

pytest injects a fixture by parameter name; nothing in the source calls it, so a call
graph alone never reaches a fixture's code from the tests that run it. This pass adds
``requester → fixture`` ``calls`` edges, resolving each name the way pytest does:

1. fixtures defined in the requesting test's class;
2. fixtures of the requesting module (defined there, or imported into it by name);
3. ``conftest.py`` of the file's directory, then of each parent directory up to the root.

A fixture that requests its own name (an override) resolves from the next level out. A
name found nowhere is a plugin's or pytest's own fixture (``tmp_path``): no edge, and not
an unresolved call either. ``@pytest.mark.usefixtures("name")`` on a test or its class
requests the named fixtures too; an ``autouse=True`` fixture is requested by every test in
its scope (class, module, or the directory tree of its conftest).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from warpline.graph.builtin.python_resolve import Resolver
from warpline.graph.builtin.python_scan import ModuleScan, Scope
from warpline.runners.pytest_rules import TestRules

_IGNORED_PARAMS = frozenset({"self", "cls", "request"})


@dataclass(frozen=True, slots=True)
class Fixture:
    """A pytest fixture: where it is defined, its name, whether it is autouse."""
    locator: str
    name: str
    autouse: bool


@dataclass(slots=True)
class _Index:
    """The fixtures visible from each class, module and conftest directory."""
    by_class: dict[str, dict[str, Fixture]] = field(default_factory=dict)
    by_module: dict[str, dict[str, Fixture]] = field(default_factory=dict)  # module path
    conftest_of_dir: dict[str, ModuleScan] = field(default_factory=dict)  # dir -> conftest
    fixture_of: dict[str, Fixture] = field(default_factory=dict)  # locator -> fixture


def _fixture_decorator(decorator: ast.expr) -> ast.expr | None:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if (isinstance(target, ast.Name) and target.id == "fixture") or (
            isinstance(target, ast.Attribute) and target.attr == "fixture"):
        return decorator
    return None


def fixture_of(scope: Scope) -> Fixture | None:
    if scope.kind != "function":
        return None
    for decorator in scope.decorators:
        found = _fixture_decorator(decorator)
        if found is None:
            continue
        name, autouse = scope.qualname.rsplit(".", 1)[-1], False
        if isinstance(found, ast.Call):
            for keyword in found.keywords:
                value = keyword.value
                if keyword.arg == "name" and isinstance(value, ast.Constant) \
                        and isinstance(value.value, str):
                    name = value.value
                elif keyword.arg == "autouse" and isinstance(value, ast.Constant):
                    autouse = value.value is True
        return Fixture(scope.locator, name, autouse)
    return None


def used_fixtures(decorators: list[ast.expr]) -> list[str]:
    """Names given to ``@pytest.mark.usefixtures(...)`` (string constants only)."""
    names = []
    for decorator in decorators:
        if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) \
                and decorator.func.attr == "usefixtures":
            names += [a.value for a in decorator.args
                      if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    return names


def collectable_functions(scan: ModuleScan, rules: TestRules) -> list[Scope]:
    """The functions pytest may run as tests in a test module: ``python_functions`` at
    module level and in (nested) classes; not fixtures, not nested functions."""
    found = []
    for scope in scan.scopes:
        if scope.kind != "function" or scope.parent is None:
            continue
        name = scope.qualname.rsplit(".", 1)[-1]
        if not rules.collects_function(name) or fixture_of(scope) is not None:
            continue
        # Any class: a base class pytest does not collect still has its test methods run
        # (and their fixtures requested) through the subclasses that inherit them.
        owner: Scope | None = scope.parent
        while owner is not None and owner.kind == "class":
            owner = owner.parent
        if owner is not None and owner.kind == "module":
            found.append(scope)
    return found


class FixtureLinker:
    def __init__(self, modules: dict[str, ModuleScan], resolver: Resolver,
                 rules: TestRules) -> None:
        self.modules = modules
        self.resolver = resolver
        self.rules = rules
        self.index = _Index()
        for scan in modules.values():
            directory = str(PurePosixPath(scan.path).parent)
            if PurePosixPath(scan.path).name == "conftest.py":
                self.index.conftest_of_dir[directory] = scan
            for scope in scan.scopes:
                fixture = fixture_of(scope)
                if fixture is None or scope.parent is None:
                    continue
                self.index.fixture_of[fixture.locator] = fixture
                if scope.parent.kind == "class":
                    self.index.by_class.setdefault(scope.parent.locator, {})[fixture.name] = \
                        fixture
                elif scope.parent.kind == "module":
                    self.index.by_module.setdefault(scan.path, {}).setdefault(
                        fixture.name, fixture)

    def _module_level(self, scan: ModuleScan, name: str) -> Fixture | None:
        own = self.index.by_module.get(scan.path, {}).get(name)
        if own is not None:
            return own
        if name in scan.scope.imports:  # `from .fixtures import db`: imported fixtures
            ref = self.resolver.lookup(name, scan.scope)
            if ref.kind == "entity":
                return self.index.fixture_of.get(ref.target)
        return None

    def _levels(self, scope: Scope, scan: ModuleScan) -> list[tuple[str, ModuleScan | str]]:
        """Where a name requested from ``scope`` is looked up, innermost first."""
        levels: list[tuple[str, ModuleScan | str]] = []
        owner = scope.parent
        while owner is not None and owner.kind == "class":
            levels.append(("class", owner.locator))
            owner = owner.parent
        path = PurePosixPath(scan.path)
        if path.name != "conftest.py":
            levels.append(("module", scan))
        directory = path.parent
        while True:
            conftest = self.index.conftest_of_dir.get(str(directory))
            if conftest is not None:
                levels.append(("module", conftest))
            if str(directory) in (".", ""):
                break
            directory = directory.parent
        return levels

    def resolve(self, name: str, scope: Scope, scan: ModuleScan) -> Fixture | None:
        own = self.index.fixture_of.get(scope.locator)
        levels = self._levels(scope, scan)
        if own is not None and own.name == name:
            # An override requesting the fixture it overrides: look past its own level.
            mine = next((i for i, (kind, where) in enumerate(levels)
                         if self._at(kind, where, name) == own), None)
            levels = levels[mine + 1:] if mine is not None else levels
        for kind, where in levels:
            found = self._at(kind, where, name)
            if found is not None:
                return found
        return None

    def _at(self, kind: str, where: ModuleScan | str, name: str) -> Fixture | None:
        if kind == "class" and isinstance(where, str):
            return self.index.by_class.get(where, {}).get(name)
        if isinstance(where, ModuleScan):
            return self._module_level(where, name)
        return None

    def edges(self, tests: dict[str, list[Scope]]) -> set[tuple[str, str]]:
        """``(requester, fixture)`` pairs; ``tests``: module dotted -> its test functions."""
        found: set[tuple[str, str]] = set()
        for dotted, scan in self.modules.items():
            requesters = list(tests.get(dotted, []))
            requesters += [s for s in scan.scopes if s.locator in self.index.fixture_of]
            for scope in requesters:
                names = [p for p in scope.params if p not in _IGNORED_PARAMS]
                names += used_fixtures(scope.decorators)
                owner = scope.parent
                while owner is not None and owner.kind == "class":
                    names += used_fixtures(owner.decorators)
                    owner = owner.parent
                for name in dict.fromkeys(names):
                    fixture = self.resolve(name, scope, scan)
                    if fixture is not None and fixture.locator != scope.locator:
                        found.add((scope.locator, fixture.locator))
            for test in tests.get(dotted, []):
                for fixture in self._autouse(test, scan):
                    found.add((test.locator, fixture.locator))
        return found

    def _autouse(self, scope: Scope, scan: ModuleScan) -> list[Fixture]:
        out: list[Fixture] = []
        for _kind, where in self._levels(scope, scan):
            table = (self.index.by_class.get(where, {}) if isinstance(where, str)
                     else self.index.by_module.get(where.path, {}))
            out += [f for f in table.values() if f.autouse]
        return out
