"""The table of test runners: one row per runner warpline selects, runs and maps tests for.

A row (``warpline.runners.row.Runner``) says how the runner's tests are found, how a
repository is detected as using it, how a selection becomes its command, how its coverage
becomes a map and what its runs' receipts say; each row lives in its own module with
everything runner-specific behind it. Nothing outside this package (and the pytest plugin,
an adapter) decides runner semantics.

Adding a runner: a row module here, its line below, its tests (docs/runners.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from warpline.runners.ava import AVA
from warpline.runners.cargo import CARGO
from warpline.runners.gotest import GO_TEST
from warpline.runners.jest import JEST
from warpline.runners.maven import MAVEN
from warpline.runners.mocha import MOCHA
from warpline.runners.nodetest import NODE_TEST
from warpline.runners.pytest import PYTEST
from warpline.runners.row import Runner
from warpline.runners.vitest import VITEST

__all__ = ["RUNNERS", "Runner", "by_name", "changed_tests", "owner_of", "partition", "test_ids",
           "test_nodes", "used_for"]

RUNNERS: tuple[Runner, ...] = (PYTEST, GO_TEST, MAVEN, CARGO, VITEST, JEST, MOCHA, AVA,
                               NODE_TEST)

_BY_NAME = {runner.name: runner for runner in RUNNERS}


def by_name(name: str) -> Runner | None:
    return _BY_NAME.get(name)


def owner_of(test_id: str, root: Path | None = None) -> Runner | None:
    """The row a test id (or test file) belongs to: the first that owns it; with the
    repository's ``root``, among rows owning the same files (``serves``), the first that
    runs it there (without one, or where none does: the first that owns it)."""
    owning = [runner for runner in RUNNERS if runner.owns(test_id)]
    if root is not None and len(owning) > 1:
        serving = next((r for r in owning if r.serves is not None and r.serves(root, test_id)),
                       None)
        if serving is not None:
            return serving
    return owning[0] if owning else None


def partition(ids: Sequence[str], root: Path | None = None) -> dict[str, list[str]]:
    """Runner name -> its ids, in the given order, rows in table order (ids no row owns
    are left out; ``root``: as ``owner_of`` tells rows sharing files apart)."""
    out: dict[str, list[str]] = {runner.name: [] for runner in RUNNERS}
    for test_id in ids:
        owner = owner_of(test_id, root)
        if owner is not None:
            out[owner.name].append(test_id)
    return {name: found for name, found in out.items() if found}


def used_for(root: Path, languages: Iterable[str | None]) -> list[Runner]:
    """The rows that run the tests of a change in the repository at ``root``: the one place
    that decides "never a runner the repository does not use". ``languages``: each changed
    entity's language row name, None for a file no language row reads (a config, a data
    file). A row is used when the change holds code of its languages and it is detected
    (or is its language's default runner), or holds only such other files and it is
    detected."""
    changed = set(languages)
    used = []
    for runner in RUNNERS:
        code = any(name in changed for name in runner.languages)
        if (code and runner.language_default) or \
                ((code or None in changed) and runner.detect(root)):
            used.append(runner)
    return used


def test_nodes(graph: Any) -> list[str]:
    """Every row's test definitions in the edge snapshot's graph (locators, sorted)."""
    if len(RUNNERS) == 1:
        return RUNNERS[0].test_nodes(graph)
    return sorted({node for runner in RUNNERS for node in runner.test_nodes(graph)})


def test_ids(graph: Any, locator: str) -> list[str]:
    """The test ids, of whichever row, that run the test definition ``locator``."""
    return [i for runner in RUNNERS for i in runner.graph_tests(graph, locator)]


def changed_tests(graph: Any, locator: str, path: str | None, kind: str | None) -> list[str]:
    """The test ids a change to one entity runs by itself, every row's: a changed test
    definition runs itself (``graph_tests``; a definition the snapshot does not hold yet is
    asked of a one-node graph with the snapshot's discovery facts), a file or module
    changed as a whole runs what ``file_runs`` says."""
    if not path:
        return []
    owner = owner_of(path)
    if owner is None:
        return []
    if kind in ("file", "module"):
        return owner.file_runs(path)
    if graph is None or locator not in graph:
        import networkx as nx

        single = nx.DiGraph()
        single.add_node(locator, path=path, kind=kind)
        if graph is not None and "discovery" in graph.graph:
            single.graph["discovery"] = graph.graph["discovery"]
        graph = single
    return owner.graph_tests(graph, locator)
