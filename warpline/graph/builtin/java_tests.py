"""Java's tests, found in the source as JUnit finds them, and the facts the static
selection reads (``discovery["java"]`` of a capture).

* **Projects**: every ``pom.xml`` / ``build.gradle*`` of the commit (``runners.maven_rules``):
  test source roots (Maven's ``testSourceDirectory`` or ``src/test/java``, Gradle's
  ``src/test/java``), Surefire's includes and excludes.
* **Test methods**: in a class under a test root, a method annotated ``@Test`` (JUnit 4 or
  5), ``@ParameterizedTest``, ``@RepeatedTest``, ``@TestFactory``, ``@TestTemplate`` or
  ``@Theory``; in a class extending ``TestCase`` (JUnit 3), a ``testXxx()`` method. A test
  method of a base class (abstract or not) runs under every concrete subclass under a test
  root that does not override it.
* **In the suite**: a concrete top-level class whose file the project's includes and
  excludes select, a class a suite in the suite names (``@SuiteClasses``), a member class
  of a suite class run by ``Enclosed``, a ``@Nested`` member class (JUnit 5). Test classes
  outside it (fixtures that tests run by hand through ``JUnitCore``) are not offered: the
  runner's whole run never runs them.
* **Test ids**: ``<file>::<Class>#<method>`` (``Outer$Inner`` for a member class, the JVM's
  name Surefire matches), the file being the one defining the top-level class.
* **The floor**: per test file, the repository's source files whose types it imports or
  uses (``test_imports``); a changed class's own tests (``FooTest`` for ``Foo``) are found
  by name by the selection.
"""

from __future__ import annotations

from typing import Any

import pygit2

from warpline.graph.builtin.java_scan import FileScan, MethodDecl, TypeDecl, text
from warpline.graph.builtin.java_types import Context, TypeTable
from warpline.graph.builtin.python_resolve import EdgeSink
from warpline.graph.model import GraphEdge
from warpline.runners.maven_rules import JavaProject, detect, in_suite, project_of

__all__ = ["RUNNER", "TEST_ANNOTATIONS", "discovery_facts", "prepare", "runner_edges"]

TEST_ANNOTATIONS = frozenset({"Test", "ParameterizedTest", "RepeatedTest", "TestFactory",
                              "TestTemplate", "Theory"})
_SKIPPED = frozenset({"Ignore", "Disabled"})
RUNNER = "runner"
_MAX_MANIFESTS = 200


def _annotations(node: Any) -> list[Any]:
    mods = next((c for c in node.children if c.type == "modifiers"), None)
    return [c for c in mods.named_children if c.type in ("marker_annotation", "annotation")] \
        if mods is not None else []


def _annotation_name(annotation: Any) -> str:
    name = annotation.child_by_field_name("name")
    return text(name).rpartition(".")[2] if name is not None else ""


def _modifiers(node: Any) -> set[str]:
    mods = next((c for c in node.children if c.type == "modifiers"), None)
    return set(text(mods).split()) if mods is not None else set()


def _is_test_method(table: TypeTable, method: MethodDecl, junit3: bool) -> bool:
    if method.name == "<init>" or method.locator is None:
        return False
    names = {_annotation_name(a) for a in _annotations(method.node)}
    if names & _SKIPPED:
        return False  # never run: a selection naming it would run nothing
    if names & TEST_ANNOTATIONS:
        return True
    return junit3 and method.name.startswith("test") and not method.params \
        and "public" in _modifiers(method.node) and not method.static \
        and method.returns is not None and text(method.returns) == "void"


def _junit3(table: TypeTable, decl: TypeDecl) -> bool:
    return any(d.fqn == "junit.framework.TestCase" for d in table.hierarchy(decl)) or \
        "TestCase" in table.external_supers(decl)


def binary_name(decl: TypeDecl) -> str:
    """``Outer$Inner`` (relative to the package), the JVM's name of a member class."""
    parts = [decl.node.child_by_field_name("name")]
    outer = decl.outer
    while outer is not None and not outer.anonymous:
        parts.append(outer.node.child_by_field_name("name"))
        outer = outer.outer
    return "$".join(text(p) for p in reversed(parts) if p is not None)


def _concrete(decl: TypeDecl) -> bool:
    return decl.kind == "class" and "abstract" not in _modifiers(decl.node) \
        and decl.locator is not None


def _suite_members(table: TypeTable, decl: TypeDecl) -> list[TypeDecl]:
    """The classes a suite names: ``@SuiteClasses({…})``'s class literals, and in a JUnit 3
    ``static Test suite()`` the class literals and the ``X.suite()`` it adds."""
    out: list[TypeDecl] = []
    ctx = Context(decl.file, decl, decl.type_params)
    bodies = [a for a in _annotations(decl.node) if _annotation_name(a) == "SuiteClasses"]
    bodies += [m.node for m in decl.methods.get("suite", ()) if m.static and not m.params]
    for body in bodies:
        stack = [body]
        while stack:
            node = stack.pop()
            named = None
            if node.type == "class_literal" and node.named_children:
                named = node.named_children[0]
            elif node.type == "method_invocation" and text(
                    node.child_by_field_name("name")) == "suite":
                named = node.child_by_field_name("object")
            found = table.of_node(named, ctx) if named is not None and named.type in (
                "type_identifier", "identifier", "scoped_type_identifier",
                "scoped_identifier", "field_access") else None
            if named is not None and named.type == "field_access":
                found = table.qualified(text(named).split("."), ctx)
            member = table.types.get(found[2:]) if found and found.startswith("R:") else None
            if member is not None:
                out.append(member)
            stack.extend(node.named_children)
    return out


def _runs_with(decl: TypeDecl, runner: str) -> bool:
    for annotation in _annotations(decl.node):
        if _annotation_name(annotation) == "RunWith" and runner in text(annotation):
            return True
    return False


def discover(scans: list[FileScan], table: TypeTable,
             projects: list[JavaProject]) -> dict[str, list[str]]:
    """Test method locator -> the test ids that run it."""
    test_roots = tuple(r for p in projects for r in p.test_roots) or ("src/test/java/",)
    in_tests = [d for s in scans if s.path.startswith(test_roots) for d in s.types
                if not d.anonymous and d.locator is not None]
    suite = _suite(table, in_tests, projects)
    out: dict[str, list[str]] = {}
    for decl in in_tests:
        if decl.fqn not in suite or not _concrete_or_member(decl):
            continue
        junit3 = _junit3(table, decl)
        seen: set[str] = set()
        for owner in table.hierarchy(decl):
            for name, methods in owner.methods.items():
                for method in methods:
                    signature = f"{name}({','.join(method.erased)})"
                    if signature in seen:
                        continue
                    seen.add(signature)
                    if _is_test_method(table, method, junit3) and method.locator is not None:
                        test_id = f"{_top_file(decl)}::{binary_name(decl)}#{name}"
                        ids = out.setdefault(method.locator, [])
                        if test_id not in ids:
                            ids.append(test_id)
    return out


def _concrete_or_member(decl: TypeDecl) -> bool:
    return decl.kind == "class" and "abstract" not in _modifiers(decl.node)


def _top_file(decl: TypeDecl) -> str:
    return decl.file.path


def suite_roots(scans: list[FileScan], projects: list[JavaProject]) -> list[TypeDecl]:
    """The classes the runner's whole run starts from: concrete top-level classes under a
    test root whose files its includes and excludes select."""
    test_roots = tuple(r for p in projects for r in p.test_roots) or ("src/test/java/",)
    roots: list[TypeDecl] = []
    for scan in scans:
        if not scan.path.startswith(test_roots):
            continue
        project = project_of(projects, scan.path)
        if project is not None and not in_suite(project, scan.path):
            continue
        roots.extend(d for d in scan.types if d.outer is None and _concrete(d))
    return roots


def _suite(table: TypeTable, in_tests: list[TypeDecl],
           projects: list[JavaProject]) -> set[str]:
    """FQNs of the test classes the runner's whole run reaches."""
    roots = suite_roots(list({id(d.file): d.file for d in in_tests}.values()), projects)
    found: set[str] = set()
    stack = list(roots)
    while stack:
        decl = stack.pop()
        if decl.fqn in found:
            continue
        found.add(decl.fqn)
        stack.extend(_suite_members(table, decl))
        members = [table.types[f] for f in decl.nested.values() if f in table.types]
        if _runs_with(decl, "Enclosed"):
            stack.extend(members)
        stack.extend(m for m in members  # JUnit 5's @Nested classes run with their outer
                     if any(_annotation_name(a) == "Nested" for a in _annotations(m.node)))
    return found


def _floor(scans: list[FileScan], edges: tuple[GraphEdge, ...],
           tests: dict[str, list[str]]) -> dict[str, list[str]]:
    """Test file -> the repository's source files it imports or uses."""
    file_of = {loc: s.path for s in scans for loc in s.entities}
    test_files = {tid.split("::", 1)[0] for ids in tests.values() for tid in ids}
    by_fqn = {d.fqn: s.path for s in scans for d in s.types}
    out: dict[str, set[str]] = {f: set() for f in test_files}
    for scan in scans:
        if scan.path in out:
            for fqn in scan.single.values():
                path = by_fqn.get(fqn)
                if path is not None and path != scan.path:
                    out[scan.path].add(path)
    for edge in edges:
        source = file_of.get(edge.source_locator)
        if source in out:
            target = file_of.get(edge.target_locator)
            if target is not None and target != source:
                out[source].add(target)
    return {f: sorted(paths) for f, paths in sorted(out.items())}


def _projects(commit: pygit2.Commit) -> list[JavaProject]:
    manifests: dict[str, bytes] = {}
    stack: list[tuple[str, pygit2.Tree]] = [("", commit.tree)]
    while stack and len(manifests) < _MAX_MANIFESTS:
        prefix, tree = stack.pop()
        for entry in tree:
            name = entry.name or ""
            if isinstance(entry, pygit2.Tree):
                if not name.startswith(".") and name not in ("src", "target", "build",
                                                             "node_modules"):
                    stack.append((f"{prefix}{name}/", entry))
            elif isinstance(entry, pygit2.Blob) and name in (
                    "pom.xml", "build.gradle", "build.gradle.kts", "mvnw", "gradlew"):
                manifests[f"{prefix}{name}"] = entry.data if name[0] in "pb" else b""
    return detect(manifests, manifests.get)


def project_json(project: JavaProject) -> dict[str, Any]:
    return {"directory": project.directory, "tool": project.tool,
            "test_roots": list(project.test_roots), "main_roots": list(project.main_roots),
            "includes": list(project.includes), "excludes": list(project.excludes),
            "artifact": project.artifact, "wrapper": project.wrapper,
            "aggregator": project.aggregator, "assertions": project.assertions}


def runner_edges(table: TypeTable, scans: list[FileScan], tests: dict[str, list[str]],
                 sink: EdgeSink) -> None:
    """A test depends on the runner JUnit runs its class with, when that runner is the
    repository's own code (a custom ``@RunWith(MyRunner.class)``, or JUnit's own runners in
    JUnit's repository): each test method ``calls`` the runner's constructors and ``run``
    (confidence ``runner``). The runner: ``@RunWith`` on the class or a superclass, else
    JUnit's default (``JUnit38ClassRunner`` for a ``TestCase``, ``BlockJUnit4ClassRunner``)."""
    by_binary = {(s.path, binary_name(d)): d for s in scans for d in s.types
                 if not d.anonymous and d.locator is not None}
    runners: dict[int, TypeDecl | None] = {}
    for locator, ids in tests.items():
        for test_id in ids:
            path, _, rest = test_id.partition("::")
            decl = by_binary.get((path, rest.partition("#")[0]))
            if decl is None:
                continue
            if id(decl) not in runners:
                runners[id(decl)] = _runner_of(table, decl)
            runner = runners[id(decl)]
            if runner is None or runner.locator is None:
                continue
            targets = [m.locator for m in (*runner.ctors, *table.methods(runner, "run"))
                       if m.locator is not None] or [runner.locator]
            for target in targets:
                key = (locator, target, "calls")
                if key not in sink.edges:
                    sink.edges.add(key)  # type: ignore[arg-type]
                    sink.confidence[key] = RUNNER  # type: ignore[index]


def _runner_of(table: TypeTable, decl: TypeDecl) -> TypeDecl | None:
    for owner in table.hierarchy(decl):
        for annotation in _annotations(owner.node):
            if _annotation_name(annotation) != "RunWith":
                continue
            literal = next((n for n in _walk(annotation) if n.type == "class_literal"), None)
            if literal is None or not literal.named_children:
                return None
            found = table.of_node(literal.named_children[0],
                                  Context(owner.file, owner, owner.type_params))
            return table.types.get(found[2:]) if found and found.startswith("R:") else None
    default = "org.junit.internal.runners.JUnit38ClassRunner" if _junit3(table, decl) \
        else "org.junit.runners.BlockJUnit4ClassRunner"
    return table.types.get(default)


def _walk(node: Any) -> list[Any]:
    out, stack = [], [node]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(current.named_children)
    return out


def prepare(commit: pygit2.Commit, scans: list[FileScan],
            table: TypeTable) -> tuple[list[JavaProject], dict[str, list[str]]]:
    """The commit's Java projects and its tests (test method locator -> test ids)."""
    projects = _projects(commit)
    return projects, discover(scans, table, projects)


def discovery_facts(projects: list[JavaProject], tests: dict[str, list[str]],
                    scans: list[FileScan], edges: tuple[GraphEdge, ...]) -> dict[str, Any]:
    roots = [f"{d.file.package}.{binary_name(d)}" if d.file.package != "(default)"
             else binary_name(d) for d in suite_roots(scans, projects)]
    uses = tuple(e for e in edges if e.confidence != RUNNER)
    return {"projects": [project_json(p) for p in projects], "tests": tests,
            "suite_classes": sorted(roots), "test_imports": _floor(scans, uses, tests)}
