"""``go test``'s row: everything Go-specific, behind the row's callables.

* tests: ``gotest_rules`` (``TestXxx``, ``ExampleXxx`` with an output comment,
  ``FuzzXxx``, ``BenchmarkXxx`` (never selected), static ``t.Run`` subtests) and
  ``gotest_discovery`` (a graph's Go tests; the floor: a changed package's tests and its
  importers');
* detection and the command: ``gotest_command`` (a ``go.mod`` at the root or below; one
  ``go test ./pkg -count=1 -run '^(…)$'`` per package and subtest filter);
* its map: ``gotest_coverage`` (a coverage test binary per package, one
  ``-test.coverprofile`` per test; ``warpline record-tests`` runs it, and ``warpline
  import-coverage DIR --runner go`` reads a directory it wrote elsewhere);
* its receipts: ``gotest_run`` (``warpline record-tests`` and ``warpline run-tests`` watch
  the runs they start and write them).

A test id is ``<file>::<Name>`` (``cmd/x_test.go::TestParse``), a subtest
``<file>::<Name>/<sub>``.
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

NAME = "go"
SOURCE = "go-cover"
_RUN_NAMES = frozenset({"go.mod", "go.sum", "go.work", "go.work.sum"})


def _detect(root: Path) -> bool:
    from warpline.runners.gotest_command import detect

    return detect(root)


def _owns(test_id: str) -> bool:
    return test_id.split("::", 1)[0].endswith(".go")


def _file_of(test_id: str) -> str:
    return test_id.split("::", 1)[0]


def _is_test_file(path: str) -> bool:
    return path.endswith("_test.go")


def _test_nodes(graph: Any) -> list[str]:
    from warpline.runners.gotest_discovery import test_nodes

    return test_nodes(graph)


def _graph_tests(graph: Any, locator: str) -> list[str]:
    from warpline.runners.gotest_discovery import graph_tests

    return graph_tests(graph, locator)


def _floor(graph: Any, paths: Sequence[str | None]) -> list[str] | None:
    from warpline.runners.gotest_discovery import floor

    return floor(graph, paths)


def _command(root: Path, ids: Sequence[str]) -> tuple[str, bool] | None:
    from warpline.runners.gotest_command import command

    return command(root, ids)


def _command_lines(root: Path, ids: Sequence[str]) -> list[str]:
    from warpline.runners.gotest_command import command_lines

    return command_lines(root, ids)


def _collectable(root: Path, ids: Sequence[str]) -> list[str]:
    from warpline.runners.gotest_command import collectable

    return collectable(root, ids)


def _file_tests(root: Path, path: str) -> list[str]:
    from warpline.runners.gotest_command import file_tests

    return file_tests(root, path)


def _import_map(root: Path, repo: pygit2.Repository, commit: pygit2.Commit, data: Path,
                rootdir: str) -> RecordedMap:
    from warpline.runners.gotest_run import recorded_map

    return recorded_map(root, repo, commit, data)


def _record(root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
            jobs: int) -> tuple[RecordedMap, RunWatchState, int]:
    from warpline.runners.gotest_run import record

    return record(root, repo, commit, jobs)


def _run(root: Path, ids: Sequence[str] | None) -> tuple[RunWatchState, int]:
    from warpline.runners.gotest_run import run

    return run(root, ids)


def _run_input(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".go") or name in _RUN_NAMES


GO_TEST = Runner(
    name=NAME,
    languages=("go",),
    config_files=("go.mod",),
    suite_files=("go.sum", "go.work", "go.work.sum"),
    detect=_detect,
    owns=_owns,
    test_file=_file_of,
    is_test_file=_is_test_file,
    test_nodes=_test_nodes,
    graph_tests=_graph_tests,
    command=_command,
    collectable=_collectable,
    whole_suite="go test ./...",
    record_command="warpline record-tests",
    import_map=_import_map,
    max_ids=500,
    run_input=_run_input,
    command_lines=_command_lines,
    example_ids=("pkg/parse/parse_test.go::TestParse", "cmd_test.go::TestRun/with_flags",
                 "pkg/parse/parse_test.go"),
    floor=_floor,
    file_tests=_file_tests,
    record=_record,
    run=_run,
)
