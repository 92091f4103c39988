"""Maven's row (JUnit 3, 4 and 5 tests of Java code under Surefire): everything
Maven-specific, behind the row's callables.

* tests: ``graph/builtin/java_tests`` finds them in the source as JUnit and Surefire do
  (``maven_rules``: the poms' test roots, includes and excludes), stored with the edge
  snapshot (``discovery["java"]``); ``maven_discovery`` reads them from the graph;
* detection and the command: ``maven_command`` (a ``pom.xml``; Surefire's
  ``-Dtest='pkg/FooTest#a+b'``, ``-pl`` for a module of a reactor, ``./mvnw`` when the
  repository has it);
* its map: ``maven_record`` (``warpline record-tests``: JaCoCo per test, ``maven_jacoco``);
* its runs: ``maven_run`` (``warpline run-tests``: the row's own command, each test's
  outcome read back from Surefire's XML reports);
* static selection's floor: ``maven_select`` (own tests by name, test files using the
  changed file).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warpline.runners.row import Runner

if TYPE_CHECKING:
    import pygit2

    from warpline.runners.receipt import RunWatchState
    from warpline.store.testmaps import RecordedMap

NAME = "maven"
MAX_IDS = 500


def _file_of(test_id: str) -> str:
    return test_id.split("::", 1)[0]


def _detect(root: Path) -> bool:
    from warpline.runners.maven_command import uses_maven

    return uses_maven(root)


def _owns(test_id: str) -> bool:
    return _file_of(test_id).endswith(".java")


def _is_test_file(path: str) -> bool:
    from warpline.runners.maven_rules import default_test_file

    return default_test_file(path)


def _test_nodes(graph: Any) -> list[str]:
    from warpline.runners.maven_discovery import test_nodes

    return test_nodes(graph)


def _graph_tests(graph: Any, locator: str) -> list[str]:
    from warpline.runners.maven_discovery import graph_tests

    return graph_tests(graph, locator)


def _command(root: Path, ids: Sequence[str]) -> tuple[str, bool] | None:
    from warpline.runners.maven_command import command_for

    return command_for(root, list(ids), MAX_IDS)


def _command_lines(root: Path, ids: Sequence[str]) -> list[str]:
    from warpline.runners.maven_command import command_lines

    return command_lines(root, list(ids), MAX_IDS)


def _floor(graph: Any, paths: Sequence[str | None]) -> list[str] | None:
    from warpline.runners.maven_discovery import floor

    return floor(graph, paths)


def _widen(graph: Any, locators: Sequence[str]) -> list[str]:
    from warpline.runners.maven_discovery import widen

    return widen(graph, locators)


def _record(root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
            jobs: int) -> tuple[RecordedMap, RunWatchState, int]:
    from warpline.runners.maven_record import record

    return record(root, repo, commit, jobs)


def _run(root: Path, ids: Sequence[str] | None) -> tuple[RunWatchState, int]:
    from warpline.runners.maven_run import run

    return run(root, ids)


def _collectable(root: Path, ids: Sequence[str]) -> list[str]:
    """The ids whose test file the work tree still holds (Surefire fails a ``-Dtest`` that
    matches no class); a method is kept while its file is there (it may be inherited)."""
    out = []
    for test_id in ids:
        disk = root / _file_of(test_id)
        if disk.is_file() and not disk.is_symlink():
            out.append(test_id)
    return out


def _run_input(path: str) -> bool:
    """An untracked source, manifest or resource changes what Maven builds; its own build
    output (``target/``) does not."""
    if path.startswith("target/") or "/target/" in path:
        return False
    return path.endswith((".java", "pom.xml", ".properties", ".xml")) \
        or path.startswith(".mvn/") or "/src/" in f"/{path}"


MAVEN = Runner(
    name=NAME,
    languages=("java",),
    config_files=("pom.xml",),
    detect=_detect,
    owns=_owns,
    test_file=_file_of,
    is_test_file=_is_test_file,
    test_nodes=_test_nodes,
    graph_tests=_graph_tests,
    command=_command,
    collectable=_collectable,
    whole_suite="mvn test",
    record_command="warpline record-tests",
    max_ids=MAX_IDS,
    run_input=_run_input,
    command_lines=_command_lines,
    example_ids=("src/test/java/org/a/FooTest.java::FooTest#bar",
                 "src/test/java/org/a/FooTest.java::FooTest$Inner#baz",
                 "core/src/test/java/org/a/FooTest.java"),
    reach_hops=64,  # maven_select.MAX_HOPS: Java's call chains run deep (measured)
    floor=_floor,
    widen=_widen,
    record=_record,
    run=_run,
    # Maven's own configuration beside pom.xml (config_files) and its wrapper's pin.
    suite_files=(".mvn/maven.config", ".mvn/jvm.config", ".mvn/extensions.xml",
                 ".mvn/wrapper/maven-wrapper.properties"),
)
