"""Java's static selection, without a map (issue 37 item 4): the tests that reach a change
over the built-in edges, plus the floor.

* **Reaching**: every test method from which a changed definition is reachable over
  ``calls`` and ``references`` edges (dispatch edges too: a caller of an interface's method
  reaches its implementations), within ``MAX_HOPS`` edges, run under every class that runs
  it (``discovery["java"]["tests"]``).
* **The floor**, for what the graph cannot see (reflection, a runner's own dispatch,
  annotations read at run time): the changed class's own tests by name (``FooTest``,
  ``FooTests``, ``TestFoo``, ``FooTestCase`` beside ``Foo`` in a test root, same
  package) and every test file that imports or uses the changed file's types; each run
  whole. A changed test file runs whole too.

``basis`` says which part gave what.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["INITIALIZER_HOPS", "MAX_HOPS", "JavaStatic", "floor_files",
           "initializer_classes", "static_tests"]

# Java's call chains run deep (a runner building a class's runner validates its fields 10+
# calls below the test): measured on junit4's mutants, 6 hops found 0.72 of the failing
# tests, 12 hops 0.98, unbounded 0.99 (bench/README.md); the walk is one breadth-first pass.
MAX_HOPS = 64
INITIALIZER_HOPS = 4
_TYPE_KINDS = ("java:class:", "java:interface:", "java:enum:", "java:record:")
_OWN = ("{}Test", "{}Tests", "Test{}", "{}TestCase")


@dataclass(slots=True)
class JavaStatic:
    """The static selection: its tests (reaching ones nearest first, then the floor's
    files' tests), how many reached the change over edges, the floor's files, the words."""
    tests: list[str] = field(default_factory=list)
    reaching: int = 0  # tests reached over edges
    floor_files: list[str] = field(default_factory=list)
    basis: str = ""


def _reverse(edges: Iterable[tuple[str, str]]) -> dict[str, list[str]]:
    pred: dict[str, list[str]] = {}
    for source, target in edges:
        pred.setdefault(target, []).append(source)
    return pred


def reaching(pred: dict[str, list[str]], tests: dict[str, list[str]],
             changed: Iterable[str], hops: int = MAX_HOPS) -> dict[str, int]:
    """Test id -> distance to the nearest changed definition."""
    distance = {c: 0 for c in changed}
    frontier = list(distance)
    for hop in range(1, hops + 1):
        step = []
        for node in frontier:
            for caller in pred.get(node, ()):
                if caller not in distance:
                    distance[caller] = hop
                    step.append(caller)
        frontier = step
    out: dict[str, int] = {}
    for node, hop in distance.items():
        for test_id in tests.get(node, ()):
            out[test_id] = min(hop, out.get(test_id, hop))
    return out


def initializer_classes(call_edges: Iterable[tuple[str, str]], changed: Iterable[str],
                        hops: int = INITIALIZER_HOPS) -> set[str]:
    """Classes whose initializers (a field's initializer, a static block: their calls
    have the class as their source) reach a changed definition within ``hops`` calls.
    A static initializer runs once per JVM, so a per-test map links what it calls to the
    first test that loaded the class only; every test that ran the class's code depends on
    it (the selection adds the map's tests of those classes)."""
    pred = _reverse(call_edges)
    seen = set(changed)
    frontier = list(seen)
    found: set[str] = set()
    for _ in range(hops):
        step = []
        for node in frontier:
            for caller in pred.get(node, ()):
                if caller in seen:
                    continue
                seen.add(caller)
                if caller.startswith(_TYPE_KINDS):
                    found.add(caller)
                else:
                    step.append(caller)
        frontier = step
    return found


def own_test_files(path: str, facts: dict[str, Any], test_files: set[str]) -> set[str]:
    """``FooTest.java`` and its kin for ``.../Foo.java``, in any test root, same package."""
    name = path.rpartition("/")[2].removesuffix(".java")
    relative = ""
    for project in facts.get("projects", []):
        for root in (*project.get("main_roots", []), *project.get("test_roots", [])):
            if path.startswith(root):
                relative = path[len(root):].rpartition("/")[0]
    roots = [r for p in facts.get("projects", []) for r in p.get("test_roots", [])]
    wanted = {f"{root}{relative}/{pattern.format(name)}.java".replace("//", "/")
              for root in roots for pattern in _OWN}
    return wanted & test_files


def floor_files(facts: dict[str, Any], changed_paths: Iterable[str | None]) -> list[str]:
    """The test files that run whole for changed files: a changed test file itself, the
    changed class's own tests by name, and every test file importing or using it."""
    test_files = {test_id.split("::", 1)[0] for ids in facts.get("tests", {}).values()
                  for test_id in ids}
    imports: dict[str, list[str]] = facts.get("test_imports", {})
    floor: set[str] = set()
    for path in changed_paths:
        if not path or not path.endswith(".java"):
            continue
        if path in test_files:
            floor.add(path)
            continue
        floor |= own_test_files(path, facts, test_files)
        floor |= {f for f, used in imports.items() if path in used}
    return sorted(floor)


def static_tests(edges: Iterable[tuple[str, str]], facts: dict[str, Any],
                 changed: list[str], changed_paths: list[str],
                 hops: int = MAX_HOPS) -> JavaStatic:
    tests: dict[str, list[str]] = facts.get("tests", {})
    by_file: dict[str, list[str]] = {}
    for ids in tests.values():
        for test_id in ids:
            by_file.setdefault(test_id.split("::", 1)[0], []).append(test_id)
    found = reaching(_reverse(edges), tests, changed, hops)
    floor = set(floor_files(facts, changed_paths))
    out = JavaStatic()
    chosen = dict.fromkeys(t for t, _ in sorted(found.items(), key=lambda kv: (kv[1], kv[0])))
    out.reaching = len(chosen)
    for test_file in sorted(floor):
        chosen.update(dict.fromkeys(sorted(set(by_file.get(test_file, ())))))
    out.tests = list(chosen)
    out.floor_files = sorted(floor)
    out.basis = (f"static: {out.reaching} tests reach the change over call/reference edges "
                 f"(at most {hops}); {len(floor)} test files by the floor (the changed "
                 "classes' own tests by name, test files importing or using them)")
    return out
