"""A selection of Java tests as the project's own runner's command: Maven's Surefire
(``mvn -Dtest='pkg/FooTest#a+b,pkg/Outer$Inner#c' test``) or Gradle
(``gradle test --tests 'pkg.FooTest.a' …``).

Test ids are ``<file>::<Class>#<method>`` (``Outer$Inner`` for a member class), a class
``<file>::<Class>`` or a whole file ``<file>`` (every top-level class of it), all
repository-relative (``graph/builtin/java_tests``). Surefire's ``-Dtest`` takes class
patterns by path (``org/demo/FooTest``, what its includes match) and methods after ``#``
joined by ``+``; it replaces the pom's includes and excludes, so the named tests run even
where the whole suite reaches them through a suite class. A module of a multi-module build
is named with ``-pl`` (``-am`` builds what it needs, with
``-Dsurefire.failIfNoSpecifiedTests=false`` so those modules may match no test). The
wrapper (``./mvnw``, ``./gradlew``) is used when the repository has one.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from warpline.runners.maven_rules import JavaProject, project_of

__all__ = ["commands", "split_id"]


def split_id(test_id: str) -> tuple[str, str, str]:
    """``(file, Class, method)``; class and method may be empty."""
    path, _, rest = test_id.partition("::")
    cls, _, method = rest.partition("#")
    return path, cls, method


def _class_path(project: JavaProject, path: str, cls: str) -> str:
    root = next((r for r in project.test_roots if path.startswith(r)), "")
    directory = path[len(root):].rpartition("/")[0]
    if not cls:  # a whole file: its top-level class by the file's name
        cls = path.rpartition("/")[2].removesuffix(".java")
    return f"{directory}/{cls}" if directory else cls


def _patterns(project: JavaProject, ids: Iterable[str]) -> list[tuple[str, list[str]]]:
    """(class pattern, methods: empty for the whole class), in first-seen order."""
    order: dict[str, list[str] | None] = {}
    for test_id in ids:
        path, cls, method = split_id(test_id)
        key = _class_path(project, path, cls)
        if not method:
            order[key] = None
            continue
        methods = order.setdefault(key, [])
        if methods is not None and method not in methods:
            methods.append(method)
    return [(cls, methods or []) for cls, methods in order.items()]


def _maven(project: JavaProject, ids: list[str], reactor: bool) -> str:
    selector = ",".join(f"{cls}#{'+'.join(methods)}" if methods else cls
                        for cls, methods in _patterns(project, ids))
    words = ["./mvnw" if project.wrapper else "mvn"]
    if reactor and project.directory:
        words += ["-pl", project.directory, "-am", "-Dsurefire.failIfNoSpecifiedTests=false"]
    words += [f"-Dtest={selector}", "test"]
    return " ".join(shlex.quote(w) for w in words)


def _gradle(project: JavaProject, ids: list[str]) -> str:
    words = ["./gradlew" if project.wrapper else "gradle"]
    task = f":{project.directory.replace('/', ':')}:test" if project.directory else "test"
    words.append(task)
    for cls, methods in _patterns(project, ids):
        dotted = cls.replace("/", ".")
        for method in methods or [""]:
            words += ["--tests", f"{dotted}.{method}" if method else dotted]
    return " ".join(shlex.quote(w) for w in words)


def commands(projects: list[JavaProject], ids: list[str]) -> list[str]:
    """One command per build (a Maven reactor, a Gradle build) running exactly ``ids``;
    ids under no known project are left out (the caller says so)."""
    groups: dict[str, tuple[JavaProject, list[str]]] = {}
    for test_id in dict.fromkeys(ids):
        project = project_of(projects, split_id(test_id)[0])
        if project is None:
            continue
        groups.setdefault(project.directory, (project, []))[1].append(test_id)
    reactor = any(p.directory == "" and p.aggregator for p in projects)
    out = []
    for project, group in groups.values():
        if project.tool == "gradle":
            out.append(_gradle(project, group))
        elif reactor or not project.directory:
            out.append(_maven(project, group, reactor))
        else:  # a Maven project of its own below the root: run where its pom is
            out.append(f"(cd {shlex.quote(project.directory)} && "
                       f"{_maven(project, group, False)})")
    return out
