"""The selection's rules that ask the runners' rows (``warpline.runners``) for changes in a
language other than Python (pytest's own rules stay in ``testselect``):

* a changed test runs itself: a changed test definition its test ids (``graph_tests``), a
  changed test file (or a definition in one that is no test: a helper, a field) the file
  whole; for a row that names a work-tree file's tests itself (``file_tests``: Go's),
  ``testselect`` asks it instead;
* tests a map cannot know: a changed test file of such a row the map holds no test of runs
  whole;
* what a map cannot see: definitions whose map tests depend on a changed one (``widen``:
  Java's static initializers), their tests added.
"""

from __future__ import annotations

from typing import Any

from warpline.lang import of_change
from warpline.runners import RUNNERS, Runner
from warpline.service.impact.seeds import Seed

__all__ = ["new_test_files", "own_tests", "record_command", "rows_of", "test_files",
           "widen_targets"]


def rows_of(seed: Seed) -> list[Runner]:
    """The rows (other than a language's default runner pytest) testing a seed's language."""
    lang = of_change(seed.locator, seed.path)
    if lang is None:
        return []
    return [r for r in RUNNERS if lang.name in r.languages and not r.language_default]


def test_files(graph: Any, runner: Runner) -> set[str]:
    """The files holding the row's tests in the graph (kept on the graph)."""
    if graph is None:
        return set()
    key = f"warpline_test_files:{runner.name}"
    cached: set[str] | None = graph.graph.get(key)
    if cached is None:
        cached = {runner.test_file(test_id) for node in runner.test_nodes(graph)
                  for test_id in runner.graph_tests(graph, node)}
        graph.graph[key] = cached
    return cached


def own_tests(graph: Any, seed: Seed) -> list[str]:
    """A changed test of another row runs itself; a change in one of its test files that is
    no test (a helper, a field, the file) runs the file whole."""
    out: list[str] = []
    for runner in rows_of(seed):
        if runner.file_tests is not None:
            continue  # testselect asks the work tree's file
        ids = runner.graph_tests(graph, seed.locator) if graph is not None else []
        if ids:
            out.extend(ids)
        elif seed.path and (seed.path in test_files(graph, runner)
                            or (graph is None and runner.is_test_file(seed.path))):
            out.append(seed.path)
    return list(dict.fromkeys(out))


def new_test_files(graph: Any, paths: frozenset[str], known: set[str]) -> list[str]:
    """Changed test files of the other rows the map holds no test of: run whole."""
    files_known = {t.split("::", 1)[0] for t in known}
    out = []
    for path in sorted(paths):
        for runner in RUNNERS:
            if runner.language_default or runner.file_tests is not None \
                    or not runner.owns(path):
                continue
            if (path in test_files(graph, runner) or runner.is_test_file(path)) \
                    and path not in files_known:
                out.append(path)
    return out


def widen_targets(graph: Any, seeds: list[Seed]) -> dict[str, list[str]]:
    """Per changed locator, the definitions whose map tests depend on it too (each row's
    ``widen``)."""
    out: dict[str, list[str]] = {}
    if graph is None:
        return out
    for seed in seeds:
        for runner in rows_of(seed):
            if runner.widen is not None:
                found = runner.widen(graph, [seed.locator])
                if found:
                    out.setdefault(seed.locator, []).extend(found)
    return out


def record_command(seeds: list[Seed], default: str) -> str:
    """How a map is recorded for the runners of these changes: the other rows' own
    ``record_command`` (joined when several), else ``default`` (pytest's)."""
    found = list(dict.fromkeys(r.record_command for seed in seeds for r in rows_of(seed)
                               if r.record_command))
    python = any(not rows_of(seed) for seed in seeds)
    if not found:
        return default
    return "` / `".join([*([default] if python else []), *found])
