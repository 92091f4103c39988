"""pytest's row: everything pytest-specific, behind the row's callables.

* tests: ``pytest_rules`` (the project's collection rules, read from its config as data),
  ``pytest_discovery`` (a graph's test functions, inherited methods, the import floor);
* detection and the command: ``pytest_command`` (a config or ``conftest.py`` at the root;
  one command per pytest rootdir);
* its map: ``pytest_coverage`` (coverage.py, one context per test; driven by the plugin's
  hooks through ``pytest_session``) and ``pytest_covimport`` (pytest-cov's data file);
* its receipt: ``pytest_receipt`` (the plugin's run watch writes it).

The plugin itself (hooks only) is ``warpline.pytest_plugin``, above the service.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from warpline.runners.pytest_command import MAX_IDS
from warpline.runners.row import Runner

if TYPE_CHECKING:
    import pygit2

    from warpline.store.testmaps import RecordedMap

NAME = "pytest"


def _detect(root: Path) -> bool:
    from warpline.runners.pytest_command import uses_pytest

    return uses_pytest(root)


def _file_of(test_id: str) -> str:
    return test_id.split("::", 1)[0]


def _owns(test_id: str) -> bool:
    # A node id, a test file, a directory (a changed conftest.py selects what is under it;
    # ``.`` is the whole root) or a doctest file (``README.rst``): a Python file or one no
    # other language row reads; the other languages' test files are their runners'.
    from warpline.lang import PYTHON, language_of

    return language_of(_file_of(test_id)) in (None, PYTHON)


def _is_test_file(path: str) -> bool:
    from warpline.runners.pytest_rules import DEFAULT_RULES

    return DEFAULT_RULES.is_test_file(path)


def _test_nodes(graph: Any) -> list[str]:
    from warpline.runners.pytest_discovery import graph_tests

    return graph_tests(graph)


def _graph_tests(graph: Any, locator: str) -> list[str]:
    from warpline.runners.pytest_discovery import collected_ids

    return collected_ids(graph, locator)


def _command(root: Path, ids: Sequence[str]) -> tuple[str, bool] | None:
    from warpline.runners.pytest_command import command_for

    return command_for(root, list(ids))


def _command_lines(root: Path, ids: Sequence[str]) -> list[str]:
    from warpline.runners.pytest_command import group_commands

    return group_commands(root, list(ids))


def _collectable(root: Path, ids: Sequence[str]) -> list[str]:
    from warpline.runners.pytest_collect import collectable

    return collectable(root, ids)


def _reads_docs(root: Path, path: str) -> bool:
    from warpline.runners.pytest_doctest import reads_docs

    return reads_docs(root, path)


def _runs_doctests(root: Path) -> bool:
    from warpline.runners.pytest_doctest import runs_doctests

    return runs_doctests(root)


def _file_runs(path: str) -> list[str]:
    from warpline.runners.pytest_discovery import file_runs

    return file_runs(path)


def _select_command(rev_range: str | None) -> str:
    import shlex

    return "pytest --warpline-select" + (f"={shlex.quote(rev_range)}" if rev_range else "")


def _import_map(root: Path, repo: pygit2.Repository, commit: pygit2.Commit, data: Path,
                rootdir: str) -> RecordedMap:
    from warpline.runners.pytest_covimport import recorded_map

    return recorded_map(root, repo, commit, data, rootdir)


def _run_input(path: str) -> bool:
    from warpline.runners.pytest_receipt import run_input

    return run_input(path)


PYTEST = Runner(
    name=NAME,
    languages=("python",),
    config_files=("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg",
                  "conftest.py"),
    detect=_detect,
    owns=_owns,
    test_file=_file_of,
    is_test_file=_is_test_file,
    test_nodes=_test_nodes,
    graph_tests=_graph_tests,
    command=_command,
    collectable=_collectable,
    whole_suite="pytest",
    record_command="pytest --warpline-record",
    import_map=_import_map,
    max_ids=MAX_IDS,
    run_input=_run_input,
    command_lines=_command_lines,
    language_default=True,
    suite_files=("requirements*.txt", "requirements/*.txt", "requirements/*.in",
                 "*requirements*.txt", "*requirements*.in", "constraints*.txt", "Pipfile",
                 "Pipfile.lock", "poetry.lock", "uv.lock", "pdm.lock", "pylock*.toml",
                 ".coveragerc", "MANIFEST.in"),
    reads_docs=_reads_docs,
    runs_doctests=_runs_doctests,
    file_runs=_file_runs,
    select_command=_select_command,
    example_ids=("tests/test_a.py::TestA::test_x[1-2]", "tests/test_a.py", "tests/unit", ".",
                 "src/pkg/mod.py::pkg.mod.f", "README.rst::README.rst"),
)
