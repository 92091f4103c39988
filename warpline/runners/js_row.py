"""What the JavaScript runners' rows share (Jest, Vitest, Mocha, AVA, ``node --test``):
one row each (``jest.py``, ``vitest.py``, ``mocha.py``, ``ava.py``, ``nodetest.py``), made
here from the runner's name.

The five rows read the same files (JavaScript and TypeScript): ``owns`` is true for all of
them, and ``serves(root, file)`` says which one runs a file there (the runner its package
uses: ``js_detect``). Ids are the same for every runner (``<file>`` or ``<file>::<suite> >
<test>``), so the graph's JS tests are answered by the first JS row of the table alone.
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

__all__ = ["JS_LANGUAGES", "js_row"]

JS_LANGUAGES = ("javascript", "typescript", "tsx")
MAX_IDS = 300
# The package's own definition of its whole suite (a script's environment, options and
# spec arguments included: `mocha --require … test/ test/acceptance/`).
WHOLE_SUITE = "npm test"
# Besides a runner's config files, what every JS runner's tests read: the installed
# dependencies' lock files, TypeScript's and Babel's configuration (a change to one runs
# the whole suite: ``Runner.suite_files``).
SUITE_FILES = ("package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml",
               "bun.lockb", ".yarnrc.yml", ".npmrc", ".nvmrc", ".node-version",
               "pnpm-workspace.yaml", "tsconfig.json", "tsconfig.*.json", "babel.config.js",
               "babel.config.cjs", "babel.config.mjs", "babel.config.json", ".babelrc",
               ".babelrc.js", ".babelrc.json", ".swcrc")


def _file_of(test_id: str) -> str:
    return test_id.split("::", 1)[0]


def _owns(test_id: str) -> bool:
    from warpline.lang import language_of

    lang = language_of(_file_of(test_id))
    return lang is not None and lang.name in JS_LANGUAGES


def js_row(name: str, config_files: tuple[str, ...], example_ids: tuple[str, ...],
           lead: bool = False) -> Runner:
    """The row of the JavaScript runner ``name`` (a ``js_detect.RUNNER_NAMES`` entry);
    ``lead``: the row answering for the graph's JS tests (the first in the table)."""

    def detect(root: Path) -> bool:
        from warpline.runners.js_detect import projects

        return any(p.runner == name for p in projects(root))

    def serves(root: Path, path: str) -> bool:
        from warpline.runners.js_detect import project_of

        project = project_of(root, _file_of(path))
        return project is not None and project.runner == name

    def is_test_file(path: str) -> bool:
        from warpline.runners.js_detect import JsProject
        from warpline.runners.js_files import is_test_file as configured

        return _owns(path) and configured(JsProject(Path("."), "", name), path)

    def test_nodes(graph: Any) -> list[str]:
        if not lead:
            return []
        from warpline.runners.js_discovery import graph_tests

        return graph_tests(graph)

    def graph_tests(graph: Any, locator: str) -> list[str]:
        if not lead:
            return []
        from warpline.runners.js_discovery import collected_ids

        return collected_ids(graph, locator)

    def command(root: Path, ids: Sequence[str]) -> tuple[str, bool] | None:
        if not ids:
            return None
        from warpline.runners.js_command import command_for

        chosen = list(dict.fromkeys(ids))
        widened = len(chosen) > MAX_IDS
        if widened:  # past the bound their files (more tests, never fewer)
            chosen = list(dict.fromkeys(_file_of(i) for i in chosen))
        text, more = command_for(root, name, chosen)
        return text, widened or more

    def collectable(root: Path, ids: Sequence[str]) -> list[str]:
        from warpline.runners.js_discovery import collectable as narrowed

        return narrowed(root, name, ids)

    def import_floor(root: Path, paths: Sequence[str]) -> list[str]:
        from warpline.runners.js_discovery import import_floor as floor

        return floor(root, name, paths)

    def file_runs(path: str) -> list[str]:
        # A test file changed as a whole runs itself (by any JS runner's defaults: the
        # rows share ids, the first answers for all).
        if not lead or not _owns(path):
            return []
        from warpline.runners.js_detect import RUNNER_NAMES, JsProject
        from warpline.runners.js_files import is_test_file as configured

        return [path] if any(configured(JsProject(Path("."), "", n), path)
                             for n in RUNNER_NAMES) else []

    def record(root: Path, repo: pygit2.Repository, commit: pygit2.Commit,
               jobs: int) -> tuple[RecordedMap, RunWatchState, int]:
        from warpline.runners.js_record import record as recorded

        return recorded(root, repo, commit, jobs, name)

    def run(root: Path, ids: Sequence[str] | None) -> tuple[RunWatchState, int]:
        from warpline.runners.js_run import run_ids

        return run_ids(root, name, ids)

    def run_input(path: str) -> bool:
        # An untracked JS/TS file or config beside the tests changes what a run loads.
        return _owns(path) or path.rsplit("/", 1)[-1] in config_files

    return Runner(
        name=name,
        languages=JS_LANGUAGES,
        config_files=config_files,
        detect=detect,
        owns=_owns,
        test_file=_file_of,
        is_test_file=is_test_file,
        test_nodes=test_nodes,
        graph_tests=graph_tests,
        command=command,
        collectable=collectable,
        whole_suite=WHOLE_SUITE,
        max_ids=MAX_IDS,
        run_input=run_input,
        example_ids=example_ids,
        record_command=f"warpline record-tests --runner {name}",
        record=record,
        run=run,
        suite_files=SUITE_FILES,
        file_runs=file_runs,
        serves=serves,
        import_floor=import_floor,
    )
