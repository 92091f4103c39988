"""Java projects of a repository, read from their manifests: Maven's ``pom.xml`` (modules,
test source directory, Surefire's includes and excludes) and Gradle's ``build.gradle`` /
``build.gradle.kts`` (the conventional layout).

Manifests are data: read with bounds (1 MiB, no DOCTYPE or entity declarations, expat's own
limits), never evaluated; a property (``${x}``) is expanded only from the same pom's
``<properties>``. A manifest that cannot be read is skipped and named in ``problems``.

Surefire's defaults, when the pom names none: includes ``**/Test*.java``,
``**/*Test.java``, ``**/*Tests.java``, ``**/*TestCase.java``; excludes ``**/*$*`` (nested
classes). Gradle's ``test`` task runs every test class of the test source set.
"""

from __future__ import annotations

import fnmatch
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

__all__ = ["SUREFIRE_EXCLUDES", "SUREFIRE_INCLUDES", "JavaProject", "default_test_file",
           "detect", "in_suite"]

SUREFIRE_INCLUDES = ("**/Test*.java", "**/*Test.java", "**/*Tests.java", "**/*TestCase.java")
SUREFIRE_EXCLUDES = ("**/*$*",)
_MAX_MANIFEST = 1 << 20
_PROPERTY = re.compile(r"\$\{([\w.-]+)\}")
_GRADLE = ("build.gradle", "build.gradle.kts")
_GRADLE_SRC = re.compile(r"""srcDirs?\s*[(=]?\s*\[?\s*['"]([^'"]+)['"]""")

Reader = Callable[[str], bytes | None]


@dataclass(frozen=True, slots=True)
class JavaProject:
    """One build module: ``directory`` relative to the repository (``""`` the root)."""
    directory: str
    tool: str  # "maven" | "gradle"
    test_roots: tuple[str, ...]  # repository-relative, each ending in "/"
    main_roots: tuple[str, ...]
    includes: tuple[str, ...] = SUREFIRE_INCLUDES
    excludes: tuple[str, ...] = SUREFIRE_EXCLUDES
    artifact: str = ""
    wrapper: bool = False  # ./mvnw or ./gradlew at the repository root
    aggregator: bool = False  # a pom with <modules> (the reactor's root)
    assertions: bool = True  # Surefire's enableAssertions (-ea), true unless the pom says
    problems: tuple[str, ...] = field(default=())


def _join(directory: str, path: str) -> str:
    path = path.strip().strip("/")
    joined = f"{directory}/{path}" if directory else path
    return joined.rstrip("/") + "/"


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _child(element: ET.Element | None, name: str) -> ET.Element | None:
    if element is None:
        return None
    return next((c for c in element if _local(c.tag) == name), None)


def _children(element: ET.Element | None, name: str) -> list[ET.Element]:
    return [c for c in element if _local(c.tag) == name] if element is not None else []


def parse_pom(data: bytes) -> ET.Element | None:
    """The pom's root element, or None when it is not one to read."""
    if len(data) > _MAX_MANIFEST or b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        return None
    try:
        root = ET.fromstring(data)
    except (ET.ParseError, ValueError):
        return None
    return root if _local(root.tag) == "project" else None


def _text(element: ET.Element | None, properties: dict[str, str]) -> str:
    raw = (element.text or "").strip() if element is not None else ""
    return _PROPERTY.sub(lambda m: properties.get(m.group(1), m.group(0)), raw)


def _maven(directory: str, root: ET.Element, wrapper: bool) -> JavaProject:
    properties = {_local(p.tag): (p.text or "").strip()
                  for p in list(_child(root, "properties") or [])}
    build = _child(root, "build")
    test_dir = _text(_child(build, "testSourceDirectory"), properties) or "src/test/java"
    main_dir = _text(_child(build, "sourceDirectory"), properties) or "src/main/java"
    includes: tuple[str, ...] = SUREFIRE_INCLUDES
    excludes: tuple[str, ...] = SUREFIRE_EXCLUDES
    assertions = True
    plugins = _children(_child(build, "plugins"), "plugin")
    for plugin in plugins:
        if _text(_child(plugin, "artifactId"), properties) != "maven-surefire-plugin":
            continue
        config = _child(plugin, "configuration")
        named = [_text(e, properties) for e in _children(_child(config, "includes"), "include")]
        if named:
            includes = tuple(named)
        unnamed = [_text(e, properties) for e in _children(_child(config, "excludes"), "exclude")]
        if unnamed:
            excludes = tuple(unnamed)
        assertions = _text(_child(config, "enableAssertions"), properties) != "false"
    return JavaProject(directory, "maven", (_join(directory, test_dir),),
                       (_join(directory, main_dir),), includes, excludes,
                       _text(_child(root, "artifactId"), properties), wrapper,
                       bool(_children(_child(root, "modules"), "module")), assertions)


def _gradle(directory: str, data: bytes, wrapper: bool) -> JavaProject:
    text = data[:_MAX_MANIFEST].decode("utf-8", "replace")
    test_roots = [_join(directory, "src/test/java")]
    block = text.partition("test {")[2] if "sourceSets" in text else ""
    found = _GRADLE_SRC.search(block[:2000])
    if found is not None:
        test_roots = [_join(directory, found.group(1))]
    return JavaProject(directory, "gradle", tuple(test_roots),
                       (_join(directory, "src/main/java"),), (), (), directory, wrapper)


def detect(paths: Iterable[str], read: Reader) -> list[JavaProject]:
    """Every Maven or Gradle project among ``paths`` (repository-relative, the tree's
    files), by its manifest; a directory with both is Maven's (its pom is the build)."""
    listed = set(paths)
    wrapper_mvn = "mvnw" in listed
    wrapper_gradle = "gradlew" in listed
    out: dict[str, JavaProject] = {}
    for path in sorted(listed):
        directory, _, name = path.rpartition("/")
        if name == "pom.xml":
            data = read(path)
            root = parse_pom(data) if data is not None else None
            if root is not None:
                out[directory] = _maven(directory, root, wrapper_mvn)
        elif name in _GRADLE and directory not in out:
            data = read(path)
            if data is not None:
                out[directory] = _gradle(directory, data, wrapper_gradle)
    return [out[d] for d in sorted(out)]


def project_of(projects: list[JavaProject], path: str) -> JavaProject | None:
    """The project whose test or main root holds ``path`` (the deepest)."""
    best: JavaProject | None = None
    for project in projects:
        if any(path.startswith(root) for root in (*project.test_roots, *project.main_roots)):
            if best is None or len(project.directory) > len(best.directory):
                best = project
    return best


def _matches(relative: str, pattern: str) -> bool:
    pattern = pattern.strip()
    if pattern.endswith(".class"):
        pattern = pattern[:-6] + ".java"
    if pattern.startswith("**/"):
        return fnmatch.fnmatchcase(relative, pattern[3:]) or \
            fnmatch.fnmatchcase(relative, pattern)
    return fnmatch.fnmatchcase(relative, pattern)


def in_suite(project: JavaProject, path: str) -> bool:
    """Whether the runner's whole-suite run picks up the test file ``path`` by its name
    (Surefire's includes and excludes; Gradle runs every test class)."""
    root = next((r for r in project.test_roots if path.startswith(r)), None)
    if root is None:
        return False
    if project.tool == "gradle":
        return True
    relative = path[len(root):]
    name_only = relative.rpartition("/")[2]
    included = any(_matches(relative, p) or _matches(name_only, p) for p in project.includes)
    excluded = any(_matches(relative, p) for p in project.excludes if p != "**/*$*")
    return included and not excluded


def default_test_file(path: str) -> bool:
    """A test file by Maven's defaults: under a ``src/test/java/`` named as Surefire's
    default includes name test classes."""
    at = path.find("src/test/java/")
    if at < 0 or (at and path[at - 1] != "/") or not path.endswith(".java"):
        return False
    project = JavaProject(path[:at].rstrip("/"), "maven", (path[:at] + "src/test/java/",), ())
    return in_suite(project, path)
