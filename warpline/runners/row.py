"""What every test runner row provides (``warpline.runners``; the contract: docs/runners.md).

A row is data and callables; each callable imports its runner's modules on first call, so
the table costs nothing to import. Test ids are the runner's own (pytest's node ids), always
relative to the repository root; ``owns`` tells a row's ids from another's, ``test_file``
names the file that defines one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pygit2

    from warpline.runners.receipt import RunWatchState
    from warpline.store.testmaps import RecordedMap


class Detect(Protocol):
    """Whether the repository at ``root`` uses the runner, from its manifests and config
    files read as data (never run). The one test for "a runner the repository uses"."""

    def __call__(self, root: Path) -> bool: ...


class Command(Protocol):
    """The one shell command running exactly ``ids`` (the runner's own ids, repo-relative,
    in order, not empty) from the repository root, as printed: ``(command, widened)``,
    ``widened`` when past the row's ``max_ids`` whole files are named instead (more tests,
    never fewer). None when ``ids`` is empty."""

    def __call__(self, root: Path, ids: Sequence[str]) -> tuple[str, bool] | None: ...


class Collectable(Protocol):
    """The ids of ``ids`` the runner would collect in the work tree at ``root`` (a deleted
    test, a file that is no test of this runner dropped), in order. Where a selection is
    narrowed before its command is rendered."""

    def __call__(self, root: Path, ids: Sequence[str]) -> list[str]: ...


class GraphTests(Protocol):
    """The runner's test ids that run the definition ``locator`` of the edge snapshot's
    graph (a networkx ``DiGraph``: nodes are locators with ``path``/``kind``; its
    ``graph["discovery"]`` holds what the built-in extractor learnt of the tests): where it
    is defined, and wherever the runner runs it again (an inherited test method). Empty
    for a definition that is no test of this runner."""

    def __call__(self, graph: Any, locator: str) -> list[str]: ...


class GraphTestNodes(Protocol):
    """The definitions of the edge snapshot's graph that are this runner's tests (their
    locators, sorted): where the static walk from a changed definition stops."""

    def __call__(self, graph: Any) -> list[str]: ...


class ImportMap(Protocol):
    """A per-test map from coverage data the runner's own tooling wrote (``data``: a file
    or directory), measured at ``commit`` with tests named relative to ``rootdir``
    (repo-relative, "" for the root): the ``RecordedMap`` the store keeps and
    ``warpline.testmap.v1`` carries. Raises ``InvalidArgument`` (field ``coverage_file``)
    for data it cannot read."""

    def __call__(self, root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
                 data: Path, rootdir: str) -> RecordedMap: ...


class Floor(Protocol):
    """The test files (or ids) a static selection runs for changed files ``paths`` of the
    snapshot's graph beyond what the graph reaches (pytest's import floor is the service's
    own; Go's: the changed packages' tests and their importers'; Maven's: a changed class's
    own tests by name and the test files using the changed file); None when the snapshot
    carries no facts to tell."""

    def __call__(self, graph: Any, paths: Sequence[str | None]) -> list[str] | None: ...


class Widen(Protocol):
    """Definitions of the snapshot's graph whose tests in a per-test map depend on the
    changed ``locators`` though the map cannot see it (Maven: classes whose static
    initializers, run once per JVM, reach them)."""

    def __call__(self, graph: Any, locators: Sequence[str]) -> list[str]: ...


class Record(Protocol):
    """Run the whole suite under the runner's own coverage, one map for ``commit`` (the
    work tree's HEAD): ``(the map, the run's watch state, its exit status)``; the caller
    stores both (``warpline record-tests``)."""

    def __call__(self, root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
                 jobs: int) -> tuple[RecordedMap, RunWatchState, int]: ...


class Run(Protocol):
    """Run ``ids`` (None: the whole suite) as the row's command does, watching each test's
    outcome: ``(the watch state, exit status)`` (``warpline run-tests``)."""

    def __call__(self, root: Path, ids: Sequence[str] | None) -> tuple[RunWatchState, int]: ...


@dataclass(frozen=True, slots=True)
class Runner:
    """One row: how one test runner's tests are found, named, run, mapped and receipted."""

    name: str  # the wire's ``runner`` ("pytest"): selection, receipts, CI, verify records
    languages: tuple[str, ...]  # ``warpline.lang`` rows whose changes its tests exercise
    config_files: tuple[str, ...]  # manifests / config files ``detect`` reads (docs)
    detect: Detect
    owns: Callable[[str], bool]  # a test id (or test file) is this runner's
    test_file: Callable[[str], str]  # test id -> the repo-relative file defining it
    is_test_file: Callable[[str], bool]  # repo-relative path -> a test file by its defaults
    test_nodes: GraphTestNodes
    graph_tests: GraphTests
    command: Command
    collectable: Collectable
    # The command running the whole suite from the repository root ("pytest").
    whole_suite: str
    # How a map is recorded for it (shown where an answer lacks one); "" while none can be.
    record_command: str = ""
    # Its coverage data -> a map (``warpline import-coverage``); None: not yet.
    import_map: ImportMap | None = None
    # Past this many ids the command names whole files.
    max_ids: int = 500
    # An untracked path that changes what a run collects or imports (a run with one present
    # did not test the commit): its receipt is not ``clean``.
    run_input: Callable[[str], bool] = lambda path: False
    # The command for ``ids`` as separate lines, each runnable alone (pytest: one per
    # rootdir; ``warpline ci --selection`` writes one per line); None: ``command``'s one.
    command_lines: Callable[[Path, Sequence[str]], list[str]] | None = None
    # A change in one of its languages selects it even where ``detect`` finds no config:
    # the language's default runner (pytest also runs unittest suites and bare test files).
    language_default: bool = False
    # Ids the meta-test checks ``owns`` against (this row's, no other's).
    example_ids: tuple[str, ...] = ()
    # How far (call/reference edges) the static walk from a changed definition looks for
    # this row's tests (a language whose call chains run deep looks further: Java's).
    reach_hops: int = 6
    # Beyond pytest's import floor (the service's own): the row's floor of changed files.
    floor: Floor | None = None
    # (root, repo-relative file) -> the ids of the tests defined in that work-tree file (a
    # test file changed since the map: its tests the map cannot know); None: the graph's
    # discovery facts name a changed test (``graph_tests``) and a changed test file the map
    # holds no test of runs whole (Maven's), or Python's rule (pytest's).
    file_tests: Callable[[Path, str], list[str]] | None = None
    # (graph, changed definitions) -> definitions whose tests in a map also depend on them
    # (``Widen``); None: none.
    widen: Widen | None = None
    # A runner without a plugin: warpline runs it (``record-tests``, ``run-tests``) and
    # writes the receipts of the runs it watched.
    record: Record | None = None
    run: Run | None = None
    # Besides ``config_files``, the files its tests read (glob patterns: a name, or a path
    # when it holds "/"): dependency manifests, lock files. A change to one runs its
    # whole suite, with the reason (``service.testing.filekinds``).
    suite_files: tuple[str, ...] = ()
    # (root, repo-relative path of a documentation file) -> whether the project's run of
    # this runner reads it as a test (pytest: ``test*.txt`` doctest files, the project's
    # ``--doctest-glob``): then it is no mere documentation.
    reads_docs: Callable[[Path, str], bool] = lambda root, path: False
    # (root) -> whether the project's run of this runner runs the docstrings of its code
    # as tests (pytest's ``--doctest-modules``): a docstring change is then behavioural.
    runs_doctests: Callable[[Path], bool] = lambda root: False
    # (repo-relative path of a file changed as a whole: a test file, a fixture file) -> the
    # ids that run it (pytest: a test file itself; a ``conftest.py``, its directory).
    file_runs: Callable[[str], list[str]] = lambda path: []
    # (rev range or None) -> the runner's own command making warpline's selection for that
    # range itself (pytest: ``pytest --warpline-select=RANGE``); None: it has none.
    select_command: Callable[[str | None], str] | None = None
    # (root) -> the whole suite as this repository runs it (cargo: ``--workspace``, the
    # ``--all-features`` or ``nextest`` its CI uses); None: ``whole_suite``.
    whole_suite_at: Callable[[Path], str] | None = None
    # (root, a test id or file) -> whether this runner runs it in the repository at root:
    # rows owning the same files (the JavaScript runners) tell which one a file's package
    # uses (``warpline.runners.owner_of`` with a root); None: every id it owns.
    serves: Callable[[Path, str], bool] | None = None
    # (root, changed repo-relative paths) -> the work tree's test files that import them,
    # directly or through re-exports: a static selection's floor read from the work tree
    # (the JS runners'); None: the row has none beyond the graph's.
    import_floor: Callable[[Path, Sequence[str]], list[str]] | None = None


def suite_command(runner: Runner, root: Path) -> str:
    """The runner's whole suite in the repository at ``root``."""
    return runner.whole_suite_at(root) if runner.whole_suite_at is not None \
        else runner.whole_suite


def capped(ids: Sequence[str], max_ids: int,
           test_file: Callable[[str], str]) -> tuple[list[str], bool]:
    """``ids`` once each, in order; past ``max_ids`` their files instead (more tests, never
    fewer), and whether that happened: what every row's ``command`` names."""
    unique = list(dict.fromkeys(ids))
    if len(unique) <= max_ids:
        return unique, False
    return list(dict.fromkeys(test_file(i) for i in unique)), True

