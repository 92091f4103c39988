"""``cargo test``'s row: everything Rust-specific, behind the row's callables.

* tests: ``cargo_rules`` (packages, targets and their files from ``Cargo.toml``; test
  attributes), ``cargo_tests`` (a work tree's tests) and ``cargo_discovery`` (a graph's
  tests; the floor: the changed file's tests, the package's and its dependents'
  integration tests);
* detection and the command: ``cargo_command`` (a ``Cargo.toml``; one ``cargo test -p
  <package> <target> -- --exact …`` per target; the whole suite as the repository's CI
  runs it);
* its map: ``cargo_coverage`` (LLVM source-based coverage, each test alone) and
  ``cargo_record`` (``warpline record-tests``);
* its receipts: ``cargo_run`` (``warpline run-tests`` watches libtest's report).

A test id is ``<file>::<libtest name>`` (``crates/searcher/src/lib.rs::tests::it_works``,
``tests/cli.rs::parse_flags``).
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

NAME = "cargo"
MAX_IDS = 500
# An untracked Cargo.lock is cargo's own output for a repository that commits none: it
# does not change what the commit's run tests.
_RUN_NAMES = frozenset({"Cargo.toml", "build.rs", "rust-toolchain", "rust-toolchain.toml",
                        "config.toml"})


def _detect(root: Path) -> bool:
    from warpline.runners.cargo_command import detect

    return detect(root)


def _owns(test_id: str) -> bool:
    return test_id.partition("::")[0].endswith(".rs")


def _file_of(test_id: str) -> str:
    return test_id.partition("::")[0]


def _is_test_file(path: str) -> bool:
    parts = path.split("/")
    return path.endswith(".rs") and "tests" in parts[:-1]


def _test_nodes(graph: Any) -> list[str]:
    from warpline.runners.cargo_discovery import test_nodes

    return test_nodes(graph)


def _graph_tests(graph: Any, locator: str) -> list[str]:
    from warpline.runners.cargo_discovery import graph_tests

    return graph_tests(graph, locator)


def _floor(graph: Any, paths: Sequence[str | None]) -> list[str] | None:
    from warpline.runners.cargo_discovery import floor

    return floor(graph, paths)


def _command(root: Path, ids: Sequence[str]) -> tuple[str, bool] | None:
    from warpline.runners.cargo_command import command

    return command(root, ids)


def _command_lines(root: Path, ids: Sequence[str]) -> list[str]:
    from warpline.runners.cargo_command import command_lines
    from warpline.runners.row import capped

    return command_lines(root, capped(ids, MAX_IDS, _file_of)[0])


def _collectable(root: Path, ids: Sequence[str]) -> list[str]:
    from warpline.runners.cargo_command import placed

    return placed(root, ids)


def _file_tests(root: Path, path: str) -> list[str]:
    from warpline.runners.cargo_tests import file_tests

    return file_tests(root, path)


def _record(root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
            jobs: int) -> tuple[RecordedMap, RunWatchState, int]:
    from warpline.runners.cargo_record import record

    return record(root, repo, commit, jobs)


def _run(root: Path, ids: Sequence[str] | None) -> tuple[RunWatchState, int]:
    from warpline.runners.cargo_run import run

    return run(root, ids)


def _suite(root: Path) -> str:
    from warpline.runners.cargo_command import whole_suite

    return whole_suite(root)


def _run_input(path: str) -> bool:
    parts = path.split("/")
    if "target" in parts[:-1]:
        return False  # build output (generated sources included)
    return parts[-1].endswith(".rs") or parts[-1] in _RUN_NAMES


CARGO = Runner(
    name=NAME,
    languages=("rust",),
    config_files=("Cargo.toml",),
    detect=_detect,
    owns=_owns,
    test_file=_file_of,
    is_test_file=_is_test_file,
    test_nodes=_test_nodes,
    graph_tests=_graph_tests,
    command=_command,
    collectable=_collectable,
    whole_suite="cargo test",
    record_command="warpline record-tests",
    max_ids=MAX_IDS,
    run_input=_run_input,
    command_lines=_command_lines,
    example_ids=("crates/searcher/src/lib.rs::tests::it_works", "tests/cli.rs::parse_flags",
                 "src/lib.rs"),
    floor=_floor,
    file_tests=_file_tests,
    record=_record,
    run=_run,
    whole_suite_at=_suite,
    # Besides Cargo.toml (config_files): the locked dependency versions, the toolchain's
    # pin and cargo's own configuration (build flags, rustflags, target runners).
    suite_files=("Cargo.lock", "rust-toolchain", "rust-toolchain.toml", ".cargo/config.toml",
                 ".cargo/config"),
)
