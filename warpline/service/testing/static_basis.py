"""The static graph's tests for changed entities: what answers when no test map does.

For a set of changed entities, the union of

* each one's suggested tests (its own nearest tests and its dependents', ``suggest``);
* every test from which one of them is reachable (``suggest.reaching_tests``);
* the import floor: the test files importing a changed entity's module, run whole
  (``discovery.floor_of_paths``), for code reached at run time through frameworks,
  callbacks and dunders, which the graph cannot see; and each runner row's own floor
  (``Runner.floor``: Go's is the test files of a changed package and of its importers;
  Maven's a changed class's own tests by name and the test files using the changed file),
  or read from the work tree (``Runner.import_floor``: the JS test files importing a
  changed file, directly or through re-exports).

Without a map this is the whole selection; with one, it answers for the changed entities
the map cannot (``testselect``). Either way it is the same answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from warpline.lang.locators import dotted_module
from warpline.runners import RUNNERS
from warpline.runners.pytest_discovery import floor_of_paths, imported_modules, rules_of
from warpline.service.impact import suggest

NO_IMPORT_FACTS = ("The edge snapshot carries no test-import facts (captured by an older "
                   "warpline, or by loomweave alone): the selection lacks the test files "
                   "importing the changed modules. Capture the snapshot again.")


@dataclass(slots=True)
class StaticAnswer:
    """The static basis's tests for some changed entities, and how they were found."""
    tests: list[str] = field(default_factory=list)
    floor_files: int = 0
    why: str = ""
    warnings: list[str] = field(default_factory=list)


@dataclass(slots=True)
class StaticBasis:
    """The static graph's view of the changed entities: ``entries`` holds, per changed
    locator, its suggestion entries and its dependents' (``suggest.suggestions``);
    ``paths`` its file (also for entities the snapshot does not hold yet)."""
    graph: nx.DiGraph | None
    entries: dict[str, list[dict[str, Any]]]
    paths: dict[str, str | None]
    root: Path | None = None  # the work tree the rows' import floors read

    def row_reads(self, path: str) -> bool:
        """Whether a row's import floor answers for ``path`` (a file of its languages)."""
        from warpline.lang import language_of

        lang = language_of(path)
        return lang is not None and any(r.import_floor is not None and lang.name in r.languages
                                        for r in RUNNERS)

    def row_floor(self, paths: list[str | None]) -> list[str]:
        """The rows' import floors for ``paths`` (each row once, in table order)."""
        changed = [p for p in paths if p]
        if self.root is None or not changed:
            return []
        out: dict[str, None] = {}
        for runner in RUNNERS:
            floor = runner.import_floor
            if floor is not None and runner.detect(self.root):
                out.update(dict.fromkeys(floor(self.root, changed)))
        return list(out)

    def covered(self, locator: str) -> bool:
        """Whether the static basis has any test for ``locator``: one reaching it, or a
        test file importing its module."""
        if any(e["kind"] == "test" and e.get("test_id") for e in self.entries.get(locator, [])):
            return True
        path = self.paths.get(locator)
        if not path or self.graph is None:
            return False
        if rules_of(self.graph).is_test_file(path):
            return True
        if any(runner.floor(self.graph, [path]) for runner in RUNNERS if runner.floor):
            return True
        if self.row_floor([path]):
            return True
        dotted = dotted_module(path)
        modules = imported_modules(self.graph)
        return bool(dotted and modules and dotted in modules)

    def answer(self, locators: list[str]) -> StaticAnswer:
        """The union for ``locators`` (``suggest.static_union``)."""
        out = StaticAnswer()
        if not locators:
            return out
        graph = self.graph
        reaching = suggest.reaching_entries(graph, locators) if graph is not None else []
        paths = [self.paths.get(loc) for loc in locators]
        floor = floor_of_paths(graph, paths)
        if floor is None:
            floor = []
            # (Python's facts: a change a row's work-tree floor answers needs none.)
            if graph is not None and not all(p and self.row_reads(p) for p in paths):
                out.warnings.append(NO_IMPORT_FACTS)
        for runner in RUNNERS:  # the rows' own floors (Go: a changed package's tests)
            found = runner.floor(graph, paths) if runner.floor is not None else None
            floor.extend(f for f in found or () if f not in floor)
        floor.extend(f for f in self.row_floor(paths) if f not in floor)
        per_item = [*(self.entries.get(loc, []) for loc in locators), reaching]
        out.tests, out.why = suggest.static_union(per_item, floor)
        out.floor_files = len(floor)
        return out
