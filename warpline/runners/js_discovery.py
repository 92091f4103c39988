"""The JavaScript runners' tests in the edge snapshot's graph, and a selection narrowed to
what the work tree still runs.

``describe``/``it`` bodies are callbacks, not entities: a test file's code is its module
entity, which is where the graph's walk from a changed definition ends. The graph knows
no root (its files' package configuration): its JS test files are the files some JS
runner runs by its defaults or that live in a test directory (``test/``, ``tests/``,
``__tests__/``, ``spec/``), a superset; ``collectable`` narrows the ids to the test files
the package's own runner runs, by its configuration, in the work tree.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from warpline.runners.js_command import names_of, split_id
from warpline.runners.js_detect import RUNNER_NAMES, JsProject, project_of
from warpline.runners.js_detect import projects as projects_of
from warpline.runners.js_files import is_test_file

__all__ = ["collectable", "collected_ids", "graph_tests", "is_js_test_path"]

_TEST_DIRS = frozenset({"test", "tests", "__tests__", "spec", "specs"})
_JS = (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts")


def is_js_test_path(path: str) -> bool:
    """A JS/TS file some JS runner runs by its defaults, or one in a test directory."""
    if not path.endswith(_JS) or "node_modules/" in path or path.endswith(".d.ts"):
        return False
    parts = path.split("/")
    if any(p in _TEST_DIRS for p in parts[:-1]):
        return True
    return any(is_test_file(JsProject(Path("."), "", name), path) for name in RUNNER_NAMES)


def graph_tests(graph: Any) -> list[str]:
    """The module locators of the graph's JS test files (sorted), cached on the graph."""
    cached: list[str] | None = graph.graph.get("warpline_js_tests")
    if cached is None:
        cached = sorted(node for node, attrs in graph._node.items()
                        if attrs.get("kind") == "module" and str(node).startswith("ts:")
                        and is_js_test_path(attrs.get("path") or ""))
        graph.graph["warpline_js_tests"] = cached
    return list(cached)


def collected_ids(graph: Any, locator: str) -> list[str]:
    """A JS test file's module runs as its file (every test in it)."""
    attrs = graph._node.get(locator) if locator in graph else None
    if not attrs or attrs.get("kind") != "module" or not str(locator).startswith("ts:"):
        return []
    path = attrs.get("path") or ""
    return [path] if is_js_test_path(path) else []


def collectable(root: Path, runner: str, ids: Sequence[str]) -> list[str]:
    """The ids the package's runner still runs in the work tree at ``root``: a file that is
    gone or that its runner does not run (a helper) dropped, a named test no longer
    defined in its file dropped (a file with computed names keeps them: they may be)."""
    out: list[str] = []
    names: dict[str, set[tuple[str, ...]] | None] = {}
    for test_id in ids:
        file, path = split_id(test_id)
        project = project_of(root, file)
        if project is None or project.runner != runner \
                or not is_test_file(project, project.relative(file)):
            continue
        if not (root / file).is_file():
            continue
        if path is not None:
            if file not in names:
                found = names_of(root, runner, file)
                names[file] = None if found is None or found.dynamic else \
                    {t.path for t in found.tests}
            known = names[file]
            if known is not None and path not in known:
                continue
        out.append(test_id)
    return out


def floor(graph: Any, paths: Sequence[str | None]) -> list[str] | None:
    """The JS test files whose module-level code (their ``describe``/``it`` bodies, the
    module's own) uses a changed file's definitions, directly or through modules that use
    them at module level (``index.js`` re-exports, barrels): the changed modules' own
    tests, as files. None when the graph holds no JS module (no facts to tell)."""
    if graph is None:
        return None
    nodes: dict[str, dict[str, Any]] = graph._node
    changed = {p for p in paths if p and p.endswith(_JS)}
    if not changed:
        return []
    if not any(str(n).startswith("ts:module:") for n in nodes):
        return None
    tests = set(graph_tests(graph))
    frontier = [n for n, attrs in nodes.items()
                if str(n).startswith("ts:") and attrs.get("path") in changed]
    seen = set(frontier)
    out: dict[str, None] = {}
    pred: dict[str, dict[str, Any]] = graph._pred
    while frontier:
        step = []
        for node in frontier:
            for user in pred.get(node, {}):
                if user in seen:
                    continue
                seen.add(user)
                attrs = nodes.get(user, {})
                if user in tests:
                    out[str(attrs.get("path"))] = None
                elif attrs.get("kind") == "module" and str(user).startswith("ts:"):
                    step.append(user)
        frontier = step
    for node in tests:  # a changed test file runs itself
        if nodes[node].get("path") in changed:
            out[str(nodes[node].get("path"))] = None
    return sorted(out)


def import_floor(root: Path, runner: str, paths: Sequence[str]) -> list[str]:
    """The test files of the packages using ``runner`` that import a changed JS/TS file,
    directly or through re-exports (``js_imports``), read from the work tree."""
    from warpline.runners.js_imports import importing_tests

    changed = [p for p in paths if p.endswith(_JS)]
    mine = [p for p in projects_of(root) if p.runner == runner]
    if not changed or not mine:
        return []

    def is_test(path: str) -> bool:
        project = project_of(root, path)
        return project is not None and project.runner == runner and \
            is_test_file(project, project.relative(path))

    return importing_tests(root, changed, is_test)
