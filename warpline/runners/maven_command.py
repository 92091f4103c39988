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
from pathlib import Path

from warpline.runners.maven_rules import JavaProject, detect, project_of
from warpline.runners.row import capped

__all__ = ["command_for", "command_lines", "commands", "projects_in", "split_id",
           "uses_maven"]

_MAX_MANIFESTS = 200
_SKIPPED_DIRS = frozenset({"src", "target", "build", "node_modules", ".git", ".weft"})


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


def _conventional(path: str) -> JavaProject | None:
    """The Maven project a test file's path names by Maven's layout (``<dir>/src/test/java/``)
    where no pom was found for it."""
    at = path.find("src/test/java/")
    if at < 0 or (at and path[at - 1] != "/"):
        return None
    directory = path[:at].rstrip("/")
    return JavaProject(directory, "maven", (path[:at] + "src/test/java/",),
                       (path[:at] + "src/main/java/",))


def commands(projects: list[JavaProject], ids: list[str]) -> list[str]:
    """One command per build (a Maven reactor, a Gradle build) running exactly ``ids``;
    an id under no known project goes to the one Maven's layout names for its path; ids
    under neither are left out (the caller says so)."""
    groups: dict[str, tuple[JavaProject, list[str]]] = {}
    for test_id in dict.fromkeys(ids):
        path = split_id(test_id)[0]
        project = project_of(projects, path) or _conventional(path)
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


def _read(root: Path, path: str) -> bytes | None:
    """A manifest of the work tree as data: a regular file (no symlink), bounded."""
    target = root / path
    try:
        if target.is_symlink() or not target.is_file() or target.stat().st_size > 1 << 20:
            return None
        return target.read_bytes()
    except OSError:
        return None


def projects_in(root: Path) -> list[JavaProject]:
    """The Maven and Gradle projects of the work tree at ``root`` (manifests within three
    directory levels, build output and sources not searched)."""
    found: list[str] = []
    stack: list[tuple[Path, str, int]] = [(root, "", 0)]
    while stack and len(found) < _MAX_MANIFESTS:
        directory, prefix, depth = stack.pop()
        try:
            entries = sorted(directory.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.is_symlink():
                continue
            if entry.is_dir():
                if depth < 3 and entry.name not in _SKIPPED_DIRS \
                        and not entry.name.startswith("."):
                    stack.append((entry, f"{prefix}{entry.name}/", depth + 1))
            elif entry.name in ("pom.xml", "build.gradle", "build.gradle.kts", "mvnw",
                                "gradlew"):
                found.append(f"{prefix}{entry.name}")
    return detect(found, lambda path: _read(root, path))


def uses_maven(root: Path) -> bool:
    """The repository builds with Maven: a ``pom.xml`` at its root or one level below."""
    if _read(root, "pom.xml") is not None:
        return True
    try:
        return any(_read(root, f"{child.name}/pom.xml") is not None
                   for child in root.iterdir() if child.is_dir() and not child.is_symlink())
    except OSError:
        return False


def _cap(ids: list[str], max_ids: int) -> tuple[list[str], bool]:
    """Past ``max_ids``: whole test classes (``file::Class``), more tests, never fewer."""
    return capped(ids, max_ids, lambda test_id: test_id.partition("#")[0])


def command_lines(root: Path, ids: list[str], max_ids: int = 500) -> list[str]:
    unique, _ = _cap(ids, max_ids)
    return commands([p for p in projects_in(root) if p.tool == "maven"], unique)


def command_for(root: Path, ids: list[str], max_ids: int = 500) -> tuple[str, bool] | None:
    """One command running exactly ``ids`` from the root (several builds: joined by
    ``&&``); ``widened`` when past ``max_ids`` whole classes are named instead."""
    unique, widened = _cap(ids, max_ids)
    lines = commands([p for p in projects_in(root) if p.tool == "maven"], unique)
    return (" && ".join(lines), widened) if lines else None
